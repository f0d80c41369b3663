//! Byte-string keys: the pre-hash, one key's bucket, a batch of keys in the
//! Arrow layout.

use crate::buffers::{out_u32, Buffer};
use crate::guard::{guard, guard_status};
use crate::status::jumpshard_status::{self, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS};
use jumpshard::BucketCount;

/// Writes to `*out` the 64-bit key of the byte string `data[0..len]`: its
/// XXH3-64 with seed 0, the hash `jumpshard_bucket_bytes` and
/// `jumpshard_batch_bytes` put through `jumpshard_bucket`. It is fixed
/// forever, and is the `xxh3_64` of the xxHash libraries of every language.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `data`, `JUMPSHARD_ERROR_NULL_POINTER` (NULL with
/// `len > 0`) and `JUMPSHARD_ERROR_INVALID_LENGTH`; for `out`,
/// `JUMPSHARD_ERROR_NULL_POINTER` and `JUMPSHARD_ERROR_MISALIGNED_POINTER`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (`*out` inside `data`). On any
/// error `*out` is not written. A status rather than the hash itself is
/// returned because every `uint64_t` is some string's hash, so no value
/// could mean "refused".
///
/// With `len == 0` (the empty string) `data` is not used and may be NULL.
///
/// # Safety
/// Unless `len` is 0, `data` must point to `len` readable bytes; `out` must
/// point to a writable `uint64_t`; no other thread writes either during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_prehash_bytes(
    data: *const u8,
    len: usize,
    out: *mut u64,
) -> jumpshard_status {
    // SAFETY: the caller keeps this function's contract, which is
    // `prehash_seeded`'s.
    unsafe { prehash_seeded(data, len, 0, out) }
}

/// Writes to `*out` the 64-bit key of the byte string `data[0..len]` for
/// the tenant `seed`: its XXH3-64 with that seed (`xxh3_64_withSeed` of
/// the xxHash libraries), so that tenants sharing shards do not collide.
/// Seed 0 gives `jumpshard_prehash_bytes`. Checks, statuses and `out` on
/// error are `jumpshard_prehash_bytes`'s.
///
/// # Safety
/// As for `jumpshard_prehash_bytes`.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_prehash_bytes_seeded(
    data: *const u8,
    len: usize,
    seed: u64,
    out: *mut u64,
) -> jumpshard_status {
    // SAFETY: the caller keeps this function's contract, which is
    // `prehash_seeded`'s.
    unsafe { prehash_seeded(data, len, seed, out) }
}

/// The two pre-hash functions.
///
/// # Safety
/// Unless `len` is 0, `data` must point to `len` readable bytes; `out` must
/// point to a writable `uint64_t`; no other thread writes either during the
/// call.
unsafe fn prehash_seeded(
    data: *const u8,
    len: usize,
    seed: u64,
    out: *mut u64,
) -> jumpshard_status {
    guard_status(|| {
        let data = Buffer::new(data, len)?;
        let out = Buffer::new(out.cast_const(), 1)?;
        if out.overlaps(&data) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: the caller promises `len` readable bytes, not written
        // during the call.
        let key = jumpshard::bytes::prehash_seeded(unsafe { data.slice() }, seed);
        // SAFETY: the caller promises a writable `uint64_t` that no one else
        // accesses during the call; it is disjoint from `data`.
        let out = unsafe { out.slice_mut() };
        out[0] = key;
        Ok(())
    })
}

/// The bucket of the byte string `data[0..len]` among `num_buckets`:
/// `jumpshard_bucket` of its `jumpshard_prehash_bytes`, the bucket the Rust
/// API's `bucket_bytes` and `jumpshard reshard --key-format bytes` give.
///
/// Returns -1, as `jumpshard_bucket` does, when `num_buckets <= 0`, and
/// also when `data` is NULL with `len > 0` or `len` bytes cannot fit in the
/// address space from `data` (more than PTRDIFF_MAX, or past the end of
/// memory). With `len == 0` (the empty string) `data` may be NULL.
///
/// # Safety
/// Unless `len` is 0, `data` must point to `len` readable bytes that no
/// other thread writes during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bucket_bytes(
    data: *const u8,
    len: usize,
    num_buckets: i32,
) -> i32 {
    guard(-1, || {
        let (Ok(n), Ok(data)) = (BucketCount::try_from(num_buckets), Buffer::new(data, len)) else {
            return -1;
        };
        // SAFETY: the caller promises `len` readable bytes, not written
        // during the call.
        let key = unsafe { data.slice() };
        // Buckets are below num_buckets <= INT32_MAX, so the cast is exact.
        jumpshard::bucket_bytes(key, n) as i32
    })
}

