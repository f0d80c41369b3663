//! Real-valued weights, by rejection sampling over Figure 1 (the approach
//! of mcrouter's weighted CH3 and LogDevice's weighted_ch).
//!
//! # The computation
//!
//! Bucket `i` accepts a key with probability `p_i = w_i / max(w)`. A key
//! makes attempts `a = 0, 1, ...`: attempt `a` takes bucket
//! `b_a = figure1(k_a, n)`, where `k_0` is the key itself and `k_a` for
//! `a >= 1` is XXH64 of the key's 8 little-endian bytes with seed `a`; it
//! is accepted when `p_b >= 1`, or when `u_a < p_b` for the coin
//! `u_a = (XXH64(key bytes, seed 2^32 + a) >> 11) * 2^-53`. After
//! [`MAX_ATTEMPTS`] refusals the key goes to the attempted bucket of the
//! largest weight (the first attempt among equals); if every attempted
//! bucket weighs 0, to the first bucket of positive weight after the last
//! attempt's, cyclically.
//!
//! What it promises:
//!
//! - all weights equal: every key gets Figure 1's bucket, at attempt 0;
//! - changing one bucket's weight, the maximum staying the same, moves keys
//!   only onto or off that bucket (an attempt's outcome elsewhere does not
//!   depend on it, nor does the fallback, except to pick it or not);
//! - bucket `i` receives a share of the keys near `w_i / sum(w)`.
//!
//! What it does not: growing `n` is monotone only when the new buckets
//! carry the maximum weight (a new bucket changes the attempts' buckets,
//! as Figure 1 does, and a lighter one refuses some of the keys it draws);
//! and changing the maximum weight rescales every bucket's acceptance.
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

/// Refusals after which a key takes the fallback bucket; with weights all
/// above 0.1 of the maximum, fewer than one key in 10^2 reaches it.
pub const MAX_ATTEMPTS: u32 = 64;

