//! Move plans: which keys change bucket when the bucket count changes, in
//! the caller's buffers.
//!
//! When the caller's capacity covers every key, the plan is written
//! straight into its buffers block by block (`Resize::plan_into`). With a
//! smaller capacity the plan is made in the library's own buffers and
//! copied only if it fits, so that an error leaves the caller's untouched.

use std::cell::Cell;

use crate::buffers::{out_u32, Buffer};
use crate::guard::guard_status;
use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_CAPACITY, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
};
use jumpshard::{BucketCount, MovePlan, PlanScratch, Resize};

thread_local! {
    /// The block buffers of the last plan on this thread (about 200 KB),
    /// kept for the next: allocating and faulting them in anew cost about
    /// 10% of a plan over 10^5 keys. Freed when the thread exits.
    static SCRATCH: Cell<Option<PlanScratch>> = const { Cell::new(None) };
}

/// The checked key and output buffers of a plan function.
pub(crate) struct PlanBuffers<'a> {
    pub(crate) keys: &'a [u64],
    /// The caller's capacity, or `keys.len()` if it is larger: no plan
    /// needs more.
    capacity: usize,
    positions: &'a mut [u64],
    from: Option<&'a mut [u32]>,
    to: &'a mut [u32],
    moved: &'a mut usize,
}

impl<'a> PlanBuffers<'a> {
    /// Checks, in this order: `moved` (never NULL); `keys`; `positions`,
    /// `from` (unless NULL) and `to` for `min(capacity, len)` elements;
    /// that no two buffers overlap. Only then are slices made.
    ///
    /// # Safety
    /// As stated for `jumpshard_plan`'s buffers.
    pub(crate) unsafe fn new(
        keys: *const u64,
        len: usize,
        positions: *mut u64,
        from: *mut i32,
        to: *mut i32,
        capacity: usize,
        moved: *mut usize,
    ) -> Result<PlanBuffers<'a>, jumpshard_status> {
        let moved = Buffer::new(moved.cast_const(), 1)?;
        let keys = Buffer::new(keys, len)?;
        let capacity = capacity.min(len);
        let positions = Buffer::new(positions.cast_const(), capacity)?;
        let from = match from.is_null() {
            true => None,
            false => Some(Buffer::new(out_u32(from), capacity)?),
        };
        let to = Buffer::new(out_u32(to), capacity)?;
        let mut overlapping = keys.overlaps(&positions)
            || keys.overlaps(&to)
            || positions.overlaps(&to)
            || moved.overlaps(&keys)
            || moved.overlaps(&positions)
            || moved.overlaps(&to);
        if let Some(from) = &from {
            overlapping |= from.overlaps(&keys)
                || from.overlaps(&positions)
                || from.overlaps(&to)
                || from.overlaps(&moved);
        }
        if overlapping {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // The checks above passed, every buffer is disjoint from the
        // others, and the caller promises `len` readable keys, a writable
        // `*moved` and `capacity` writable elements behind each output (at
        // most `len` of them are used), none accessed by anyone else
        // during the call.
        Ok(PlanBuffers {
            // SAFETY: `len` readable keys, as said above.
            keys: unsafe { keys.slice() },
            capacity,
            // SAFETY: `capacity` writable positions, disjoint from the rest.
            positions: unsafe { positions.slice_mut() },
            // SAFETY: `capacity` writable old buckets, disjoint from the rest.
            from: from.map(|from| unsafe { from.slice_mut() }),
            // SAFETY: `capacity` writable new buckets, disjoint from the rest.
            to: unsafe { to.slice_mut() },
            // SAFETY: one writable `size_t`, disjoint from the rest; the
            // slice has that one element, checked non-NULL above.
            moved: unsafe { &mut moved.slice_mut()[0] },
        })
    }

    /// Writes the moves of `parts` (each its positions, old buckets and
    /// new buckets), one after the other, if they fit; else only their
    /// number, with `JUMPSHARD_ERROR_CAPACITY`.
    pub(crate) fn write<'p>(
        self,
        parts: impl Iterator<Item = (&'p [u64], &'p [u32], &'p [u32])> + Clone,
    ) -> Result<(), jumpshard_status> {
        let total: usize = parts.clone().map(|p| p.0.len()).sum();
        *self.moved = total;
        if total > self.capacity {
            return Err(JUMPSHARD_ERROR_CAPACITY);
        }
        let mut start = 0;
        let mut from = self.from;
        for (positions, old, new) in parts {
            let range = start..start + positions.len();
            self.positions[range.clone()].copy_from_slice(positions);
            self.to[range.clone()].copy_from_slice(new);
            if let Some(from) = from.as_deref_mut() {
                from[range].copy_from_slice(old);
            }
            start += positions.len();
        }
        Ok(())
    }
}

/// The checked arguments of both plan functions.
struct Plan<'a> {
    resize: Resize,
    out: PlanBuffers<'a>,
}

