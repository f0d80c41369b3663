//! Move plans: which keys change bucket when the bucket count changes from
//! N to M, and where they go.
//!
//! Jump hash is monotone: growing from N to M buckets, a key either stays
//! put or moves to one of the new buckets `N..M`; shrinking from N to M, only
//! the keys of the removed buckets `M..N` move. So one evaluation per key
//! decides whether it moves, and only the movers need a second one:
//!
//! - growing, `to = jump(k, M)`; the key moves exactly when `to >= N`, and
//!   then `from = jump(k, N)`;
//! - shrinking, `from = jump(k, N)`; the key moves exactly when `from >= M`,
//!   and then `to = jump(k, M)`.
//!
//! Growing from 10 to 12 buckets, 1/6 of the keys move, so a plan costs
//! 7/6 evaluations per key instead of the naive two.
//!
//! ```
//! use jumpshard::{BucketCount, MovePlan, Resize};
//!
//! let resize = Resize::new(BucketCount::new(10)?, BucketCount::new(12)?)?;
//! let keys: Vec<u64> = (0..10_000).collect();
//! let mut plan = MovePlan::new();
//! resize.plan(&keys, 0, &mut plan);
//! for m in plan.moves() {
//!     let key = keys[m.position as usize];
//!     assert_eq!(m.from, jumpshard::bucket(key, resize.from_count()));
//!     assert_eq!(m.to, jumpshard::bucket(key, resize.to_count()));
//!     assert!(m.from < 10 && m.to >= 10);
//! }
//! // About 1/6 of the keys move, evenly to the two new buckets.
//! assert_eq!(plan.per_destination().total(), plan.len() as u64);
//! assert!((plan.len() as f64 / 10_000.0 - 1.0 / 6.0).abs() < 0.02);
//! # Ok::<(), jumpshard::Error>(())
//! ```

use std::collections::BTreeMap;

use crate::{active_kernel, BucketCount, Error};

/// A change of bucket count from N to M, with N != M.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resize {
    from: BucketCount,
    to: BucketCount,
}

