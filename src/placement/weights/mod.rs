//! Real-valued weights over Figure 1, at a bounded cost per key whatever
//! the weights: a node heavier than the unit holds several whole slots of
//! Figure 1's axis, each node's first slot accepts the fraction of a slot
//! its weight leaves, and a refused key tries again, at most
//! [`MAX_ATTEMPTS`] times, before the nearest node of positive weight takes
//! it.
//!
//! # The construction
//!
//! Version [`CONSTRUCTION`]. For weights `w_0..w_{n-1}`, finite, not
//! negative, not all 0 (`p` of them positive, summing to `W`):
//!
//! 1. **The unit** `U` is the bulk's weight: the largest weight held by
//!    more than a quarter of the positive nodes, or when no weight is, their
//!    lower median (element `(p - 1) / 2`, from 0, of the positive weights
//!    sorted ascending). It is raised to `W / (2^31 - 1 - n)` when the
//!    heaviest nodes would otherwise need more slots than Figure 1 has, and
//!    to the largest weight when even that does not fit (always when
//!    `n = 2^31 - 1`).
//! 2. **Slots.** Node `i` holds `m_i = ceil(w_i / U)` slots (1 for weight
//!    0): its first slot accepts a key with probability
//!    `f_i = w_i / U - (m_i - 1)`, in `(0, 1]` (0 for weight 0), and its
//!    `m_i - 1` extra slots accept every key, so that its slots accept
//!    `w_i / U` slots' worth.
//! 3. **The axis** has `M = sum m_i` slots: slot `i < n` is node `i`'s
//!    first slot; slots `n..M` are the extra slots, node after node in
//!    index order.
//! 4. **Attempt** `a = 0, 1, ..., MAX_ATTEMPTS - 1` takes slot
//!    `s_a = figure1(k_a, M)`, where `k_0` is the key and `k_a` is XXH64
//!    of the key's 8 little-endian bytes with seed `a`, and its owner
//!    `x_a`. An extra slot accepts; a first slot accepts when `f_x >= 1`,
//!    or when `u_a < f_x` for the coin `u_a = (XXH64(key bytes,
//!    seed 2^32 + a) >> 11) * 2^-53` (drawn only when `0 < f_x < 1`).
//!    The first accepted attempt's node is the key's.
//! 5. **The fallback.** After `MAX_ATTEMPTS` refusals, each attempt names
//!    the first node of positive weight at or after `x_a`, cyclically,
//!    at distance `d_a` (0 when `x_a` has positive weight); the key goes
//!    to the one of least distance, the earliest attempt among equals.
//!
//! A table with one node of positive weight sends every key to it (what
//! every attempt and the fallback agree on), without attempts.
//!
//! # What it promises, and why
//!
//! - **All weights equal**: `U` is that weight, every `m_i = 1` and
//!   `f_i = 1`, `M = n`: attempt 0 accepts Figure 1's bucket, bit for bit.
//! - **Bounded cost**: at most `MAX_ATTEMPTS` Figure 1 evaluations over
//!   `M` slots, whatever the weights. Fewer in expectation: more than
//!   `p / 4` positive weights equal `U` (or at least `p / 2` are `>= U`,
//!   for the median), so `W / U > p / 4`, and the positive nodes'
//!   `sum m_i <= p + W / U` slots accept `W / U` slots' worth, more than
//!   a fifth of them: without weight 0, an attempt is accepted with
//!   probability above 1/5, whatever the weights (at most 5 attempts
//!   expected; in the usual tables, where most nodes weigh `U`, a few
//!   more and a few less, nearly every key is accepted at attempt 0). Slots of weight 0 refuse, so a
//!   table that is mostly 0 leans on the fallback. `M <= n + W / U` is at
//!   most 2^31 - 1 (step 1).
//! - **Shares**: an accepted attempt lands on node `i` with probability
//!   proportional to `w_i / U`, so the keys accepted at any attempt go to
//!   node `i` in the share `w_i / W`; only the fallback's keys are spread
//!   by distance instead.
//! - **One weight changed** (node `j`), **the unit staying the same**:
//!   - if `m_j` stays the same, keys move only onto or off `j`. The axis
//!     is unchanged, so every attempt lands on the same slot and owner,
//!     and only `j`'s first slot decides differently: a key not on `j`
//!     keeps every refusal but those on `j`, and its accepting attempt, so
//!     it stays or moves onto `j`. In the fallback, an attempt's nearest
//!     positive node changes only to `j` (`j` became positive, between
//!     the attempt and its old node) or from `j` (`j` became 0), so the
//!     winning entry stays unless a `j` entry wins or it was `j`'s.
//!   - if `m_j` changes (the weight crosses a multiple of `U`), keys move
//!     only onto or off `j` and the nodes of several slots after `j` in
//!     index order. Take a key's first attempt that differs between the
//!     tables. Same slot and owner: the owner decided differently, so it
//!     is `j`, which one table's answer is. Same slot, other owner: an
//!     extra slot among the runs after `j`'s first one, which both tables
//!     accept, so both answers are `j` or nodes after it. Other slot: by
//!     Figure 1's monotony, one table's slot is among the last
//!     `|M - M'|` slots, extra slots of `j` or of nodes after it, which
//!     accept: that table's answer is one of them.
//!
//!   A change of the unit moves keys everywhere. It takes a change of
//!   which weights more than a quarter of the positive nodes hold (or of
//!   the median, when none is): in a table where most nodes weigh the
//!   same, draining or growing a few nodes keeps it. Taking the largest
//!   such weight keeps the nodes of several slots few (the outliers
//!   above the bulk), and so the moves of the second case rare.
//!
//! Growing `n` is not monotone: a new node changes every attempt's slots,
//! as Figure 1 does, and may change the unit.
//!
//! ```
//! use jumpshard::{weights::Weights, BucketCount};
//!
//! let even = Weights::new(&[1.0; 10])?;
//! assert_eq!(even.bucket(42), jumpshard::bucket(42, BucketCount::new(10)?));
//!
//! let mut w = [1.0; 10];
//! w[3] = 0.5; // bucket 3 has half the capacity
//! let half = Weights::new(&w)?;
//! let on_3 = (0..100_000u64).filter(|&k| half.bucket(k) == 3).count();
//! assert!((on_3 as f64 / 100_000.0 - 0.5 / 9.5).abs() < 0.005);
//! # Ok::<(), jumpshard::Error>(())
//! ```

