//! Replica sets: k distinct buckets per key, the first of them Figure 1's.
//!
//! # The construction
//!
//! A key's set among `n >= k` buckets is a reservoir sample of `0..n` made
//! consistent: growing from `c - 1` to `c` buckets, the new bucket `c - 1`
//! enters the set with probability `k / c`, taking the place of one member
//! chosen uniformly. So every k-subset is equally likely, growing changes at
//! most one member, and with probability exactly `k / (n + 1)`.
//!
//! The set has `k` slots. Slot 0 is Figure 1 itself: its bucket is
//! `figure1(key, n)`, and it takes the new bucket exactly when Figure 1 jumps
//! there (probability `1 / c`). Slot `j >= 1` runs Figure 1's loop over the
//! derived key `key_j = XXH64(key's 8 little-endian bytes, seed j)`, on an
//! axis shifted by `j`: from the state `b = k - 1 - j` (as if it had just
//! landed on bucket `k - 1`), each step computes Figure 1's next `j'` and
//! lands on bucket `j' + j`, until that reaches `n`. A landing on bucket `x`
//! at count `c = x + 1` therefore happens with probability `1 / (c - j)`, and
//! a bucket is taken by the lowest slot that lands on it, which makes each
//! slot's chance `(c - 1)/c * (c - 2)/(c - 1) * ... * 1/(c - j) = 1 / c`:
//! the reservoir's uniform choice of the member replaced. At `n = k` the set
//! is `0..k`: slot 0 holds `figure1(key, k)` and slots `1..k` the other
//! buckets in increasing order. A slot's bucket is the last bucket it landed
//! on and took, or that starting one.
//!
//! Each slot costs about `ln(n / k)` steps of Figure 1's loop; slot 0 runs
//! on the SIMD kernels in batches.
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

use crate::kernel::scalar::{jump, next_jump, LCG_MULTIPLIER};
use crate::{active_kernel, BucketCount, Error};

/// The most members a set may have. A set's working memory grows with `k`
/// and its time with `k^2` per key, so a count of billions, legal against
/// a count of 2^31 - 1 buckets, would exhaust memory instead of failing:
/// [`check`] refuses it by value first, naming this limit. A replica set
/// holds a handful of members; a thousand is already far past any use.
pub const MAX_REPLICAS: usize = 1024;

/// The key that slot `slot` (1 or more) runs Figure 1's loop over.
#[inline]
fn slot_key(key: u64, slot: usize) -> u64 {
    xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), slot as u64)
}

/// The buckets slot `slot >= 1` lands on below `n`, in increasing order, for
/// a set of `k` slots.
fn landings(key: u64, slot: usize, k: u32, n: u32, out: &mut Vec<u32>) {
    out.clear();
    let shift = slot as u32;
    // Figure 1's loop from `b = k - 1 - slot`; `next_jump` is its quotient,
    // bit for bit.
    let mut state = slot_key(key, slot);
    let mut b = i64::from(k - 1 - shift);
    let end = i64::from(n - shift);
    loop {
        state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        let next = next_jump((b + 1) as u32, state);
        if next >= end {
            return;
        }
        out.push(next as u32 + shift);
        b = next;
    }
}

/// Figure 1's landings for slot 0 at or above `k`, below `n`.
fn first_landings(key: u64, k: u32, n: u32, out: &mut Vec<u32>) {
    out.clear();
    let mut state = key;
    let mut j = 0i64;
    while j < i64::from(n) {
        let b = j;
        if b >= i64::from(k) {
            out.push(b as u32);
        }
        state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        j = next_jump((b + 1) as u32, state);
    }
}

/// Working buffers of one key's slots, reused from key to key.
#[derive(Default)]
pub(crate) struct Slots {
    landings: Vec<Vec<u32>>,
}

