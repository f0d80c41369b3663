//! Releases of a batch of nodes: the ids checked once, each block's units
//! taken back under one hold of the read lock and the block's total given
//! back with one atomic subtraction, so that what is left per unit is its
//! node's counter.

use std::sync::atomic::{AtomicU64, Ordering};

use super::batch::BLOCK;
use super::BoundedLoads;
use crate::Error;

impl BoundedLoads {
    /// Takes one unit of load back from each node of `nodes` (a node may
    /// appear any number of times, live or removed since it was acquired):
    /// exactly what [`BoundedLoads::release`] of each in turn does when all
    /// of them succeed. Calls from other threads may interleave between
    /// blocks of nodes, as between separate releases.
    ///
    /// A refusal changes nothing. Every id is checked first: the first the
    /// cluster never had fails with [`Error::NotABucket`], and nothing is
    /// released. When a unit finds its node's load at 0, the call fails
    /// with [`Error::NoLoad`] for the first such node, and the releases it
    /// had made are undone before it returns. That refusal means more
    /// releases than acquires, a bug of the caller; while the call undoes
    /// its releases, other threads may briefly see the lower loads (and
    /// acquire against them).
    ///
    /// ```
    /// use jumpshard::placement::BoundedLoads;
    /// use jumpshard::{BucketCount, Error, Memento};
    ///
    /// let router = BoundedLoads::new(Memento::new(BucketCount::new(10)?), 1.25)?;
    /// let keys: Vec<u64> = (0..1000).collect();
    /// let mut nodes = vec![0; keys.len()];
    /// router.acquire_batch(&keys, &mut nodes)?;
    /// router.release_batch(&nodes[..600])?;
    /// assert_eq!(router.total(), 400);
    /// // One release too many: refused, and nothing released.
    /// let node = nodes[0];
    /// let held = router.load(node)?;
    /// let too_many = vec![node; held as usize + 1];
    /// assert_eq!(router.release_batch(&too_many), Err(Error::NoLoad { node }));
    /// assert_eq!((router.load(node)?, router.total()), (held, 400));
    /// router.release_batch(&nodes[600..])?;
    /// assert!(router.loads().iter().all(|&l| l == 0));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn release_batch(&self, nodes: &[u32]) -> Result<(), Error> {
        {
            // Counters never go away, so an id found here has its counter
            // for every block below.
            let state = self.read();
            let barray = state.loads.len();
            if let Some(&bucket) = nodes.iter().find(|&&n| n as usize >= barray) {
                return Err(Error::NotABucket {
                    bucket,
                    barray: barray as u32,
                });
            }
        }
        for (b, block) in nodes.chunks(BLOCK).enumerate() {
            let state = self.read();
            for (i, &node) in block.iter().enumerate() {
                if take_one(&state.loads[node as usize]).is_none() {
                    // The blocks before this one gave their totals back:
                    // those are reserved again before any count grows, so
                    // that the total stays at least the sum of the loads.
                    let done = b * BLOCK;
                    self.total.fetch_add(done as u64, Ordering::AcqRel);
                    for &node in &nodes[..done + i] {
                        state.loads[node as usize].fetch_add(1, Ordering::AcqRel);
                    }
                    return Err(Error::NoLoad { node });
                }
            }
            // Given back after the block's counts shrank, so never below
            // their sum.
            self.total.fetch_sub(block.len() as u64, Ordering::AcqRel);
        }
        Ok(())
    }
}

/// Lowers `counter` by one unless it is 0, returning the load it had.
fn take_one(counter: &AtomicU64) -> Option<u64> {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |l| l.checked_sub(1))
        .ok()
}
