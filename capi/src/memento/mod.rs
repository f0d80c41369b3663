//! Memento clusters behind an opaque handle: making and freeing one,
//! removing and restoring buckets, and reading its state. The lookups are
//! in [`lookup`].

mod lookup;
mod plan;
mod replicas;

use crate::buffers::{out_u32, Buffer};
use crate::guard::{guard, guard_status};
use crate::handle::{self, Slot};
use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_CAPACITY, JUMPSHARD_ERROR_MISALIGNED_POINTER,
    JUMPSHARD_ERROR_NOT_A_BUCKET, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
};
use jumpshard::{BucketCount, Memento};

/// A Memento cluster: jump hash over a b-array of buckets from which any
/// bucket can be removed, moving only its keys, and restored last in,
/// first out. Made by `jumpshard_memento_new` or
/// `jumpshard_memento_from_removals`, freed by `jumpshard_memento_free`.
///
/// Thread safety: the lookups (`jumpshard_memento_bucket`, `_batch`,
/// `_bucket_bytes`, `_batch_bytes`) and the state readers (`_barray`,
/// `_working`, `_is_removed`, `_removals`) take a `const` handle and may
/// run on any number of threads at once; `jumpshard_memento_remove`,
/// `jumpshard_memento_restore` and `jumpshard_memento_free` need the
/// handle to themselves (no other call on it may run meanwhile).
#[allow(non_camel_case_types)] // the C name
pub struct jumpshard_memento(pub(crate) Memento);

/// A bucket from C: a negative one is not a bucket of any cluster.
fn bucket_arg(bucket: i32) -> Result<u32, jumpshard_status> {
    u32::try_from(bucket).map_err(|_| JUMPSHARD_ERROR_NOT_A_BUCKET)
}

/// Makes a Memento cluster of `num_buckets` working buckets, none removed,
/// and writes its handle to `*out`; free it with `jumpshard_memento_free`.
/// With nothing removed every key gets Figure 1's bucket
/// (`jumpshard_bucket`).
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`num_buckets`
/// outside 1..INT32_MAX); for `out`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`. On any error `*out` is not
/// written and nothing is allocated.
///
/// # Safety
/// `out` must point to a writable `jumpshard_memento *` that no other
/// thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_new(
    num_buckets: i32,
    out: *mut *mut jumpshard_memento,
) -> jumpshard_status {
    guard_status(|| {
        let n = BucketCount::try_from(num_buckets).map_err(|e| jumpshard_status::of(&e))?;
        let slot = Slot::new(out)?;
        // SAFETY: the caller promises a writable, unaliased `*out`.
        unsafe { slot.fill(jumpshard_memento(Memento::new(n))) };
        Ok(())
    })
}

/// Makes the Memento cluster of a b-array of `barray` buckets from which
/// `removals[0..len]` were removed in this order, what
/// `jumpshard_memento_removals` returns: with `jumpshard_memento_barray`,
/// the whole state, to save and rebuild a cluster. Writes its handle to
/// `*out`; free it with `jumpshard_memento_free`.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`barray` outside
/// 1..INT32_MAX); for `out`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `removals`,
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER` and
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`
/// (`*out` inside `removals`); `JUMPSHARD_ERROR_SHRINK_IN_REMOVALS` (the
/// first removal is bucket `barray - 1`: that removal is a shrink, never
/// remembered, so the list describes `barray - 1` buckets); then the
/// first removal that does not replay, as `jumpshard_memento_remove`
/// reports it: `JUMPSHARD_ERROR_NOT_A_BUCKET` (negative or not below
/// `barray`), `JUMPSHARD_ERROR_ALREADY_REMOVED`,
/// `JUMPSHARD_ERROR_LAST_WORKING_BUCKET`. On any error `*out` is not
/// written and nothing stays allocated.
///
/// # Safety
/// Unless `len` is 0, `removals` must point to `len` readable `int32_t`;
/// `out` must point to a writable `jumpshard_memento *`; no other thread
/// writes either during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_from_removals(
    barray: i32,
    removals: *const i32,
    len: usize,
    out: *mut *mut jumpshard_memento,
) -> jumpshard_status {
    guard_status(|| {
        let status = |e| jumpshard_status::of(&e);
        let n = BucketCount::try_from(barray).map_err(status)?;
        let slot = Slot::new(out)?;
        // Read as `u32`, one layout: a negative bucket reads as 2^31 or
        // more, past any b-array, which the replay refuses in its turn.
        let removals = Buffer::new(out_u32(removals.cast_mut()), len)?;
        if slot.overlaps(&removals) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: the caller promises `len` readable removals, not written
        // during the call.
        let removals = unsafe { removals.slice() };
        let memento = Memento::from_removals(n, removals).map_err(status)?;
        // SAFETY: the caller promises a writable, unaliased `*out`, which
        // does not overlap the removals (read already).
        unsafe { slot.fill(jumpshard_memento(memento)) };
        Ok(())
    })
}

