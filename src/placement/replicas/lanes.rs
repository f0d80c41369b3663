//! Replica sets on the SIMD lanes, a block of [`LANES`] keys at a time.
//!
//! Each slot's walk (slot 0 Figure 1 itself, slot `j >= 1` Figure 1's loop
//! over its derived key on the axis shifted by `j`) steps every key of the
//! block in lockstep, recording each step's landing, or `NONE`, in a
//! row of the slot's [`Walk`], and the bucket each lane ends on. A lane
//! that is done only stops recording (its compare mask), so that the loop
//! has no branch but the one that ends it once every lane of every walk
//! is done. The derived keys are XXH64 on the kernel's lanes
//! ([`Kernel::xxh64`]). AVX-512 (`avx512.rs`) and AVX2 (`avx2.rs`) step
//! [`TOGETHER`] walks at once with intrinsics, for enough independent
//! chains to hide a step's latency; the scalar kernel runs the plain loop
//! [`walk`], which NEON compiles with its features enabled.
//!
//! The lowest-slot-wins resolution is a second pass: slot `j`'s member is
//! the bucket it ends on unless that is its start or a lower slot landed
//! there too, which one compare of each lower slot's rows against the
//! block's endings tells for 16 lanes at once (a lower slot lands on a
//! given bucket `x` with probability about `1 / x`, so this is rare); the
//! few lanes it flags look further back in their rows, or take their
//! starting bucket. A key one of whose walks still runs after
//! `MAX_STEPS` steps (a walk takes about `ln(n)` steps) is done by the
//! one-key path instead.

use super::slots::{Slots, Starts};
#[cfg(target_arch = "aarch64")]
use super::walk::walk_neon;
use super::walk::{slot_walk, walk, Walk, LANES};
use crate::kernel::scalar::jump;
use crate::Kernel;

/// The most slots run on the lanes; larger sets take the one-key path,
/// whose cost (`k^2` per key) dwarfs the walks anyway.
pub(crate) const MAX_LANE_SLOTS: usize = 8;

/// The walks of slots `first..first + W` on `kernel`'s instruction set:
/// on AVX2 and AVX-512, of the first [`HALF`] lanes only when `half` (the
/// plain walk steps every lane, for keys or not).
fn walk_slots<const W: usize>(
    kernel: Kernel,
    half: bool,
    states: &[[u64; LANES]; W],
    first: usize,
    k: u32,
    n: u32,
    walks: &mut [Walk; W],
) {
    match (kernel.name(), half) {
        // SAFETY: a kernel named "avx512" is only made by `Kernel::avx512`
        // after detecting AVX-512F, AVX-512DQ and AVX2.
        #[cfg(target_arch = "x86_64")]
        ("avx512", _) => unsafe {
            if half {
                super::avx512::walks::<W, 1>(states, first, k, n, walks)
            } else {
                super::avx512::walks::<W, 2>(states, first, k, n, walks)
            }
        },
        #[cfg(target_arch = "x86_64")]
        ("avx2", _) => {
            // SAFETY: a kernel named "avx2" is only made by `Kernel::avx2`
            // after detecting AVX2.
            unsafe {
                if half {
                    super::avx2::walks::<W, 2>(states, first, k, n, walks)
                } else {
                    super::avx2::walks::<W, 4>(states, first, k, n, walks)
                }
            }
        }
        (name, _) => {
            for (w, (state, walk_out)) in states.iter().zip(walks.iter_mut()).enumerate() {
                let (start, end, shift) = slot_walk(first + w, k, n);
                #[cfg(target_arch = "aarch64")]
                if name == "neon" {
                    // SAFETY: a kernel named "neon" is only made by
                    // `Kernel::neon` after detecting NEON.
                    unsafe { walk_neon(*state, start, end, shift, walk_out) };
                    continue;
                }
                let _ = name;
                walk(*state, start, end, shift, walk_out);
            }
        }
    }
}

/// The lanes of a half block: blocks of at most this many keys step two
/// AVX2 vectors a walk instead of four, or one AVX-512 vector instead of
/// two, about 0.7 of a full block's time either way (k = 3: AVX2 on Zen 3,
/// AVX-512 on a Sapphire Rapids-class Xeon, whose three chains of one
/// vector still keep the divider busy).
pub(crate) const HALF: usize = LANES / 2;

