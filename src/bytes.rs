//! Byte-string keys: a stable 64-bit pre-hash, then jump.
//!
//! Figure 1 takes a 64-bit key, so longer keys are hashed to 64 bits first.
//! The pre-hash is **XXH3-64 with seed 0** (the `xxh3_64` of the xxHash
//! specification, as in the `xxhash` libraries of C, Python, Go and Java),
//! fixed forever: every client, every process and every language must agree
//! on it, so it is never a per-process randomised hasher such as the
//! standard library's `DefaultHasher`. `testdata/golden.txt` holds
//! vectors (`bytes HEX N XXH3 BUCKET`) to check a port against.
//!
//! Tenants sharing shards give their keys a **seed** ([`prehash_seeded`],
//! [`batch_bytes_seeded`]): XXH3-64 with that 64-bit seed, so that equal
//! byte strings of two tenants land on unrelated buckets. Seed 0 is the
//! unseeded pre-hash; `testdata/seeded_golden.txt` holds vectors for
//! other seeds.
//!
//! Batches take the Arrow layout of variable-length binary arrays: one data
//! buffer with the keys back to back, and `keys + 1` offsets, key `i` being
//! `data[offsets[i]..offsets[i + 1]]`.
//!
//! ```
//! use jumpshard::{bytes, BucketCount};
//!
//! let n = BucketCount::new(12)?;
//! assert_eq!(bytes::prehash(b""), 0x2D06_8005_38D3_94C2);
//! assert_eq!(
//!     jumpshard::bucket_bytes(b"user:42", n),
//!     jumpshard::bucket(bytes::prehash(b"user:42"), n)
//! );
//!
//! let data = b"alicebobcarol";
//! let offsets = [0u32, 5, 8, 13];
//! let mut out = [0u32; 3];
//! jumpshard::batch_bytes(data, &offsets, n, &mut out)?;
//! assert_eq!(out[1], jumpshard::bucket_bytes(b"bob", n));
//! # Ok::<(), jumpshard::Error>(())
//! ```

use crate::{active_kernel, BucketCount, Error};

pub(crate) mod lanes;
mod offsets;

pub(crate) use lanes::BLOCK;
pub use offsets::Offset;
pub(crate) use offsets::{check_offsets, slices};

/// The 64-bit key of a byte string: XXH3-64 with seed 0.
///
/// ```
/// assert_eq!(jumpshard::bytes::prehash(b"a"), 0xE6C6_32B6_1E96_4E1F);
/// ```
#[inline]
pub fn prehash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The 64-bit key of a byte string for the tenant `seed`: XXH3-64 with
/// that seed (the `xxh3_64_withSeed` of the xxHash specification). Seed 0
/// gives [`prehash`].
///
/// ```
/// use jumpshard::bytes;
///
/// assert_eq!(bytes::prehash_seeded(b"user:42", 0), bytes::prehash(b"user:42"));
/// assert_ne!(bytes::prehash_seeded(b"user:42", 7), bytes::prehash(b"user:42"));
/// ```
#[inline]
pub fn prehash_seeded(bytes: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
}

/// The bucket of the byte string `key` among `num_buckets`:
/// [`crate::bucket`] of its [`prehash`].
///
/// ```
/// use jumpshard::BucketCount;
///
/// let n = BucketCount::new(1000)?;
/// assert!(jumpshard::bucket_bytes(b"user:42", n) < 1000);
/// assert_eq!(jumpshard::bucket_bytes(b"", BucketCount::MIN), 0);
/// # Ok::<(), jumpshard::Error>(())
/// ```
#[inline]
pub fn bucket_bytes(key: &[u8], num_buckets: BucketCount) -> u32 {
    crate::bucket(prehash(key), num_buckets)
}

/// The [`prehash`] of every byte string in an Arrow-style layout, `out[i]`
/// for `data[offsets[i]..offsets[i + 1]]`.
///
/// Fails, leaving `out` untouched, when `offsets` does not hold exactly
/// `out.len() + 1` offsets ([`Error::OffsetCount`]), when one lies outside
/// the data ([`Error::OffsetOutOfRange`]) or when one is smaller than the
/// one before ([`Error::OffsetDecreasing`]). The first offset need not be
/// 0 (an Arrow slice starts where it starts).
///
/// ```
/// use jumpshard::{bytes, Error};
///
/// let mut keys = [0u64; 2];
/// bytes::prehash_batch(b"xyz", &[0i64, 1, 3], &mut keys)?;
/// assert_eq!(keys, [bytes::prehash(b"x"), bytes::prehash(b"yz")]);
///
/// let mut untouched = [7u64; 2];
/// assert_eq!(
///     bytes::prehash_batch(b"xyz", &[0i64, 2, 1], &mut untouched),
///     Err(Error::OffsetDecreasing { index: 2, offset: 1, previous: 2 })
/// );
/// assert_eq!(untouched, [7, 7]);
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn prehash_batch<O: Offset>(data: &[u8], offsets: &[O], out: &mut [u64]) -> Result<(), Error> {
    prehash_batch_seeded(data, offsets, 0, out)
}

