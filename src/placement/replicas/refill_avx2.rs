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
    /// The targets on this walk's axis, as the bits of doubles, each
    /// padded with [`LANES`] zeros so that every load is a whole vector.
    targets: [&'a [u64]; T],
    /// Each key's starting `b`, as the bits of doubles, padded alike:
    /// plus infinity for a key already unsettled (see [`on_axis`]).
    starts: &'a [u64],
    next: usize,
    shift: __m256d,
}

impl<const T: usize> Feed<'_, T> {
    /// Loads the next keys into the `free` lanes of `lanes` (a 4-bit
    /// mask), or as many as remain, the others going idle.
    #[inline]
    #[target_feature(enable = "avx2,fma,popcnt")]
    fn refill(&mut self, lanes: &mut Lanes<T>, free: u32) {
        let left = self.states.len() - self.next;
        let take = if left >= LANES {
            free
        } else {
            lowest_lanes(free, left)
        };
        let valid = lane_mask((1u32 << left.min(LANES)) - 1);
        let spread = permutation(&SPREAD, take);
        let taken = lane_mask(take);
        // SAFETY: the masked load reads only the `valid` lanes, the keys
        // `next..next + min(left, 4)`, which lie inside `states`;
        // masked-off lanes read nothing. Each target load reads the 32
        // bytes of a bounds-checked slice of 4 `u64`.
        unsafe {
            let fresh = _mm256_maskload_epi64(self.states.as_ptr().add(self.next).cast(), valid);
            let fresh = _mm256_permutevar8x32_epi32(fresh, spread);
            lanes.state = _mm256_blendv_epi8(lanes.state, fresh, taken);
            // An idle lane's targets become -1, which no `b` equals: it
            // never stops.
            let idle = _mm256_castsi256_pd(lane_mask(free & !take));
            for m in 0..T {
                let t = &self.targets[m][self.next..self.next + LANES];
                let t = _mm256_loadu_pd(t.as_ptr().cast());
                let t = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(t), spread));
                let t = _mm256_blendv_pd(lanes.targets[m], t, _mm256_castsi256_pd(taken));
                lanes.targets[m] = _mm256_blendv_pd(t, _mm256_set1_pd(-1.0), idle);
            }
            let starts = &self.starts[self.next..self.next + LANES];
            let starts = _mm256_loadu_pd(starts.as_ptr().cast());
            let starts =
                _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(starts), spread));
            lanes.b = _mm256_blendv_pd(lanes.b, starts, _mm256_castsi256_pd(taken));
        }
        let ranks = _mm256_permutevar8x32_epi32(_mm256_setr_epi64x(0, 1, 2, 3), spread);
        let positions = _mm256_slli_epi64::<32>(_mm256_add_epi64(
            _mm256_set1_epi64x(self.next as i64),
            ranks,
        ));
        lanes.position = _mm256_blendv_epi8(lanes.position, positions, taken);
        let idle = _mm256_castsi256_pd(lane_mask(free & !take));
        lanes.b = _mm256_blendv_pd(lanes.b, _mm256_set1_pd(f64::NEG_INFINITY), idle);
        self.next += take.count_ones() as usize;
    }
}

/// The endings of a higher slot (`targets`) on a walk's axis and the
/// keys' starts, as `refill_avx512::on_axis` makes them, on AVX2.
#[inline]
#[target_feature(enable = "avx2,fma,popcnt")]
fn on_axis(targets: &[u32], shift: u32, k: u32, axis: &mut [u64], starts: &mut [u64]) {
    let full = targets.len() / LANES * LANES;
    let by = _mm256_set1_pd(f64::from(shift));
    let floor = _mm256_set1_pd(f64::from(k));
    for ((t, a), s) in targets[..full]
        .chunks_exact(LANES)
        .zip(axis.chunks_exact_mut(LANES))
        .zip(starts.chunks_exact_mut(LANES))
    {
        // SAFETY: `t` is 4 `u32` (16 bytes, read), `a` and `s` 4 `u64`
        // each (32 bytes, read or written), exactly what the unaligned
        // loads and stores touch.
        unsafe {
            // An ending with `HIT` set reads as negative, below `k`.
            let t = _mm256_cvtepi32_pd(_mm_loadu_si128(t.as_ptr().cast()));
            let landed = _mm256_cmp_pd::<_CMP_GE_OQ>(t, floor);
            let t = _mm256_blendv_pd(_mm256_set1_pd(UNSETTLED), _mm256_sub_pd(t, by), landed);
            _mm256_storeu_pd(a.as_mut_ptr().cast(), t);
            let start = _mm256_loadu_pd(s.as_ptr().cast());
            let start = _mm256_blendv_pd(_mm256_set1_pd(f64::INFINITY), start, landed);
            _mm256_storeu_pd(s.as_mut_ptr().cast(), start);
        }
    }
    // The last few as a whole vector from a padded copy (the areas have
    // room), rather than a loop that LLVM turns into masked stores.
    let rest = &targets[full..];
    if !rest.is_empty() {
        let mut last = [0u32; LANES];
        last[..rest.len()].copy_from_slice(rest);
        let tail = full..full + LANES;
        on_axis(&last, shift, k, &mut axis[tail.clone()], &mut starts[tail]);
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
    // Every store of a whole vector of answers starts below `len`. The
    // keys' starts and targets follow, made once rather than at every
    // refill. Grown, never cleared: every element read is written first
    // (the lanes past the keys take no target and retire no ending).
    let area = (T + 2) * (len + LANES);
    if packed.len() < area {
        packed.resize(area, 0);
    }
    let (packed, rest) = packed[..area].split_at_mut(len + LANES);
    let (starts, axis) = rest.split_at_mut(len + LANES);
    starts.fill(f64::from(start).to_bits());
    let mut converted = axis.chunks_exact_mut(len + LANES);
    let targets = targets.map(|t| {
        let c = converted.next().expect("T areas");
        on_axis(t, shift, k, c, starts);
        &*c
    });
    let mut feed = Feed {
        states,
        targets,
        starts,
        next: 0,
        shift: _mm256_set1_pd(f64::from(shift)),
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
