//! Each key's best zones for more zones than the lanes compare by pairs
//! (`wide.rs`), on AVX-512, eight keys a step: the vector takes the zones
//! in turn, its keys' best zones kept in registers, sorted, best first. A
//! zone's score compared with each kept one gives a mask per rank; the
//! masks grow down the ranks (a score above one is above all those after
//! it), so that each rank takes the zone where its own mask holds and
//! what the rank above held where that one's does.

use core::arch::x86_64::*;

use super::requests::Scratch;

/// Lanes per vector.
const LANES: usize = 8;

/// `wide::pick` on the AVX-512 lanes for `O` (1 to 7) ranks: each of the
/// round's first `n` keys' `O` best zones but its primary's, into
/// `s.picks`.
///
/// # Safety
///
/// The CPU runs AVX-512F, AVX-512DQ, AVX2 and POPCNT; `s` was made ([`Scratch::new`]) for rounds of at
/// least `n` keys and more than 8 zones.
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
pub(super) unsafe fn ranks<const O: usize>(s: &mut Scratch, n: usize) {
    let (zones, stride) = (s.lengths.len(), s.stride);
    debug_assert!(n <= s.size && stride >= s.size + LANES);
    debug_assert!(s.scores.len() >= zones * stride && s.places.len() >= stride);
    debug_assert!(s.picks.len() >= O * stride);
    for i in (0..n).step_by(LANES) {
        // SAFETY: `places` is `stride` long and `i < n <= stride - 8`, so
        // the 32 bytes read from `i` lie inside it.
        let first = unsafe { _mm256_loadu_si256(s.places.as_ptr().add(i).cast()) };
        let first = _mm512_cvtepu32_epi64(first);
        let mut best = [_mm512_setzero_si512(); O];
        let mut picked = [_mm512_setzero_si512(); O];
        for p in 0..zones {
            // SAFETY: zone p's scores are `stride` from `p * stride`, and
            // the 64 bytes from `i < stride - 8` lie inside them; the
            // lanes past the keys read scores of no key, which only
            // their own lanes use, and their picks go to the columns'
            // slack.
            let score = unsafe { _mm512_loadu_si512(s.scores.as_ptr().add(p * stride + i).cast()) };
            let place = _mm512_set1_epi64(p as i64);
            let asked = _mm512_cmpneq_epi64_mask(first, place);
            // The keys whose primary came before `p` have kept one zone
            // fewer: `p - 1`.
            let primary_before = _mm512_cmplt_epu64_mask(first, place);
            let mut takes = [0; O];
            for (r, takes) in takes.iter_mut().enumerate() {
                let empty = match p {
                    p if p <= r => 0xFF,
                    p if p == r + 1 => primary_before,
                    _ => 0,
                };
                *takes = asked & (empty | _mm512_cmpgt_epu64_mask(score, best[r]));
            }
            for r in (1..O).rev() {
                let own = _mm512_mask_mov_epi64(best[r], takes[r], score);
                best[r] = _mm512_mask_mov_epi64(own, takes[r - 1], best[r - 1]);
                let own = _mm512_mask_mov_epi64(picked[r], takes[r], place);
                picked[r] = _mm512_mask_mov_epi64(own, takes[r - 1], picked[r - 1]);
            }
            best[0] = _mm512_mask_mov_epi64(best[0], takes[0], score);
            picked[0] = _mm512_mask_mov_epi64(picked[0], takes[0], place);
        }
        for (r, picked) in picked.iter().enumerate() {
            // SAFETY: column r is `stride` long from `r * stride` inside
            // `picks`, and the 32 bytes from `i < stride - 8` lie in it.
            unsafe {
                _mm256_storeu_si256(
                    s.picks.as_mut_ptr().add(r * stride + i).cast(),
                    _mm512_cvtepi64_epi32(*picked),
                )
            };
        }
    }
}
