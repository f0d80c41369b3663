//! Replica sets: k distinct buckets per key, the first of them Figure 1's.
//!
//! # The construction (version 2, [`CONSTRUCTION`])
//!
//! A key's set among `n >= k` buckets is a reservoir sample of `0..n` made
//! consistent: growing from `c - 1` to `c` buckets, the new bucket `c - 1`
//! enters the set with probability `k / c`, taking the place of one member
//! chosen uniformly. So every k-subset is equally likely, growing changes at
//! most one member, and with probability exactly `k / (n + 1)`.
//!
//! The set has `k` slots (positions). Slot 0 is Figure 1 itself: its bucket
//! is `figure1(key, n)`, and it takes the new bucket exactly when Figure 1
//! jumps there (probability `1 / c`). Slot `j >= 1` runs Figure 1's loop
//! over the derived key `key_j = XXH64(key's 8 little-endian bytes, seed
//! j)`, on an axis shifted by `j`: from the state `b = k - 1 - j` (as if it
//! had just landed on bucket `k - 1`), each step computes Figure 1's next
//! `j'` and lands on bucket `j' + j`, until that reaches `n`. A landing on
//! bucket `x` at count `c = x + 1` therefore happens with probability
//! `1 / (c - j)`, and a bucket is taken by the lowest slot that lands on
//! it, which makes each slot's chance `(c - 1)/c * (c - 2)/(c - 1) * ... *
//! 1/(c - j) = 1 / c`: the reservoir's uniform choice of the member
//! replaced. A slot's bucket is the last bucket it landed on and took, or
//! its starting bucket.
//!
//! The starting buckets are the set at `n = k`, which is `0..k`: slot 0
//! holds `s = figure1(key, k)`, and the other `k - 1` buckets are dealt to
//! slots `1..k` in a key-derived uniform order. Listed in increasing order
//! as `L[0..k-1]` (`0..k` without `s`), they are shuffled by Fisher-Yates:
//! for `i` from `k - 2` down to 1, `r = XXH64(key's 8 little-endian bytes,
//! seed 2^41 + i)`, `t = (r * (i + 1)) >> 64` (the high half of the 128-bit
//! product, uniform over `0..=i` up to a bias of `(i + 1) / 2^64`), swap
//! `L[i]` and `L[t]`; slot `j` starts on `L[j - 1]`. (Version 1 dealt them
//! in increasing order, so that position 1 never held bucket 2 of 3 and
//! bucket 0 held up to `k - 1` times its share of a position. Version 2
//! changes only the members that still sit on their starting bucket below
//! `k`, about `k / n` of each position.)
//!
//! ## Every position is balanced, at every `n >= k`
//!
//! Claim: slot `j` holds each bucket of `0..c` with probability `1 / c`
//! when the count is `c`. At `c = k`, slot 0 holds `figure1(key, k)`,
//! uniform over `0..k`, and slot `j >= 1` holds bucket `b` when slot 0 does
//! not (probability `(k - 1) / k`) and the uniform order deals `b` to it
//! (`1 / (k - 1)`): `1 / k`. From `c - 1` to `c`: slot `j` takes bucket
//! `c - 1` when it lands there and no lower slot does, probability `1 / c`
//! as above. That event depends only on the landings at bucket `c - 1`,
//! which are independent of everything that decided the slot's member at
//! `c - 1` (the landings below `c - 1` and the starting order, drawn with
//! seeds of their own). So the slot holds `c - 1` with probability `1 / c`,
//! and any `b < c - 1` with probability `1 / (c - 1) * (1 - 1 / c) = 1 /
//! c`. By induction, each position is uniform at every count.
//!
//! Each slot costs about `ln(n / k)` steps of Figure 1's loop. One key's set
//! ([`set`]) steps its walks side by side. Batches of sets of up to 8 members
//! run every slot on the active kernel's SIMD lanes, in runs of keys, the
//! highest slot on the kernel itself: on AVX-512 and AVX2 each lane takes the
//! next key as soon as its walk is done, on NEON four keys step in lockstep,
//! and short batches go in lockstep blocks of 16 keys (8 on AVX2 when no more
//! are left), but for a last block of a few keys, which goes one key at a time;
//! the scalar kernel takes one key at a time (see `docs/kernels.md`, "Replica
//! sets on the lanes" and "Short calls of the placement batches"); larger sets
//! run column 0 on the kernel and the rest one key at a time.
//!
//! ```
//! use jumpshard::{replicas, BucketCount};
//!
//! let n = BucketCount::new(100)?;
//! let mut set = [0u32; 3];
//! replicas::set(1253737204188795044, n, &mut set)?;
//! assert_eq!(set[0], jumpshard::bucket(1253737204188795044, n));
//! assert!(set[0] != set[1] && set[1] != set[2] && set[0] != set[2]);
//!
//! // Growing by one bucket changes at most one member.
//! let mut grown = [0u32; 3];
//! replicas::set(1253737204188795044, BucketCount::new(101)?, &mut grown)?;
//! assert!(set.iter().zip(&grown).filter(|(a, b)| a != b).count() <= 1);
//! # Ok::<(), jumpshard::Error>(())
//! ```

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod lanes;
mod one_key;
mod refill;
#[cfg(target_arch = "x86_64")]
mod refill_avx2;
#[cfg(target_arch = "x86_64")]
mod refill_avx512;
mod refill_plain;
mod slots;
mod walk;

