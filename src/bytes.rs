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

mod sealed {
    pub trait Sealed {}
}

/// An integer type usable as a byte-key offset: Arrow's `i32` and `i64`
/// offsets, and the unsigned types.
pub trait Offset: Copy + sealed::Sealed {
    /// The offset widened so that every value of every offset type fits.
    fn widen(self) -> i128;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Offset for $t {
            #[inline]
            fn widen(self) -> i128 {
                self as i128
            }
        }
    )*};
}

offset!(i32, i64, u32, u64, usize);

/// Checks that `offsets` cut `data` into `keys` byte strings: `keys + 1`
/// offsets, each within `0..=data.len()`, none smaller than the one before.
pub(crate) fn check_offsets<O: Offset>(
    data: &[u8],
    offsets: &[O],
    keys: usize,
) -> Result<(), Error> {
    if offsets.len() != keys.saturating_add(1) {
        return Err(Error::OffsetCount {
            offsets: offsets.len(),
            keys,
        });
    }
    let mut previous = 0i128;
    for (index, offset) in offsets.iter().map(|o| o.widen()).enumerate() {
        if offset < 0 || offset > data.len() as i128 {
            return Err(Error::OffsetOutOfRange {
                index,
                offset,
                data_len: data.len(),
            });
        }
        if index > 0 && offset < previous {
            return Err(Error::OffsetDecreasing {
                index,
                offset,
                previous,
            });
        }
        previous = offset;
    }
    Ok(())
}

/// The byte strings of a checked offsets array, in order.
pub(crate) fn slices<'a, O: Offset>(
    data: &'a [u8],
    offsets: &'a [O],
) -> impl Iterator<Item = &'a [u8]> {
    // The offsets were checked to lie in 0..=data.len(), so they fit in usize.
    offsets
        .windows(2)
        .map(move |w| &data[w[0].widen() as usize..w[1].widen() as usize])
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
    check_offsets(data, offsets, out.len())?;
    for (o, key) in out.iter_mut().zip(slices(data, offsets)) {
        *o = prehash(key);
    }
    Ok(())
}

/// Keys pre-hashed per block before the kernel runs on them: small enough
/// to stay in L1 and on the stack, large enough for any SIMD kernel.
pub(crate) const BLOCK: usize = 256;

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
    let mut keys = [0u64; BLOCK];
    let mut strings = slices(data, offsets);
    for out in out.chunks_mut(BLOCK) {
        let keys = &mut keys[..out.len()];
        for (k, s) in keys.iter_mut().zip(&mut strings) {
            // Seed 0 keeps the default secret, with no per-key derivation.
            *k = if seed == 0 {
                prehash(s)
            } else {
                prehash_seeded(s, seed)
            };
        }
        kernel.run(keys, num_buckets.get(), out);
    }
    Ok(())
}
