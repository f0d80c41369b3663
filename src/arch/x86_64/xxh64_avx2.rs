//! XXH64 of 8-byte keys on AVX2's 4 lanes (see `crate::kernel::xxh64` for
//! the steps). AVX2 has no 64-bit multiply, so each product by a prime is
//! built from 32-bit multiplies, as the kernel's LCG step is.

use core::arch::x86_64::*;

use crate::kernel::xxh64::round::{start, P1, P2, P3, P4};

const LANES: usize = 4;

/// Hashes every key in place with `seed`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn xxh64(keys: &mut [u64], seed: u64) {
    let h0 = _mm256_set1_epi64x(start(seed) as i64);
    let mut chunks = keys.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 4 `u64`: the 32 bytes each unaligned load and
        // store touches.
        unsafe {
            let k = _mm256_loadu_si256(chunk.as_ptr().cast());
            _mm256_storeu_si256(chunk.as_mut_ptr().cast(), hash(k, h0));
        }
    }
    tail(chunks.into_remainder(), h0);
}

/// The last fewer than 4 keys, through a padded copy, so that nothing
/// outside the slice is read or written.
#[inline]
#[target_feature(enable = "avx2")]
fn tail(keys: &mut [u64], h0: __m256i) {
    if keys.is_empty() {
        return;
    }
    let mut padded = [0u64; LANES];
    padded[..keys.len()].copy_from_slice(keys);
    // SAFETY: `padded` is 4 `u64`: the 32 bytes the load and store touch.
    unsafe {
        let k = _mm256_loadu_si256(padded.as_ptr().cast());
        _mm256_storeu_si256(padded.as_mut_ptr().cast(), hash(k, h0));
    }
    keys.copy_from_slice(&padded[..keys.len()]);
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