use crate::kernel::check_lengths;
use crate::kernel::scalar::jump;
use crate::kernel::xxh64;
use crate::{active_kernel, BucketCount, Error, Kernel};

mod rounds;
mod slots;
#[cfg(test)]
mod tests;

use slots::Axis;

/// The version of the construction above. Version 1 (jumpshard 0.3) was
/// rejection sampling over the `n` buckets with acceptance `w_i / max(w)`
/// and up to 64 attempts; version 2 gives other buckets for any table
/// whose weights are not all equal.
pub const CONSTRUCTION: u32 = 2;

/// Refusals after which a key takes the fallback (see the
/// [construction](self#the-construction)).
pub const MAX_ATTEMPTS: u32 = 8;

/// Batches shorter than this take attempt 0 on the kernel and decide each
/// key alone: the rounds' set-up and passes over whole vectors cost more
/// than a few keys' decisions, up to about 4 keys (half the nodes at
/// weight 1 and half at 4, Zen 4: one key 191 ns in the rounds and 120
/// alone, two 133 and 97 a key, four 81 and 85).
const SHORT: usize = 4;

/// Buckets with real-valued weights (see the [module documentation](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    axis: Axis,
    n: BucketCount,
}

impl Weights {
    /// Buckets `0..weights.len()` with these weights. Fails with
    /// [`Error::InvalidWeight`] for a negative, NaN or infinite weight,
    /// [`Error::AllWeightsZero`], and [`Error::InvalidBucketCount`] for no
    /// weights or more than 2^31 - 1.
    ///
    /// ```
    /// use jumpshard::{weights::Weights, Error};
    ///
    /// assert!(matches!(Weights::new(&[1.0, -2.0]), Err(Error::InvalidWeight { index: 1, .. })));
    /// assert!(matches!(Weights::new(&[1.0, f64::NAN]), Err(Error::InvalidWeight { index: 1, .. })));
    /// assert_eq!(Weights::new(&[0.0, 0.0]), Err(Error::AllWeightsZero));
    /// ```
    pub fn new(weights: &[f64]) -> Result<Weights, Error> {
        let n = BucketCount::try_from(weights.len())?;
        if let Some((index, w)) = weights
            .iter()
            .enumerate()
            .find(|(_, w)| !w.is_finite() || w.is_sign_negative() && **w != 0.0)
        {
            return Err(Error::InvalidWeight {
                index,
                weight: w.to_string(),
            });
        }
        if !weights.iter().any(|&w| w > 0.0) {
            return Err(Error::AllWeightsZero);
        }
        Ok(Weights {
            axis: Axis::new(weights),
            n,
        })
    }

