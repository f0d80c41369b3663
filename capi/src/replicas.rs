//! Replica sets: k distinct buckets per key, the first Figure 1's, for one
//! key or a batch of keys as k columns.

use crate::buffers::{out_u32, Buffer};
use crate::guard::guard_status;
use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_INVALID_LENGTH, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
    JUMPSHARD_ERROR_TOO_MANY_REPLICAS,
};
use jumpshard::BucketCount;

/// Checks the arguments both functions share, in order: `num_buckets`,
/// then `k` against it.
fn counts(num_buckets: i32, k: usize) -> Result<BucketCount, jumpshard_status> {
    let n = BucketCount::try_from(num_buckets).map_err(|e| jumpshard_status::of(&e))?;
    if jumpshard::replicas::check(k, n).is_err() {
        return Err(JUMPSHARD_ERROR_TOO_MANY_REPLICAS);
    }
    Ok(n)
}

/// Writes the replica set of `key` among `num_buckets` to `out[0..k]`: `k`
/// distinct buckets, `out[0]` Figure 1's (`jumpshard_bucket`). The set is a
/// uniform sample of `k` buckets, and growing `num_buckets` by one changes
/// at most one member (to the new bucket), with probability
/// `k / (num_buckets + 1)`. The Rust API's `replicas::set`, bit for bit.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`num_buckets`
/// outside 1..INT32_MAX); `JUMPSHARD_ERROR_TOO_MANY_REPLICAS`
/// (`k > num_buckets`, or `k > 1024`,
/// the most members a set may have); for `out`, `JUMPSHARD_ERROR_NULL_POINTER` (NULL with
/// `k > 0`), `JUMPSHARD_ERROR_MISALIGNED_POINTER`,
/// `JUMPSHARD_ERROR_INVALID_LENGTH`. On any error `out` is not written.
/// With `k == 0` nothing is written and `out` may be NULL.
///
/// # Safety
/// Unless `k` is 0, `out` must point to `k` writable `int32_t` that no
/// other thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_replicas(
    key: u64,
    num_buckets: i32,
    out: *mut i32,
    k: usize,
) -> jumpshard_status {
    guard_status(|| {
        let n = counts(num_buckets, k)?;
        let out = Buffer::new(out_u32(out), k)?;
        // SAFETY: the caller promises `k` writable elements that no one
        // else accesses.
        let out = unsafe { out.slice_mut() };
        jumpshard::replicas::set(key, n, out).map_err(|e| jumpshard_status::of(&e))
    })
}

/// Writes the replica sets of `keys[0..len]` among `num_buckets` as `k`
/// columns of `len` elements, one after the other in `out`, which holds
/// `k * len` elements: member `j` of the set of `keys[i]` is
/// `out[j * len + i]`, so column `j` starts at `out + j * len`, and column
/// 0 is `jumpshard_batch`'s result. Each key's set is exactly
/// `jumpshard_replicas`'s. Column 0 runs on the active kernel, on the
/// calling thread like the rest.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`num_buckets`
/// outside 1..INT32_MAX); `JUMPSHARD_ERROR_TOO_MANY_REPLICAS`
/// (`k > num_buckets`, or `k > 1024`,
/// the most members a set may have); for `keys` (`len` elements), then `out` (`k * len`
/// elements): `JUMPSHARD_ERROR_NULL_POINTER` (NULL with elements),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`
/// (also when `k * len` overflows); then
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not
/// written (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
/// With `k * len == 0` nothing is written and `out` may be NULL (`keys`
/// too when `len` is 0).
///
/// # Safety
/// Unless `len` is 0, `keys` must point to `len` readable `uint64_t`;
/// unless `k * len` is 0, `out` must point to `k * len` writable `int32_t`;
/// no other thread may write either during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_replicas_batch(
    keys: *const u64,
    len: usize,
    num_buckets: i32,
    k: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        let n = counts(num_buckets, k)?;
        // SAFETY: the caller's contract, stated above, is the one
        // `columns` needs.
        unsafe {
            columns(keys, len, k, out, |keys, columns| {
                jumpshard::replicas::batch(keys, n, columns)
            })
        }
    })
}

/// Checks `keys` (`len` elements), then `out` (`k * len`), then that they
/// do not overlap, and runs `fill` over `k` columns of `len` elements of
/// `out`; nothing is written when `k * len` is 0. The replica batches of
/// plain counts and of Memento clusters share it.
///
/// # Safety
/// Unless `len` is 0, `keys` must point to `len` readable `uint64_t`;
/// unless `k * len` is 0, `out` must point to `k * len` writable `int32_t`;
/// no other thread may write either during the call.
pub(crate) unsafe fn columns(
    keys: *const u64,
    len: usize,
    k: usize,
    out: *mut i32,
    fill: impl FnOnce(&[u64], &mut [&mut [u32]]) -> Result<(), jumpshard::Error>,
) -> Result<(), jumpshard_status> {
    let keys = Buffer::new(keys, len)?;
    let total = k.checked_mul(len).ok_or(JUMPSHARD_ERROR_INVALID_LENGTH)?;
    let out = Buffer::new(out_u32(out), total)?;
    if keys.overlaps(&out) {
        return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
    }
    if total == 0 {
        // No key, or no replica: nothing to write (and no columns to make,
        // which for `len == 0` could be up to INT32_MAX).
        return Ok(());
    }
    // SAFETY: the caller promises `len` readable keys, not written during
    // the call.
    let keys = unsafe { keys.slice() };
    // SAFETY: the caller promises `k * len` writable outputs that no one
    // else accesses; they do not overlap the keys.
    let out = unsafe { out.slice_mut() };
    // `len > 0` here, and `out` has exactly `k * len` elements: `k` columns.
    let mut columns: Vec<&mut [u32]> = out.chunks_mut(len).collect();
    fill(keys, &mut columns).map_err(|e| jumpshard_status::of(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jumpshard_status::JUMPSHARD_OK;

    /// Both functions on real buffers, for Miri: the batch's columns are
    /// the single sets.
    #[test]
    fn replicas_through_the_c_functions() {
        let keys = [0u64, 1, u64::MAX];
        let mut columns = [-1i32; 9];
        // SAFETY: 3 keys and 3 columns of 3 elements.
        let status =
            unsafe { jumpshard_replicas_batch(keys.as_ptr(), 3, 10, 3, columns.as_mut_ptr()) };
        assert_eq!(status, JUMPSHARD_OK);
        for (i, &key) in keys.iter().enumerate() {
            let mut set = [-1i32; 3];
            // SAFETY: 3 writable elements.
            let status = unsafe { jumpshard_replicas(key, 10, set.as_mut_ptr(), 3) };
            assert_eq!(status, JUMPSHARD_OK);
            assert_eq!(set, [columns[i], columns[3 + i], columns[6 + i]]);
        }
    }
}
