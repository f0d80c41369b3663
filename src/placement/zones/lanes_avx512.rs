//! The zoned lanes' requests (`lanes.rs`) on AVX-512, eight keys a step:
//! the keys' codes from the zone scores (the pairs' compares as masks,
//! the 4-bit fields in 64-bit lanes), then each zone's asked keys packed
//! by a compress in a register and one full store, whose lanes past the
//! last asked key the next step overwrites (a compress straight to memory
//! is microcoded on Zen 4).

use core::arch::x86_64::*;

use super::requests::{Scratch, FIELDS};

/// [`Scratch::requests`] on the AVX-512 lanes: the requests of `keys`
/// (a round's) for `L` live zones and sets of `k` (`2 <= k <= L`).
///
/// # Safety
///
/// The CPU runs AVX-512F, AVX-512DQ, AVX2 and POPCNT; `r` was made
/// ([`Scratch::new`]) for rounds of at least `keys.len()` keys and `L`
/// zones or more.
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
pub(super) unsafe fn requests<const L: usize>(keys: &[u64], k: usize, r: &mut Scratch) {
    let n = keys.len();
    debug_assert!(n <= r.size && r.stride >= r.size + 8 && (2..=L).contains(&k));
    debug_assert!(r.scores.len() >= L * r.stride && r.derived.len() >= L * r.stride);
    debug_assert!(r.targets.len() >= L * r.stride && r.first.len() >= n + 8);
    let live = u64::from(FIELDS >> (32 - 4 * L));
    let (live_v, one, fifteen) = (
        _mm512_set1_epi64(live as i64),
        _mm512_set1_epi64(1),
        _mm512_set1_epi64(15),
    );
    let below = _mm512_set1_epi64(((8 - k as u64) * live) as i64);
    let seven = _mm512_set1_epi64(7 * live as i64);
    let size = _mm512_set1_epi64(r.size as i64);
    let mut index = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let mut lengths = [0usize; L];
    let mut i = 0;
    while i < n {
        let m: __mmask8 = if n - i >= 8 { 0xFF } else { (1 << (n - i)) - 1 };
        let mut score = [_mm512_setzero_si512(); L];
        for (z, s) in score.iter_mut().enumerate() {
            // SAFETY: zone z's scores are the `n` from `z * stride`; the
            // mask leaves out the lanes past them.
            *s = _mm512_maskz_loadu_epi64(m, r.scores.as_ptr().add(z * r.stride + i) as *const i64);
        }
        let mut place = _mm512_setzero_si512();
        for a in 0..L {
            for b in a + 1..L {
                let later = _mm512_cmpgt_epu64_mask(score[b], score[a]);
                place = _mm512_mask_add_epi64(place, later, place, _mm512_set1_epi64(1 << (4 * a)));
                place =
                    _mm512_mask_add_epi64(place, !later, place, _mm512_set1_epi64(1 << (4 * b)));
            }
        }
        // SAFETY: `first` has a vector's slack past the round's keys, so
        // its 8 bytes from `i < n` are inside.
        let first = _mm_loadl_epi64(r.first.as_ptr().add(i) as *const __m128i);
        let shift = _mm512_slli_epi64::<2>(_mm512_cvtepu8_epi64(first));
        let primary = _mm512_and_si512(_mm512_srlv_epi64(place, shift), fifteen);
        // As `lanes::code`: (7 - primary) in every field is 7 * live
        // less primary * live, which is primary's field spread.
        let spread = _mm512_sub_epi64(seven, _mm512_mullo_epi64(primary, live_v));
        let after = _mm512_and_si512(
            _mm512_srli_epi64::<3>(_mm512_add_epi64(place, spread)),
            live_v,
        );
        let column = _mm512_sub_epi64(_mm512_add_epi64(place, live_v), after);
        let beyond = _mm512_srli_epi64::<3>(_mm512_add_epi64(column, below));
        let within = _mm512_andnot_si512(
            _mm512_sllv_epi64(one, shift),
            _mm512_andnot_si512(beyond, live_v),
        );
        let code = _mm512_and_si512(
            column,
            _mm512_sub_epi64(_mm512_slli_epi64::<4>(within), within),
        );
        // SAFETY: the mask leaves out the lanes past the keys.
        let key = _mm512_maskz_loadu_epi64(m, keys.as_ptr().add(i) as *const i64);
        for (z, length) in lengths.iter_mut().enumerate() {
            let column = _mm512_and_si512(
                _mm512_srlv_epi64(code, _mm512_set1_epi64(4 * z as i64)),
                fifteen,
            );
            let asked = _mm512_mask_test_epi64_mask(m, column, column);
            let target = _mm512_add_epi64(
                _mm512_mullo_epi64(_mm512_sub_epi64(column, one), size),
                index,
            );
            let at = z * r.stride + *length;
            // SAFETY: `length` is at most `i`, so the eight lanes stored
            // end by `z * stride + n + 7`, inside zone z's `stride`.
            _mm512_storeu_si512(
                r.derived.as_mut_ptr().add(at) as *mut __m512i,
                _mm512_maskz_compress_epi64(asked, key),
            );
            _mm256_storeu_si256(
                r.targets.as_mut_ptr().add(at) as *mut __m256i,
                _mm512_cvtepi64_epi32(_mm512_maskz_compress_epi64(asked, target)),
            );
            *length += asked.count_ones() as usize;
        }
        index = _mm512_add_epi64(index, _mm512_set1_epi64(8));
        i += 8;
    }
    r.lengths[..L].copy_from_slice(&lengths);
}
