//! Replica sets in runs of [`RUN`] keys: on the AVX-512 and AVX2 kernels
//! with the lanes refilled as they finish, on the others four keys in
//! lockstep in plain code ([`super::refill_plain`]).
//!
//! The slots are walked one at a time over the whole run, the highest
//! first, which is Figure 1 itself on the derived keys ([`Runs::top_slot`]).
//! Each lane walks one key's slot and, once that walk is done,
//! writes where it ended straight into the slot's column and takes the
//! next key, so that no lane waits for the slowest key of a vector. The
//! lowest-slot-wins rule needs no record of the landings: a slot's member
//! is where it ended unless a lower slot landed there too, and when a
//! lower slot is walked, the endings of every higher slot of its key are
//! already known, so each step compares its landing with them (its
//! *targets*).
//!
//! A key is *settled* when no slot of its set hit a target and every slot
//! past the first landed at least once (a slot that never lands keeps its
//! starting bucket, which the starting order deals): its members are then
//! the endings, as they stand. The rest (for n = 1000 and k = 3, about 2%
//! of the keys: a lower slot lands on a given bucket `x` with probability
//! about `1 / x`) are done again by the lockstep blocks of
//! [`super::lanes`], which keep every landing. A walk finds out as it goes:
//! a lane stops when it hits a target, and does not walk when one of its
//! targets already marks the key unsettled (an ending below `k`, or one
//! marked [`HIT`]: the key then starts at plus infinity, where its first
//! step ends the walk), and marks its ending with [`HIT`]. So slot 0's
//! walk, whose targets are every other ending, marks exactly the
//! unsettled keys, and column 0 alone says which to redo.

use super::lanes::Blocks;
use super::walk::{slot_walk, HIT, LANES};
use crate::Kernel;

/// Keys per run: the run's derived keys and columns stay in the L2 cache
/// from one slot's walk to the next, and the few steps in which the last
/// keys of a walk leave lanes idle are spread over many keys.
const RUN: usize = 8192;

/// The fewest keys that take the runs: the walk keeps 48 lanes in flight,
/// which fewer keys leave mostly idle, where a lockstep block of 16 keys
/// steps only its own.
pub(super) const MIN_KEYS: usize = 96;

/// A slot's walk over a run on one instruction set: keys, `(start, end,
/// shift)` of the slot, the targets, the endings, working memory.
type Walker = fn(&[u64], (u32, u32, u32), u32, &[&[u32]], &mut [u32], &mut Vec<u64>);

/// The runs' largest working areas, which the thread keeps from call to
/// call (`crate::scratch`): about 130 KiB for a run.
#[derive(Default)]
pub(super) struct Areas {
    /// A slot's derived keys over a run.
    derived: Vec<u64>,
    packed: Vec<u64>,
    /// The positions in the run of the keys not settled.
    unsettled: Vec<usize>,
}

/// Working memory of the runs, reused from run to run.
pub(super) struct Runs<'a> {
    kernel: Kernel,
    walker: Walker,
    areas: &'a mut Areas,
    blocks: Blocks,
}