impl Slots {
    /// The set of `key` into `out` (`out.len() = k <= n`), slot 0 given.
    pub(crate) fn fill(&mut self, key: u64, n: u32, first: u32, out: &mut [u32]) {
        let k = out.len() as u32;
        out[0] = first;
        if k == 1 {
            return;
        }
        self.landings.resize_with(out.len(), Vec::new);
        first_landings(key, k, n, &mut self.landings[0]);
        // The starting buckets of slots 1..k: 0..k without slot 0's.
        let start = jump(key, k);
        let mut initial = (0..k).filter(|&b| b != start);
        for (slot, member) in out.iter_mut().enumerate().skip(1) {
            let (lower, this) = self.landings.split_at_mut(slot);
            landings(key, slot, k, n, &mut this[0]);
            let taken = this[0]
                .iter()
                .rev()
                .find(|x| !lower.iter().any(|l| l.binary_search(x).is_ok()));
            let initial = initial.next().expect("k - 1 starting buckets");
            *member = taken.copied().unwrap_or(initial);
        }
    }
}

/// The replica set of `key` among `num_buckets`, one bucket per element of
/// `out` (`k = out.len()` distinct buckets, `out[0]` Figure 1's). Fails as
/// [`check`] does, leaving `out` untouched.
pub fn set(key: u64, num_buckets: BucketCount, out: &mut [u32]) -> Result<(), Error> {
    check(out.len(), num_buckets)?;
    if out.is_empty() {
        return Ok(());
    }
    let n = num_buckets.get();
    Slots::default().fill(key, n, jump(key, n), out);
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
/// member `j` of the set of `keys[i]` ([`set`]). Column 0 runs on the
/// [`crate::active_kernel`]. Fails, leaving every column untouched, as
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
/// (`k` of them), at most `available` members: column 0 is Figure 1 on the
/// kernels, the rest [`Slots::fill`]'s, each set then passed through
/// `adjust` (a Memento's replay of its removals) before it is written.
/// Fails, writing nothing, as [`check`] does or with
/// [`Error::LengthMismatch`].
pub(crate) fn fill_columns(
    keys: &[u64],
    n: u32,
    available: BucketCount,
    columns: &mut [&mut [u32]],
    adjust: impl Fn(u64, &mut [u32]),
) -> Result<(), Error> {
    check(columns.len(), available)?;
    if let Some(bad) = columns.iter().find(|c| c.len() != keys.len()) {
        return Err(Error::LengthMismatch {
            keys: keys.len(),
            out: bad.len(),
        });
    }
    let Some((first, rest)) = columns.split_first_mut() else {
        return Ok(());
    };
    active_kernel().run(keys, n, first);
    let mut slots = Slots::default();
    let mut set = vec![0u32; rest.len() + 1];
    for (i, &key) in keys.iter().enumerate() {
        slots.fill(key, n, first[i], &mut set);
        adjust(key, &mut set);
        first[i] = set[0];
        for (column, &b) in rest.iter_mut().zip(&set[1..]) {
            column[i] = b;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(i: u64) -> u64 {
        xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0x5EED)
    }

    fn set_of(key: u64, n: u32, k: usize) -> Vec<u32> {
        let mut out = vec![0; k];
        set(key, BucketCount::new(n).unwrap(), &mut out).unwrap();
        out
    }

    /// Distinct members, the first Figure 1's; growing by one bucket changes
    /// at most one member, and only to the new bucket, with probability
    /// about k / (n + 1).
    #[test]
    #[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
    fn growth_changes_at_most_one_member_with_probability_k_over_n() {
        for k in [1usize, 2, 3, 5] {
            for n in [k as u32, k as u32 + 1, 10, 99, 1000] {
                if (n as usize) < k {
                    continue;
                }
                let keys = 20_000u64;
                let mut changed = 0u64;
                for i in 0..keys {
                    let key = mix(i);
                    let before = set_of(key, n, k);
                    let after = set_of(key, n + 1, k);
                    assert_eq!(before[0], crate::bucket(key, BucketCount::new(n).unwrap()));
                    let mut sorted = before.clone();
                    sorted.sort_unstable();
                    sorted.dedup();
                    assert_eq!(sorted.len(), k, "duplicate member: {before:?}");
                    assert!(before.iter().all(|&b| b < n));
                    let diffs: Vec<usize> = (0..k).filter(|&j| before[j] != after[j]).collect();
                    assert!(diffs.len() <= 1, "k {k}, n {n}: {before:?} -> {after:?}");
                    if let Some(&j) = diffs.first() {
                        assert_eq!(after[j], n, "a member moved to an old bucket");
                        changed += 1;
                    }
                }
                let p = k as f64 / f64::from(n + 1);
                let want = p * keys as f64;
                let sigma = (want * (1.0 - p)).sqrt();
                assert!(
                    (changed as f64 - want).abs() < 5.0 * sigma + 1.0,
                    "k {k}, n {n}: {changed} changed, expected {want}"
                );
            }
        }
    }

    /// Every bucket holds about k / n of the replicas: the set is a uniform
    /// sample, including the first buckets, which every set starts from.
    #[test]
    #[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
    fn members_spread_evenly_over_the_buckets() {
        let (n, k, keys) = (50u32, 3usize, 200_000u64);
        let mut load = vec![0u64; n as usize];
        for i in 0..keys {
            for b in set_of(mix(i), n, k) {
                load[b as usize] += 1;
            }
        }
        let mean = (keys * k as u64) as f64 / f64::from(n);
        for (b, &got) in load.iter().enumerate() {
            assert!(
                (got as f64 - mean).abs() < 6.0 * mean.sqrt(),
                "bucket {b}: {got} replicas, mean {mean}"
            );
        }
    }

    #[test]
    fn batches_are_the_one_key_sets_and_bad_arguments_are_refused() {
        let keys: Vec<u64> = (0..300).map(mix).collect();
        for n in [3u32, 17, 1 << 20, (1 << 31) - 1] {
            let count = BucketCount::new(n).unwrap();
            let mut columns = vec![vec![0u32; keys.len()]; 3];
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            batch(&keys, count, &mut refs).unwrap();
            for (i, &key) in keys.iter().enumerate() {
                let want = set_of(key, n, 3);
                assert_eq!([columns[0][i], columns[1][i], columns[2][i]], want[..]);
            }
        }
        let two = BucketCount::new(2).unwrap();
        let mut out = [7u32; 3];
        assert_eq!(
            set(1, two, &mut out),
            Err(Error::TooManyReplicas {
                replicas: 3,
                buckets: 2
            })
        );
        assert_eq!(out, [7; 3]);
        let (mut a, mut b) = (vec![9u32; 4], vec![9u32; 3]);
        assert_eq!(
            batch(&[1, 2, 3, 4], two, &mut [&mut a, &mut b]),
            Err(Error::LengthMismatch { keys: 4, out: 3 })
        );
        assert_eq!(a, [9; 4]);
    }

    /// A count of members legal against 2^31 - 1 buckets but past
    /// [`MAX_REPLICAS`] is refused by value, naming the limit, before a
    /// set is sized by it; the limit itself is served.
    #[test]
    fn sets_past_the_limit_are_refused_before_anything_is_sized() {
        let n = BucketCount::new((1 << 31) - 1).unwrap();
        for k in [MAX_REPLICAS + 1, 1 << 20, (1 << 31) - 1] {
            let err = check(k, n).unwrap_err();
            assert_eq!(
                err,
                Error::ReplicasOverLimit {
                    replicas: k,
                    limit: 1024
                }
            );
            assert_eq!(
                err.to_string(),
                format!("{k} replicas asked: a set holds at most 1024 members")
            );
        }
        assert_eq!(check(MAX_REPLICAS, n), Ok(()));
        // A set of the limit's size costs k^2 steps: hours under Miri.
        if cfg!(miri) {
            return;
        }
        let mut set_of_limit = vec![0u32; MAX_REPLICAS];
        set(42, n, &mut set_of_limit).unwrap();
        let mut sorted = set_of_limit.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), MAX_REPLICAS);
        assert_eq!(
            check(5, BucketCount::new(3).unwrap())
                .unwrap_err()
                .to_string(),
            "5 replicas asked of 3 buckets: a set holds distinct buckets"
        );
    }
}
