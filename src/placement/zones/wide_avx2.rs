//! Each key's best zones for more zones than the lanes compare by pairs
//! (`wide.rs`), on AVX2, four keys a step, as on AVX-512
//! (`wide_avx512.rs`) with what AVX2 lacks built from what it has: the
//! unsigned compares as signed ones of scores with their top bit flipped
//! (the kept scores stay flipped), and the masks as vectors.

use core::arch::x86_64::*;

use super::requests::Scratch;

/// Lanes per vector.
const LANES: usize = 4;

/// `wide::pick` on the AVX2 lanes for `O` (1 to 7) ranks: each of the
/// round's first `n` keys' `O` best zones but its primary's, into
/// `s.picks`.
///
/// # Safety
///
/// The CPU runs AVX2 and POPCNT; `s` was made ([`Scratch::new`]) for rounds of at
/// least `n` keys and more than 8 zones.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn ranks<const O: usize>(s: &mut Scratch, n: usize) {
    let (zones, stride) = (s.lengths.len(), s.stride);
    debug_assert!(n <= s.size && stride >= s.size + LANES);
    debug_assert!(s.scores.len() >= zones * stride && s.places.len() >= stride);
    debug_assert!(s.picks.len() >= O * stride);
    let (top, all) = (_mm256_set1_epi64x(i64::MIN), _mm256_set1_epi64x(-1));
    // The 32-bit halves that hold the four picks.
    let low = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    for i in (0..n).step_by(LANES) {
        // SAFETY: `places` is `stride` long and `i < n <= stride - 4`, so
        // the 16 bytes read from `i` lie inside it.
        let first = unsafe { _mm_loadu_si128(s.places.as_ptr().add(i).cast()) };
        let first = _mm256_cvtepu32_epi64(first);
        let mut best = [_mm256_setzero_si256(); O];
        let mut picked = [_mm256_setzero_si256(); O];
        for p in 0..zones {
            // SAFETY: zone p's scores are `stride` from `p * stride`, and
            // the 32 bytes from `i < stride - 4` lie inside them; the
            // lanes past the keys read scores of no key, which only their
            // own lanes use, and their picks go to the columns' slack.
            let score = unsafe { _mm256_loadu_si256(s.scores.as_ptr().add(p * stride + i).cast()) };
            let score = _mm256_xor_si256(score, top);
            let place = _mm256_set1_epi64x(p as i64);
            let asked = _mm256_xor_si256(_mm256_cmpeq_epi64(first, place), all);
            // The keys whose primary came before `p` have kept one zone
            // fewer: `p - 1` (places are far below 2^63).
            let primary_before = _mm256_cmpgt_epi64(place, first);
            let mut takes = [_mm256_setzero_si256(); O];
            for (r, takes) in takes.iter_mut().enumerate() {
                let empty = match p {
                    p if p <= r => all,
                    p if p == r + 1 => primary_before,
                    _ => _mm256_setzero_si256(),
                };
                let above = _mm256_cmpgt_epi64(score, best[r]);
                *takes = _mm256_and_si256(asked, _mm256_or_si256(empty, above));
            }
            for r in (1..O).rev() {
                let own = _mm256_blendv_epi8(best[r], score, takes[r]);
                best[r] = _mm256_blendv_epi8(own, best[r - 1], takes[r - 1]);
                let own = _mm256_blendv_epi8(picked[r], place, takes[r]);
                picked[r] = _mm256_blendv_epi8(own, picked[r - 1], takes[r - 1]);
            }
            best[0] = _mm256_blendv_epi8(best[0], score, takes[0]);
            picked[0] = _mm256_blendv_epi8(picked[0], place, takes[0]);
        }
        for (r, picked) in picked.iter().enumerate() {
            let halves = _mm256_permutevar8x32_epi32(*picked, low);
            // SAFETY: column r is `stride` long from `r * stride` inside
            // `picks`, and the 16 bytes from `i < stride - 4` lie in it.
            unsafe {
                _mm_storeu_si128(
                    s.picks.as_mut_ptr().add(r * stride + i).cast(),
                    _mm256_castsi256_si128(halves),
                )
            };
        }
    }
}