impl<'a> Plan<'a> {
    /// Checks, in this order: both bucket counts and that they differ;
    /// then the buffers (`PlanBuffers::new`).
    ///
    /// # Safety
    /// As stated for `jumpshard_plan`.
    #[allow(clippy::too_many_arguments)] // the C signature, one by one
    unsafe fn new(
        keys: *const u64,
        len: usize,
        from_buckets: i32,
        to_buckets: i32,
        positions: *mut u64,
        from: *mut i32,
        to: *mut i32,
        capacity: usize,
        moved: *mut usize,
    ) -> Result<Plan<'a>, jumpshard_status> {
        let status = |e| jumpshard_status::of(&e);
        let from_count = BucketCount::try_from(from_buckets).map_err(status)?;
        let to_count = BucketCount::try_from(to_buckets).map_err(status)?;
        let resize = Resize::new(from_count, to_count).map_err(status)?;
        // SAFETY: the caller's contract for the buffers is
        // `PlanBuffers::new`'s.
        let out = unsafe { PlanBuffers::new(keys, len, positions, from, to, capacity, moved) }?;
        Ok(Plan { resize, out })
    }

    /// The plan on the calling thread.
    fn run(self) -> Result<(), jumpshard_status> {
        let out = self.out;
        if out.capacity == out.keys.len() {
            // New buffers on a thread's first plan, and when its
            // thread-local storage is already destroyed (a call from a
            // thread-exit destructor).
            let mut scratch = SCRATCH
                .try_with(Cell::take)
                .ok()
                .flatten()
                .unwrap_or_default();
            let moved =
                self.resize
                    .plan_into(out.keys, &mut scratch, out.positions, out.from, out.to);
            let _ = SCRATCH.try_with(|cached| cached.set(Some(scratch)));
            // The capacity covers every key, so the columns are long enough.
            *out.moved = moved.map_err(|e| jumpshard_status::of(&e))?;
            return Ok(());
        }
        let mut plan = MovePlan::new();
        self.resize.plan(out.keys, 0, &mut plan);
        out.write(std::iter::once((plan.positions(), plan.from(), plan.to())))
    }

    /// The plan on up to `threads` threads.
    #[cfg(feature = "parallel")]
    fn run_parallel(self, threads: usize) -> Result<(), jumpshard_status> {
        let mut parts = Vec::new();
        match self
            .resize
            .plan_parts(self.out.keys, 0, &mut parts, threads)
        {
            true => self
                .out
                .write(parts.iter().map(|p| (p.positions(), p.from(), p.to()))),
            false => self.run(),
        }
    }
}

/// The move plan of `keys` from `from_buckets` to `to_buckets` buckets:
/// every key whose bucket differs between the two counts, in input order.
/// On success `*moved` is their number and, for each `i < *moved`,
/// `positions[i]` is the index in `keys` of the `i`-th moving key,
/// `from[i]` its bucket among `from_buckets` and `to[i]` its
/// bucket among `to_buckets` (exactly `jumpshard_bucket`'s). `from`
/// may be NULL when the caller does not need it. (Headers before 0.2
/// called `from` and `to` `sources` and `destinations`; only the names
/// changed.) Only the moving keys are
/// evaluated at both counts: growing from 10 to 12 buckets costs 7/6 of a
/// batch, not 2. Each calling thread keeps about 200 KB of working buffers
/// from one plan to the next; they are freed when the thread exits.
///
/// `positions`, `from` and `to` each hold `capacity`
/// elements; `capacity = len` always suffices. If more than `capacity`
/// keys move, the status is `JUMPSHARD_ERROR_CAPACITY`, `*moved` is the
/// number needed and nothing else is written: call again with that
/// capacity.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails,
/// in this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (a count outside
/// 1..INT32_MAX, or `from_buckets == to_buckets`); for `moved` (never
/// NULL), then `keys` (`len` elements), then `positions`, `from`
/// and `to` (`min(capacity, len)` elements each):
/// `JUMPSHARD_ERROR_NULL_POINTER`, `JUMPSHARD_ERROR_MISALIGNED_POINTER`,
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; then
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (any two buffers share a byte);
/// then `JUMPSHARD_ERROR_CAPACITY`. On these errors no output is written
/// (but `*moved` on `JUMPSHARD_ERROR_CAPACITY`).
///
/// # Safety
/// `moved` must point to a writable `size_t`; unless `len` is 0, `keys`
/// must point to `len` readable `uint64_t`; unless `capacity` is 0,
/// `positions`, `to` and (if not NULL) `from` must point to
/// `capacity` writable elements. No other thread may write any of them
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_plan(
    keys: *const u64,
    len: usize,
    from_buckets: i32,
    to_buckets: i32,
    positions: *mut u64,
    from: *mut i32,
    to: *mut i32,
    capacity: usize,
    moved: *mut usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller's contract, stated above, is the one
        // `Plan::new` needs.
        let plan = unsafe {
            Plan::new(
                keys,
                len,
                from_buckets,
                to_buckets,
                positions,
                from,
                to,
                capacity,
                moved,
            )
        }?;
        plan.run()
    })
}

/// `jumpshard_plan` on up to `threads` threads of the library's thread
/// pool (`threads == 0` means one per core), as `jumpshard_batch_parallel`
/// uses it. The result, the statuses and the contract are those of
/// `jumpshard_plan`.
///
/// # Safety
/// As for `jumpshard_plan`.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_plan_parallel(
    keys: *const u64,
    len: usize,
    from_buckets: i32,
    to_buckets: i32,
    positions: *mut u64,
    from: *mut i32,
    to: *mut i32,
    capacity: usize,
    moved: *mut usize,
    threads: usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller's contract, stated above, is the one
        // `Plan::new` needs.
        let plan = unsafe {
            Plan::new(
                keys,
                len,
                from_buckets,
                to_buckets,
                positions,
                from,
                to,
                capacity,
                moved,
            )
        }?;
        #[cfg(feature = "parallel")]
        return plan.run_parallel(threads);
        // Without the thread pool the plan runs on the calling thread.
        #[cfg(not(feature = "parallel"))]
        {
            let _ = threads;
            plan.run()
        }
    })
}
