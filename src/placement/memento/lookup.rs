//! One key at a time: the reference every batch is checked against.

use super::Memento;
use crate::kernel::scalar::jump;

/// The rehash of a u64 key with seed `bucket`: XXH64 of its 8
/// little-endian bytes.
#[inline]
pub(super) fn rehash_u64(key: u64, bucket: u32) -> u64 {
    xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), u64::from(bucket))
}

/// The first-stage key of a byte key: XXH64 with seed 0.
#[inline]
pub(super) fn prehash_bytes(key: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(key, 0)
}

impl Memento {
    /// The bucket of a u64 key: Figure 1 over the b-array, then the
    /// rehashes if that bucket is removed. With nothing removed it is
    /// [`crate::bucket`] over the b-array.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let n = BucketCount::new(100)?;
    /// let mut m = Memento::new(n);
    /// assert_eq!(m.bucket(1253737204188795044), jumpshard::bucket(1253737204188795044, n));
    /// m.remove(86)?;
    /// assert_ne!(m.bucket(1253737204188795044), 86);
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    #[inline]
    pub fn bucket(&self, key: u64) -> u32 {
        let b = jump(key, self.barray.get());
        self.resolve(b, |seed| rehash_u64(key, seed))
    }

    /// The bucket of a byte key, as the authors' C++ engine computes it:
    /// Figure 1 over the b-array of XXH64(key, seed 0), then XXH64(key,
    /// seed = bucket) for the rehashes.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let m = Memento::new(BucketCount::new(10)?);
    /// assert_eq!(m.bucket_bytes(b""), 7);
    /// assert_eq!(m.bucket_bytes(b"a"), 8);
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    #[inline]
    pub fn bucket_bytes(&self, key: &[u8]) -> u32 {
        let b = jump(prehash_bytes(key), self.barray.get());
        self.resolve(b, |seed| xxhash_rust::xxh64::xxh64(key, u64::from(seed)))
    }
}