/// Frees a cluster made by `jumpshard_memento_new` or
/// `jumpshard_memento_from_removals`. NULL does nothing.
///
/// # Safety
/// `memento` must be NULL or a handle not freed yet, which no other
/// thread uses during the call; it must not be used after.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_free(memento: *mut jumpshard_memento) {
    // SAFETY: the caller's contract is `handle::free`'s.
    guard((), || unsafe { handle::free(memento) })
}

/// Removes `bucket` from the cluster: its keys move to the working
/// buckets, evenly, and no other key moves. Removing the b-array's last
/// bucket while nothing is removed is jump hash's own shrink: the b-array
/// loses that bucket, and no removal is remembered.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_NOT_A_BUCKET`
/// (negative, or not below the b-array size);
/// `JUMPSHARD_ERROR_ALREADY_REMOVED`;
/// `JUMPSHARD_ERROR_LAST_WORKING_BUCKET` (the only working bucket left).
/// On any error the cluster does not change (after `JUMPSHARD_ERROR_PANIC`
/// its state is unspecified: only free it).
///
/// # Safety
/// `memento` must be NULL or a live handle that no other thread uses
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_remove(
    memento: *mut jumpshard_memento,
    bucket: i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle used by no one else.
        let memento = unsafe { handle::borrow_mut(memento) }?;
        let bucket = bucket_arg(bucket)?;
        memento
            .0
            .remove(bucket)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

/// Restores the last removed bucket (restores are last in, first out):
/// exactly its keys come back to it. With nothing removed, the b-array
/// grows by one bucket instead, as jump hash grows. Writes the bucket
/// restored or added to `*restored`, unless `restored` is NULL.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`;
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER` for `restored`;
/// `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (nothing removed and the b-array
/// already INT32_MAX buckets). On any error the cluster does not change
/// and `*restored` is not written (after `JUMPSHARD_ERROR_PANIC` the
/// cluster's state is unspecified: only free it).
///
/// # Safety
/// `memento` must be NULL or a live handle that no other thread uses
/// during the call; `restored` must be NULL or point to a writable
/// `int32_t` that no other thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_restore(
    memento: *mut jumpshard_memento,
    restored: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle used by no one else.
        let memento = unsafe { handle::borrow_mut(memento) }?;
        if !restored.is_aligned() {
            return Err(JUMPSHARD_ERROR_MISALIGNED_POINTER);
        }
        let bucket = memento.0.restore().map_err(|e| jumpshard_status::of(&e))?;
        if !restored.is_null() {
            // SAFETY: not NULL, aligned, and the caller promises a writable
            // `int32_t` that no one else accesses. Buckets are below
            // INT32_MAX, so the cast is exact.
            unsafe { restored.write(bucket as i32) };
        }
        Ok(())
    })
}

/// The cluster's b-array size: every bucket Figure 1's first stage runs
/// over, working or removed (removed buckets are below it). -1 when
/// `memento` is NULL or misaligned.
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_barray(memento: *const jumpshard_memento) -> i32 {
    guard(-1, || {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) };
        // At most INT32_MAX, so the cast is exact.
        memento.map_or(-1, |m| m.0.barray().get() as i32)
    })
}

/// The number of working buckets: the b-array size less the removed
/// buckets. -1 when `memento` is NULL or misaligned.
///
/// # Safety
/// As for `jumpshard_memento_barray`.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_working(memento: *const jumpshard_memento) -> i32 {
    guard(-1, || {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) };
        // At most the b-array size, so the cast is exact.
        memento.map_or(-1, |m| m.0.working() as i32)
    })
}

/// 1 when `bucket` is removed, 0 when it is not (a working bucket, or one
/// that does not exist: negative or beyond the b-array), -1 when `memento`
/// is NULL or misaligned.
///
/// # Safety
/// As for `jumpshard_memento_barray`.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_is_removed(
    memento: *const jumpshard_memento,
    bucket: i32,
) -> i32 {
    guard(-1, || {
        // SAFETY: the caller promises a live handle nobody mutates.
        let Ok(memento) = (unsafe { handle::borrow(memento) }) else {
            return -1;
        };
        bucket_arg(bucket).is_ok_and(|b| memento.0.is_removed(b)) as i32
    })
}