impl<'a> Runs<'a> {
    /// Runs of sets of `k` (2 to [`super::lanes::MAX_LANE_SLOTS`]) members
    /// on `kernel`, working in `areas`.
    pub(super) fn new(kernel: Kernel, k: usize, areas: &'a mut Areas) -> Runs<'a> {
        let walker: Walker = match (kernel.name(), kernel.division()) {
            #[cfg(target_arch = "x86_64")]
            ("avx512", crate::Division::Ieee) => walk_avx512::<false, false>,
            #[cfg(target_arch = "x86_64")]
            ("avx512", crate::Division::Newton) => walk_avx512::<true, true>,
            #[cfg(target_arch = "x86_64")]
            ("avx512", crate::Division::Hybrid) => walk_avx512::<false, true>,
            #[cfg(target_arch = "x86_64")]
            ("avx2", crate::Division::Ieee) => walk_avx2::<false, false>,
            #[cfg(target_arch = "x86_64")]
            ("avx2", crate::Division::Newton) => walk_avx2::<true, true>,
            #[cfg(target_arch = "x86_64")]
            ("avx2", crate::Division::Hybrid) => walk_avx2::<false, true>,
            _ => walk_plain,
        };
        Runs {
            kernel,
            walker,
            areas,
            blocks: Blocks::new(kernel, k),
        }
    }

    /// The sets of `keys` (at most [`RUN`]) among `n` buckets into
    /// `columns` (`k` of them, as long as `keys`).
    fn run(&mut self, keys: &[u64], n: u32, columns: &mut [&mut [u32]]) {
        let k = columns.len();
        self.top_slot(keys, n, k as u32 - 1, columns[k - 1]);
        for slot in (0..k - 1).rev() {
            let (lower, higher) = columns.split_at_mut(slot + 1);
            let targets: Vec<&[u32]> = higher.iter().map(|c| &c[..]).collect();
            let walk = slot_walk(slot, k as u32, n);
            let states = if slot == 0 {
                keys
            } else {
                self.derive(keys, slot as u64);
                &self.areas.derived
            };
            (self.walker)(
                states,
                walk,
                k as u32,
                &targets,
                &mut lower[slot][..],
                &mut self.areas.packed,
            );
        }
        self.settle(keys, n, columns);
    }

    /// The highest slot's (`top = k - 1`) endings into `column`. Its walk starts from
    /// `b = 0` and has no targets, which makes it Figure 1 itself over the
    /// derived keys among `n - (k - 1)` buckets, its axis shifted by
    /// `k - 1`: the kernel's own loop, faster than any walk that keeps
    /// targets. A walk that never lands ends on its start, `k - 1`, as
    /// Figure 1's answer 0 shifted does, which [`Runs::settle`] redoes.
    fn top_slot(&mut self, keys: &[u64], n: u32, top: u32, column: &mut [u32]) {
        self.derive(keys, u64::from(top));
        self.kernel.run(&self.areas.derived, n - top, column);
        for member in column.iter_mut() {
            *member += top;
        }
    }

    /// The derived keys of `keys` for slot `slot` into `derived`.
    fn derive(&mut self, keys: &[u64], slot: u64) {
        self.areas.derived.resize(keys.len(), 0);
        self.kernel.xxh64_into(keys, &mut self.areas.derived, slot);
    }

    /// Redoes the keys not settled (see the module documentation) with the
    /// lockstep blocks.
    fn settle(&mut self, keys: &[u64], n: u32, columns: &mut [&mut [u32]]) {
        let k = columns.len();
        // HIT is the sign bit: a mask of 64 endings' at a time, which the
        // compiler builds with vector compares, then its few set bits.
        self.areas.unsettled.clear();
        for (c, chunk) in columns[0].chunks(64).enumerate() {
            let mut marked = chunk
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &e)| m | u64::from(e & HIT != 0) << i);
            while marked != 0 {
                self.areas
                    .unsettled
                    .push(c * 64 + marked.trailing_zeros() as usize);
                marked &= marked - 1;
            }
        }
        let mut block = [0u64; LANES];
        let mut sets = [0u32; LANES * super::lanes::MAX_LANE_SLOTS];
        for positions in self.areas.unsettled.chunks(LANES) {
            let block = &mut block[..positions.len()];
            for (b, &i) in block.iter_mut().zip(positions) {
                *b = keys[i];
            }
            let sets = &mut sets[..positions.len() * k];
            self.blocks.fill(block, n, sets);
            for (&i, set) in positions.iter().zip(sets.chunks_exact(k)) {
                for (column, &member) in columns.iter_mut().zip(set) {
                    column[i] = member;
                }
            }
        }
    }

    /// The sets of `keys` among `n` buckets into `columns` (`k` of them,
    /// each as long as `keys`), run by run, each run then passed to
    /// `adjust` (its keys and its part of the columns).
    pub(super) fn fill(
        &mut self,
        keys: &[u64],
        n: u32,
        columns: &mut [&mut [u32]],
        adjust: &mut impl FnMut(&[u64], &mut [&mut [u32]]),
    ) {
        in_runs(keys, columns, |keys, parts| {
            self.run(keys, n, parts);
            adjust(keys, parts);
        });
    }
}

