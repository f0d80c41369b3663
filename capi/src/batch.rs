//! The hashing functions: one key, a batch, a batch on many threads.

use crate::buffers::Buffers;
use crate::guard::{guard, guard_status};
use crate::status::jumpshard_status;
use jumpshard::BucketCount;

/// The bucket of `key` among `num_buckets`: exactly what Figure 1 of
/// Lamping and Veach returns, including -1 when `num_buckets <= 0`.
/// Always the scalar loop (a single key gains nothing from SIMD).
#[no_mangle]
pub extern "C" fn jumpshard_bucket(key: u64, num_buckets: i32) -> i32 {
    guard(-1, || match BucketCount::try_from(num_buckets) {
        // Buckets are below num_buckets <= INT32_MAX, so the cast is exact.
        Ok(n) => jumpshard::bucket(key, n) as i32,
        Err(_) => -1,
    })
}

/// Checks the arguments of both batch functions: `num_buckets`, then
/// `keys`, then `out`, then that the buffers are disjoint; the first
/// failure is the status.
///
/// # Safety
/// As for [`Buffers::new`].
unsafe fn checked<'a>(
    keys: *const u64,
    len: usize,
    num_buckets: i32,
    out: *mut i32,
) -> Result<(Buffers<'a>, BucketCount), jumpshard_status> {
    let n = BucketCount::try_from(num_buckets).map_err(|e| jumpshard_status::of(&e))?;
    // SAFETY: the caller's contract, passed on unchanged.
    let buffers = unsafe { Buffers::new(keys, out, len) }?;
    Ok((buffers, n))
}

/// Writes the bucket of `keys[i]` among `num_buckets` to `out[i]` for every
/// `i < len`, on the calling thread, with the active kernel (see
/// `jumpshard_kernel_name`). Results are identical to `jumpshard_bucket`'s.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails,
/// in this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`num_buckets`
/// outside 1..INT32_MAX, checked even when `len` is 0); for `keys`, then
/// for `out`: `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not
/// written (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
///
/// Buffers need only their type's natural alignment. With `len == 0` the
/// pointers are not used and may be NULL.
///
/// # Safety
/// Unless `len` is 0, `keys` must point to `len` readable `uint64_t` and
/// `out` to `len` writable `int32_t` that no other thread writes during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_batch(
    keys: *const u64,
    len: usize,
    num_buckets: i32,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller's contract, stated above, is the one `checked`
        // needs.
        let (buffers, n) = unsafe { checked(keys, len, num_buckets, out) }?;
        jumpshard::batch(buffers.keys, n, buffers.out).map_err(|e| jumpshard_status::of(&e))
    })
}

/// `jumpshard_batch` on up to `threads` threads of the library's thread
/// pool, which has one thread per core (`threads == 0` means all of them;
/// more than the core count gives no more). The calling thread waits for
/// the result, which is identical to `jumpshard_batch`'s; small batches
/// run on fewer threads, and a child forked after the pool started (which
/// has none of its threads) runs them on the calling thread. Statuses and
/// the contract are those of `jumpshard_batch`.
///
/// # Safety
/// As for `jumpshard_batch`.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_batch_parallel(
    keys: *const u64,
    len: usize,
    num_buckets: i32,
    out: *mut i32,
    threads: usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller's contract, stated above, is the one `checked`
        // needs.
        let (buffers, n) = unsafe { checked(keys, len, num_buckets, out) }?;
        #[cfg(feature = "parallel")]
        let result = jumpshard::batch_parallel(buffers.keys, n, buffers.out, threads);
        // Without the thread pool the batch runs on the calling thread.
        #[cfg(not(feature = "parallel"))]
        let result = {
            let _ = threads;
            jumpshard::batch(buffers.keys, n, buffers.out)
        };
        result.map_err(|e| jumpshard_status::of(&e))
    })
}
