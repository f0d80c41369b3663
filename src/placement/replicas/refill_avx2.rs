//! One replica slot's walk over a run of keys on AVX2, lanes refilled as
//! they finish (see [`super::refill`]), as [`super::refill_avx512`] does
//! on AVX-512: the expand and compress are the AVX2 kernel's permutation
//! tables, the lane masks vectors, the 64-bit multiply its 32-bit one.

// Groups and their targets are indexed together, which iterators would
// only obscure.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use super::walk::{round_steps, write, HIT, TRICKLE, UNSETTLED};
use crate::arch::x86_64::avx2::{lane_mask, lcg, permutation, PACK, SPREAD};
use crate::arch::x86_64::quotient::{quotient_256, scaled_divisor_256};

/// Lanes per vector.
const LANES: usize = 4;

/// Vectors stepped in turn, so that their chains overlap while the
/// divider stays busy.
const GROUPS: usize = 6;

/// Steps between two refills in long walks (see `walk::round_steps`).
const STEPS_LONG: usize = 5;

/// `2^52`: added to an integer-valued double below `2^52`, it leaves the
/// integer in the low bits of the sum's encoding.
const TWO52: f64 = 4_503_599_627_370_496.0;

/// One vector of lanes.
#[derive(Clone, Copy)]
struct Lanes<const T: usize> {
    /// The LCG state; the slot's key right after a refill.
    state: __m256i,
    /// The walk's `b` on its axis, an integer-valued double; minus
    /// infinity in idle lanes (once the keys run out), whose `x` stays
    /// minus infinity, so that they never finish: the end is then one
    /// constant for every lane, not a register per vector.
    b: __m256d,
    /// Each lane's key as an index into the run, in the high half.
    position: __m256i,
    /// The endings of the higher slots of each lane's key, on this walk's
    /// axis.
    targets: [__m256d; T],
}

/// The unread keys and the walk's constants.
struct Feed<'a, const T: usize> {
    states: &'a [u64],
    /// The endings of the higher slots, as they stand in their columns.
    targets: [&'a [u32]; T],
    next: usize,
    shift: __m256d,
    /// The walk's starting `b`.
    start: __m256d,
    /// Sets of `k`, as a double: an ending below it never landed.
    floor: __m256d,
}

impl<const T: usize> Feed<'_, T> {
    /// Loads the next keys into the `free` lanes of `lanes` (a 4-bit
    /// mask), or as many as remain, the others going idle, their targets
    /// brought onto the walk's axis as `refill_avx512`'s refill does.
    #[inline]
    #[target_feature(enable = "avx2,fma,popcnt")]
    fn refill(&mut self, lanes: &mut Lanes<T>, free: u32) {
        let left = self.states.len() - self.next;
        let take = if left >= LANES {
            free
        } else {
            lowest_lanes(free, left)
        };
        let count = left.min(LANES);
        let valid = lane_mask((1u32 << count) - 1);
        // The same lanes, 32 bits each.
        let valid32 = _mm_cmpgt_epi32(_mm_set1_epi32(count as i32), _mm_setr_epi32(0, 1, 2, 3));
        let spread = permutation(&SPREAD, take);
        let taken = _mm256_castsi256_pd(lane_mask(take));
        // An idle lane's targets become -1, which no `b` equals: it never
        // stops.
        let idle = _mm256_castsi256_pd(lane_mask(free & !take));
        let onto =
            |v: __m256d| _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), spread));
        let mut settled = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
        // SAFETY: the masked loads read only the `valid` lanes, the keys
        // `next..next + min(left, 4)`, which lie inside `states` and
        // inside each target column (as long as `states`); masked-off
        // lanes read nothing.
        unsafe {
            let fresh = _mm256_maskload_epi64(self.states.as_ptr().add(self.next).cast(), valid);
            let fresh = _mm256_permutevar8x32_epi32(fresh, spread);
            lanes.state = _mm256_blendv_epi8(lanes.state, fresh, _mm256_castpd_si256(taken));
            for m in 0..T {
                let column = self.targets[m].as_ptr().add(self.next);
                // An ending with `HIT` set reads as negative, below `k`.
                let t = _mm256_cvtepi32_pd(_mm_maskload_epi32(column.cast(), valid32));
                let landed = _mm256_cmp_pd::<_CMP_GE_OQ>(t, self.floor);
                settled = _mm256_and_pd(settled, landed);
                let t = _mm256_blendv_pd(
                    _mm256_set1_pd(UNSETTLED),
                    _mm256_sub_pd(t, self.shift),
                    landed,
                );
                let t = _mm256_blendv_pd(lanes.targets[m], onto(t), taken);
                lanes.targets[m] = _mm256_blendv_pd(t, _mm256_set1_pd(-1.0), idle);
            }
        }
        let starts = _mm256_blendv_pd(_mm256_set1_pd(f64::INFINITY), self.start, settled);
        lanes.b = _mm256_blendv_pd(lanes.b, onto(starts), taken);
        let ranks = _mm256_permutevar8x32_epi32(_mm256_setr_epi64x(0, 1, 2, 3), spread);
        let positions = _mm256_slli_epi64::<32>(_mm256_add_epi64(
            _mm256_set1_epi64x(self.next as i64),
            ranks,
        ));
        lanes.position = _mm256_blendv_epi8(lanes.position, positions, _mm256_castpd_si256(taken));
        lanes.b = _mm256_blendv_pd(lanes.b, _mm256_set1_pd(f64::NEG_INFINITY), idle);
        self.next += take.count_ones() as usize;
    }
}

