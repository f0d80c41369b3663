//! One slot's walk over a block of keys, the data the instruction-set
//! files write and the lanes' resolution reads (see [`super::lanes`]), and
//! the walk in plain code, which the scalar kernel runs and NEON compiles.

use crate::kernel::scalar::LCG_MULTIPLIER;

/// Keys stepped together: two AVX-512 vectors, four AVX2, eight NEON.
pub(super) const LANES: usize = 16;

/// Steps a walk records before its lane goes to the one-key path: a walk
/// takes about `ln(n / k)` steps (slot 0 `ln(n) + 1`), at most about 22 on
/// average among `2^31 - 1` buckets.
pub(super) const MAX_STEPS: usize = 40;

/// A row entry for a lane that did not land at that step: what the x86
/// conversions give for a double out of the `i32` range, and never a
/// bucket (every bucket is below 2^31 - 1).
pub(super) const NONE: u32 = 0x8000_0000;

/// Set in a slot's ending by the refilling walks (`refill*.rs`) when its
/// key is unsettled (see `refill`): above every bucket (all are below
/// 2^31 - 1).
pub(super) const HIT: u32 = 1 << 31;

/// A higher slot's ending `e` in sets of `k` as a target on the axis
/// shifted by `shift`, or `None` when `e` makes its key unsettled (below
/// `k`: the slot never landed; or marked [`HIT`]).
#[inline]
pub(super) fn on_axis(e: u32, shift: u32, k: u32) -> Option<u32> {
    (k..HIT).contains(&e).then(|| e - shift)
}

/// The target of a refilling walk on the lanes whose ending makes its key
/// unsettled: below every landing, so that none equals it (the walk does
/// not start for that key anyway: see `refill_avx512`'s refill).
#[cfg(target_arch = "x86_64")]
pub(super) const UNSETTLED: f64 = -2.0;

/// Steps between two refills of a refilling walk in sets among `n`
/// buckets: `long` (the instruction set's best for long walks) when the
/// kernel takes long rounds too ([`crate::arch::long_keys`]), one fewer
/// for shorter walks. A lane done at the first step idles for the rest,
/// but the retire and refill are paid once for all.
#[cfg(target_arch = "x86_64")]
pub(super) fn round_steps(n: u32, long: usize) -> usize {
    if crate::arch::long_keys(n) {
        long
    } else {
        long - 1
    }
}

/// Endings written to `out` after each round, once that many wait: a
/// round retires about 20 keys.
#[cfg(target_arch = "x86_64")]
pub(super) const TRICKLE: usize = 16;

/// Writes each packed ending, `position << 32 | ending`, to its position
/// in `out`.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn write(packed: &[u64], out: &mut [u32]) {
    for &p in packed {
        out[(p >> 32) as usize] = p as u32;
    }
}

/// One slot's walk over a block: `rows[s][l]` is lane `l`'s landing at
/// step `s`, or [`NONE`].
#[derive(Clone)]
pub(super) struct Walk {
    pub(super) rows: [[u32; LANES]; MAX_STEPS],
    /// The rows written.
    pub(super) steps: usize,
    /// Bit `l` set when lane `l` was still walking after the last row.
    pub(super) unfinished: u32,
    /// The bucket each lane ends on: its last landing, or its start.
    pub(super) last: [u32; LANES],
}

/// Slot `slot`'s walk in a set of `k` among `n`: its start `b`, the `end`
/// its steps stop at, and the `shift` of its axis.
#[inline]
pub(super) fn slot_walk(slot: usize, k: u32, n: u32) -> (u32, u32, u32) {
    if slot == 0 {
        (0, n, 0)
    } else {
        let shift = slot as u32;
        (k - 1 - shift, n - shift, shift)
    }
}

impl Default for Walk {
    fn default() -> Walk {
        Walk {
            rows: [[NONE; LANES]; MAX_STEPS],
            steps: 0,
            unfinished: 0,
            last: [0; LANES],
        }
    }
}

impl Walk {
    // A lane's column of rows is sorted: its landings climb, and from its
    // first step that does not land it records `NONE`, above every
    // bucket. So its landings are a prefix found, and searched, by
    // bisection rather than by a scan of rows 64 bytes apart.

    /// Lane `l`'s landings, last first.
    pub(super) fn landings(&self, l: usize) -> impl Iterator<Item = u32> + '_ {
        let count = self.rows[..self.steps].partition_point(|row| row[l] != NONE);
        self.rows[..count].iter().rev().map(move |row| row[l])
    }

    /// Whether lane `l` landed on `x`.
    pub(super) fn landed_on(&self, l: usize, x: u32) -> bool {
        self.rows[..self.steps]
            .binary_search_by(|row| row[l].cmp(&x))
            .is_ok()
    }

    /// The lanes (bit `l`) that landed on `targets[l]`: a plain loop over
    /// the rows that the compiler turns into vector compares.
    pub(super) fn landed_on_lanes(&self, targets: &[u32; LANES]) -> u32 {
        let mut hit = [false; LANES];
        for row in &self.rows[..self.steps] {
            for l in 0..LANES {
                hit[l] |= row[l] == targets[l];
            }
        }
        hit.iter()
            .enumerate()
            .fold(0, |m, (l, &h)| m | u32::from(h) << l)
    }
}

/// Figure 1's loop on every lane from `b = start`, with states `state`,
/// landing on `next + shift` while `next < end`, into `walk`.
#[inline(always)]
pub(super) fn walk(mut state: [u64; LANES], start: u32, end: u32, shift: u32, walk: &mut Walk) {
    let mut b = [f64::from(start); LANES];
    let mut live = [true; LANES];
    let end = f64::from(end);
    let two31 = (1u64 << 31) as f64;
    for s in 0..MAX_STEPS {
        let row = &mut walk.rows[s];
        for l in 0..LANES {
            state[l] = state[l].wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
            // `(state >> 33) + 1` as Figure 1 converts it: below 2^31 + 1,
            // so exact either way; the i32 conversion is the one every
            // vector unit has.
            let d = f64::from((state[l] >> 33) as i32) + 1.0;
            let x = (b[l] + 1.0) * (two31 / d);
            // Figure 1's `j = trunc(x)` reaches `end` exactly when `x` does.
            let lands = live[l] & (x < end);
            // Truncation by conversion (`f64::trunc` is a library call
            // where SSE4.1 is not enabled); exact, `x` being below `end`.
            b[l] = if lands { f64::from(x as u32) } else { b[l] };
            // `b` is below 2^31: a landing below `end`, or the start.
            row[l] = if lands { b[l] as u32 + shift } else { NONE };
            live[l] = lands;
        }
        if !live.iter().any(|&l| l) {
            walk.steps = s + 1;
            walk.unfinished = 0;
            walk.last = b.map(|b| b as u32 + shift);
            return;
        }
    }
    walk.steps = MAX_STEPS;
    walk.last = b.map(|b| b as u32 + shift);
    walk.unfinished = live
        .iter()
        .enumerate()
        .fold(0, |m, (l, &live)| m | u32::from(live) << l);
}

/// [`walk`] compiled for NEON, its lanes mapped onto NEON's vectors by the
/// compiler.
///
/// # Safety
/// The CPU must support NEON.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
pub(super) unsafe fn walk_neon(
    state: [u64; LANES],
    start: u32,
    end: u32,
    shift: u32,
    out: &mut Walk,
) {
    walk(state, start, end, shift, out);
}
