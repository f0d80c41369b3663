//! One replica slot's walk over a run of keys on AVX-512, lanes refilled as
//! they finish (see [`super::refill`]): each lane walks one key's slot, and
//! a lane whose walk is done hands its ending on and takes the next key at
//! once, so that no lane waits for the slowest key of its vector, as the
//! lockstep blocks of [`super::lanes`] do.

// Groups and their targets are indexed together, which iterators would
// only obscure.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use super::walk::{round_steps, write, HIT, TRICKLE, UNSETTLED};
use crate::arch::x86_64::quotient::{quotient_512, scaled_divisor_512};
use crate::kernel::scalar::LCG_MULTIPLIER;

/// Lanes per vector.
const LANES: usize = 8;

/// Vectors stepped in turn, so that their chains (multiply, division,
/// multiply-add, compare) overlap while the divider stays busy.
const GROUPS: usize = 6;

/// Steps between two refills in long walks (see `walk::round_steps`).
const STEPS_LONG: usize = 4;

/// One vector of lanes.
#[derive(Clone, Copy)]
struct Lanes<const T: usize> {
    /// The LCG state; the slot's key right after a refill.
    state: __m512i,
    /// The walk's `b` on its axis, an integer-valued double; minus
    /// infinity in idle lanes (once the keys run out), whose `x` stays
    /// minus infinity, so that they never finish.
    b: __m512d,
    /// Each lane's key, as an index into the run.
    position: __m512i,
    /// The endings of the higher slots of each lane's key, on this walk's
    /// axis.
    targets: [__m512d; T],
}

/// The unread keys and the walk's constants.
struct Feed<'a, const T: usize> {
    states: &'a [u64],
    /// The endings of the higher slots, as they stand in their columns.
    targets: [&'a [u32]; T],
    next: usize,
    shift: __m512d,
    /// The walk's starting `b`.
    start: __m512d,
    /// Sets of `k`, as a double: an ending below it never landed.
    floor: __m512d,
}

impl<const T: usize> Feed<'_, T> {
    /// Loads the next keys into the `free` lanes of `lanes`, or as many as
    /// remain, the others going idle. Each key's targets come onto the
    /// walk's axis (minus `shift`) as they are loaded: an ending that
    /// makes its key unsettled (one below `k`: a slot that never landed;
    /// or one with [`HIT`]) becomes [`UNSETTLED`], which no landing
    /// equals, and starts the key at plus infinity, from which the walk
    /// stops at its first step. No NaN: some emulators (valgrind's AVX) get
    /// the unordered compare predicates wrong.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx2,fma,popcnt")]
    fn refill(&mut self, lanes: &mut Lanes<T>, free: __mmask8) {
        let left = self.states.len() - self.next;
        let (take, valid) = if left >= LANES {
            (free, 0xFF)
        } else {
            (lowest_lanes(free, left), ((1u32 << left) - 1) as __mmask8)
        };
        let hit = _mm512_set1_pd(f64::from(HIT));
        let mut unsettled: __mmask8 = 0;
        // SAFETY: the masked loads read only the `valid` lanes, the keys
        // `next..next + min(left, 8)`, which lie inside `states` and inside
        // each target column (as long as `states`); masked-off lanes read
        // nothing.
        unsafe {
            let fresh = _mm512_maskz_loadu_epi64(valid, self.states.as_ptr().add(self.next).cast());
            lanes.state = _mm512_mask_expand_epi64(lanes.state, take, fresh);
            for m in 0..T {
                let column = self.targets[m].as_ptr().add(self.next);
                let ending = _mm512_maskz_loadu_epi32(__mmask16::from(valid), column.cast());
                let t = _mm512_cvtepu32_pd(_mm512_castsi512_si256(ending));
                let landed = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(t, self.floor)
                    & _mm512_cmp_pd_mask::<_CMP_LT_OQ>(t, hit);
                unsettled |= !landed;
                let t = _mm512_mask_sub_pd(_mm512_set1_pd(UNSETTLED), landed, t, self.shift);
                lanes.targets[m] = _mm512_mask_expand_pd(lanes.targets[m], take, t);
            }
        }
        let starts = _mm512_mask_mov_pd(self.start, unsettled, _mm512_set1_pd(f64::INFINITY));
        lanes.b = _mm512_mask_expand_pd(lanes.b, take, starts);
        let positions = _mm512_add_epi64(
            _mm512_set1_epi64(self.next as i64),
            _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
        );
        lanes.position = _mm512_mask_expand_epi64(lanes.position, take, positions);
        // An idle lane's `b`, minus infinity, equals none of its targets:
        // it never stops.
        let idle = free & !take;
        lanes.b = _mm512_mask_mov_pd(lanes.b, idle, _mm512_set1_pd(f64::NEG_INFINITY));
        for m in 0..T {
            lanes.targets[m] = _mm512_mask_mov_pd(lanes.targets[m], idle, _mm512_setzero_pd());
        }
        self.next += take.count_ones() as usize;
    }
}

/// The lowest `count` set bits of `free`.
fn lowest_lanes(free: __mmask8, count: usize) -> __mmask8 {
    let mut rest = free;
    for _ in 0..count {
        rest &= rest.wrapping_sub(1);
    }
    free & !rest
}