impl Resize {
    /// The resize from `from` buckets to `to` buckets; fails with
    /// [`Error::SameBucketCount`] when they are equal.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Error, Resize};
    ///
    /// let ten = BucketCount::new(10)?;
    /// assert!(Resize::new(ten, BucketCount::new(3)?)?.shrinks());
    /// assert_eq!(Resize::new(ten, ten), Err(Error::SameBucketCount { value: 10 }));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn new(from: BucketCount, to: BucketCount) -> Result<Resize, Error> {
        if from == to {
            return Err(Error::SameBucketCount { value: from.get() });
        }
        Ok(Resize { from, to })
    }

    /// The old bucket count, N.
    pub fn from_count(self) -> BucketCount {
        self.from
    }

    /// The new bucket count, M.
    pub fn to_count(self) -> BucketCount {
        self.to
    }

    /// Whether buckets are removed (M < N).
    pub fn shrinks(self) -> bool {
        self.to < self.from
    }

    /// The fraction of uniformly spread keys expected to move:
    /// `1 - N/M` when growing, `(N - M)/N` when shrinking.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Resize};
    ///
    /// let r = Resize::new(BucketCount::new(10)?, BucketCount::new(12)?)?;
    /// assert!((r.expected_moved_fraction() - 1.0 / 6.0).abs() < 1e-12);
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn expected_moved_fraction(self) -> f64 {
        let (n, m) = (f64::from(self.from.get()), f64::from(self.to.get()));
        if self.shrinks() {
            (n - m) / n
        } else {
            1.0 - n / m
        }
    }

    /// Where one key goes: `Some((from, to))` when it moves, `None` when it
    /// stays.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Resize};
    ///
    /// let grow = Resize::new(BucketCount::new(1)?, BucketCount::new(2)?)?;
    /// let to = jumpshard::bucket(99, BucketCount::new(2)?);
    /// assert_eq!(grow.destination(99), (to == 1).then_some((0, 1)));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn destination(self, key: u64) -> Option<(u32, u32)> {
        let (decider, threshold, other) = self.steps();
        let first = crate::bucket(key, decider);
        if first < threshold {
            return None;
        }
        let second = crate::bucket(key, other);
        Some(self.order(first, second))
    }

    /// The plan for `keys`, replacing what `plan` held, on the calling
    /// thread. Key `keys[i]` has position `first_position + i`, so that a
    /// stream cut into chunks numbers its keys continuously.
    pub fn plan(self, keys: &[u64], first_position: u64, plan: &mut MovePlan) {
        let kernel = active_kernel();
        plan.reset(self, keys.len());
        let other = self.steps().2.get();
        // The deciding bucket is `to` when growing and `from` when shrinking.
        let (decided, evaluated) = if self.shrinks() {
            (&mut plan.from, &mut plan.to)
        } else {
            (&mut plan.to, &mut plan.from)
        };
        let positions = &mut plan.positions;
        // Each block's movers get their second evaluation while still in
        // cache, as in `plan_into`: no column of the movers' keys.
        self.select_blocks(
            kernel,
            keys,
            first_position,
            &mut plan.blocks,
            |staged, n| {
                positions.extend_from_slice(&staged.positions[..n]);
                decided.extend_from_slice(&staged.buckets[..n]);
                let start = evaluated.len();
                evaluated.resize(start + n, 0);
                kernel.run(&staged.keys[..n], other, &mut evaluated[start..]);
            },
        );
        plan.per_destination.add_all(&plan.to);
    }

    /// Room for the moves `keys` keys are all but sure to make: the
    /// expected count plus six standard deviations and 64. Growing a
    /// column by doubling instead would write each byte twice, and in new
    /// memory every page written is a page fault.
    fn likely_moves(self, keys: usize) -> usize {
        let p = self.expected_moved_fraction();
        let mean = keys as f64 * p;
        let spread = 6.0 * (mean * (1.0 - p)).sqrt();
        ((mean + spread) as usize + 64).min(keys)
    }

    /// The plan for `keys` written straight into columns at least as long
    /// as `keys` (so that every mover fits), with `from` optional; returns
    /// the number of moving keys. Each block's movers get their second
    /// evaluation while still in cache, so no column of all the movers'
    /// keys is built. This is the C ABI's plan, which writes into the
    /// caller's buffers.
    pub(crate) fn plan_into(
        self,
        keys: &[u64],
        blocks: &mut Blocks,
        positions: &mut [u64],
        mut from: Option<&mut [u32]>,
        to: &mut [u32],
    ) -> usize {
        assert!(positions.len() >= keys.len() && to.len() >= keys.len());
        assert!(from.as_ref().is_none_or(|from| from.len() >= keys.len()));
        let kernel = active_kernel();
        let other = self.steps().2.get();
        let shrinks = self.shrinks();
        let mut moved = 0;
        self.select_blocks(kernel, keys, 0, blocks, |staged, n| {
            let range = moved..moved + n;
            positions[range.clone()].copy_from_slice(&staged.positions[..n]);
            let (decided, evaluated) = if shrinks {
                (from.as_deref_mut(), Some(&mut *to))
            } else {
                (Some(&mut *to), from.as_deref_mut())
            };
            if let Some(decided) = decided {
                decided[range.clone()].copy_from_slice(&staged.buckets[..n]);
            }
            // Growing without `from`, the movers need no second evaluation.
            if let Some(evaluated) = evaluated {
                kernel.run(&staged.keys[..n], other, &mut evaluated[range.clone()]);
            }
            moved += n;
        });
        moved
    }

    /// Evaluates `keys` at the deciding count block by block and hands each
    /// block's movers, staged at the front of `blocks.staged`, to `emit`
    /// with their number. Key `keys[i]` has position `first_position + i`.
    fn select_blocks(
        self,
        kernel: crate::Kernel,
        keys: &[u64],
        first_position: u64,
        blocks: &mut Blocks,
        mut emit: impl FnMut(&crate::select::Staged, usize),
    ) {
        let (decider, threshold, _) = self.steps();
        // Blocks small enough that a block's keys and buckets are still in
        // L1/L2 when they are selected, instead of a second pass over the
        // whole batch from memory.
        const BLOCK: usize = 8192;
        let block_len = BLOCK.min(keys.len());
        blocks.scratch.resize(block_len, 0);
        blocks.staged.reserve_block(block_len);
        for (block, keys) in keys.chunks(BLOCK).enumerate() {
            let buckets = &mut blocks.scratch[..keys.len()];
            kernel.run(keys, decider.get(), buckets);
            let base = first_position + (block * BLOCK) as u64;
            let n = kernel.select(keys, buckets, threshold, base, &mut blocks.staged);
            emit(&blocks.staged, n);
        }
    }

    /// [`Resize::plan`] on up to `threads` threads (0: one per core); the
    /// plan is identical. The keys are cut into contiguous runs as
    /// [`crate::batch_parallel`] cuts them, each run is planned whole on its
    /// thread (both evaluations and the selection of the movers), and the
    /// runs' moves are joined in order.
    ///
    /// ```
    /// use jumpshard::{BucketCount, MovePlan, Resize};
    ///
    /// let keys: Vec<u64> = (0..100_000u64)
    ///     .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    ///     .collect();
    /// let shrink = Resize::new(BucketCount::new(12)?, BucketCount::new(10)?)?;
    /// let (mut one, mut many) = (MovePlan::new(), MovePlan::new());
    /// shrink.plan(&keys, 0, &mut one);
    /// shrink.plan_parallel(&keys, 0, &mut many, 0);
    /// assert!(one.moves().eq(many.moves()));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    #[cfg(feature = "parallel")]
    pub fn plan_parallel(
        self,
        keys: &[u64],
        first_position: u64,
        plan: &mut MovePlan,
        threads: usize,
    ) {
        let mut parts = std::mem::take(&mut plan.parts);
        if !self.plan_runs(keys, first_position, &mut parts, threads) {
            plan.parts = parts;
            return self.plan(keys, first_position, plan);
        }
        plan.reset(self, keys.len());
        for part in &parts {
            plan.positions.extend_from_slice(&part.positions);
            plan.from.extend_from_slice(&part.from);
            plan.to.extend_from_slice(&part.to);
            plan.per_destination.merge(&part.per_destination);
        }
        plan.parts = parts;
    }

    /// The first half of [`Resize::plan_parallel`]: plans each run of
    /// `keys` into its own part, in order, on up to `threads` threads.
    /// Returns false, leaving `parts` alone, when one thread would do it
    /// all. The C ABI joins the parts straight into the caller's buffers.
    #[cfg(feature = "parallel")]
    pub(crate) fn plan_runs(
        self,
        keys: &[u64],
        first_position: u64,
        parts: &mut Vec<MovePlan>,
        threads: usize,
    ) -> bool {
        use rayon::prelude::*;

        let Some(run) = crate::parallel::run_length(keys.len(), threads) else {
            return false;
        };
        parts.resize_with(keys.len().div_ceil(run), MovePlan::default);
        keys.par_chunks(run)
            .zip(parts.par_iter_mut())
            .enumerate()
            .for_each(|(i, (keys, part))| self.plan(keys, first_position + (i * run) as u64, part));
        true
    }

    /// (the count whose bucket decides, the first bucket that moves, the
    /// other count).
    fn steps(self) -> (BucketCount, u32, BucketCount) {
        if self.shrinks() {
            (self.from, self.to.get(), self.to)
        } else {
            (self.to, self.from.get(), self.from)
        }
    }

    /// (from, to) out of (the deciding bucket, the other one).
    fn order(self, first: u32, second: u32) -> (u32, u32) {
        if self.shrinks() {
            (first, second)
        } else {
            (second, first)
        }
    }
}

