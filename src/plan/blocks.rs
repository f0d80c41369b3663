//! The block loop of every plan, resize or node table: evaluate a block of
//! keys at the deciding count, stage its movers, hand both on.
//!
//! Blocks are small enough that a block's keys and buckets are still in
//! L1/L2 when its movers are selected and evaluated a second time, instead
//! of a second pass over the whole batch from memory.

use crate::kernel::filter::Staged;
use crate::Kernel;

/// Keys per block.
const BLOCK: usize = 8192;

/// The buffers a plan works in, one block at a time: the block's deciding
/// buckets and its moving keys (about 200 KB). A [`crate::MovePlan`] keeps
/// its own; [`crate::Resize::plan_into`] takes one from the caller, so that
/// they are reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct PlanScratch {
    buckets: Vec<u32>,
    staged: Staged,
}

/// One evaluated block.
pub(crate) struct Block<'a> {
    /// Their buckets at the deciding count.
    pub(crate) buckets: &'a [u32],
    /// The position of `keys[0]` in the input.
    pub(crate) base: u64,
    /// The movers (bucket at or above the threshold), staged at the front
    /// of each column: `staged.keys[..movers]` and so on.
    pub(crate) staged: &'a Staged,
    /// How many keys move.
    pub(crate) movers: usize,
}

impl PlanScratch {
    /// Evaluates `keys` at `decider` buckets block by block, stages each
    /// block's keys whose bucket is at least `threshold` (none when
    /// `threshold >= decider`), and hands every block to `each`. Key
    /// `keys[i]` has position `first_position + i`.
    pub(crate) fn run(
        &mut self,
        kernel: Kernel,
        keys: &[u64],
        first_position: u64,
        (decider, threshold): (u32, u32),
        mut each: impl FnMut(Block<'_>),
    ) {
        let block_len = BLOCK.min(keys.len());
        self.buckets.resize(block_len, 0);
        self.staged.reserve_block(block_len);
        for (i, keys) in keys.chunks(BLOCK).enumerate() {
            let buckets = &mut self.buckets[..keys.len()];
            kernel.run(keys, decider, buckets);
            let base = first_position + (i * BLOCK) as u64;
            let movers = if threshold < decider {
                kernel.filter_movers(keys, buckets, threshold, base, &mut self.staged)
            } else {
                0
            };
            each(Block {
                buckets,
                base,
                staged: &self.staged,
                movers,
            });
        }
    }
}
