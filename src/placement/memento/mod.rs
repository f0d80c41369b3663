//! Removing any bucket, not only the last: MementoHash (Coluzzi et al.,
//! "MementoHash: A Stateful, Minimal Memory, Best Performing Consistent
//! Hash Algorithm", IEEE/ACM ToN 2024) on top of Figure 1.
//!
//! Jump hash needs its buckets to be a dense range, so a bucket that dies
//! in the middle has no good answer of its own. Memento keeps Figure 1 as
//! its first stage over the *b-array*, every bucket ever in use, and
//! remembers the removed ones: a key whose Figure 1 bucket is removed is
//! rehashed into the buckets that were working when that bucket was
//! removed. So:
//!
//! - with nothing removed, every key gets exactly Figure 1's bucket;
//! - removing a bucket moves exactly the keys that were on it, and none
//!   off a working bucket; the removed bucket's keys spread evenly over the
//!   working ones;
//! - restoring undoes the last removal exactly (restores are last in,
//!   first out), and with nothing to restore the b-array grows by one, as
//!   jump hash grows;
//! - removing the last bucket while nothing is removed is jump hash's own
//!   shrink, remembered by nobody.
//!
//! # The computation
//!
//! The state is the b-array size `n` and the removed buckets in removal
//! order. The `i`-th removal (from 0) leaves `w = n - i - 1` working
//! buckets; the removed bucket's *replacer* is bucket `w`, or, when `w` was
//! itself removed earlier, the replacer of `w`, followed until a bucket
//! working at that time. A lookup of key `K` with first-stage key `h`:
//!
//! 1. `b = figure1(h, n)`;
//! 2. while `b` is removed, with working count `r` after its removal:
//!    `b = rehash(K, b) mod r`; then, while `b` is a bucket removed with a
//!    working count of at least `r` (removed no later than the one being
//!    resolved), `b` = its replacer.
//!
//! Storing resolved replacers (as the authors' Memento9995 variant does)
//! gives the same buckets as following the plain chain of replacers at
//! lookup time: a replacer chain only ever passes through buckets removed
//! earlier, and those stay removed while the bucket being resolved does.
//!
//! Keys and their two hashes:
//!
//! - **u64 keys** ([`Memento::bucket`], [`Memento::batch`]): `h` is the key
//!   itself, so that with nothing removed the answers are
//!   [`crate::bucket`]'s, and `rehash(K, b)` is XXH64 of the key's 8
//!   little-endian bytes with seed `b`.
//! - **byte keys**, compatible with the authors' C++ engine
//!   ([`Memento::bucket_bytes`], [`Memento::batch_bytes`]): `h` is XXH64 of
//!   the bytes with seed 0 and `rehash(K, b)` XXH64 of the bytes with seed
//!   `b`. (This differs from [`crate::bucket_bytes`], whose pre-hash is
//!   XXH3; the Memento vectors in the repository pin both hashes.)
//!
//! `reference/memento.cpp` computes the same from this text, for the
//! differential tests.
//!
//! ```
//! use jumpshard::{BucketCount, Memento};
//!
//! let mut cluster = Memento::new(BucketCount::new(10)?);
//! let keys: Vec<u64> = (0..10_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
//! let before: Vec<u32> = keys.iter().map(|&k| cluster.bucket(k)).collect();
//! assert_eq!(before[7], jumpshard::bucket(keys[7], BucketCount::new(10)?));
//!
//! cluster.remove(3)?; // bucket 3 dies
//! for (&k, &old) in keys.iter().zip(&before) {
//!     let new = cluster.bucket(k);
//!     assert_ne!(new, 3);
//!     // Only the keys of bucket 3 move.
//!     assert!(old == 3 || new == old);
//! }
//! assert_eq!(cluster.restore()?, 3); // it comes back
//! assert!(keys.iter().zip(&before).all(|(&k, &old)| cluster.bucket(k) == old));
//! # Ok::<(), jumpshard::Error>(())
//! ```

