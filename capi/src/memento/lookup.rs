//! Lookups in a Memento cluster: one 64-bit key, a batch of them, one byte
//! key, a batch of byte keys in the Arrow layout.

use super::jumpshard_memento;
use crate::buffers::{out_u32, Buffer, Buffers};
use crate::guard::guard_status;
use crate::handle;
use crate::status::jumpshard_status::{self, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS};

/// Writes to `*out` the bucket of the 64-bit key `key` in the cluster:
/// Figure 1 over the b-array (`jumpshard_bucket(key, barray)`), and, when
/// that bucket is removed, where the rehashes (XXH64 of the key's 8
/// little-endian bytes, seeded with the bucket) lead among the working
/// buckets. With nothing removed it is `jumpshard_bucket(key, barray)`.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, then `out`: `JUMPSHARD_ERROR_NULL_POINTER`,
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`. On any error `*out` is not
/// written.
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; `out` must point to a writable `int32_t` that no other thread
/// accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_bucket(
    memento: *const jumpshard_memento,
    key: u64,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        let out = Buffer::new(out_u32(out), 1)?;
        // SAFETY: one writable `int32_t`, checked non-NULL and aligned,
        // that no one else accesses.
        let out = unsafe { out.slice_mut() };
        out[0] = memento.0.bucket(key);
        Ok(())
    })
}

/// Writes `jumpshard_memento_bucket` of `keys[i]` to `out[i]` for every
/// `i < len`, on the calling thread: Figure 1 on the active kernel (see
/// `jumpshard_kernel_name`), then the keys that landed on a removed bucket
/// one by one.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `keys`, then `out`:
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not
/// written (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
/// With `len == 0` the buffers are not used and may be NULL.
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; unless `len` is 0, `keys` must point to `len` readable
/// `uint64_t` and `out` to `len` writable `int32_t` that no other thread
/// writes during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_batch(
    memento: *const jumpshard_memento,
    keys: *const u64,
    len: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        // SAFETY: the caller's contract, stated above, is the one
        // `Buffers::new` needs.
        let buffers = unsafe { Buffers::new(keys, out, len) }?;
        memento
            .0
            .batch(buffers.keys, buffers.out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

/// Writes to `*out` the bucket of the byte string `data[0..len]` in the
/// cluster, as the MementoHash authors' engine computes it: Figure 1 over
/// the b-array of XXH64(data, seed 0), then XXH64(data, seed = bucket) for
/// the rehashes. (Not `jumpshard_bucket_bytes`'s pre-hash, which is XXH3:
/// with nothing removed the two differ.) `testdata/memento/golden.txt`
/// holds the authors' answers.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `data`,
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`) and
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; for `out`,
/// `JUMPSHARD_ERROR_NULL_POINTER` and `JUMPSHARD_ERROR_MISALIGNED_POINTER`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (`*out` inside `data`). On
/// any error `*out` is not written. With `len == 0` (the empty string)
/// `data` may be NULL.
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; unless `len` is 0, `data` must point to `len` readable bytes;
/// `out` must point to a writable `int32_t`; no other thread writes either
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_bucket_bytes(
    memento: *const jumpshard_memento,
    data: *const u8,
    len: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        let data = Buffer::new(data, len)?;
        let out = Buffer::new(out_u32(out), 1)?;
        if out.overlaps(&data) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: the caller promises `len` readable bytes, not written
        // during the call.
        let bucket = memento.0.bucket_bytes(unsafe { data.slice() });
        // SAFETY: one writable `int32_t` that no one else accesses,
        // disjoint from `data`.
        let out = unsafe { out.slice_mut() };
        out[0] = bucket;
        Ok(())
    })
}

/// Writes `jumpshard_memento_bucket_bytes` of `out_len` byte strings to
/// `out[0..out_len]`, on the calling thread with the active kernel. The
/// strings lie in `data[0..data_len]` as for `jumpshard_batch_bytes`:
/// string `i` is `data[offsets[i]..offsets[i + 1]]`, with
/// `offsets_len == out_len + 1` non-decreasing 64-bit offsets, each at
/// most `data_len` (Arrow's large binary `int64_t` offsets pass as they
/// are; a negative one reads as past the data and is refused).
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `memento`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `data`, then `offsets`, then
/// `out`: `JUMPSHARD_ERROR_NULL_POINTER` (NULL with a length above 0),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (`out` overlaps `data` or
/// `offsets`); then `JUMPSHARD_ERROR_INVALID_OFFSETS`. On any error `out`
/// is not written (after `JUMPSHARD_ERROR_PANIC` its contents are
/// unspecified).
///
/// # Safety
/// `memento` must be NULL or a live handle that no thread mutates during
/// the call; unless its length is 0, `data` must point to `data_len`
/// readable bytes, `offsets` to `offsets_len` readable `uint64_t` and
/// `out` to `out_len` writable `int32_t`, none written by another thread
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_memento_batch_bytes(
    memento: *const jumpshard_memento,
    data: *const u8,
    data_len: usize,
    offsets: *const u64,
    offsets_len: usize,
    out: *mut i32,
    out_len: usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let memento = unsafe { handle::borrow(memento) }?;
        let data = Buffer::new(data, data_len)?;
        let offsets = Buffer::new(offsets, offsets_len)?;
        let out = Buffer::new(out_u32(out), out_len)?;
        if out.overlaps(&data) || out.overlaps(&offsets) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: the caller promises `data_len` readable bytes and
        // `offsets_len` readable offsets, neither written during the call.
        let (data, offsets) = unsafe { (data.slice(), offsets.slice()) };
        // SAFETY: the caller promises `out_len` writable outputs that no one
        // else accesses during the call; `out` overlaps neither input.
        let out = unsafe { out.slice_mut() };
        memento
            .0
            .batch_bytes(data, offsets, out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}
