//! Batches: the kernels run Figure 1 over the b-array for every key, as a
//! plain batch does; then the keys that landed on a removed bucket (about
//! the removed fraction of them) are resolved one by one. With nothing
//! removed the second pass is skipped, so the batch costs what
//! [`crate::batch`] costs.

use super::lookup::{prehash_bytes, rehash_u64};
use super::Memento;
use crate::bytes::{check_offsets, slices, Offset, BLOCK};
use crate::kernel::check_lengths;
use crate::{active_kernel, Error, Kernel};

impl Memento {
    /// [`Memento::bucket`] of every key, into `out[i]` for `keys[i]`, on the
    /// [`crate::active_kernel`]. Fails with [`Error::LengthMismatch`],
    /// leaving `out` untouched, when the lengths differ.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(1000)?);
    /// m.remove(10)?;
    /// m.remove(500)?;
    /// let keys: Vec<u64> = (0..4096).collect();
    /// let mut out = vec![0u32; keys.len()];
    /// m.batch(&keys, &mut out)?;
    /// assert!(keys.iter().zip(&out).all(|(&k, &b)| b == m.bucket(k)));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn batch(&self, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        self.batch_on(active_kernel(), keys, out)
    }

    /// [`Memento::batch`] on `kernel`, whichever the batch calls use.
    pub fn batch_on(&self, kernel: Kernel, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        check_lengths(keys, out)?;
        kernel.run(keys, self.barray.get(), out);
        if !self.removed.is_empty() {
            for (b, &key) in out.iter_mut().zip(keys) {
                if self.removed.contains(*b) {
                    *b = self.resolve(*b, |seed| rehash_u64(key, seed));
                }
            }
        }
        Ok(())
    }

    /// [`Memento::bucket_bytes`] of every byte key of an Arrow-style layout
    /// (`data[offsets[i]..offsets[i + 1]]` into `out[i]`), as
    /// [`crate::batch_bytes`] takes them. Fails as that does, leaving `out`
    /// untouched.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(10)?);
    /// m.remove(3)?;
    /// let mut out = [0u32; 3];
    /// m.batch_bytes(b"alicebobcarol", &[0u32, 5, 8, 13], &mut out)?;
    /// assert_eq!(out[1], m.bucket_bytes(b"bob"));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn batch_bytes<O: Offset>(
        &self,
        data: &[u8],
        offsets: &[O],
        out: &mut [u32],
    ) -> Result<(), Error> {
        check_offsets(data, offsets, out.len())?;
        let kernel = active_kernel();
        let mut keys = [0u64; BLOCK];
        // The block's byte strings, kept for the rehashes.
        let mut block: [&[u8]; BLOCK] = [&[]; BLOCK];
        let mut strings = slices(data, offsets);
        for out in out.chunks_mut(BLOCK) {
            let keys = &mut keys[..out.len()];
            let block = &mut block[..out.len()];
            for (k, s) in keys.iter_mut().zip(block.iter_mut()) {
                *s = strings
                    .next()
                    .expect("one string per output, checked above");
                *k = prehash_bytes(s);
            }
            kernel.run(keys, self.barray.get(), out);
            if self.removed.is_empty() {
                continue;
            }
            for (b, s) in out.iter_mut().zip(block.iter()) {
                if self.removed.contains(*b) {
                    *b = self.resolve(*b, |seed| xxhash_rust::xxh64::xxh64(s, u64::from(seed)));
                }
            }
        }
        Ok(())
    }
}