pub(crate) use slots::Slots;

use crate::{active_kernel, BucketCount, Error};

/// The version of the construction above that [`set`] and [`batch`]
/// compute, and with them every front end's replica sets. Version 2 deals
/// the starting buckets of slots `1..k` in a key-derived uniform order
/// (version 1 dealt them in increasing order), so that every position of
/// the set is balanced on its own; the golden vectors in
/// `testdata/replicas/` pin it down.
pub const CONSTRUCTION: u32 = 2;

/// The most members a set may have. A set's working memory grows with `k`
/// and its time with `k^2` per key, so a count of billions, legal against
/// a count of 2^31 - 1 buckets, would exhaust memory instead of failing:
/// [`check`] refuses it by value first, naming this limit. A replica set
/// holds a handful of members; a thousand is already far past any use.
pub const MAX_REPLICAS: usize = 1024;

/// The replica set of `key` among `num_buckets`, one bucket per element of
/// `out` (`k = out.len()` distinct buckets, `out[0]` Figure 1's). Fails as
/// [`check`] does, leaving `out` untouched.
pub fn set(key: u64, num_buckets: BucketCount, out: &mut [u32]) -> Result<(), Error> {
    check(out.len(), num_buckets)?;
    if out.is_empty() {
        return Ok(());
    }
    one_key::set(key, num_buckets.get(), out);
    Ok(())
}

/// Whether sets of `k` members can be drawn from `num_buckets` buckets:
/// [`Error::TooManyReplicas`], naming both, when `k` exceeds the count, and
/// [`Error::ReplicasOverLimit`] when it does not but exceeds
/// [`MAX_REPLICAS`]. Front ends call it with the count their caller gave,
/// before they allocate `k` columns or sets.
///
/// ```
/// use jumpshard::{replicas, BucketCount, Error};
///
/// let n = BucketCount::new(10)?;
/// assert!(replicas::check(3, n).is_ok());
/// assert_eq!(
///     replicas::check(1 << 40, n),
///     Err(Error::TooManyReplicas { replicas: 1 << 40, buckets: 10 })
/// );
/// assert_eq!(
///     replicas::check(5000, BucketCount::new(1 << 20)?),
///     Err(Error::ReplicasOverLimit { replicas: 5000, limit: 1024 })
/// );
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn check(k: usize, num_buckets: BucketCount) -> Result<(), Error> {
    if k > MAX_REPLICAS && k <= num_buckets.get() as usize {
        return Err(Error::ReplicasOverLimit {
            replicas: k,
            limit: MAX_REPLICAS,
        });
    }
    if k > num_buckets.get() as usize {
        return Err(Error::TooManyReplicas {
            replicas: k,
            buckets: num_buckets.get(),
        });
    }
    Ok(())
}

/// The replica sets of a batch of keys, as `k` columns: `columns[j][i]` is
/// member `j` of the set of `keys[i]` ([`set`]), on the
/// [`crate::active_kernel`]'s lanes. Fails, leaving every column untouched, as
/// [`check`] does, or with [`Error::LengthMismatch`] when a column's length
/// differs from the keys'.
///
/// ```
/// use jumpshard::{replicas, BucketCount};
///
/// let n = BucketCount::new(1000)?;
/// let keys: Vec<u64> = (0..500).collect();
/// let (mut first, mut second, mut third) = (vec![0; 500], vec![0; 500], vec![0; 500]);
/// replicas::batch(&keys, n, &mut [&mut first, &mut second, &mut third])?;
/// let mut set = [0u32; 3];
/// replicas::set(keys[42], n, &mut set)?;
/// assert_eq!([first[42], second[42], third[42]], set);
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn batch(
    keys: &[u64],
    num_buckets: BucketCount,
    columns: &mut [&mut [u32]],
) -> Result<(), Error> {
    let n = num_buckets.get();
    fill_columns(keys, n, num_buckets, columns, |_, _| {})
}