/// Writes the removed buckets, in removal order (the next restore undoes
/// the last), to `out[0..*len]` and their number to `*len`. There are
/// `jumpshard_memento_barray - jumpshard_memento_working` of them; with
/// the b-array size they are the cluster's whole state, which
/// `jumpshard_memento_from_removals` rebuilds.
///
/// `out` holds `capacity` elements. If more buckets are removed, the
/// status is `JUMPSHARD_ERROR_CAPACITY`, `*len` is the number needed and
/// `out` is not written: call again with that capacity (or size `out`
/// with a first call at `capacity = 0`, `out` NULL).
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `len` (never NULL), then
/// `out` (the `min(capacity, removals)` elements that would be written):
/// `JUMPSHARD_ERROR_NULL_POINTER`, `JUMPSHARD_ERROR_MISALIGNED_POINTER`,
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`
/// (`*len` inside `out`); then `JUMPSHARD_ERROR_CAPACITY`. On these errors
/// nothing is written (but `*len` on `JUMPSHARD_ERROR_CAPACITY`).
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; `len` must point to a writable `size_t`; unless `capacity` is
/// 0, `out` must point to `capacity` writable `int32_t`. No other thread
/// may access `*len` or `out` during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_removals(
    memento: *const jumpshard_memento,
    out: *mut i32,
    capacity: usize,
    len: *mut usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        let removals = memento.0.removals();
        let len = Buffer::new(len.cast_const(), 1)?;
        let out = Buffer::new(out_u32(out), capacity.min(removals.len()))?;
        if len.overlaps(&out) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: one writable `size_t`, checked non-NULL, disjoint from
        // `out`.
        let len = unsafe { &mut len.slice_mut()[0] };
        *len = removals.len();
        if removals.len() > capacity {
            return Err(JUMPSHARD_ERROR_CAPACITY);
        }
        // SAFETY: `removals.len() <= capacity` writable elements, as the
        // caller promises, that no one else accesses.
        let out = unsafe { out.slice_mut() };
        out.copy_from_slice(removals);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::lookup::*;
    use super::*;
    use jumpshard_status::JUMPSHARD_OK;

    /// A handle's whole life through the C functions, small enough for a
    /// memory checker (Miri) to see every box, slice and write.
    #[test]
    fn a_cluster_through_the_c_functions() {
        let mut handle = core::ptr::null_mut();
        // SAFETY: a writable slot, then the live handle it receives, used
        // by this thread alone until freed at the end; every buffer is a
        // live array of its stated length.
        unsafe {
            assert_eq!(jumpshard_memento_new(10, &mut handle), JUMPSHARD_OK);
            assert_eq!(jumpshard_memento_remove(handle, 3), JUMPSHARD_OK);
            assert_eq!(jumpshard_memento_remove(handle, 7), JUMPSHARD_OK);
            let mut removals = [0i32; 2];
            let mut len = 0;
            let status = jumpshard_memento_removals(handle, removals.as_mut_ptr(), 2, &mut len);
            assert_eq!((status, len, removals), (JUMPSHARD_OK, 2, [3, 7]));

            let mut copy = core::ptr::null_mut();
            let status = jumpshard_memento_from_removals(10, removals.as_ptr(), 2, &mut copy);
            assert_eq!(status, JUMPSHARD_OK);
            let keys = [0u64, 1, 2, u64::MAX];
            let (mut a, mut b) = ([-1i32; 4], [-1i32; 4]);
            assert_eq!(
                jumpshard_memento_batch(handle, keys.as_ptr(), 4, a.as_mut_ptr()),
                JUMPSHARD_OK
            );
            assert_eq!(
                jumpshard_memento_batch(copy, keys.as_ptr(), 4, b.as_mut_ptr()),
                JUMPSHARD_OK
            );
            assert_eq!(a, b);
            let mut one = -1;
            assert_eq!(
                jumpshard_memento_bucket(copy, keys[3], &mut one),
                JUMPSHARD_OK
            );
            assert_eq!(one, a[3]);
            jumpshard_memento_free(copy);

            let data = b"alicebob";
            let offsets = [0u64, 5, 8];
            let mut out = [-1i32; 2];
            let status = jumpshard_memento_batch_bytes(
                handle,
                data.as_ptr(),
                8,
                offsets.as_ptr(),
                3,
                out.as_mut_ptr(),
                2,
            );
            assert_eq!(status, JUMPSHARD_OK);
            assert_eq!(
                jumpshard_memento_bucket_bytes(handle, data.as_ptr().add(5), 3, &mut one),
                JUMPSHARD_OK
            );
            assert_eq!(one, out[1]);
            let mut restored = -1;
            assert_eq!(
                jumpshard_memento_restore(handle, &mut restored),
                JUMPSHARD_OK
            );
            assert_eq!((restored, jumpshard_memento_working(handle)), (7, 9));
            jumpshard_memento_free(handle);
        }
    }
}
