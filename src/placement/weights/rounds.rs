//! [`Weights::batch_on`]'s attempts, over blocks of keys on the kernel's
//! lanes: attempt 0 over the block, then the later attempts over the keys
//! still refused, each round deriving their keys and running the kernel
//! over those alone.

use super::slots::Axis;
use super::{coin_seed, Weights, MAX_ATTEMPTS};
use crate::Kernel;

/// Keys resolved together: small enough that the round buffers (about 56
/// bytes a key) stay in the second-level cache, large enough that the
/// later attempts' kernel calls still take the kernels' refilling loop
/// (half the keys of a half-drained table are refused at attempt 0).
pub(super) const ROUND_BLOCK: usize = 4096;

impl Weights {
    /// Every key's node, on `kernel`, block after block. (A method, so that
    /// the module above calls it without importing from this one, which
    /// imports from it.)
    pub(super) fn resolve_in_rounds(&self, kernel: Kernel, keys: &[u64], out: &mut [u32]) {
        // Every block is at most the first one's length: the buffers are
        // sized for it, so that a short batch zeroes no more than it uses.
        let mut rounds = Rounds {
            stride: keys.len().min(ROUND_BLOCK),
            ..Rounds::default()
        };
        for (keys, out) in keys.chunks(ROUND_BLOCK).zip(out.chunks_mut(ROUND_BLOCK)) {
            // The coin is drawn in a pass of its own only for tables that
            // toss one, and the owners of extra slots looked up only in
            // tables that have some: the others' loops skip that work.
            match (self.axis.tossing, self.axis.len > self.n.get()) {
                (true, true) => rounds.block::<true, true>(self, kernel, keys, out),
                (true, false) => rounds.block::<true, false>(self, kernel, keys, out),
                (false, true) => rounds.block::<false, true>(self, kernel, keys, out),
                (false, false) => rounds.block::<false, false>(self, kernel, keys, out),
            }
        }
    }
}

/// The round buffers, reused from block to block.
#[derive(Default)]
struct Rounds {
    /// Positions in the block of the keys still refused.
    pending: Vec<u32>,
    /// The longest block's length.
    stride: usize,
    /// Each key's node at each attempt, `tried[attempt * stride + i]`
    /// for the key at position `i` of the block, for the fallback: written
    /// in place, so that keeping a key pending copies nothing.
    tried: Vec<u32>,
    /// The pending keys, then (hashed in place) their derived keys for
    /// this attempt.
    derived: Vec<u64>,
    /// Each pending key's slot for this attempt.
    slots: Vec<u32>,
    /// Each pending key's coin for this attempt, when the table tosses.
    coins: Vec<u64>,
}

impl Rounds {
    /// Resolves one block into `out`. `TOSS`: whether the table tosses
    /// coins; `EXTRA`: whether its axis has extra slots.
    ///
    /// Every pending key's coin is hashed, also the keys on a slot that
    /// needs none: on the lanes a hash costs less than picking out the
    /// keys that need one. Each decision is taken without a branch on its
    /// outcome (as random as the keys): every key is written to `pending`,
    /// and the count advances past the refused ones only.
    fn block<const TOSS: bool, const EXTRA: bool>(
        &mut self,
        w: &Weights,
        kernel: Kernel,
        keys: &[u64],
        out: &mut [u32],
    ) {
        let axis = &w.axis;
        kernel.run(keys, axis.len, out);
        draw::<TOSS>(&mut self.coins, kernel, keys, 0);
        self.pending.resize(keys.len(), 0);
        self.tried.resize(MAX_ATTEMPTS as usize * self.stride, 0);
        let kept =
            first_round::<TOSS, EXTRA>(axis, out, &self.coins, &mut self.tried, &mut self.pending);
        self.pending.truncate(kept);
        for attempt in 1..MAX_ATTEMPTS {
            if self.pending.is_empty() {
                return;
            }
            self.derived.clear();
            self.derived
                .extend(self.pending.iter().map(|&i| keys[i as usize]));
            draw::<TOSS>(&mut self.coins, kernel, &self.derived, attempt);
            kernel.xxh64(&mut self.derived, u64::from(attempt));
            self.slots.resize(self.derived.len(), 0);
            kernel.run(&self.derived, axis.len, &mut self.slots);
            let tried = &mut self.tried[attempt as usize * self.stride..][..self.stride];
            let kept = later_round::<TOSS, EXTRA>(
                axis,
                &self.slots,
                &self.coins,
                &mut self.pending,
                out,
                tried,
            );
            self.pending.truncate(kept);
        }
        for &i in &self.pending {
            let mut best = (u32::MAX, 0);
            for attempt in 0..MAX_ATTEMPTS as usize {
                let node = self.tried[attempt * self.stride + i as usize];
                let candidate = axis.nearest(node);
                if candidate.0 < best.0 {
                    best = candidate;
                }
            }
            out[i as usize] = best.1;
        }
    }
}

