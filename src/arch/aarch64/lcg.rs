//! The LCG step `state * M + 1 (mod 2^64)` on two 64-bit lanes.
//!
//! NEON multiplies 32-bit lanes at most, so the product is assembled from
//! halves: with `state = h 2^32 + l` and `M = H 2^32 + L`,
//! `state * M = l L + (h L + l H) 2^32 (mod 2^64)` (the `h H 2^64` term
//! vanishes). `l L` needs its full 64 bits (a widening multiply); of the
//! cross terms only the low 32 bits survive the shift, so plain 32-bit
//! multiplies do.

use core::arch::aarch64::*;

use crate::kernel::scalar::LCG_MULTIPLIER;

/// Low and high 32-bit halves of the multiplier.
const M_LO: u32 = LCG_MULTIPLIER as u32;
const M_HI: u32 = (LCG_MULTIPLIER >> 32) as u32;

/// `state * M + 1`, wrapping, in each lane.
#[inline]
#[target_feature(enable = "neon")]
pub(super) fn step(state: uint64x2_t) -> uint64x2_t {
    let lo = vmovn_u64(state);
    let hi = vshrn_n_u64::<32>(state);
    // h L + l H, mod 2^32.
    let cross = vmla_u32(vmul_u32(hi, vdup_n_u32(M_LO)), lo, vdup_n_u32(M_HI));
    // (cross << 32) + l L, mod 2^64.
    let product = vmlal_u32(vshll_n_u32::<32>(cross), lo, vdup_n_u32(M_LO));
    vaddq_u64(product, vdupq_n_u64(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two lanes through [`step`], as integers.
    #[target_feature(enable = "neon")]
    fn step_pair(a: u64, b: u64) -> [u64; 2] {
        let state = vcombine_u64(vcreate_u64(a), vcreate_u64(b));
        let next = step(state);
        [vgetq_lane_u64::<0>(next), vgetq_lane_u64::<1>(next)]
    }

    #[test]
    fn matches_the_wrapping_multiply() {
        assert!(std::arch::is_aarch64_feature_detected!("neon"));
        let lcg = |s: u64| s.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        let mut edges = vec![
            0,
            1,
            u32::MAX as u64,
            1 << 32,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
        ];
        // Every combination of halves being 0, 1, all ones or the top bit.
        let halves = [0u64, 1, 0x8000_0000, 0xFFFF_FFFF];
        for h in halves {
            for l in halves {
                edges.push(h << 32 | l);
            }
        }
        let randoms = crate::splitmix::SplitMix64::new(0x1234_5678_9ABC_DEF0).keys(100_000);
        for (a, b) in edges
            .iter()
            .copied()
            .zip(edges.iter().rev().copied())
            .chain(randoms.chunks(2).map(|p| (p[0], p[1])))
        {
            // SAFETY: NEON was detected above.
            let got = unsafe { step_pair(a, b) };
            assert_eq!(got, [lcg(a), lcg(b)], "states {a:#x}, {b:#x}");
        }
    }
}
