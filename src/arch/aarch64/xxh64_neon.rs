//! XXH64 of 8-byte keys on NEON's 2 lanes (see `crate::kernel::xxh64` for
//! the steps). NEON multiplies 32-bit lanes at most, so each product by a
//! prime is built from halves, as the kernel's LCG step is (`lcg`).

use core::arch::aarch64::*;

use crate::kernel::xxh64::round::{start, P1, P2, P3, P4};

const LANES: usize = 2;

/// Hashes every key in place with `seed`.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn xxh64(keys: &mut [u64], seed: u64) {
    let h0 = vdupq_n_u64(start(seed));
    let mut chunks = keys.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 2 `u64`: the 16 bytes the load and store touch
        // (NEON's loads need no alignment).
        unsafe {
            let k = vld1q_u64(chunk.as_ptr());
            vst1q_u64(chunk.as_mut_ptr(), hash(k, h0));
        }
    }
    if let Some(k) = chunks.into_remainder().first_mut() {
        // The last key of an odd count, in lane 0.
        *k = vgetq_lane_u64::<0>(hash(vdupq_n_u64(*k), h0));
    }
}

/// XXH64 of 2 keys from the start state `h0` (`seed + P5 + 8`).
#[inline]
#[target_feature(enable = "neon")]
fn hash(key: uint64x2_t, h0: uint64x2_t) -> uint64x2_t {
    let k1 = mul(rotl::<31, 33>(mul(key, P2)), P1);
    let h = veorq_u64(h0, k1);
    let h = vaddq_u64(mul(rotl::<27, 37>(h), P1), vdupq_n_u64(P4));
    let h = veorq_u64(h, vshrq_n_u64::<33>(h));
    let h = mul(h, P2);
    let h = veorq_u64(h, vshrq_n_u64::<29>(h));
    let h = mul(h, P3);
    veorq_u64(h, vshrq_n_u64::<32>(h))
}

/// `x * c` mod 2^64: with `x = h 2^32 + l` and `c = H 2^32 + L`, `l L`
/// (a widening multiply) plus `(h L + l H) mod 2^32` shifted up; the
/// `h H` term only reaches bits 64 and above.
#[inline]
#[target_feature(enable = "neon")]
fn mul(x: uint64x2_t, c: u64) -> uint64x2_t {
    let (c_lo, c_hi) = (c as u32, (c >> 32) as u32);
    let lo = vmovn_u64(x);
    let hi = vshrn_n_u64::<32>(x);
    let cross = vmla_u32(vmul_u32(hi, vdup_n_u32(c_lo)), lo, vdup_n_u32(c_hi));
    vmlal_u32(vshll_n_u32::<32>(cross), lo, vdup_n_u32(c_lo))
}

/// Rotation left by `L` bits (`R` is `64 - L`): the left shift, with the
/// bits shifted out inserted at the bottom by one shift-right-and-insert.
#[inline]
#[target_feature(enable = "neon")]
fn rotl<const L: i32, const R: i32>(x: uint64x2_t) -> uint64x2_t {
    const { assert!(L + R == 64) };
    vsriq_n_u64::<R>(vshlq_n_u64::<L>(x), x)
}