/// Writes the bucket among `num_buckets` of `out_len` byte strings to
/// `out[0..out_len]`, on the calling thread with the active kernel. The
/// strings lie back to back in `data[0..data_len]`, in the layout of
/// Arrow's binary arrays: string `i` is `data[offsets[i]..offsets[i + 1]]`,
/// so `offsets` holds `offsets_len == out_len + 1` non-decreasing offsets,
/// each at most `data_len` (the first need not be 0; an empty batch still
/// has one offset). `out[i]` is `jumpshard_bucket_bytes` of string `i`.
///
/// Offsets are 64-bit: Arrow's large binary `int64_t` offsets can be
/// passed as they are (C may read an `int64_t` array through a `uint64_t`
/// pointer; a negative offset then reads as one past the data and is
/// refused); 32-bit offsets must be widened first.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: `JUMPSHARD_ERROR_INVALID_BUCKET_COUNT` (`num_buckets`
/// outside 1..INT32_MAX, checked even when `out_len` is 0); for `data`,
/// then `offsets`, then `out`: `JUMPSHARD_ERROR_NULL_POINTER` (NULL with a
/// length above 0), `JUMPSHARD_ERROR_MISALIGNED_POINTER`,
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; then
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (`out` overlaps `data` or
/// `offsets`; those two may overlap each other); then
/// `JUMPSHARD_ERROR_INVALID_OFFSETS`. On any error `out` is not written
/// (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
///
/// # Safety
/// Unless its length is 0, `data` must point to `data_len` readable bytes,
/// `offsets` to `offsets_len` readable `uint64_t` and `out` to `out_len`
/// writable `int32_t`, none written by another thread during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_batch_bytes(
    data: *const u8,
    data_len: usize,
    offsets: *const u64,
    offsets_len: usize,
    num_buckets: i32,
    out: *mut i32,
    out_len: usize,
) -> jumpshard_status {
    // SAFETY: the caller keeps this function's contract, which is
    // `batch_seeded`'s.
    unsafe {
        batch_seeded(
            data,
            data_len,
            offsets,
            offsets_len,
            0,
            num_buckets,
            out,
            out_len,
        )
    }
}

/// `jumpshard_batch_bytes` with the pre-hash of the tenant `seed`
/// (`jumpshard_prehash_bytes_seeded`): `out[i]` is the bucket of string
/// `i`'s seeded key. Seed 0 gives `jumpshard_batch_bytes`. Checks,
/// statuses and `out` on error are `jumpshard_batch_bytes`'s.
///
/// # Safety
/// As for `jumpshard_batch_bytes`.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C signature: pointer-length pairs
pub unsafe extern "C" fn jumpshard_batch_bytes_seeded(
    data: *const u8,
    data_len: usize,
    offsets: *const u64,
    offsets_len: usize,
    seed: u64,
    num_buckets: i32,
    out: *mut i32,
    out_len: usize,
) -> jumpshard_status {
    // SAFETY: the caller keeps this function's contract, which is
    // `batch_seeded`'s.
    unsafe {
        batch_seeded(
            data,
            data_len,
            offsets,
            offsets_len,
            seed,
            num_buckets,
            out,
            out_len,
        )
    }
}

/// The two byte batches.
///
/// # Safety
/// Unless its length is 0, `data` must point to `data_len` readable bytes,
/// `offsets` to `offsets_len` readable `uint64_t` and `out` to `out_len`
/// writable `int32_t`, none written by another thread during the call.
#[allow(clippy::too_many_arguments)]
unsafe fn batch_seeded(
    data: *const u8,
    data_len: usize,
    offsets: *const u64,
    offsets_len: usize,
    seed: u64,
    num_buckets: i32,
    out: *mut i32,
    out_len: usize,
) -> jumpshard_status {
    guard_status(|| {
        let n = BucketCount::try_from(num_buckets).map_err(|e| jumpshard_status::of(&e))?;
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
        jumpshard::bytes::batch_bytes_seeded(data, offsets, seed, n, out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three functions on real buffers, inputs overlapping each other
    /// included, so that a memory checker (Miri) sees every slice made.
    #[test]
    fn byte_keys_through_the_c_functions() {
        let words = [0u64, 1, 3, 8];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let data = words.as_ptr().cast::<u8>();
        let n = BucketCount::new(10).unwrap();
        let want =
            [&bytes[0..1], &bytes[1..3], &bytes[3..8]].map(|k| jumpshard::bucket_bytes(k, n));

        let mut out = [-7i32; 3];
        // SAFETY: `data` covers the 32 bytes of `words`, which are also the
        // offsets (inputs may overlap); `out` has room for 3 results.
        let status =
            unsafe { jumpshard_batch_bytes(data, 32, words.as_ptr(), 4, 10, out.as_mut_ptr(), 3) };
        assert_eq!(status, jumpshard_status::JUMPSHARD_OK);
        assert_eq!(out, want.map(|b| b as i32));

        let mut hash = 0;
        // SAFETY: 5 readable bytes inside `words`, and one writable u64.
        let status = unsafe { jumpshard_prehash_bytes(data.wrapping_add(3), 5, &mut hash) };
        assert_eq!(status, jumpshard_status::JUMPSHARD_OK);
        assert_eq!(hash, jumpshard::bytes::prehash(&bytes[3..8]));
        // SAFETY: 5 readable bytes inside `words`.
        let bucket = unsafe { jumpshard_bucket_bytes(data.wrapping_add(3), 5, 10) };
        assert_eq!(bucket, want[2] as i32);
    }
}
