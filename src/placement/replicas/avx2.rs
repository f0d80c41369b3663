//! The replica slots' walks ([`super::lanes`]) on AVX2: each walk's 16
//! lanes as four vectors of 4 (or its first 8 as two, a half block), and
//! `W` walks (slots) stepped together, so that their chains overlap. The
//! 64-bit multiply is built from 32-bit ones.

// Walks and vectors are indexed together (state, b, end and shift of the
// same walk), which iterators would only obscure.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use super::walk::{slot_walk, Walk, LANES, MAX_STEPS};
use crate::kernel::scalar::LCG_MULTIPLIER;

/// 2^52's bits: OR-ed onto an integer below 2^52 they make the double
/// `2^52 + x`, from which subtracting 2^52 leaves `x` exactly.
const TWO52_BITS: i64 = 0x4330_0000_0000_0000;

/// The low 64 bits of `x * LCG_MULTIPLIER + 1` in each lane.
#[inline]
#[target_feature(enable = "avx2")]
fn lcg(x: __m256i) -> __m256i {
    let lo = _mm256_set1_epi64x((LCG_MULTIPLIER & 0xFFFF_FFFF) as i64);
    let hi = _mm256_set1_epi64x((LCG_MULTIPLIER >> 32) as i64);
    let low = _mm256_mul_epu32(x, lo);
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), lo),
        _mm256_mul_epu32(x, hi),
    );
    let product = _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross));
    _mm256_add_epi64(product, _mm256_set1_epi64x(1))
}

/// The walks of slots `first..first + W` of a set of `k` among `n` buckets,
/// over the derived keys `states` (slot 0's are the keys), into `walks`
/// (see [`Walk`]), on the first `4 * V` lanes (`V` is 4 or 2; the other
/// lanes' rows and endings are left as they were, their unfinished bits
/// clear). A lane that does not land at a step records `0x8000_0000`, what
/// the conversion gives for a double out of range.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn walks<const W: usize, const V: usize>(
    states: &[[u64; LANES]; W],
    first: usize,
    k: u32,
    n: u32,
    walks: &mut [Walk; W],
) {
    const { assert!(V == 2 || V == 4) };
    let magic = _mm256_set1_epi64x(TWO52_BITS);
    let two52 = _mm256_set1_pd(4_503_599_627_370_496.0);
    let two31 = _mm256_set1_pd(2_147_483_648.0);
    let onepd = _mm256_set1_pd(1.0);
    // Out of the i32 range: converts to 0x8000_0000, no landing.
    let none = _mm256_set1_pd(1_099_511_627_776.0);
    let all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    let mut s = [[_mm256_setzero_si256(); V]; W];
    let mut b = [[_mm256_setzero_pd(); V]; W];
    let mut end = [_mm256_setzero_pd(); W];
    let mut shift = [_mm256_setzero_pd(); W];
    let mut live = [[all; V]; W];
    for w in 0..W {
        let (start, e, sh) = slot_walk(first + w, k, n);
        for v in 0..V {
            // SAFETY: lanes `4v..4v + 4` of the 16: a 32-byte unaligned load.
            s[w][v] = unsafe { _mm256_loadu_si256(states[w].as_ptr().add(4 * v).cast()) };
            b[w][v] = _mm256_set1_pd(f64::from(start));
        }
        end[w] = _mm256_set1_pd(f64::from(e));
        shift[w] = _mm256_set1_pd(f64::from(sh));
        walks[w].steps = MAX_STEPS;
    }
    let mut running: u32 = (1 << W) - 1;
    let mut masks = [0u32; W];
    for step in 0..MAX_STEPS {
        for w in 0..W {
            masks[w] = 0;
            for v in 0..V {
                s[w][v] = lcg(s[w][v]);
                // `(state >> 33) + 1` exactly, as a double.
                let d = _mm256_sub_pd(
                    _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64::<33>(s[w][v]), magic)),
                    two52,
                );
                let q = _mm256_div_pd(two31, _mm256_add_pd(d, onepd));
                let x = _mm256_mul_pd(_mm256_add_pd(b[w][v], onepd), q);
                // Figure 1's `trunc(x)` reaches `end` exactly when `x` does.
                live[w][v] = _mm256_and_pd(live[w][v], _mm256_cmp_pd::<_CMP_LT_OQ>(x, end[w]));
                b[w][v] = _mm256_blendv_pd(b[w][v], _mm256_round_pd::<0x0B>(x), live[w][v]);
                let r = _mm256_cvttpd_epi32(_mm256_blendv_pd(
                    none,
                    _mm256_add_pd(b[w][v], shift[w]),
                    live[w][v],
                ));
                // SAFETY: lanes `4v..4v + 4` of the row's 16 `u32`: a 16-byte
                // unaligned store.
                unsafe { _mm_storeu_si128(walks[w].rows[step].as_mut_ptr().add(4 * v).cast(), r) };
                masks[w] |= (_mm256_movemask_pd(live[w][v]) as u32) << (4 * v);
            }
            if running >> w & 1 == 1 && masks[w] == 0 {
                walks[w].steps = step + 1;
                running &= !(1 << w);
            }
        }
        if running == 0 {
            break;
        }
    }
    for w in 0..W {
        walks[w].unfinished = masks[w];
        for v in 0..V {
            let r = _mm256_cvttpd_epi32(_mm256_add_pd(b[w][v], shift[w]));
            // SAFETY: lanes `4v..4v + 4` of `last`'s 16 `u32`: a 16-byte
            // unaligned store.
            unsafe { _mm_storeu_si128(walks[w].last.as_mut_ptr().add(4 * v).cast(), r) };
        }
    }
}
