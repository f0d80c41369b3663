//! One replica slot's walk over a run of keys in plain code, for the
//! kernels without a refilling walk of their own (scalar, NEON): the walk
//! of [`super::refill_avx512`], four keys in lockstep as the scalar
//! kernel's `jump_lanes` runs Figure 1, each finished lane keeping its `b`
//! by a select rather than a branch. A lane stops when it lands on a
//! target; a key whose targets already mark it unsettled does not walk.

use super::walk::{on_axis, HIT};
use crate::kernel::scalar::{next_jump, LCG_MULTIPLIER};

/// Keys in lockstep: four independent chains overlap in the pipeline
/// (see `kernel::scalar::batch`).
const LANES: usize = 4;

/// The walk of `refill_avx512::walk` in plain code: `out[i]` is where key
/// `i`'s walk from `b = start` (landing on `next + shift` while
/// `next < end`) ends, or, with [`HIT`] set, where it stopped because the
/// key is unsettled.
pub(super) fn walk<const T: usize>(
    states: &[u64],
    (start, end, shift): (u32, u32, u32),
    k: u32,
    targets: [&[u32]; T],
    out: &mut [u32],
) {
    let end = i64::from(end);
    for (c, (keys, out)) in states.chunks(LANES).zip(out.chunks_mut(LANES)).enumerate() {
        let mut key = [0u64; LANES];
        let mut b = [i64::from(start); LANES];
        // On the walk's axis; -1, which no landing equals, past the keys.
        let mut on = [[-1i64; T]; LANES];
        let mut active = [false; LANES];
        let mut unsettled = [false; LANES];
        for (l, &state) in keys.iter().enumerate() {
            key[l] = state;
            for m in 0..T {
                match on_axis(targets[m][c * LANES + l], shift, k) {
                    Some(t) => on[l][m] = i64::from(t),
                    None => unsettled[l] = true,
                }
            }
            active[l] = !unsettled[l];
        }
        while active.iter().any(|&a| a) {
            for l in 0..LANES {
                key[l] = key[l].wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
                let j = next_jump((b[l] + 1) as u32, key[l]);
                let lands = active[l] && j < end;
                b[l] = if lands { j } else { b[l] };
                let hit = lands && on[l].contains(&j);
                active[l] = lands && !hit;
                unsettled[l] |= hit;
            }
        }
        for (l, o) in out.iter_mut().enumerate() {
            *o = (b[l] as u32 + shift) | if unsettled[l] { HIT } else { 0 };
        }
    }
}