/// One moving key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The key's position in the input.
    pub position: u64,
    /// Its bucket among the old count.
    pub from: u32,
    /// Its bucket among the new count.
    pub to: u32,
}

/// The moving keys of one batch, in input order, with the number of keys
/// per destination bucket. Stored as columns (positions, from, to) so that
/// they can be written out or gathered in bulk; reused across batches, it
/// keeps its buffers.
#[derive(Clone, Debug, Default)]
pub struct MovePlan {
    keys: usize,
    positions: Vec<u64>,
    from: Vec<u32>,
    to: Vec<u32>,
    per_destination: DestinationCounts,
    /// One block's buckets and movers.
    blocks: Blocks,
    /// One plan per run of `Resize::plan_parallel`, kept for their buffers.
    #[cfg(feature = "parallel")]
    parts: Vec<MovePlan>,
}

impl MovePlan {
    /// An empty plan, to be filled by [`Resize::plan`].
    pub fn new() -> MovePlan {
        MovePlan::default()
    }

    fn reset(&mut self, resize: Resize, keys: usize) {
        self.keys = keys;
        self.positions.clear();
        self.from.clear();
        self.to.clear();
        let room = resize.likely_moves(keys);
        self.positions.reserve(room);
        self.from.reserve(room);
        self.to.reserve(room);
        self.per_destination.reset(resize);
    }