/// Buckets with real-valued weights (see the [module documentation](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Each bucket's acceptance probability, `w_i / max(w)`.
    accept: Vec<f64>,
    /// The buckets of positive weight, ascending: the fallback's cyclic
    /// search for the next one is a binary search here, so that a table
    /// of 2^20 slots with one positive costs a key O(log n), not a scan of
    /// every slot.
    positive: Vec<u32>,
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
        let max = weights.iter().copied().fold(0.0, f64::max);
        if max == 0.0 {
            return Err(Error::AllWeightsZero);
        }
        let accept: Vec<f64> = weights.iter().map(|&w| w / max).collect();
        let positive = (0..n.get()).filter(|&i| accept[i as usize] > 0.0).collect();
        Ok(Weights {
            accept,
            positive,
            n,
        })
    }

    /// The number of buckets.
    pub fn len(&self) -> BucketCount {
        self.n
    }

    /// The bucket of `key`.
    pub fn bucket(&self, key: u64) -> u32 {
        self.resolve(key, jump(key, self.n.get()))
    }

    /// The bucket of `key` whose attempt 0 gave `first`.
    fn resolve(&self, key: u64, first: u32) -> u32 {
        let bytes = key.to_le_bytes();
        let mut best = first;
        let mut b = first;
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                let k = xxhash_rust::xxh64::xxh64(&bytes, u64::from(attempt));
                b = jump(k, self.n.get());
            }
            if self.accepts(key, attempt, b) {
                return b;
            }
            if self.accept[b as usize] > self.accept[best as usize] {
                best = b;
            }
        }
        if self.accept[best as usize] > 0.0 {
            return best;
        }
        self.next_positive(b)
    }

    /// The first bucket of positive weight after `b`, cyclically.
    fn next_positive(&self, b: u32) -> u32 {
        let after = self.positive.partition_point(|&i| i <= b);
        // `new` refuses a table with no positive weight.
        self.positive
            .get(after)
            .or(self.positive.first())
            .copied()
            .unwrap_or(b)
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
    /// Attempts run in rounds over blocks of keys: attempt 0 is the kernel
    /// over the keys themselves; each later attempt derives the keys still
    /// refused and runs the kernel over those alone, so that a mix of
    /// weights costs a kernel pass per attempt over the refused keys
    /// rather than a scalar Figure 1 loop per attempt and key. The derived
    /// keys and the coins are XXH64 on the kernel's lanes too. The answers
    /// are [`Weights::bucket`]'s, bit for bit.
    pub fn batch_on(&self, kernel: Kernel, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        check_lengths(keys, out)?;
        kernel.run(keys, self.n.get(), out);
        if self.accept.iter().all(|&p| p >= 1.0) {
            return Ok(());
        }
        let mut rounds = Rounds {
            tossing: self.accept.iter().any(|&p| p > 0.0 && p < 1.0),
            ..Rounds::default()
        };
        for (keys, out) in keys.chunks(ROUND_BLOCK).zip(out.chunks_mut(ROUND_BLOCK)) {
            rounds.resolve(self, kernel, keys, out);
        }
        Ok(())
    }

    /// Whether attempt `attempt` of `key`, on bucket `b`, is accepted.
    #[inline]
    fn accepts(&self, key: u64, attempt: u32, b: u32) -> bool {
        self.accepts_with(b, || xxh64::one(key, coin_seed(attempt)))
    }

    /// Whether bucket `b` accepts the attempt whose coin `coin()` hashes;
    /// the coin is only asked for when `b`'s weight is fractional.
    #[inline]
    fn accepts_with(&self, b: u32, coin: impl FnOnce() -> u64) -> bool {
        let p = self.accept[b as usize];
        if p >= 1.0 {
            return true;
        }
        // A bucket of weight 0 refuses whatever the coin says.
        p > 0.0 && ((coin() >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < p
    }

    /// Whether bucket `b` decides by a coin (its weight is fractional).
    #[inline]
    fn tosses(&self, b: u32) -> bool {
        let p = self.accept[b as usize];
        (p > 0.0) & (p < 1.0)
    }
}

/// The seed of attempt `attempt`'s coin.
#[inline]
fn coin_seed(attempt: u32) -> u64 {
    (1 << 32) + u64::from(attempt)
}

/// Keys resolved together by [`Weights::batch_on`]: small enough that
/// the round buffers stay in the first-level cache.
const ROUND_BLOCK: usize = 1024;

/// The round buffers of [`Weights::batch_on`], reused from block to block.
#[derive(Default)]
struct Rounds {
    /// Whether some weight is fractional, so that some attempts toss a coin.
    tossing: bool,
    /// Positions in the block of the keys still refused.
    pending: Vec<u32>,
    /// Each pending key's attempted bucket of the largest weight so far.
    best: Vec<u32>,
    /// The pending keys, then (hashed in place) their derived keys for
    /// this attempt.
    derived: Vec<u64>,
    /// Each pending key's bucket for this attempt.
    buckets: Vec<u32>,
    /// This attempt's coins, in order, for the keys on a fractional bucket.
    coins: Vec<u64>,
}

impl Rounds {
    /// Resolves the block's keys whose attempt 0 (in `out`) was refused.
    /// The derived keys and the coins are hashed on the kernel's lanes.
    fn resolve(&mut self, w: &Weights, kernel: Kernel, keys: &[u64], out: &mut [u32]) {
        let pairs = keys.iter().copied().zip(out.iter().copied());
        toss(&mut self.coins, self.tossing, w, kernel, 0, pairs);
        let mut coins = self.coins.iter().copied();
        self.pending.clear();
        self.best.clear();
        for (i, &b) in out.iter().enumerate() {
            if !w.accepts_with(b, || coins.next().expect("a coin per toss")) {
                self.pending.push(i as u32);
                self.best.push(b);
            }
        }
        for attempt in 1..MAX_ATTEMPTS {
            if self.pending.is_empty() {
                return;
            }
            self.derived.clear();
            self.derived
                .extend(self.pending.iter().map(|&i| keys[i as usize]));
            kernel.xxh64(&mut self.derived, u64::from(attempt));
            self.buckets.resize(self.derived.len(), 0);
            kernel.run(&self.derived, w.n.get(), &mut self.buckets);
            let pending = self.pending.iter().map(|&i| keys[i as usize]);
            let pairs = pending.zip(self.buckets.iter().copied());
            toss(&mut self.coins, self.tossing, w, kernel, attempt, pairs);
            let mut coins = self.coins.iter().copied();
            let mut kept = 0;
            for at in 0..self.pending.len() {
                let (i, b) = (self.pending[at], self.buckets[at]);
                if w.accepts_with(b, || coins.next().expect("a coin per toss")) {
                    out[i as usize] = b;
                    continue;
                }
                let best = if w.accept[b as usize] > w.accept[self.best[at] as usize] {
                    b
                } else {
                    self.best[at]
                };
                // `out` holds each refused key's latest attempt, which the
                // fallback starts from.
                out[i as usize] = b;
                self.pending[kept] = i;
                self.best[kept] = best;
                kept += 1;
            }
            self.pending.truncate(kept);
            self.best.truncate(kept);
        }
        for (&i, &best) in self.pending.iter().zip(&self.best) {
            let last = &mut out[i as usize];
            *last = if w.accept[best as usize] > 0.0 {
                best
            } else {
                w.next_positive(*last)
            };
        }
    }
}

/// Hashes attempt `attempt`'s coins into `coins`, in order, for the (key,
/// bucket) pairs whose bucket tosses one: gathered, then hashed on the
/// kernel's lanes. Nothing when no weight is fractional (`tossing` false).
/// The gather writes every key and advances past the tossing ones only,
/// with no branch on the bucket: whether a bucket tosses is as random as
/// the keys, and a mispredicted branch per key cost more than the lanes
/// saved.
fn toss(
    coins: &mut Vec<u64>,
    tossing: bool,
    w: &Weights,
    kernel: Kernel,
    attempt: u32,
    pairs: impl ExactSizeIterator<Item = (u64, u32)>,
) {
    coins.clear();
    if !tossing {
        return;
    }
    coins.resize(pairs.len(), 0);
    let mut n = 0;
    for (key, b) in pairs {
        coins[n] = key;
        n += usize::from(w.tosses(b));
    }
    coins.truncate(n);
    kernel.xxh64(coins, coin_seed(attempt));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: u64) -> Vec<u64> {
        (0..n)
            .map(|i| xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 3))
            .collect()
    }

    #[test]
    fn equal_weights_are_figure_1() {
        let keys = keys(if cfg!(miri) { 200 } else { 20_000 });
        for n in [1u32, 2, 10, 1000] {
            let w = Weights::new(&vec![2.5; n as usize]).unwrap();
            let count = BucketCount::new(n).unwrap();
            assert!(keys.iter().all(|&k| w.bucket(k) == crate::bucket(k, count)));
        }
    }

    /// Changing one bucket's weight moves keys only onto or off it; the
    /// shares follow the weights.
    #[test]
    #[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
    fn one_weight_changed_moves_keys_only_onto_or_off_it() {
        let keys = keys(100_000);
        let base = [1.0, 0.8, 1.0, 0.3, 1.0, 0.6, 0.05, 1.0];
        let before = Weights::new(&base).unwrap();
        let mut out_before = vec![0; keys.len()];
        before.batch(&keys, &mut out_before).unwrap();
        let total: f64 = base.iter().sum();
        for (i, &w) in base.iter().enumerate() {
            let share =
                out_before.iter().filter(|&&b| b as usize == i).count() as f64 / keys.len() as f64;
            assert!(
                (share - w / total).abs() < 0.01,
                "bucket {i}: {share} vs {}",
                w / total
            );
        }
        for (changed, new_weight) in [(3usize, 0.9), (1, 0.1), (6, 0.0), (3, 1.0)] {
            let mut w = base;
            w[changed] = new_weight;
            let after = Weights::new(&w).unwrap();
            let mut out_after = vec![0; keys.len()];
            after.batch(&keys, &mut out_after).unwrap();
            for (&x, &y) in out_before.iter().zip(&out_after) {
                assert!(
                    x == y || x as usize == changed || y as usize == changed,
                    "weight of {changed} -> {new_weight}: a key moved {x} -> {y}"
                );
                if new_weight == 0.0 {
                    assert_ne!(y as usize, changed);
                }
            }
        }
    }

    /// The batch's rounds on every kernel give what one key at a time gives,
    /// over the weight mixes that reach every branch (accepted at once, by
    /// a coin, after many refusals, the fallback to the heaviest attempt
    /// and to the next positive slot), every length up to 300 and
    /// misaligned slices.
    #[test]
    fn batches_on_every_kernel_are_one_key_at_a_time() {
        // Miri runs the same branches on a few keys and small tables, and
        // no sweep of lengths: the full sizes would take it hours.
        let (count, slots) = if cfg!(miri) { (24, 16) } else { (5000, 1000) };
        let keys = keys(count);
        let mut heavy = vec![1.0; slots];
        heavy[slots / 2] = 100.0;
        let mut sparse = vec![0.0; 4 * slots];
        sparse[4 * slots - 1 - slots / 10] = 1.0;
        sparse[7] = 1e-12;
        let mixes = [
            (0..slots)
                .map(|i| if i % 2 == 0 { 1.0 } else { 4.0 })
                .collect::<Vec<_>>(),
            heavy,
            (0..slots).map(|i| (i % 2) as f64).collect(),
            sparse,
            vec![1e-300, 1.0, 0.0],
        ];
        for weights in &mixes {
            let w = Weights::new(weights).unwrap();
            let want: Vec<u32> = keys.iter().map(|&k| w.bucket(k)).collect();
            for kernel in Kernel::supported() {
                let mut out = vec![0; keys.len()];
                w.batch_on(kernel, &keys, &mut out).unwrap();
                assert_eq!(out, want, "{kernel:?}");
                let lengths = if cfg!(miri) { 0 } else { 300 };
                for len in 0..lengths {
                    let start = len % 3 + 1;
                    let mut out = vec![u32::MAX; len];
                    w.batch_on(kernel, &keys[start..start + len], &mut out)
                        .unwrap();
                    assert_eq!(out, want[start..start + len], "{kernel:?} len {len}");
                }
            }
        }
    }

    /// The fallback's binary search finds what a cyclic scan of every slot
    /// finds, from every starting bucket, sparse and dense alike.
    #[test]
    fn next_positive_is_the_cyclic_scan() {
        for weights in [
            vec![0.0, 0.0, 0.001, 0.0, 1e-9],
            vec![1.0],
            vec![0.0, 0.0, 0.0, 5.0],
            vec![5.0, 0.0, 0.0, 0.0],
            vec![1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        ] {
            let w = Weights::new(&weights).unwrap();
            let n = weights.len() as u32;
            for b in 0..n {
                let scan = (1..=n)
                    .map(|step| (b + step) % n)
                    .find(|&i| weights[i as usize] > 0.0)
                    .unwrap();
                assert_eq!(w.next_positive(b), scan, "{weights:?} from {b}");
            }
        }
    }

    /// One positive slot among 2^20: every key reaches the fallback, which
    /// must land on that slot (the cost is measured in benches/weights.rs).
    #[test]
    #[cfg_attr(miri, ignore = "a table of 2^20 slots is slow under Miri")]
    fn one_positive_among_many_slots() {
        let mut weights = vec![0.0; 1 << 20];
        weights[12345] = 1.0;
        let w = Weights::new(&weights).unwrap();
        let keys = keys(2000);
        let mut out = vec![0; keys.len()];
        w.batch(&keys, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == 12345));
    }

    #[test]
    fn batches_agree_and_bad_weights_are_refused() {
        let keys = keys(if cfg!(miri) { 64 } else { 5000 });
        let w = Weights::new(&[0.0, 0.0, 0.001, 0.0, 1e-9]).unwrap();
        let mut out = vec![0; keys.len()];
        w.batch(&keys, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == 2 || b == 4));
        assert!(keys.iter().zip(&out).all(|(&k, &b)| w.bucket(k) == b));
        assert!(matches!(
            Weights::new(&[]),
            Err(Error::InvalidBucketCount { value: 0 })
        ));
        assert!(matches!(
            Weights::new(&[1.0, f64::INFINITY]),
            Err(Error::InvalidWeight { index: 1, .. })
        ));
        assert!(Weights::new(&[-0.0, 1.0]).is_ok());
        let mut short = [7u32; 1];
        assert_eq!(
            w.batch(&[1, 2], &mut short),
            Err(Error::LengthMismatch { keys: 2, out: 1 })
        );
        assert_eq!(short, [7]);
    }
}
