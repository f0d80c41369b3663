//! The replica slots' walks ([`super::lanes`]) on AVX-512: each walk's 16
//! lanes as two vectors of 8 (or its first 8 as one, a half block), and
//! `W` walks (slots) stepped together, so that their chains (multiply,
//! division, multiply, compare) overlap: one chain alone would leave the
//! unit waiting on its latency.

// Walks and vectors are indexed together (state, b, end and shift of the
// same walk), which iterators would only obscure.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use super::walk::{slot_walk, Walk, LANES, MAX_STEPS};
use crate::kernel::scalar::LCG_MULTIPLIER;

/// 2^52's bits: OR-ed onto an integer below 2^52 they make the double
/// `2^52 + x`, from which subtracting 2^52 leaves `x` exactly.
const TWO52_BITS: i64 = 0x4330_0000_0000_0000;

/// The walks of slots `first..first + W` of a set of `k` among `n` buckets,
/// over the derived keys `states` (slot 0's are the keys), into `walks`
/// (see [`Walk`]), on the first `8 * H` lanes (`H` is 2 or 1; the other
/// lanes' rows and endings are left as they were, their unfinished bits
/// clear). A lane that does not land at a step records `0x8000_0000`, what
/// the conversion gives for a double out of range.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ and AVX2.
#[target_feature(enable = "avx512f,avx512dq,avx2")]
pub(super) unsafe fn walks<const W: usize, const H: usize>(
    states: &[[u64; LANES]; W],
    first: usize,
    k: u32,
    n: u32,
    walks: &mut [Walk; W],
) {
    const { assert!(H == 1 || H == 2) };
    let m = _mm512_set1_epi64(LCG_MULTIPLIER as i64);
    let one = _mm512_set1_epi64(1);
    let magic = _mm512_set1_epi64(TWO52_BITS);
    let two52 = _mm512_set1_pd(4_503_599_627_370_496.0);
    let two31 = _mm512_set1_pd(2_147_483_648.0);
    let onepd = _mm512_set1_pd(1.0);
    // Out of the i32 range: converts to 0x8000_0000, no landing.
    let none = _mm512_set1_pd(1_099_511_627_776.0);
    let mut s = [[_mm512_setzero_si512(); H]; W];
    let mut b = [[_mm512_setzero_pd(); H]; W];
    let mut end = [_mm512_setzero_pd(); W];
    let mut shift = [_mm512_setzero_pd(); W];
    let mut live: [[__mmask8; H]; W] = [[0xFF; H]; W];
    for w in 0..W {
        let (start, e, sh) = slot_walk(first + w, k, n);
        for h in 0..H {
            // SAFETY: lanes `8h..8h + 8` of the 16: a 64-byte unaligned load.
            s[w][h] = unsafe { _mm512_loadu_si512(states[w].as_ptr().add(8 * h).cast()) };
            b[w][h] = _mm512_set1_pd(f64::from(start));
        }
        end[w] = _mm512_set1_pd(f64::from(e));
        shift[w] = _mm512_set1_pd(f64::from(sh));
        walks[w].steps = MAX_STEPS;
    }
    let mut running: u32 = (1 << W) - 1;
    for step in 0..MAX_STEPS {
        for w in 0..W {
            for h in 0..H {
                s[w][h] = _mm512_add_epi64(_mm512_mullo_epi64(s[w][h], m), one);
                // `(state >> 33) + 1` exactly, as a double.
                let d = _mm512_sub_pd(
                    _mm512_castsi512_pd(_mm512_or_si512(_mm512_srli_epi64::<33>(s[w][h]), magic)),
                    two52,
                );
                let q = _mm512_div_pd(two31, _mm512_add_pd(d, onepd));
                let x = _mm512_mul_pd(_mm512_add_pd(b[w][h], onepd), q);
                // Figure 1's `trunc(x)` reaches `end` exactly when `x` does.
                live[w][h] = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(live[w][h], x, end[w]);
                b[w][h] = _mm512_mask_roundscale_pd::<0x0B>(b[w][h], live[w][h], x);
                let r =
                    _mm512_cvttpd_epi32(_mm512_mask_add_pd(none, live[w][h], b[w][h], shift[w]));
                // SAFETY: lanes `8h..8h + 8` of the row's 16 `u32`: a 32-byte
                // unaligned store.
                unsafe {
                    _mm256_storeu_si256(walks[w].rows[step].as_mut_ptr().add(8 * h).cast(), r)
                };
            }
            if running >> w & 1 == 1 && live[w].iter().all(|&l| l == 0) {
                walks[w].steps = step + 1;
                running &= !(1 << w);
            }
        }
        if running == 0 {
            break;
        }
    }
    for w in 0..W {
        walks[w].unfinished = (0..H).fold(0, |m, h| m | u32::from(live[w][h]) << (8 * h));
        for h in 0..H {
            let r = _mm512_cvttpd_epi32(_mm512_add_pd(b[w][h], shift[w]));
            // SAFETY: lanes `8h..8h + 8` of `last`'s 16 `u32`: a 32-byte
            // unaligned store.
            unsafe { _mm256_storeu_si256(walks[w].last.as_mut_ptr().add(8 * h).cast(), r) };
        }
    }
}
