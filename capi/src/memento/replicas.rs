//! Replica sets in a Memento cluster: k distinct working buckets per key,
//! the first its Memento bucket, for one key or a batch as k columns.

use super::jumpshard_memento;
use crate::buffers::{out_u32, Buffer};
use crate::guard::guard_status;
use crate::handle;
use crate::replicas::columns;
use crate::status::jumpshard_status;

/// Writes the replica set of `key` in the cluster to `out[0..k]`: `k`
/// distinct working buckets, `out[0]` its `jumpshard_memento_bucket`. With
/// nothing removed it is `jumpshard_replicas` over the b-array; each
/// removal replaces only the member it hits, and a restore undoes it (the
/// Rust API's `Memento::replicas`, bit for bit). It is the key's row of
/// `jumpshard_memento_replicas_batch`.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_TOO_MANY_REPLICAS`
/// (`k` above the working count or above 1024, the most members a set may
/// have); for `out`, `JUMPSHARD_ERROR_NULL_POINTER`
/// (NULL with `k > 0`), `JUMPSHARD_ERROR_MISALIGNED_POINTER`,
/// `JUMPSHARD_ERROR_INVALID_LENGTH`. On any error `out` is not written
/// (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified). With
/// `k == 0` nothing is written and `out` may be NULL.
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; unless `k` is 0, `out` must point to `k` writable `int32_t`
/// that no other thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_replicas(
    memento: *const jumpshard_memento,
    key: u64,
    out: *mut i32,
    k: usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        memento
            .0
            .check_replicas(k)
            .map_err(|e| jumpshard_status::of(&e))?;
        let out = Buffer::new(out_u32(out), k)?;
        // SAFETY: the caller promises `k` writable elements that no one
        // else accesses.
        let out = unsafe { out.slice_mut() };
        memento
            .0
            .replicas(key, out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

/// Writes the replica sets of `keys[0..len]` in the cluster as `k` columns
/// of `len` elements, one after the other in `out` (`k * len` elements):
/// member `j` of the set of `keys[i]` is `out[j * len + i]`, and column 0
/// is `jumpshard_memento_batch`'s result. With nothing removed the sets
/// are `jumpshard_replicas_batch`'s over the b-array; each removal replaces
/// only the member it hits (the Rust API's `Memento::replicas`, bit for
/// bit), and a restore undoes it.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_TOO_MANY_REPLICAS`
/// (`k` above the working count or above 1024, the most members a set may
/// have); for `keys` (`len` elements), then `out` (`k * len` elements):
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with elements), `JUMPSHARD_ERROR_MISALIGNED_POINTER`,
/// `JUMPSHARD_ERROR_INVALID_LENGTH` (also when `k * len` overflows); then
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not written
/// (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified). With
/// `k * len == 0` nothing is written and `out` may be NULL (`keys` too when
/// `len` is 0).
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; unless `len` is 0, `keys` must point to `len` readable
/// `uint64_t`; unless `k * len` is 0, `out` must point to `k * len`
/// writable `int32_t`; no other thread may write either during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_replicas_batch(
    memento: *const jumpshard_memento,
    keys: *const u64,
    len: usize,
    k: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        memento
            .0
            .check_replicas(k)
            .map_err(|e| jumpshard_status::of(&e))?;
        // SAFETY: the caller's contract, stated above, is the one
        // `replicas::columns` needs.
        unsafe {
            columns(keys, len, k, out, |keys, columns| {
                memento.0.replicas_batch(keys, columns)
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memento::{jumpshard_memento_free, jumpshard_memento_new, jumpshard_memento_remove};
    use jumpshard_status::{JUMPSHARD_ERROR_TOO_MANY_REPLICAS, JUMPSHARD_OK};

    /// The columns are the library's sets, on real buffers (for Miri), and
    /// a bad k leaves `out` untouched.
    #[test]
    fn replica_columns_under_removals() {
        let mut m = std::ptr::null_mut();
        // SAFETY: `m` is a writable handle pointer; the handle is freed
        // below and used only in between.
        unsafe {
            assert_eq!(jumpshard_memento_new(8, &mut m), JUMPSHARD_OK);
            assert_eq!(jumpshard_memento_remove(m, 2), JUMPSHARD_OK);
            let keys = [1u64, 99, u64::MAX];
            let mut out = [-1i32; 9];
            let status = jumpshard_memento_replicas_batch(m, keys.as_ptr(), 3, 3, out.as_mut_ptr());
            assert_eq!(status, JUMPSHARD_OK);
            let mut want = jumpshard::Memento::new(jumpshard::BucketCount::new(8).unwrap());
            want.remove(2).unwrap();
            for (i, &key) in keys.iter().enumerate() {
                let mut set = [0u32; 3];
                want.replicas(key, &mut set).unwrap();
                assert_eq!([out[i], out[3 + i], out[6 + i]], set.map(|b| b as i32));
                let mut one = [-1i32; 3];
                let status = jumpshard_memento_replicas(m, key, one.as_mut_ptr(), 3);
                assert_eq!(status, JUMPSHARD_OK);
                assert_eq!(one, set.map(|b| b as i32));
            }
            let mut untouched = [-1i32; 8];
            let status = jumpshard_memento_replicas(m, 1, untouched.as_mut_ptr(), 8);
            assert_eq!(status, JUMPSHARD_ERROR_TOO_MANY_REPLICAS);
            assert_eq!(untouched, [-1; 8]);
            let mut untouched = [-1i32; 8];
            let status =
                jumpshard_memento_replicas_batch(m, keys.as_ptr(), 1, 8, untouched.as_mut_ptr());
            assert_eq!(status, JUMPSHARD_ERROR_TOO_MANY_REPLICAS);
            assert_eq!(untouched, [-1; 8]);
            jumpshard_memento_free(m);
        }
    }
}