/// The walk from `b = start` with the keys `states`, landing on `next +
/// shift` while `next < end`, in sets of `k`: `out[i]` is where key `i`'s
/// walk ends (its last landing plus `shift`, or `start + shift`), or, with
/// [`HIT`] set, where it stopped because key `i` is unsettled: the walk
/// landed on `targets[m][i]` for some `m`, or that ending is below `k` or
/// has [`HIT`] itself (see `super::refill`). `packed` is working memory.
/// Even-numbered vectors take the refined reciprocal when `EVEN`, odd ones
/// when `ODD` (else IEEE division), as the kernel's division strategy
/// says: the quotient is the same either way.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ, AVX2, FMA and POPCNT.
#[target_feature(enable = "avx512f,avx512dq,avx2,fma,popcnt")]
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
        shift: _mm512_set1_pd(f64::from(shift)),
        start: _mm512_set1_pd(f64::from(start)),
        floor: _mm512_set1_pd(f64::from(k)),
    };
    let limit = _mm512_set1_pd(f64::from(end));
    let mut groups = [Lanes {
        state: _mm512_setzero_si512(),
        b: _mm512_setzero_pd(),
        position: _mm512_setzero_si512(),
        targets: [_mm512_setzero_pd(); T],
    }; GROUPS];
    for lanes in &mut groups {
        feed.refill(lanes, 0xFF);
    }
    let multiplier = _mm512_set1_epi64(LCG_MULTIPLIER as i64);
    let one = _mm512_set1_epi64(1);
    let hit_bit = _mm512_set1_epi64(i64::from(HIT));
    let unsettled = _mm512_set1_pd(f64::INFINITY);
    let steps = round_steps(end + shift, STEPS_LONG);
    let mut done = 0;
    // The endings before `written` are in `out` already.
    let mut written = 0;
    while done < len {
        let mut active: [__mmask8; GROUPS] = [0xFF; GROUPS];
        for _ in 0..steps {
            for g in 0..GROUPS {
                let lanes = &mut groups[g];
                lanes.state = _mm512_add_epi64(_mm512_mullo_epi64(lanes.state, multiplier), one);
                // q = 2^31 / ((state >> 33) + 1), exactly.
                let scaled = scaled_divisor_512(lanes.state);
                let q = if g % 2 == 0 {
                    quotient_512::<EVEN>(scaled)
                } else {
                    quotient_512::<ODD>(scaled)
                };
                // x = (b + 1) q, one rounding: fma(b, q, q).
                let x = _mm512_fmadd_pd(lanes.b, q, q);
                // The walk stops when trunc(x) reaches the end, that is when
                // x does.
                active[g] = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(active[g], x, limit);
                lanes.b = _mm512_mask_roundscale_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(
                    lanes.b, active[g], x,
                );
                // A lane that lands on a target is done: its key goes to
                // `Runs::settle`, which needs only to know that, so the
                // walk stops there, and it is read off the lane at
                // retirement, which keeps one mask per group (a second
                // one would go through memory). The compare is of the bits:
                // `b` is +0 or more, or an infinity, and a target a whole
                // number, +0 (`x - x`) or `UNSETTLED`, never -0 or NaN, so
                // bits differ exactly where the values do. A chain of
                // masked double compares, the same speed, made LLVM's
                // unoptimised code generator (a final crate at opt-level 0
                // with LTO, which code-generates this walk again) fail with
                // "Cannot emit physreg copy instruction" (rustc 1.95).
                for m in 0..T {
                    active[g] = _mm512_mask_cmpneq_epi64_mask(
                        active[g],
                        _mm512_castpd_si512(lanes.b),
                        _mm512_castpd_si512(lanes.targets[m]),
                    );
                }
            }
        }
        for g in 0..GROUPS {
            let lanes = &mut groups[g];
            let finished = !active[g];
            // The lanes whose key is unsettled: stopped on a target, or
            // started at plus infinity.
            let mut hit = _mm512_mask_cmp_pd_mask::<_CMP_EQ_OQ>(finished, lanes.b, unsettled);
            for m in 0..T {
                hit |= _mm512_mask_cmp_pd_mask::<_CMP_EQ_OQ>(finished, lanes.b, lanes.targets[m]);
            }
            // position << 32 | (b + shift) | HIT if it landed on a target.
            // A key that did not walk ends at plus infinity, whose
            // conversion would spill into the position: it is marked, so
            // any ending below 2^31 does, and `limit` is one.
            let ending =
                _mm512_cvttpd_epi64(_mm512_add_pd(_mm512_min_pd(lanes.b, limit), feed.shift));
            let answer = _mm512_or_si512(
                _mm512_or_si512(_mm512_slli_epi64::<32>(lanes.position), ending),
                _mm512_maskz_mov_epi64(hit, hit_bit),
            );
            let slots = &mut packed[done..done + LANES];
            // SAFETY: `slots` is 8 `u64`, the 64 bytes the store writes; a
            // round retires each key once, so `done` stays below `len`
            // while any lane finishes, and `packed` is `len + 8` long.
            unsafe {
                _mm512_storeu_si512(
                    slots.as_mut_ptr().cast(),
                    _mm512_maskz_compress_epi64(finished, answer),
                )
            };
            done += finished.count_ones() as usize;
            feed.refill(lanes, finished);
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
