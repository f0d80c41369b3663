//! XXH64 of 8-byte keys on NEON's 2 lanes (see `crate::kernel::xxh64` for
//! the steps). NEON multiplies 32-bit lanes at most, so each product by a
//! prime is built from halves, as the kernel's LCG step is (`lcg`).

use core::arch::aarch64::*;

use crate::kernel::xxh64::round::{start, P1, P2, P3, P4};

const LANES: usize = 2;

/// Writes XXH64 of each of `from`'s keys with `seed` into `out`, or, with
/// `from` `None`, hashes `out`'s keys in place.
///
/// # Safety
/// The CPU must support NEON; `from`, when given, is as long as `out`.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn xxh64(from: Option<&[u64]>, out: &mut [u64], seed: u64) {
    debug_assert!(from.is_none_or(|f| f.len() == out.len()));
    let h0 = vdupq_n_u64(start(seed));
    let len = out.len();
    // Reads and writes go through one pointer from `out` when in place,
    // each vector read before it is written.
    let to = out.as_mut_ptr();
    let src = from.map_or(to.cast_const(), <[u64]>::as_ptr);
    let full = len / LANES * LANES;
    for i in (0..full).step_by(LANES) {
        // SAFETY: `i + 2 <= len`, and `src` and `to` are valid for `len`
        // keys: the 16 bytes the load and store touch (NEON's loads need
        // no alignment).
        unsafe { vst1q_u64(to.add(i), hash(vld1q_u64(src.add(i)), h0)) };
    }
    if full < len {
        // The last key of an odd count, in lane 0.
        // SAFETY: key `full < len` is inside both areas.
        unsafe {
            let k = vdupq_n_u64(src.add(full).read());
            to.add(full).write(vgetq_lane_u64::<0>(hash(k, h0)));
        }
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