/// Hashes attempt `attempt`'s coin of each of `keys` into `coins`, in
/// order, when the table tosses (`TOSS`).
fn draw<const TOSS: bool>(coins: &mut Vec<u64>, kernel: Kernel, keys: &[u64], attempt: u32) {
    if TOSS {
        coins.resize(keys.len(), 0);
        kernel.xxh64_into(keys, coins, coin_seed(attempt));
    }
}

/// Attempt 0's decisions over a block whose slots `out` holds: each key's
/// node into `out` and `tried`, and the positions of the refused keys to
/// the front of `pending`; returns how many. Each decision is taken
/// without a branch on its outcome (as random as the keys): every key is
/// written to `pending`, and the count advances past the refused ones
/// only. A function of its own, so that the loop keeps its few pointers
/// and bounds in registers.
#[inline(never)]
fn first_round<const TOSS: bool, const EXTRA: bool>(
    axis: &Axis,
    out: &mut [u32],
    coins: &[u64],
    tried: &mut [u32],
    pending: &mut [u32],
) -> usize {
    let len = out.len();
    let (tried, pending) = (&mut tried[..len], &mut pending[..len]);
    let coins = if TOSS { &coins[..len] } else { coins };
    let mut kept = 0;
    for i in 0..len {
        let coin = if TOSS { coins[i] } else { 0 };
        let (node, accepted) = decide::<EXTRA>(axis, out[i], coin);
        out[i] = node;
        tried[i] = node;
        pending[kept] = i as u32;
        kept += usize::from(!accepted);
    }
    kept
}

/// A later attempt's decisions for the keys at the positions `pending`
/// holds, whose slots and coins `slots` and `coins` hold in the same
/// order: each key's node into `out` and `tried` at its position (a
/// refused key's latest node stays in `out` too, harmless: the fallback
/// overwrites it), and the positions of the keys refused again to the
/// front of `pending`; returns how many. Branch-free and a function of its
/// own, as [`first_round`].
#[inline(never)]
fn later_round<const TOSS: bool, const EXTRA: bool>(
    axis: &Axis,
    slots: &[u32],
    coins: &[u64],
    pending: &mut [u32],
    out: &mut [u32],
    tried: &mut [u32],
) -> usize {
    let len = pending.len();
    let slots = &slots[..len];
    let coins = if TOSS { &coins[..len] } else { coins };
    let mut kept = 0;
    for at in 0..len {
        let i = pending[at];
        let coin = if TOSS { coins[at] } else { 0 };
        let (node, accepted) = decide::<EXTRA>(axis, slots[at], coin);
        out[i as usize] = node;
        tried[i as usize] = node;
        pending[kept] = i;
        kept += usize::from(!accepted);
    }
    kept
}

/// The owner of `slot` and whether the attempt is accepted: an extra slot
/// accepts, a first slot when the coin's top 53 bits are below its
/// threshold (0 stands for the coin of a table that tosses none, whose
/// thresholds are all 0 or 2^53). `EXTRA`: whether the axis has extra
/// slots (without them every slot is a first slot).
#[inline(always)]
fn decide<const EXTRA: bool>(axis: &Axis, slot: u32, coin: u64) -> (u32, bool) {
    let n = axis.threshold.len() as u32;
    let first = !EXTRA || slot < n;
    let threshold = axis.threshold[if EXTRA { slot.min(n - 1) } else { slot } as usize];
    let node = if first { slot } else { axis.owner(slot) };
    (node, !first | (coin >> 11 < threshold))
}
