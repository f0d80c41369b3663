//! XXH64 of 8-byte keys on AVX-512's 8 lanes (see `crate::kernel::xxh64`
//! for the steps), with AVX-512DQ's 64-bit multiply and AVX-512F's rotate.

use core::arch::x86_64::*;

use crate::kernel::xxh64::round::{start, P1, P2, P3, P4};

const LANES: usize = 8;

/// Writes XXH64 of each of `from`'s keys with `seed` into `out`, or, with
/// `from` `None`, hashes `out`'s keys in place: the whole vectors of
/// 8, leaving the last keys short of one as they were.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512DQ; `from`, when given, is as
/// long as `out`.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn xxh64(from: Option<&[u64]>, out: &mut [u64], seed: u64) {
    debug_assert!(from.is_none_or(|f| f.len() == out.len()));
    let h0 = _mm512_set1_epi64(start(seed) as i64);
    let len = out.len();
    // Reads and writes go through one pointer from `out` when in place,
    // each vector read before it is written.
    let to = out.as_mut_ptr();
    let src = from.map_or(to.cast_const(), <[u64]>::as_ptr);
    // The keys short of a whole vector are the caller's (`Kernel::xxh64`).
    let full = len - len % LANES;
    for i in (0..full).step_by(LANES) {
        // SAFETY: `i + 8 <= len`, and `src` and `to` are valid for `len`
        // keys: the 64 bytes each unaligned load and store touches.
        unsafe {
            let k = _mm512_loadu_si512(src.add(i).cast());
            _mm512_storeu_si512(to.add(i).cast(), hash(k, h0));
        }
    }
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