/// `f(keys, parts)` for each run of [`RUN`] keys, `parts` the run's rows of
/// `columns`.
pub(super) fn in_runs(
    keys: &[u64],
    columns: &mut [&mut [u32]],
    mut f: impl FnMut(&[u64], &mut [&mut [u32]]),
) {
    for (r, keys) in keys.chunks(RUN).enumerate() {
        let range = r * RUN..r * RUN + keys.len();
        let mut parts: Vec<&mut [u32]> =
            columns.iter_mut().map(|c| &mut c[range.clone()]).collect();
        f(keys, &mut parts);
    }
}

/// `T` targets of `targets`, which holds that many.
fn fixed<'a, const T: usize>(targets: &[&'a [u32]]) -> [&'a [u32]; T] {
    targets.try_into().expect("T targets")
}

/// `walk::<T, EVEN, ODD>(keys, walk, k, targets, out, packed)` for `T` the
/// number of `targets` (1 to `MAX_LANE_SLOTS - 1`: the top slot, with no
/// targets, is the kernel's, [`Runs::top_slot`]), so that each walk
/// keeps its targets in registers; `EVEN` and `ODD` must be in scope.
#[cfg(target_arch = "x86_64")]
macro_rules! by_targets {
    ($walk:ident, $keys:expr, $run:expr, $k:expr, $targets:expr, $out:expr, $packed:expr) => {{
        let (keys, run, k, targets, out, packed) = ($keys, $run, $k, $targets, $out, $packed);
        match targets.len() {
            1 => $walk::<1, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
            2 => $walk::<2, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
            3 => $walk::<3, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
            4 => $walk::<4, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
            5 => $walk::<5, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
            6 => $walk::<6, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
            _ => $walk::<7, EVEN, ODD>(keys, run, k, fixed(targets), out, packed),
        }
    }};
}

/// [`Walker`] in plain code, with as many targets as the slot has higher
/// slots; no working memory.
fn walk_plain(
    keys: &[u64],
    walk: (u32, u32, u32),
    k: u32,
    targets: &[&[u32]],
    out: &mut [u32],
    _: &mut Vec<u64>,
) {
    use super::refill_plain::walk as w;
    match targets.len() {
        1 => w::<1>(keys, walk, k, fixed(targets), out),
        2 => w::<2>(keys, walk, k, fixed(targets), out),
        3 => w::<3>(keys, walk, k, fixed(targets), out),
        4 => w::<4>(keys, walk, k, fixed(targets), out),
        5 => w::<5>(keys, walk, k, fixed(targets), out),
        6 => w::<6>(keys, walk, k, fixed(targets), out),
        _ => w::<7>(keys, walk, k, fixed(targets), out),
    }
}

/// [`Walker`] on AVX-512, with as many targets as the slot has higher
/// slots, dividing as `EVEN` and `ODD` say (see `refill_avx512::walk`).
#[cfg(target_arch = "x86_64")]
fn walk_avx512<const EVEN: bool, const ODD: bool>(
    keys: &[u64],
    walk: (u32, u32, u32),
    k: u32,
    targets: &[&[u32]],
    out: &mut [u32],
    packed: &mut Vec<u64>,
) {
    use super::refill_avx512::walk as w;
    // SAFETY: `Runs::new` takes this walker only for a kernel named
    // "avx512", which `Kernel::avx512` makes after detecting AVX-512F,
    // AVX-512DQ, AVX2, FMA and POPCNT, the features the walk enables.
    unsafe { by_targets!(w, keys, walk, k, targets, out, packed) }
}

/// [`Walker`] on AVX2, as [`walk_avx512`] is on AVX-512.
#[cfg(target_arch = "x86_64")]
fn walk_avx2<const EVEN: bool, const ODD: bool>(
    keys: &[u64],
    walk: (u32, u32, u32),
    k: u32,
    targets: &[&[u32]],
    out: &mut [u32],
    packed: &mut Vec<u64>,
) {
    use super::refill_avx2::walk as w;
    // SAFETY: `Runs::new` takes this walker only for a kernel named
    // "avx2", which `Kernel::avx2` makes after detecting AVX2, FMA and
    // POPCNT, the features the walk enables.
    unsafe { by_targets!(w, keys, walk, k, targets, out, packed) }
}
