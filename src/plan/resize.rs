//! A change of bucket count and its plans: the deciding evaluation, then
//! the second one for the movers only.

use std::ops::Range;

use crate::plan::{DestinationCounts, MovePlan, PlanScratch};
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
        plan.reset(
            keys.len(),
            self.likely_moves(keys.len()),
            self.destinations(),
        );
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
        plan.scratch
            .run(kernel, keys, first_position, self.thresholds(), |block| {
                let n = block.movers;
                positions.extend_from_slice(&block.staged.positions[..n]);
                decided.extend_from_slice(&block.staged.buckets[..n]);
                let start = evaluated.len();
                evaluated.resize(start + n, 0);
                kernel.run(&block.staged.keys[..n], other, &mut evaluated[start..]);
            });
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
    /// the number of moving keys, whose position, old and new bucket are
    /// at the front of `positions`, `from` and `to`. Each block's movers
    /// get their second evaluation while still in cache, so no column of
    /// all the movers' keys is built. This is the plan for callers with
    /// buffers of their own, such as the C ABI; `scratch` keeps the block
    /// buffers from one call to the next.
    ///
    /// Fails with [`Error::LengthMismatch`], writing nothing, when a column
    /// is shorter than `keys`.
    ///
    /// ```
    /// use jumpshard::{BucketCount, PlanScratch, Resize};
    ///
    /// let keys: Vec<u64> = (0..1000).collect();
    /// let grow = Resize::new(BucketCount::new(10)?, BucketCount::new(12)?)?;
    /// let (mut positions, mut to) = (vec![0u64; 1000], vec![0u32; 1000]);
    /// let mut scratch = PlanScratch::default();
    /// let moved = grow.plan_into(&keys, &mut scratch, &mut positions, None, &mut to)?;
    /// assert!(to[..moved].iter().all(|&b| b >= 10));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn plan_into(
        self,
        keys: &[u64],
        scratch: &mut PlanScratch,
        positions: &mut [u64],
        mut from: Option<&mut [u32]>,
        to: &mut [u32],
    ) -> Result<usize, Error> {
        let shortest = [
            Some(positions.len()),
            Some(to.len()),
            from.as_ref().map(|f| f.len()),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(0);
        if shortest < keys.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                out: shortest,
            });
        }
        let kernel = active_kernel();
        let other = self.steps().2.get();
        let shrinks = self.shrinks();
        let mut moved = 0;
        scratch.run(kernel, keys, 0, self.thresholds(), |block| {
            let n = block.movers;
            let range = moved..moved + n;
            positions[range.clone()].copy_from_slice(&block.staged.positions[..n]);
            let (decided, evaluated) = if shrinks {
                (from.as_deref_mut(), Some(&mut *to))
            } else {
                (Some(&mut *to), from.as_deref_mut())
            };
            if let Some(decided) = decided {
                decided[range.clone()].copy_from_slice(&block.staged.buckets[..n]);
            }
            // Growing without `from`, the movers need no second evaluation.
            if let Some(evaluated) = evaluated {
                kernel.run(
                    &block.staged.keys[..n],
                    other,
                    &mut evaluated[range.clone()],
                );
            }
            moved += n;
        });
        Ok(moved)
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
    #[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
    pub fn plan_parallel(
        self,
        keys: &[u64],
        first_position: u64,
        plan: &mut MovePlan,
        threads: usize,
    ) {
        let mut parts = std::mem::take(&mut plan.parts);
        if !self.plan_parts(keys, first_position, &mut parts, threads) {
            plan.parts = parts;
            return self.plan(keys, first_position, plan);
        }
        plan.reset(
            keys.len(),
            self.likely_moves(keys.len()),
            self.destinations(),
        );
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
    /// all. For callers that join the parts into buffers of their own, as
    /// the C ABI does, without the copy into one plan.
    #[cfg(feature = "parallel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
    pub fn plan_parts(
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

    /// The buckets that moving keys go to: the new ones growing, all of
    /// the new count shrinking.
    fn destinations(self) -> Range<u32> {
        let base = if self.shrinks() { 0 } else { self.from.get() };
        base..self.to.get()
    }

    /// (the deciding count, the first bucket that moves), as the block
    /// loop takes them.
    fn thresholds(self) -> (u32, u32) {
        let (decider, threshold, _) = self.steps();
        (decider.get(), threshold)
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

impl DestinationCounts {
    /// No moves yet, for `resize`'s destinations.
    pub fn new(resize: Resize) -> DestinationCounts {
        let mut counts = DestinationCounts::default();
        counts.reset(resize.destinations());
        counts
    }
}