    /// The number of buckets.
    pub fn len(&self) -> BucketCount {
        self.n
    }

    /// The bucket of `key`.
    pub fn bucket(&self, key: u64) -> u32 {
        if let [only] = self.axis.positive[..] {
            return only;
        }
        self.resolve(key, jump(key, self.axis.len))
    }

    /// The bucket of `key` whose attempt 0 took slot `first`.
    fn resolve(&self, key: u64, first: u32) -> u32 {
        let bytes = key.to_le_bytes();
        let mut best = (u32::MAX, 0);
        let mut slot = first;
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                let k = xxhash_rust::xxh64::xxh64(&bytes, u64::from(attempt));
                slot = jump(k, self.axis.len);
            }
            let node = self.axis.owner(slot);
            if slot >= self.n.get() || self.accepts(node, || xxh64::one(key, coin_seed(attempt))) {
                return node;
            }
            let candidate = self.axis.nearest(node);
            if candidate.0 < best.0 {
                best = candidate;
            }
        }
        best.1
    }

    /// [`Weights::bucket`] of every key, into `out[i]` for `keys[i]`, on the
    /// [`crate::active_kernel`]. Fails with [`Error::LengthMismatch`],
    /// leaving `out` untouched, when the lengths differ.
    ///
    /// ```
    /// use jumpshard::weights::Weights;
    ///
    /// let w = Weights::new(&[1.0, 0.25, 1.0, 0.0])?;
    /// let keys: Vec<u64> = (0..1000).collect();
    /// let mut out = vec![0; 1000];
    /// w.batch(&keys, &mut out)?;
    /// assert!(keys.iter().zip(&out).all(|(&k, &b)| b == w.bucket(k) && b != 3));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn batch(&self, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        self.batch_on(active_kernel(), keys, out)
    }

    /// [`Weights::batch`] on `kernel`, whichever the batch calls use.
    ///
    /// Attempt 0 is the kernel over the keys themselves, on the axis of
    /// `M` slots; the refused keys then go through the later attempts in
    /// rounds over blocks of keys, each round deriving the keys still
    /// refused and running the kernel over those alone. The derived keys
    /// and the coins are XXH64 on the kernel's lanes too. A batch of fewer
    /// than 4 keys decides each alone after attempt 0. The answers are
    /// [`Weights::bucket`]'s, bit for bit.
    pub fn batch_on(&self, kernel: Kernel, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        check_lengths(keys, out)?;
        if let [only] = self.axis.positive[..] {
            out.fill(only);
            return Ok(());
        }
        // Every node of one slot that accepts every key: attempt 0 is
        // Figure 1's bucket. (Not "positive and no coin": a positive weight
        // far below the unit has `f_i` 0, and refuses.)
        let n = self.n.get();
        if self.axis.plain {
            kernel.run(keys, n, out);
        } else if keys.len() < SHORT {
            kernel.run(keys, self.axis.len, out);
            for (b, &key) in out.iter_mut().zip(keys) {
                *b = self.resolve(key, *b);
            }
        } else {
            self.resolve_in_rounds(kernel, keys, out);
        }
        Ok(())
    }

    /// Whether node `node`'s first slot accepts the attempt whose coin
    /// `coin()` hashes; the coin is only asked for when its acceptance is
    /// fractional.
    #[inline]
    fn accepts(&self, node: u32, coin: impl FnOnce() -> u64) -> bool {
        let f = self.axis.accept[node as usize];
        if f >= 1.0 {
            return true;
        }
        // A node of weight 0 refuses whatever the coin says.
        f > 0.0 && ((coin() >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < f
    }
}

/// The seed of attempt `attempt`'s coin.
#[inline]
fn coin_seed(attempt: u32) -> u64 {
    (1 << 32) + u64::from(attempt)
}
