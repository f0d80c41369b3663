//! The AVX-512 kernel: 8 keys per vector, several vectors in flight.
//!
//! Each lane runs Figure 1 on one key. A lane whose key has finished packs
//! its answer for the [`Outbox`] (compressed to the front of a vector with
//! one store) and is refilled at once with the next unread key (a masked
//! expand), so lanes never wait for the slowest key of their vector. See
//! the parent module for the per-lane arithmetic.

use core::arch::x86_64::*;

use super::outbox::{packed_position, Outbox, CHUNK, PACK_BIAS_F64};
use super::quotient::{divide_512, newton_512, scaled_divisor_512};
use crate::scalar::LCG_MULTIPLIER;

/// Vectors advanced in turn, so that their dependency chains (about 40
/// cycles per step) overlap.
const GROUPS: usize = 10;

/// How many of the [`GROUPS`] compute the quotient with `vdivpd`; the others
/// use the reciprocal estimate and Newton steps on the FMA units, so that
/// both the divider and the FMA pipes stay busy.
const DIVIDING: usize = GROUPS;

const LANES: usize = 8;

/// Computes Figure 1 for every key.
///
/// # Safety
/// The CPU must support every feature enabled here, `keys.len()` must equal
/// `out.len()`, and `num_buckets` must lie in `1..=2^31-1`.
#[target_feature(enable = "avx512f,avx512dq,bmi2,popcnt")]
pub(crate) unsafe fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    batch_with::<GROUPS, DIVIDING, true, true, false>(keys, num_buckets, out)
}

/// Tuning entry (temporary).
#[target_feature(enable = "avx512f,avx512dq,bmi2,popcnt")]
pub(crate) unsafe fn batch_with<
    const G: usize,
    const D: usize,
    const MULQ: bool,
    const COMPRESS: bool,
    const EXPANDLOAD: bool,
>(
    keys: &[u64],
    num_buckets: u32,
    out: &mut [u32],
) {
    for (keys, out) in keys.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        run::<G, D, MULQ, COMPRESS, EXPANDLOAD>(keys, num_buckets, out);
    }
}

/// One vector of lanes.
#[derive(Clone, Copy)]
struct Lanes {
    /// The LCG state; the key itself right after a refill.
    state: __m512i,
    /// `b`, the last jump destination (0 after a refill, which stands for
    /// Figure 1's first `b = j` with `j = 0`), as an integer-valued double.
    prev: __m512d,
    /// `packed_position` of each lane's key.
    position: __m512i,
    /// Lanes holding a key; the others idle once the keys run out.
    live: __mmask8,
}

/// The unread part of the input.
struct Feed<'a> {
    keys: &'a [u64],
    next: usize,
}

impl Feed<'_> {
    /// Loads the next keys into the `free` lanes (or as many as remain, the
    /// others going idle); their `prev` must already be 0.
    #[inline]
    #[target_feature(enable = "avx512f,bmi2,popcnt")]
    fn refill<const EXPANDLOAD: bool>(&mut self, lanes: &mut Lanes, free: __mmask8) {
        let left = self.keys.len() - self.next;
        if !EXPANDLOAD && left >= LANES {
            let eight = &self.keys[self.next..self.next + LANES];
            // SAFETY: `eight` is 8 `u64`, the 64 bytes an unaligned load reads.
            let fresh = unsafe { _mm512_loadu_si512(eight.as_ptr().cast()) };
            lanes.state = _mm512_mask_expand_epi64(lanes.state, free, fresh);
            self.start(lanes, free);
        } else {
            let mut take = free;
            if free.count_ones() as usize > left {
                // Keep the lowest `left` (< 8) lanes of `free`.
                take = _pdep_u32((1 << left) - 1, u32::from(free)) as __mmask8;
            }
            // SAFETY: the expanding load reads exactly `take.count_ones()`
            // consecutive keys from `next`, and that many remain in the
            // slice (`take` has at most `left` bits); masked-off lanes read
            // nothing.
            lanes.state = unsafe {
                _mm512_mask_expandloadu_epi64(
                    lanes.state,
                    take,
                    self.keys.as_ptr().add(self.next).cast(),
                )
            };
            lanes.live = (lanes.live & !free) | take;
            self.start(lanes, take);
        }
    }

    /// Gives the `taken` lanes their positions and moves past their keys.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn start(&mut self, lanes: &mut Lanes, taken: __mmask8) {
        let positions = _mm512_add_epi64(
            _mm512_set1_epi64(packed_position(self.next) as i64),
            _mm512_slli_epi64::<32>(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)),
        );
        lanes.position = _mm512_mask_expand_epi64(lanes.position, taken, positions);
        self.next += taken.count_ones() as usize;
    }
}