/// Walks stepped together on the vector kernels: 3 walks of 2 AVX-512
/// vectors (or 4 AVX2 ones) keep enough chains in flight to hide each
/// step's latency, and their registers.
const TOGETHER: usize = 3;

/// `slice` as an array of its length.
fn arr<T, const W: usize>(slice: &[T]) -> &[T; W] {
    slice.try_into().expect("a chunk of W")
}

/// `slice` as a mutable array of its length.
fn arr_mut<T, const W: usize>(slice: &mut [T]) -> &mut [T; W] {
    slice.try_into().expect("a chunk of W")
}

/// Working memory of the lanes, reused from block to block.
pub(crate) struct Blocks {
    kernel: Kernel,
    walks: Vec<Walk>,
    /// Each slot's keys: the block's for slot 0, the derived ones after.
    states: Vec<[u64; LANES]>,
    slots: Slots,
}

impl Blocks {
    /// Blocks of sets of `k <= MAX_LANE_SLOTS` members on `kernel`.
    pub(crate) fn new(kernel: Kernel, k: usize) -> Blocks {
        debug_assert!(k <= MAX_LANE_SLOTS);
        Blocks {
            kernel,
            walks: vec![Walk::default(); k],
            states: vec![[0; LANES]; k],
            slots: Slots::default(),
        }
    }

    /// The sets of `keys` (at most [`LANES`]) among `n` buckets: set `i`
    /// into `sets[i * k..(i + 1) * k]`, `k` being the `new`'s.
    pub(crate) fn fill(&mut self, keys: &[u64], n: u32, sets: &mut [u32]) {
        let k = self.walks.len();
        debug_assert!(keys.len() <= LANES && sets.len() == keys.len() * k);
        let mut block = [0u64; LANES];
        block[..keys.len()].copy_from_slice(keys);
        self.states[0] = block;
        let half = keys.len() <= HALF;
        let hashed = if half { HALF } else { LANES };
        for slot in 1..k {
            self.states[slot] = block;
            self.kernel
                .xxh64(&mut self.states[slot][..hashed], slot as u64);
        }
        let (k32, kernel) = (k as u32, self.kernel);
        let chunks = self
            .walks
            .chunks_mut(TOGETHER)
            .zip(self.states.chunks(TOGETHER));
        for (c, (walks, states)) in chunks.enumerate() {
            let first = c * TOGETHER;
            match walks.len() {
                3 => walk_slots::<3>(kernel, half, arr(states), first, k32, n, arr_mut(walks)),
                2 => walk_slots::<2>(kernel, half, arr(states), first, k32, n, arr_mut(walks)),
                _ => walk_slots::<1>(kernel, half, arr(states), first, k32, n, arr_mut(walks)),
            }
        }
        let unfinished = self.walks.iter().fold(0, |m, w| m | w.unfinished);
        // The lanes whose slot `j` needs the one-lane resolution below: its
        // last bucket is its start (below k), or a lower slot landed there.
        let mut slow = [0u32; MAX_LANE_SLOTS];
        for (slot, slow) in slow.iter_mut().enumerate().take(k).skip(1) {
            let (lower, this) = self.walks.split_at(slot);
            let last = &this[0].last;
            *slow = lower.iter().fold(0, |m, w| m | w.landed_on_lanes(last))
                | last
                    .iter()
                    .enumerate()
                    .fold(0, |m, (l, &x)| m | u32::from(x < k as u32) << l);
        }
        for (l, (&key, set)) in keys.iter().zip(sets.chunks_exact_mut(k)).enumerate() {
            if unfinished >> l & 1 == 1 {
                self.slots.fill(key, n, jump(key, n), set);
                continue;
            }
            set[0] = self.walks[0].last[l];
            let mut buckets = [0u32; MAX_LANE_SLOTS - 1];
            let mut starts = Starts::new(key, &mut buckets[..k - 1]);
            for slot in 1..k {
                if slow[slot] >> l & 1 == 0 {
                    set[slot] = self.walks[slot].last[l];
                    continue;
                }
                let (lower, this) = self.walks.split_at(slot);
                let taken = this[0]
                    .landings(l)
                    .find(|&x| !lower.iter().any(|w| w.landed_on(l, x)));
                set[slot] = starts.member(slot, taken);
            }
        }
    }
}