/// The sets of `keys` over a first stage of `n` buckets into `columns`
/// (`k` of them), at most `available` members, on the
/// [`crate::active_kernel`]: for sets of up to [`lanes::MAX_LANE_SLOTS`]
/// members, on AVX2, AVX-512 and NEON the runs of `refill::Runs` from
/// `refill::MIN_KEYS` keys, the lanes' blocks for fewer (a last block
/// of a few keys one key at a time), on the scalar kernel one key at a
/// time ([`one_key`]); larger sets run column 0 on the kernel and the rest
/// [`Slots::fill`]'s. The columns are then passed to `adjust` (a
/// Memento's replay of its removals), a run of keys at a time or all at
/// once, with those keys. Fails, writing nothing, as [`check`] does or with
/// [`Error::LengthMismatch`].
pub(crate) fn fill_columns(
    keys: &[u64],
    n: u32,
    available: BucketCount,
    columns: &mut [&mut [u32]],
    adjust: impl FnMut(&[u64], &mut [&mut [u32]]),
) -> Result<(), Error> {
    fill_columns_on(active_kernel(), keys, n, available, columns, adjust)
}

/// Whether `columns` can take the sets of `keys` keys among `available`
/// buckets: [`check`] of their count, then each column's length.
pub(crate) fn check_columns(
    keys: usize,
    columns: &[&mut [u32]],
    available: BucketCount,
) -> Result<(), Error> {
    check(columns.len(), available)?;
    match columns.iter().find(|c| c.len() != keys) {
        Some(bad) => Err(Error::LengthMismatch {
            keys,
            out: bad.len(),
        }),
        None => Ok(()),
    }
}

/// [`fill_columns`] on `kernel`.
pub(crate) fn fill_columns_on(
    kernel: crate::Kernel,
    keys: &[u64],
    n: u32,
    available: BucketCount,
    columns: &mut [&mut [u32]],
    mut adjust: impl FnMut(&[u64], &mut [&mut [u32]]),
) -> Result<(), Error> {
    check_columns(keys.len(), columns, available)?;
    let k = columns.len();
    if k == 0 {
        return Ok(());
    }
    if (2..=lanes::MAX_LANE_SLOTS).contains(&k) {
        // The scalar kernel's walks are plain code on every path, and a
        // key's walks stepped side by side keep as many chains in flight
        // as the runs' four keys in lockstep, with no rows to write and no
        // keys to deal: one key at a time at every length (Zen 4, k = 3:
        // 115 ns a set, against 120 in runs and 230 in blocks). NEON keeps
        // the runs and blocks, whose lockstep loops it may vectorize.
        if kernel.name() == "scalar" {
            // In runs, as the lanes' runs go, so that each run's replay
            // finds its sets in the cache.
            refill::in_runs(keys, columns, |keys, parts| {
                one_key::each(keys, 0, n, parts);
                adjust(keys, parts);
            });
            return Ok(());
        }
        if keys.len() >= refill::MIN_KEYS {
            crate::scratch::with(|areas: &mut refill::Areas| {
                refill::Runs::new(kernel, k, areas).fill(keys, n, columns, &mut adjust)
            });
            return Ok(());
        }
        // A block costs about what its keys cost at full width however few
        // it holds, so the last block's keys go one at a time when they
        // are too few to pay for it: up to where one key at a time costs
        // what the block does (k = 3, N = 1000). Blocks of up to 8 keys
        // step half the vectors (`lanes::HALF`). On AVX-512, a Sapphire
        // Rapids-class Xeon: a set alone 127-137 ns, a half block about
        // 440 plus 12 a key, a full one 620 plus 9 (Zen 4's full block:
        // 540 plus 12, a set alone 117). On AVX2, Zen 3: a set alone
        // 140, a half block about 830 plus 20 a key, a full one about
        // 1250 plus 5 (Zen 4's full block crossed at 9 keys too). NEON,
        // not measured and without half blocks, takes the full-block
        // crossing.
        let alone = match kernel.name() {
            "avx512" => 3,
            "avx2" => 6,
            _ => 9,
        };
        let on_lanes = match keys.len() % walk::LANES {
            r if r <= alone => keys.len() - r,
            _ => keys.len(),
        };
        one_key::each(keys, on_lanes, n, columns);
        if on_lanes > 0 {
            let mut blocks = lanes::Blocks::new(kernel, k);
            let mut sets = [0u32; walk::LANES * lanes::MAX_LANE_SLOTS];
            for (b, block) in keys[..on_lanes].chunks(walk::LANES).enumerate() {
                let sets = &mut sets[..block.len() * k];
                blocks.fill(block, n, sets);
                for (l, set) in sets.chunks_exact(k).enumerate() {
                    let i = b * walk::LANES + l;
                    for (column, &member) in columns.iter_mut().zip(set.iter()) {
                        column[i] = member;
                    }
                }
            }
        }
        adjust(keys, columns);
        return Ok(());
    }
    let (first, rest) = columns.split_first_mut().expect("k >= 1");
    kernel.run(keys, n, first);
    let mut slots = Slots::default();
    let mut set = vec![0u32; k];
    for (i, &key) in keys.iter().enumerate() {
        slots.fill(key, n, first[i], &mut set);
        for (column, &b) in rest.iter_mut().zip(&set[1..]) {
            column[i] = b;
        }
    }
    adjust(keys, columns);
    Ok(())
}

#[cfg(test)]
mod lanes_tests;
#[cfg(test)]
pub(crate) mod tests;