    /// The number of keys planned, moving or not.
    pub fn keys(&self) -> usize {
        self.keys
    }

    /// The number of moving keys.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether no key moves.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The moving keys' positions, increasing.
    pub fn positions(&self) -> &[u64] {
        &self.positions
    }

    /// The moving keys' old buckets, one per position.
    pub fn from(&self) -> &[u32] {
        &self.from
    }

    /// The moving keys' new buckets, one per position.
    pub fn to(&self) -> &[u32] {
        &self.to
    }

    /// The moves, in input order.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.positions
            .iter()
            .zip(&self.from)
            .zip(&self.to)
            .map(|((&position, &from), &to)| Move { position, from, to })
    }

    /// How many moving keys go to each new bucket.
    pub fn per_destination(&self) -> &DestinationCounts {
        &self.per_destination
    }
}

/// The buffers a plan works in, one block at a time: the block's deciding
/// buckets and its moving keys.
#[derive(Clone, Debug, Default)]
pub(crate) struct Blocks {
    scratch: Vec<u32>,
    staged: crate::select::Staged,
}

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
    sparse: BTreeMap<u32, u64>,
}

impl DestinationCounts {
    /// No moves yet, for `resize`'s destinations.
    pub fn new(resize: Resize) -> DestinationCounts {
        let mut counts = DestinationCounts::default();
        counts.reset(resize);
        counts
    }

    fn reset(&mut self, resize: Resize) {
        let (base, end) = if resize.shrinks() {
            (0, resize.to.get())
        } else {
            (resize.from.get(), resize.to.get())
        };
        self.base = base;
        self.dense.clear();
        self.dense.resize((end - base).min(DENSE) as usize, 0);
        self.sparse.clear();
    }

    fn add_n(&mut self, bucket: u32, n: u64) {
        match self.dense.get_mut(bucket.wrapping_sub(self.base) as usize) {
            Some(count) => *count += n,
            None => *self.sparse.entry(bucket).or_insert(0) += n,
        }
    }

    /// Counts one move to each of `buckets`.
    fn add_all(&mut self, buckets: &[u32]) {
        // With few destinations (two, growing from 10 to 12) consecutive
        // moves hit the same counter, and each increment would wait for
        // the previous one's store. Four interleaved copies of every
        // counter break that chain; they are summed at the end.
        // Up to SMALL destinations all lie in the dense range (DENSE is
        // larger), so the indexing below never misses.
        const WAYS: usize = 4;
        const SMALL: usize = 1024;
        if self.dense.len() > SMALL {
            for &bucket in buckets {
                self.add_n(bucket, 1);
            }
            return;
        }
        let mut ways = [[0u64; WAYS]; SMALL];
        let mut quads = buckets.chunks_exact(WAYS);
        for quad in &mut quads {
            for (way, &bucket) in quad.iter().enumerate() {
                ways[bucket.wrapping_sub(self.base) as usize][way] += 1;
            }
        }
        for &bucket in quads.remainder() {
            ways[bucket.wrapping_sub(self.base) as usize][0] += 1;
        }
        for (count, ways) in self.dense.iter_mut().zip(&ways) {
            *count += ways.iter().sum::<u64>();
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