/// The lowest `count` set bits of `free`.
fn lowest_lanes(free: u32, count: usize) -> u32 {
    let mut rest = free;
    for _ in 0..count {
        rest &= rest.wrapping_sub(1);
    }
    free & !rest
}

/// The walk of `refill_avx512::walk`, on AVX2.
///
/// # Safety
/// The CPU must support AVX2, FMA and POPCNT.
#[target_feature(enable = "avx2,fma,popcnt")]
pub(super) unsafe fn walk<const T: usize, const EVEN: bool, const ODD: bool>(
    states: &[u64],
    (start, end, shift): (u32, u32, u32),
    k: u32,
    targets: [&[u32]; T],
    out: &mut [u32],
    packed: &mut Vec<u64>,
) {
    let len = states.len();
    debug_assert_eq!(out.len(), len);
    debug_assert!(targets.iter().all(|t| t.len() == len));
    // Every store of a whole vector of answers starts below `len`. Grown,
    // never cleared: every element read is written first.
    if packed.len() < len + LANES {
        packed.resize(len + LANES, 0);
    }
    let packed = &mut packed[..len + LANES];
    let mut feed = Feed {
        states,
        targets,
        next: 0,
        shift: _mm256_set1_pd(f64::from(shift)),
        start: _mm256_set1_pd(f64::from(start)),
        floor: _mm256_set1_pd(f64::from(k)),
    };
    let limit = _mm256_set1_pd(f64::from(end));
    let mut groups = [Lanes {
        state: _mm256_setzero_si256(),
        b: _mm256_setzero_pd(),
        position: _mm256_setzero_si256(),
        targets: [_mm256_setzero_pd(); T],
    }; GROUPS];
    for lanes in &mut groups {
        feed.refill(lanes, 0xF);
    }
    let bias = _mm256_set1_pd(TWO52);
    let low = _mm256_set1_epi64x(0xFFFF_FFFF);
    let hit_bit = _mm256_set1_epi64x(i64::from(HIT));
    let unsettled = _mm256_set1_pd(f64::INFINITY);
    let steps = round_steps(end + shift, STEPS_LONG);
    let mut done = 0;
    // The endings before `written` are in `out` already.
    let mut written = 0;
    while done < len {
        let mut finished = [_mm256_setzero_pd(); GROUPS];
        for _ in 0..steps {
            for g in 0..GROUPS {
                let lanes = &mut groups[g];
                lanes.state = lcg(lanes.state);
                // q = 2^31 / ((state >> 33) + 1), exactly.
                let scaled = scaled_divisor_256(lanes.state);
                let q = if g % 2 == 0 {
                    quotient_256::<EVEN>(scaled)
                } else {
                    quotient_256::<ODD>(scaled)
                };
                // x = (b + 1) q, one rounding: fma(b, q, q).
                let x = _mm256_fmadd_pd(lanes.b, q, q);
                // The walk stops when trunc(x) reaches the end, that is when
                // x does; an idle lane's x, minus infinity, never does.
                finished[g] = _mm256_or_pd(finished[g], _mm256_cmp_pd::<_CMP_GE_OQ>(x, limit));
                // trunc(x) > b in the lanes that go on (x = (b + 1) q, q >=
                // 1), so a max keeps b in those that finished once their x
                // is zeroed.
                let going_on = _mm256_andnot_pd(finished[g], x);
                lanes.b = _mm256_max_pd(
                    lanes.b,
                    _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(going_on),
                );
                // A lane that lands on a target is done, its key
                // unsettled (see `refill_avx512`). One that finished
                // still holds its last landing, which it compared when it
                // landed: compared again, it adds nothing.
                for m in 0..T {
                    finished[g] = _mm256_or_pd(
                        finished[g],
                        _mm256_cmp_pd::<_CMP_EQ_OQ>(lanes.b, lanes.targets[m]),
                    );
                }
            }
        }
        for g in 0..GROUPS {
            let lanes = &mut groups[g];
            let free = _mm256_movemask_pd(finished[g]) as u32;
            // position << 32 | (b + shift) | HIT if its key is unsettled.
            let mut hit = _mm256_cmp_pd::<_CMP_EQ_OQ>(lanes.b, unsettled);
            for m in 0..T {
                hit = _mm256_or_pd(hit, _mm256_cmp_pd::<_CMP_EQ_OQ>(lanes.b, lanes.targets[m]));
            }
            let ending = _mm256_and_si256(
                _mm256_castpd_si256(_mm256_add_pd(_mm256_add_pd(lanes.b, feed.shift), bias)),
                low,
            );
            let answer = _mm256_or_si256(
                _mm256_or_si256(lanes.position, ending),
                _mm256_and_si256(_mm256_castpd_si256(hit), hit_bit),
            );
            let answer = _mm256_permutevar8x32_epi32(answer, permutation(&PACK, free));
            let slots = &mut packed[done..done + LANES];
            // SAFETY: `slots` is 4 `u64`, the 32 bytes the store writes; a
            // round retires each key once, so `done` stays below `len`
            // while any lane finishes, and `packed` is `len + 4` long.
            unsafe { _mm256_storeu_si256(slots.as_mut_ptr().cast(), answer) };
            done += free.count_ones() as usize;
            feed.refill(lanes, free);
        }
        // A few endings to `out` each round, scalar stores that overlap
        // the vector work, rather than all of them after the walk.
        if done - written >= TRICKLE {
            write(&packed[written..written + TRICKLE], out);
            written += TRICKLE;
        }
    }
    write(&packed[written..len], out);
}
