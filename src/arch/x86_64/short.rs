//! What the two x86 kernels' short paths share: where the refilling loop
//! takes over, and how a short batch is cut into blocks.

/// How many times the refilling loop must be able to fill all its lanes
/// before a batch takes it rather than the short path's blocks. The loop's
/// fixed cost (starting its groups, packing the lanes as the keys run out,
/// and the last keys' chains, which few lanes step) measured about one
/// block's worth of keys on AMD Zen 4 (see docs/kernels.md); spread over 8
/// fills, it adds an eighth of a block's cost per key, so a batch just past
/// the switch runs at least as fast as the blocks wherever the loop at full
/// length is an eighth faster than them, and within an eighth of them on
/// any CPU. A property of the kernels' shape, not a per-CPU threshold.
pub(super) const LOOP_FILLS: usize = 8;

/// The length of each of the short path's blocks for a batch of `len`
/// keys: as few blocks of at most `block` keys as hold the batch, of equal
/// lengths rounded up to whole vectors of `lanes`, so that no block is left
/// with a few keys whose chain costs as much as a full block's. `block` is
/// a multiple of `lanes`, and so is the result, which is at most `block`.
/// One block needs no division, whose latency (on the path to the first
/// step) measured 5-10% of a call of 8 to 24 keys.
#[inline]
pub(super) fn block_len(len: usize, block: usize, lanes: usize) -> usize {
    if len <= block {
        return block;
    }
    len.div_ceil(len.div_ceil(block)).next_multiple_of(lanes)
}

#[cfg(test)]
mod tests {
    use super::block_len;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "integer arithmetic, no memory access for Miri to check"
    )]
    fn blocks_split_a_batch_evenly_in_whole_vectors() {
        assert_eq!(block_len(5, 64, 8), 64);
        assert_eq!(block_len(64, 64, 8), 64);
        assert_eq!(block_len(65, 64, 8), 40);
        assert_eq!(block_len(96, 64, 8), 48);
        assert_eq!(block_len(24, 24, 4), 24);
        assert_eq!(block_len(32, 24, 4), 16);
        assert_eq!(block_len(256, 24, 4), 24);
        for len in 1..2000 {
            for (block, lanes) in [(64, 8), (24, 4)] {
                let size = block_len(len, block, lanes);
                assert!(size <= block && size.is_multiple_of(lanes), "{len}");
                assert_eq!(len.div_ceil(size), len.div_ceil(block), "{len}");
            }
        }
    }
}
