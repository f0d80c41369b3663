//! Counting keys per bucket: the destinations of a resize plan, and the
//! slots of a node plan, through one tally.

use std::collections::BTreeMap;
use std::ops::Range;

/// Destinations counted in an array rather than a map: growing, the
/// buckets `N..min(M, N + DENSE)`; shrinking, `0..min(M, DENSE)`. Resizes
/// with more destinations than that count the rest in a map.
const DENSE: u32 = 1 << 16;

/// Numbers of moving keys per destination bucket.
///
/// ```
/// use jumpshard::{BucketCount, MovePlan, Resize};
///
/// let r = Resize::new(BucketCount::new(2)?, BucketCount::new(4)?)?;
/// let mut plan = MovePlan::new();
/// r.plan(&(0..1000).collect::<Vec<u64>>(), 0, &mut plan);
/// let counts: Vec<(u32, u64)> = plan.per_destination().iter().collect();
/// assert_eq!(counts.iter().map(|&(b, _)| b).collect::<Vec<_>>(), [2, 3]);
/// assert_eq!(plan.per_destination().get(2), counts[0].1);
/// assert_eq!(plan.per_destination().get(0), 0); // bucket 0 receives nothing
/// # Ok::<(), jumpshard::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DestinationCounts {
    /// The first bucket of `dense`.
    base: u32,
    dense: Vec<u64>,
    /// Whether every destination lies in the dense range.
    dense_covers_all: bool,
    sparse: BTreeMap<u32, u64>,
}

impl DestinationCounts {
    /// No moves yet, to the buckets `destinations`.
    pub(super) fn reset(&mut self, destinations: Range<u32>) {
        let Range { start: base, end } = destinations;
        self.base = base;
        self.dense.clear();
        self.dense.resize((end - base).min(DENSE) as usize, 0);
        self.dense_covers_all = end - base <= DENSE;
        self.sparse.clear();
    }

    fn add_n(&mut self, bucket: u32, n: u64) {
        match self.dense.get_mut(bucket.wrapping_sub(self.base) as usize) {
            Some(count) => *count += n,
            None => *self.sparse.entry(bucket).or_insert(0) += n,
        }
    }

    /// Counts one move to each of `buckets`.
    pub(super) fn add_all(&mut self, buckets: &[u32]) {
        if self.dense_covers_all {
            tally(&mut self.dense, self.base, buckets);
        } else {
            for &bucket in buckets {
                self.add_n(bucket, 1);
            }
        }
    }

    /// Adds `other`'s counts to these (e.g. to total the plans of a
    /// stream's chunks).
    pub fn merge(&mut self, other: &DestinationCounts) {
        for (bucket, n) in other.iter() {
            self.add_n(bucket, n);
        }
    }

    /// The number of keys moving to `bucket`.
    pub fn get(&self, bucket: u32) -> u64 {
        match self.dense.get(bucket.wrapping_sub(self.base) as usize) {
            Some(&count) => count,
            None => self.sparse.get(&bucket).copied().unwrap_or(0),
        }
    }

    /// The number of moving keys.
    pub fn total(&self) -> u64 {
        self.dense.iter().sum::<u64>() + self.sparse.values().sum::<u64>()
    }

    /// (bucket, count) for every bucket receiving at least one key, by
    /// increasing bucket.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        // Every sparse bucket lies above the dense range.
        let dense = (self.base..).zip(self.dense.iter().copied());
        dense
            .chain(self.sparse.iter().map(|(&b, &n)| (b, n)))
            .filter(|&(_, n)| n > 0)
    }
}

/// Adds one to `counts[b - base]` for each `b` in `buckets`; every bucket
/// lies in `base..base + counts.len()`.
pub(crate) fn tally(counts: &mut [u64], base: u32, buckets: &[u32]) {
    // With few buckets (two, growing from 10 to 12) consecutive keys often
    // hit the same counter, and each increment would wait for the previous
    // one's store. Four interleaved copies of every counter break that
    // chain; they are summed at the end.
    const WAYS: usize = 4;
    const SMALL: usize = 256;
    if counts.len() > SMALL {
        for &b in buckets {
            counts[b.wrapping_sub(base) as usize] += 1;
        }
        return;
    }
    // u32 copies take a quarter of the stack that u64 ones would, so runs
    // of at most u32::MAX buckets are counted at a time. SMALL is a power
    // of two above every index: the mask changes nothing but spares the
    // bounds checks.
    for run in buckets.chunks(u32::MAX as usize) {
        let mut ways = [[0u32; WAYS]; SMALL];
        let mut quads = run.chunks_exact(WAYS);
        for quad in &mut quads {
            for (way, &b) in quad.iter().enumerate() {
                ways[b.wrapping_sub(base) as usize & (SMALL - 1)][way] += 1;
            }
        }
        for &b in quads.remainder() {
            ways[b.wrapping_sub(base) as usize & (SMALL - 1)][0] += 1;
        }
        for (count, ways) in counts.iter_mut().zip(&ways) {
            *count += ways.iter().map(|&n| u64::from(n)).sum::<u64>();
        }
    }
}
