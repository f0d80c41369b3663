//! XXH64 of 8-byte keys on AVX-512's 8 lanes (see `crate::kernel::xxh64`
//! for the steps), with AVX-512DQ's 64-bit multiply and AVX-512F's rotate.

use core::arch::x86_64::*;

use crate::kernel::xxh64::round::{start, P1, P2, P3, P4};

const LANES: usize = 8;

/// Hashes every key in place with `seed`.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512DQ.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn xxh64(keys: &mut [u64], seed: u64) {
    let h0 = _mm512_set1_epi64(start(seed) as i64);
    let mut chunks = keys.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 8 `u64`: the 64 bytes each unaligned load and
        // store touches.
        unsafe {
            let k = _mm512_loadu_si512(chunk.as_ptr().cast());
            _mm512_storeu_si512(chunk.as_mut_ptr().cast(), hash(k, h0));
        }
    }
    tail(chunks.into_remainder(), h0);
}

/// The last fewer than 8 keys, through a padded copy (plain loads and
/// stores: masked ones gain nothing on a few keys a call).
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn tail(keys: &mut [u64], h0: __m512i) {
    if keys.is_empty() {
        return;
    }
    let mut padded = [0u64; LANES];
    padded[..keys.len()].copy_from_slice(keys);
    // SAFETY: `padded` is 8 `u64`: the 64 bytes the load and store touch.
    unsafe {
        let k = _mm512_loadu_si512(padded.as_ptr().cast());
        _mm512_storeu_si512(padded.as_mut_ptr().cast(), hash(k, h0));
    }
    keys.copy_from_slice(&padded[..keys.len()]);
}

/// XXH64 of 8 keys from the start state `h0` (`seed + P5 + 8`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn hash(key: __m512i, h0: __m512i) -> __m512i {
    let prime = |p: u64| _mm512_set1_epi64(p as i64);
    let k1 = _mm512_mullo_epi64(
        _mm512_rol_epi64::<31>(_mm512_mullo_epi64(key, prime(P2))),
        prime(P1),
    );
    let h = _mm512_xor_si512(h0, k1);
    let h = _mm512_add_epi64(
        _mm512_mullo_epi64(_mm512_rol_epi64::<27>(h), prime(P1)),
        prime(P4),
    );
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<33>(h));
    let h = _mm512_mullo_epi64(h, prime(P2));
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<29>(h));
    let h = _mm512_mullo_epi64(h, prime(P3));
    _mm512_xor_si512(h, _mm512_srli_epi64::<32>(h))
}