mod batch;
pub(crate) mod batch_bytes;
mod lookup;
mod removed;
mod replicas;
mod rounds;
pub(crate) mod span;

use crate::{BucketCount, Error};
use removed::{Entry, Link, Removed};

/// A jump-hash cluster from which any bucket can be removed and restored:
/// the b-array size and the removed buckets (see the [module
/// documentation](self) for the computation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memento {
    /// Every bucket of Figure 1's first stage, working or removed.
    barray: BucketCount,
    removed: Removed,
    /// What the next restore brings back: the newest removal, or the
    /// b-array size when nothing is removed (a restore then grows).
    last_removed: u32,
}

impl Memento {
    /// A cluster of `n` working buckets, none removed.
    pub fn new(n: BucketCount) -> Memento {
        Memento {
            barray: n,
            removed: Removed::new(n.get()),
            last_removed: n.get(),
        }
    }

    /// The cluster of a b-array of `n` buckets from which `removals` were
    /// removed in this order (what [`Memento::removals`] returns). Fails,
    /// naming the first removal that does not replay, as
    /// [`Memento::remove`] would, or with [`Error::ShrinkInRemovals`] for a
    /// first removal of the last bucket: that one shrinks the b-array and
    /// is never remembered, so such a list describes a smaller `n`.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Error, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(8)?);
    /// m.remove(2)?;
    /// m.remove(5)?;
    /// assert_eq!(Memento::from_removals(m.barray(), m.removals())?, m);
    /// assert_eq!(
    ///     Memento::from_removals(m.barray(), &[2, 2]),
    ///     Err(Error::AlreadyRemoved { bucket: 2 })
    /// );
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn from_removals(n: BucketCount, removals: &[u32]) -> Result<Memento, Error> {
        let mut memento = Memento::new(n);
        if removals.first() == Some(&(n.get() - 1)) {
            return Err(Error::ShrinkInRemovals {
                bucket: n.get() - 1,
            });
        }
        for &bucket in removals {
            memento.remember(bucket)?;
        }
        Ok(memento)
    }

    /// The b-array size: working and removed buckets; Figure 1's first
    /// stage runs over this count.
    pub fn barray(&self) -> BucketCount {
        self.barray
    }

    /// The number of working buckets.
    pub fn working(&self) -> u32 {
        self.barray.get() - self.removed.len() as u32
    }

    /// The removed buckets, in removal order (restores undo the last).
    pub fn removals(&self) -> &[u32] {
        self.removed.order()
    }

    /// Whether `bucket` is removed (buckets beyond the b-array are not
    /// removed, they do not exist).
    pub fn is_removed(&self, bucket: u32) -> bool {
        bucket < self.barray.get() && self.removed.contains(bucket)
    }

    /// Removes `bucket`: its keys move to the working buckets, no other key
    /// moves. The last bucket while nothing is removed is a plain shrink of
    /// the b-array, remembered by nobody.
    ///
    /// Fails, changing nothing, with [`Error::NotABucket`] beyond the
    /// b-array, [`Error::AlreadyRemoved`], and [`Error::LastWorkingBucket`]
    /// when it is the only working bucket left.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Error, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(3)?);
    /// m.remove(2)?; // the tail, with nothing removed: a shrink
    /// assert_eq!((m.barray().get(), m.removals()), (2, &[][..]));
    /// m.remove(0)?;
    /// assert_eq!((m.working(), m.removals()), (1, &[0][..]));
    /// assert_eq!(m.remove(1), Err(Error::LastWorkingBucket { bucket: 1 }));
    /// assert_eq!(m.remove(7), Err(Error::NotABucket { bucket: 7, barray: 2 }));
    /// // Any u32 is asked about safely, before a removal too.
    /// let mut fresh = Memento::new(BucketCount::new(10)?);
    /// assert_eq!(
    ///     fresh.remove(u32::MAX),
    ///     Err(Error::NotABucket { bucket: u32::MAX, barray: 10 })
    /// );
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn remove(&mut self, bucket: u32) -> Result<(), Error> {
        let n = self.barray.get();
        // (`n - 1`, not `bucket + 1`: `u32::MAX` is a bucket asked about.)
        if self.removed.is_empty() && bucket == n - 1 && n > 1 {
            self.barray = BucketCount::new(bucket)?;
            self.removed.resize(bucket);
            self.last_removed = bucket;
            return Ok(());
        }
        self.remember(bucket)
    }