/// [`prehash_batch`] with the pre-hash of the tenant `seed`
/// ([`prehash_seeded`]); seed 0 is [`prehash_batch`].
///
/// ```
/// use jumpshard::bytes;
///
/// let mut keys = [0u64; 2];
/// bytes::prehash_batch_seeded(b"alicebob", &[0u32, 5, 8], 42, &mut keys)?;
/// assert_eq!(keys[1], bytes::prehash_seeded(b"bob", 42));
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn prehash_batch_seeded<O: Offset>(
    data: &[u8],
    offsets: &[O],
    seed: u64,
    out: &mut [u64],
) -> Result<(), Error> {
    check_offsets(data, offsets, out.len())?;
    if out.len() < lanes::ALONE {
        lanes::few(false, seed, data, offsets, out);
        return Ok(());
    }
    let mut prehash = lanes::Prehash::new(active_kernel(), seed);
    for (i, out) in out.chunks_mut(BLOCK).enumerate() {
        prehash.block(data, &offsets[i * BLOCK..], out);
    }
    Ok(())
}

/// The bucket of every byte string in an Arrow-style layout among
/// `num_buckets`, `out[i]` for `data[offsets[i]..offsets[i + 1]]`, on the
/// [`crate::active_kernel`].
///
/// Fails as [`prehash_batch`] does, leaving `out` untouched.
///
/// ```
/// use jumpshard::{BucketCount, Error};
///
/// let n = BucketCount::new(10)?;
/// let mut out = [u32::MAX; 2];
/// assert_eq!(
///     jumpshard::batch_bytes(b"ab", &[0i32, 1], n, &mut out),
///     Err(Error::OffsetCount { offsets: 2, keys: 2 })
/// );
/// assert_eq!(
///     jumpshard::batch_bytes(b"ab", &[0i32, 1, 3], n, &mut out),
///     Err(Error::OffsetOutOfRange { index: 2, offset: 3, data_len: 2 })
/// );
/// assert_eq!(out, [u32::MAX; 2]);
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn batch_bytes<O: Offset>(
    data: &[u8],
    offsets: &[O],
    num_buckets: BucketCount,
    out: &mut [u32],
) -> Result<(), Error> {
    batch_bytes_seeded(data, offsets, 0, num_buckets, out)
}

/// [`batch_bytes`] with the pre-hash of the tenant `seed`
/// ([`prehash_seeded`]); seed 0 is [`batch_bytes`].
///
/// ```
/// use jumpshard::{bytes, BucketCount};
///
/// let n = BucketCount::new(1000)?;
/// let mut out = [0u32; 2];
/// bytes::batch_bytes_seeded(b"alicebob", &[0u32, 5, 8], 42, n, &mut out)?;
/// assert_eq!(out[1], jumpshard::bucket(bytes::prehash_seeded(b"bob", 42), n));
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn batch_bytes_seeded<O: Offset>(
    data: &[u8],
    offsets: &[O],
    seed: u64,
    num_buckets: BucketCount,
    out: &mut [u32],
) -> Result<(), Error> {
    check_offsets(data, offsets, out.len())?;
    let kernel = active_kernel();
    if out.len() < lanes::ALONE {
        let mut keys = [0u64; lanes::ALONE];
        let keys = &mut keys[..out.len()];
        lanes::few(false, seed, data, offsets, keys);
        kernel.run(keys, num_buckets.get(), out);
        return Ok(());
    }
    let mut prehash = lanes::Prehash::new(kernel, seed);
    let mut keys = [0u64; BLOCK];
    for (i, out) in out.chunks_mut(BLOCK).enumerate() {
        let keys = &mut keys[..out.len()];
        prehash.block(data, &offsets[i * BLOCK..], keys);
        kernel.run(keys, num_buckets.get(), out);
    }
    Ok(())
}
