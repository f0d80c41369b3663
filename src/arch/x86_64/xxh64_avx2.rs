//! XXH64 of 8-byte keys on AVX2's 4 lanes (see `crate::kernel::xxh64` for
//! the steps). AVX2 has no 64-bit multiply, so each product by a prime is
//! built from 32-bit multiplies, as the kernel's LCG step is.

use core::arch::x86_64::*;

use crate::kernel::xxh64::round::{start, P1, P2, P3, P4};

const LANES: usize = 4;

/// Writes XXH64 of each of `from`'s keys with `seed` into `out`, or, with
/// `from` `None`, hashes `out`'s keys in place: the whole vectors of
/// 4, leaving the last keys short of one as they were.
///
/// # Safety
/// The CPU must support AVX2; `from`, when given, is as long as `out`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn xxh64(from: Option<&[u64]>, out: &mut [u64], seed: u64) {
    debug_assert!(from.is_none_or(|f| f.len() == out.len()));
    let h0 = _mm256_set1_epi64x(start(seed) as i64);
    let len = out.len();
    // Reads and writes go through one pointer from `out` when in place,
    // each vector read before it is written.
    let to = out.as_mut_ptr();
    let src = from.map_or(to.cast_const(), <[u64]>::as_ptr);
    // The keys short of a whole vector are the caller's (`Kernel::xxh64`).
    let full = len - len % LANES;
    for i in (0..full).step_by(LANES) {
        // SAFETY: `i + 4 <= len`, and `src` and `to` are valid for `len`
        // keys: the 32 bytes each unaligned load and store touches.
        unsafe {
            let k = _mm256_loadu_si256(src.add(i).cast());
            _mm256_storeu_si256(to.add(i).cast(), hash(k, h0));
        }
    }
}

/// XXH64 of 4 keys from the start state `h0` (`seed + P5 + 8`).
#[inline]
#[target_feature(enable = "avx2")]
fn hash(key: __m256i, h0: __m256i) -> __m256i {
    let k1 = mul(rotl::<31, 33>(mul(key, P2)), P1);
    let h = _mm256_xor_si256(h0, k1);
    let h = _mm256_add_epi64(mul(rotl::<27, 37>(h), P1), _mm256_set1_epi64x(P4 as i64));
    let h = _mm256_xor_si256(h, _mm256_srli_epi64::<33>(h));
    let h = mul(h, P2);
    let h = _mm256_xor_si256(h, _mm256_srli_epi64::<29>(h));
    let h = mul(h, P3);
    _mm256_xor_si256(h, _mm256_srli_epi64::<32>(h))
}

/// `x * c` mod 2^64 from 32-bit multiplies: the low halves' full product,
/// plus the cross products' sum, mod 2^32, in the high half (the high
/// halves' product only reaches bits 64 and above). One `mullo_epi32`
/// against `c` with its halves swapped gives both cross products.
#[inline]
#[target_feature(enable = "avx2")]
fn mul(x: __m256i, c: u64) -> __m256i {
    let low = _mm256_mul_epu32(x, _mm256_set1_epi64x(c as u32 as i64));
    let cross = _mm256_mullo_epi32(x, _mm256_set1_epi64x(c.rotate_left(32) as i64));
    let sum = _mm256_add_epi32(cross, _mm256_bslli_epi128::<4>(cross));
    let high = _mm256_blend_epi32::<0b0101_0101>(sum, _mm256_setzero_si256());
    _mm256_add_epi64(low, high)
}

/// Rotation left by `L` bits; `R` is `64 - L`.
#[inline]
#[target_feature(enable = "avx2")]
fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    const { assert!(L + R == 64) };
    _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
}