    /// Removes `bucket` into the table (never a shrink).
    fn remember(&mut self, bucket: u32) -> Result<(), Error> {
        let n = self.barray.get();
        if bucket >= n {
            return Err(Error::NotABucket { bucket, barray: n });
        }
        if self.removed.contains(bucket) {
            return Err(Error::AlreadyRemoved { bucket });
        }
        if self.working() == 1 {
            return Err(Error::LastWorkingBucket { bucket });
        }
        let working = self.working() - 1;
        let mut replacer = working;
        while let Some(link) = self.removed.link(replacer) {
            replacer = link.replacer;
        }
        let entry = Entry {
            link: Link { working, replacer },
            previous: self.last_removed,
        };
        self.removed.insert(bucket, entry);
        self.last_removed = bucket;
        Ok(())
    }

    /// Restores the last removed bucket and returns it: exactly its keys
    /// come back to it. With nothing removed, the b-array grows by one
    /// bucket, which is returned (jump hash's own growth).
    ///
    /// Fails with [`Error::InvalidBucketCount`] when the b-array already
    /// holds 2^31 - 1 buckets and nothing is removed.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(6)?);
    /// for b in [0, 3, 1, 4, 5] {
    ///     m.remove(b)?;
    /// }
    /// let restored: Vec<u32> = (0..5).map(|_| m.restore()).collect::<Result<_, _>>()?;
    /// assert_eq!(restored, [5, 4, 1, 3, 0]);
    /// assert_eq!(m.restore()?, 6); // then it grows
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn restore(&mut self) -> Result<u32, Error> {
        let bucket = self.last_removed;
        if self.removed.is_empty() {
            let n = BucketCount::new(bucket + 1)?;
            self.barray = n;
            self.removed.resize(n.get());
            self.last_removed = n.get();
        } else {
            self.last_removed = self.removed.pop(bucket).previous;
        }
        Ok(bucket)
    }

    /// Where Figure 1's first-stage bucket `b` of a key ends: `b` itself
    /// when working, else where the rehashes and replacers lead.
    /// `rehash(b)` is the key's rehash with seed `b`.
    #[inline]
    fn resolve(&self, b: u32, rehash: impl Fn(u32) -> u64) -> u32 {
        self.resolve_as_of(b, rehash, 1)
    }

    /// [`Memento::resolve`] as the cluster stood when its working count
    /// first fell to `floor`: only the removals that left at least `floor`
    /// working buckets count (1 counts them all). Replicas replay the
    /// removals in order with it.
    #[inline]
    fn resolve_as_of(&self, mut b: u32, rehash: impl Fn(u32) -> u64, floor: u32) -> u32 {
        let mut entry = self.removed.link(b).filter(|e| e.working >= floor);
        while let Some(removed) = entry {
            let r = removed.working;
            b = (rehash(b) % u64::from(r)) as u32;
            entry = self.removed.link(b);
            while let Some(earlier) = entry.filter(|e| e.working >= r) {
                b = earlier.replacer;
                entry = self.removed.link(b);
            }
            entry = entry.filter(|e| e.working >= floor);
        }
        b
    }

    /// The working count right after `bucket`'s removal, if it is removed:
    /// removals are ordered by it, the newest having the smallest.
    fn working_after_removal_of(&self, bucket: u32) -> Option<u32> {
        self.removed.link(bucket).map(|e| e.working)
    }
}

#[cfg(test)]
mod bytes_tests;
#[cfg(test)]
mod tests;
