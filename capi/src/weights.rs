//! Buckets with real-valued weights behind an opaque handle: making and
//! freeing one, one key's bucket, a batch.

use crate::buffers::{out_u32, Buffer, Buffers};
use crate::guard::{guard, guard_status};
use crate::handle::{self, Slot};
use crate::status::jumpshard_status::{self, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS};
use jumpshard::weights::Weights;
use jumpshard::BucketCount;

/// Buckets `0..len` with real-valued weights: bucket `i` receives a share
/// of the keys near `weights[i] / sum(weights)`, over Figure 1: a bucket
/// heavier than most holds several slots of Figure 1's axis, a lighter one
/// accepts a fraction of its slot's keys (the construction of the Rust
/// API's `weights` module, version `CONSTRUCTION`; golden vectors in
/// `testdata/weights/`). Made by `jumpshard_weights_new`, freed by
/// `jumpshard_weights_free`.
///
/// Thread safety: a weights handle never changes after it is made, so any
/// number of threads may look keys up in it at once; only
/// `jumpshard_weights_free` needs it to itself.
#[allow(non_camel_case_types)] // the C name
pub struct jumpshard_weights(Weights);

/// Makes buckets `0..len` with the weights `weights[0..len]` and writes
/// the handle to `*out`; free it with `jumpshard_weights_free`. The weights
/// are copied. Only their ratios matter: with all weights equal every key
/// gets Figure 1's bucket (`jumpshard_bucket(key, len)`); a bucket of
/// weight 0 never gets a key; changing one bucket's weight moves keys only
/// onto or off that bucket, as long as the table's unit (the largest
/// weight more than a quarter of the positive buckets hold, or else their
/// lower median) and the bucket's slot count stay the same (a new slot
/// count also moves keys onto or off the buckets of several slots after
/// it). The Rust API's `weights::Weights`, bit for bit.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`len` outside
/// 1..INT32_MAX); for `out`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `weights`,
/// `JUMPSHARD_ERROR_NULL_POINTER`, `JUMPSHARD_ERROR_MISALIGNED_POINTER` and
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`
/// (`*out` inside `weights`); `JUMPSHARD_ERROR_INVALID_WEIGHT` (a
/// negative, NaN or infinite weight; -0.0 is 0); then
/// `JUMPSHARD_ERROR_ALL_WEIGHTS_ZERO`. On any error `*out` is not written
/// and nothing stays allocated.
///
/// # Safety
/// Unless `len` is 0, `weights` must point to `len` readable `double`;
/// `out` must point to a writable `jumpshard_weights *`; no other thread
/// writes either during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_weights_new(
    weights: *const f64,
    len: usize,
    out: *mut *mut jumpshard_weights,
) -> jumpshard_status {
    guard_status(|| {
        let status = |e| jumpshard_status::of(&e);
        BucketCount::try_from(len).map_err(status)?;
        let slot = Slot::new(out)?;
        let weights = Buffer::new(weights, len)?;
        if slot.overlaps(&weights) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: the caller promises `len` readable weights, not written
        // during the call.
        let weights = Weights::new(unsafe { weights.slice() }).map_err(status)?;
        // SAFETY: the caller promises a writable, unaliased `*out`, which
        // does not overlap the weights (read already).
        unsafe { slot.fill(jumpshard_weights(weights)) };
        Ok(())
    })
}

/// Frees weights made by `jumpshard_weights_new`. NULL does nothing.
///
/// # Safety
/// `weights` must be NULL or a handle not freed yet, which no other thread
/// uses during the call; it must not be used after.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_weights_free(weights: *mut jumpshard_weights) {
    // SAFETY: the caller's contract is `handle::free`'s.
    guard((), || unsafe { handle::free(weights) })
}

/// The number of buckets (the `len` the weights were made with), or -1
/// when `weights` is NULL or misaligned.
///
/// # Safety
/// `weights` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_weights_len(weights: *const jumpshard_weights) -> i32 {
    guard(-1, || {
        // SAFETY: the caller promises a live handle.
        let weights = unsafe { handle::borrow(weights) };
        // At most INT32_MAX, so the cast is exact.
        weights.map_or(-1, |w| w.0.len().get() as i32)
    })
}

/// Writes to `*out` the bucket of `key`: the owner of the first of its
/// attempts (Figure 1 of the key over the table's slots, then of XXH64
/// rehashes of it) that the attempted slot accepts (an extra slot of a
/// heavy bucket always, a bucket's first slot with probability its weight's
/// fraction of a slot); after 8 refusals, the positive bucket nearest
/// (cyclically, at or after) an attempted one.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `weights`, then `out`: `JUMPSHARD_ERROR_NULL_POINTER`,
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`. On any error `*out` is not
/// written.
///
/// # Safety
/// `weights` must be NULL or a live handle; `out` must point to a writable
/// `int32_t` that no other thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_weights_bucket(
    weights: *const jumpshard_weights,
    key: u64,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle.
        let weights = unsafe { handle::borrow(weights) }?;
        let out = Buffer::new(out_u32(out), 1)?;
        // SAFETY: one writable `int32_t`, checked non-NULL and aligned,
        // that no one else accesses.
        let out = unsafe { out.slice_mut() };
        out[0] = weights.0.bucket(key);
        Ok(())
    })
}

/// Writes `jumpshard_weights_bucket` of `keys[i]` to `out[i]` for every
/// `i < len`, on the calling thread: the first attempts on the active
/// kernel, the rest for the keys refused.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `weights`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `keys`, then `out`:
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not
/// written (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
/// With `len == 0` the buffers are not used and may be NULL.
///
/// # Safety
/// `weights` must be NULL or a live handle; unless `len` is 0, `keys` must
/// point to `len` readable `uint64_t` and `out` to `len` writable
/// `int32_t` that no other thread writes during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_weights_batch(
    weights: *const jumpshard_weights,
    keys: *const u64,
    len: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle.
        let weights = unsafe { handle::borrow(weights) }?;
        // SAFETY: the caller's contract, stated above, is the one
        // `Buffers::new` needs.
        let buffers = unsafe { Buffers::new(keys, out, len) }?;
        weights
            .0
            .batch(buffers.keys, buffers.out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jumpshard_status::JUMPSHARD_OK;

    /// A handle's whole life through the C functions, for Miri.
    #[test]
    fn weights_through_the_c_functions() {
        let weights = [1.0, 0.0, 0.5];
        let keys = [0u64, 1, 2, u64::MAX];
        let rust = Weights::new(&weights).unwrap();
        let mut handle = core::ptr::null_mut();
        // SAFETY: a writable slot, then the live handle it receives, freed
        // at the end; every buffer is a live array of its stated length.
        unsafe {
            assert_eq!(
                jumpshard_weights_new(weights.as_ptr(), 3, &mut handle),
                JUMPSHARD_OK
            );
            assert_eq!(jumpshard_weights_len(handle), 3);
            let mut out = [-1i32; 4];
            let status = jumpshard_weights_batch(handle, keys.as_ptr(), 4, out.as_mut_ptr());
            assert_eq!(status, JUMPSHARD_OK);
            assert_eq!(out, keys.map(|k| rust.bucket(k) as i32));
            let mut one = -1;
            assert_eq!(jumpshard_weights_bucket(handle, 7, &mut one), JUMPSHARD_OK);
            assert_eq!(one, rust.bucket(7) as i32);
            jumpshard_weights_free(handle);
        }
    }
}
