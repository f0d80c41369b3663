//! Acquires of a batch of keys: each key's bucket from one
//! [`Memento::batch`](crate::Memento::batch) on the kernel's lanes, and the
//! batch's totals reserved with one atomic add, so that what is left per
//! key is its node's counter (and, for a full bucket, its walk).

use std::sync::atomic::Ordering;

use super::BoundedLoads;
use crate::Error;

/// Keys acquired (or nodes released) under one hold of the read lock: long
/// enough that the bucket batch runs on the lanes at full speed, short
/// enough that a membership change waits for little.
pub(super) const BLOCK: usize = 256;

impl BoundedLoads {
    /// The nodes for `keys`, each counted, into `out`: exactly what
    /// [`BoundedLoads::acquire`] of each key in turn answers, as if no
    /// other call ran in between (calls from other threads may interleave
    /// between blocks of keys, as between separate acquires). Fails with
    /// [`Error::LengthMismatch`], acquiring nothing and leaving `out`
    /// untouched, when the lengths differ.
    ///
    /// ```
    /// use jumpshard::placement::BoundedLoads;
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let n = BucketCount::new(10)?;
    /// let (batch, one_by_one) = (
    ///     BoundedLoads::new(Memento::new(n), 1.25)?,
    ///     BoundedLoads::new(Memento::new(n), 1.25)?,
    /// );
    /// // Half the requests on one hot key: its bucket fills, and the
    /// // rest walk on.
    /// let keys: Vec<u64> = (0..1000).map(|i| if i % 2 == 0 { 7 } else { i }).collect();
    /// let mut nodes = vec![0; keys.len()];
    /// batch.acquire_batch(&keys, &mut nodes)?;
    /// for (&key, &node) in keys.iter().zip(&nodes) {
    ///     assert_eq!(node, one_by_one.acquire(key));
    /// }
    /// assert_eq!(batch.loads(), one_by_one.loads());
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn acquire_batch(&self, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        if keys.len() != out.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                out: out.len(),
            });
        }
        for (keys, out) in keys.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            let state = self.read();
            state.cluster.batch(keys, out).expect("lengths match");
            // The block's totals, reserved before any node's count grows:
            // key i's is the total its own acquire would have reserved.
            let before = self.total.fetch_add(keys.len() as u64, Ordering::AcqRel);
            for (total, (&key, node)) in (before + 1..).zip(keys.iter().zip(out)) {
                *node = self.place(&state, key, *node, total).node;
            }
        }
        Ok(())
    }
}