/// `state * M + 1` mod 2^64.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn lcg<const MULQ: bool>(state: __m512i) -> __m512i {
    let product = if MULQ {
        _mm512_mullo_epi64(state, _mm512_set1_epi64(LCG_MULTIPLIER as i64))
    } else {
        let m_lo = _mm512_set1_epi64(LCG_MULTIPLIER as u32 as i64);
        let m_hi = _mm512_set1_epi64((LCG_MULTIPLIER >> 32) as i64);
        let low = _mm512_mul_epu32(state, m_lo);
        let cross = _mm512_add_epi64(
            _mm512_mul_epu32(_mm512_srli_epi64::<32>(state), m_lo),
            _mm512_mul_epu32(state, m_hi),
        );
        _mm512_add_epi64(low, _mm512_slli_epi64::<32>(cross))
    };
    _mm512_add_epi64(product, _mm512_set1_epi64(1))
}

/// One Figure 1 iteration on every live lane: returns the lanes whose key
/// finished, after writing their answers.
///
/// # Safety
/// `out` must point to a buffer into which every live lane's position is in
/// bounds.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn step<const DIVIDE: bool, const MULQ: bool, const COMPRESS: bool>(
    lanes: &mut Lanes,
    n: __m512d,
    out: *mut u32,
    slots: &mut [u64],
) -> __mmask8 {
    lanes.state = lcg::<MULQ>(lanes.state);
    let scaled = scaled_divisor_512(lanes.state);
    // q = 2^31 / ((key >> 33) + 1), exactly.
    let q = if DIVIDE {
        divide_512(scaled)
    } else {
        newton_512(scaled)
    };
    // x = (b + 1) q with one rounding: fma(b, q, q).
    let x = _mm512_fmadd_pd(lanes.prev, q, q);
    // Figure 1 stops when j = trunc(x) >= N, that is when x >= N.
    let done = _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(lanes.live, x, n);
    let packed = _mm512_add_epi64(
        _mm512_castpd_si512(_mm512_add_pd(lanes.prev, _mm512_set1_pd(PACK_BIAS_F64))),
        lanes.position,
    );
    if COMPRESS {
        assert_eq!(slots.len(), LANES);
        // SAFETY: `slots` is 8 `u64` (asserted), the 64 bytes written.
        unsafe {
            _mm512_storeu_si512(
                slots.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi64(done, packed),
            )
        };
    } else {
        let index = _mm512_srli_epi64::<32>(packed);
        // SAFETY: only `done` lanes write, they are live, and the caller
        // guarantees live lanes' indices are in bounds of `out`.
        unsafe {
            _mm512_mask_i64scatter_epi32::<4>(
                out.cast(),
                done,
                index,
                _mm512_cvtepi64_epi32(packed),
            );
        }
    }
    // b = j = trunc(x) < N <= 2^31 - 1 for the lanes that go on.
    lanes.prev = _mm512_maskz_roundscale_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(!done, x);
    done
}

/// The kernel loop with `G` vectors in flight, the first `D` of them
/// dividing.
///
/// # Safety
/// As for [`batch`], and `keys.len() <= CHUNK`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,bmi2,popcnt")]
unsafe fn run<
    const G: usize,
    const D: usize,
    const MULQ: bool,
    const COMPRESS: bool,
    const EXPANDLOAD: bool,
>(
    keys: &[u64],
    num_buckets: u32,
    out: &mut [u32],
) {
    debug_assert_eq!(keys.len(), out.len());
    let n = _mm512_set1_pd(f64::from(num_buckets));
    let mut feed = Feed { keys, next: 0 };
    let mut outbox = Outbox::new();
    let mut groups = [Lanes {
        state: _mm512_setzero_si512(),
        prev: _mm512_setzero_pd(),
        position: _mm512_setzero_si512(),
        live: 0xFF,
    }; G];
    for lanes in &mut groups {
        feed.refill::<true>(lanes, 0xFF);
    }
    loop {
        outbox.make_room(G * LANES, out);
        let mut live = 0;
        for (i, lanes) in groups.iter_mut().enumerate() {
            let raw = out.as_mut_ptr();
            let slots = outbox.slots(LANES);
            // SAFETY: every live lane's position was handed out by `feed`,
            // so it is below `keys.len() == out.len()`.
            let done = unsafe {
                if i < D {
                    step::<true, MULQ, COMPRESS>(lanes, n, raw, slots)
                } else {
                    step::<false, MULQ, COMPRESS>(lanes, n, raw, slots)
                }
            };
            if COMPRESS {
                outbox.commit(done.count_ones() as usize);
            }
            feed.refill::<EXPANDLOAD>(lanes, done);
            live |= lanes.live;
        }
        if live == 0 {
            break;
        }
    }
    outbox.flush(out);
}
