//! [`Weights::batch_on`]'s later attempts: the keys attempt 0 left
//! refused, resolved in rounds over blocks of keys on the kernel's lanes.

use super::{coin_seed, Weights, MAX_ATTEMPTS};
use crate::Kernel;

/// Keys resolved together: small enough that the round buffers stay in
/// the first-level cache.
const ROUND_BLOCK: usize = 1024;

impl Weights {
    /// Resolves every key, whose attempt 0's slot `out` holds, into its
    /// node. (A method, so that the module above calls it without
    /// importing from this one, which imports from it.)
    pub(super) fn resolve_in_rounds(&self, kernel: Kernel, keys: &[u64], out: &mut [u32]) {
        let mut rounds = Rounds {
            tossing: (0..self.n.get()).any(|i| self.tosses(i)),
            ..Rounds::default()
        };
        for (keys, out) in keys.chunks(ROUND_BLOCK).zip(out.chunks_mut(ROUND_BLOCK)) {
            rounds.block(self, kernel, keys, out);
        }
    }
}

/// The round buffers, reused from block to block.
#[derive(Default)]
struct Rounds {
    /// Whether some first slot accepts by a coin.
    tossing: bool,
    /// Positions in the block of the keys still refused.
    pending: Vec<u32>,
    /// Each key's node at each attempt, `tried[attempt * ROUND_BLOCK + i]`
    /// for the key at position `i` of the block, for the fallback: written
    /// in place, so that keeping a key pending copies nothing.
    tried: Vec<u32>,
    /// The pending keys, then (hashed in place) their derived keys for
    /// this attempt.
    derived: Vec<u64>,
    /// Each pending key's slot for this attempt.
    slots: Vec<u32>,
    /// This attempt's coins, in order, for the keys on a tossing slot.
    coins: Vec<u64>,
}

impl Rounds {
    /// Resolves one block: `out` holds attempt 0's slots.
    fn block(&mut self, w: &Weights, kernel: Kernel, keys: &[u64], out: &mut [u32]) {
        let pairs = keys.iter().copied().zip(out.iter().copied());
        toss(&mut self.coins, self.tossing, w, kernel, 0, pairs);
        self.pending.resize(out.len(), 0);
        self.tried.resize(MAX_ATTEMPTS as usize * ROUND_BLOCK, 0);
        let mut kept = 0;
        let mut coin = 0;
        for (i, slot) in out.iter_mut().enumerate() {
            let (node, accepted) = decide(w, *slot, &self.coins, &mut coin);
            *slot = node;
            self.tried[i] = node;
            self.pending[kept] = i as u32;
            kept += usize::from(!accepted);
        }
        self.pending.truncate(kept);
        for attempt in 1..MAX_ATTEMPTS {
            if self.pending.is_empty() {
                return;
            }
            self.derived.clear();
            self.derived
                .extend(self.pending.iter().map(|&i| keys[i as usize]));
            kernel.xxh64(&mut self.derived, u64::from(attempt));
            self.slots.resize(self.derived.len(), 0);
            kernel.run(&self.derived, w.axis.len, &mut self.slots);
            let pending = self.pending.iter().map(|&i| keys[i as usize]);
            let pairs = pending.zip(self.slots.iter().copied());
            toss(&mut self.coins, self.tossing, w, kernel, attempt, pairs);
            let (mut kept, mut coin) = (0, 0);
            for at in 0..self.pending.len() {
                let i = self.pending[at];
                let (node, accepted) = decide(w, self.slots[at], &self.coins, &mut coin);
                // A refused key's latest node stays in `out` too, harmless:
                // the fallback overwrites it.
                out[i as usize] = node;
                self.tried[attempt as usize * ROUND_BLOCK + i as usize] = node;
                self.pending[kept] = i;
                kept += usize::from(!accepted);
            }
            self.pending.truncate(kept);
        }
        for &i in &self.pending {
            let mut best = (u32::MAX, 0);
            for attempt in 0..MAX_ATTEMPTS as usize {
                let node = self.tried[attempt * ROUND_BLOCK + i as usize];
                let candidate = w.axis.nearest(node);
                if candidate.0 < best.0 {
                    best = candidate;
                }
            }
            out[i as usize] = best.1;
        }
    }
}

/// The owner of `slot` and whether the attempt is accepted, without a
/// branch on the outcome (as random as the keys): an extra slot accepts, a
/// first slot by its acceptance, with the next of this attempt's `coins`
/// (at `*coin`, advanced past it) when the acceptance is fractional.
#[inline]
fn decide(w: &Weights, slot: u32, coins: &[u64], coin: &mut usize) -> (u32, bool) {
    let n = w.n.get();
    let first = slot < n;
    let f = w.axis.accept[slot.min(n - 1) as usize];
    let tosses = first & (f > 0.0) & (f < 1.0);
    let u = coins
        .get(*coin)
        .map_or(1.0, |&c| ((c >> 11) as f64) * (1.0 / (1u64 << 53) as f64));
    *coin += usize::from(tosses);
    let node = if first { slot } else { w.axis.owner(slot) };
    (node, !first | (f >= 1.0) | (tosses & (u < f)))
}

/// Hashes attempt `attempt`'s coins into `coins`, in order, for the (key,
/// slot) pairs whose slot tosses one (a first slot of fractional
/// acceptance): gathered, then hashed on the kernel's lanes. Nothing when
/// no slot tosses (`tossing` false). The gather writes every key and
/// advances past the tossing ones only, with no branch on the slot:
/// whether a slot tosses is as random as the keys, and a mispredicted
/// branch per key cost more than the lanes saved.
fn toss(
    coins: &mut Vec<u64>,
    tossing: bool,
    w: &Weights,
    kernel: Kernel,
    attempt: u32,
    pairs: impl ExactSizeIterator<Item = (u64, u32)>,
) {
    coins.clear();
    if !tossing {
        return;
    }
    let n = w.n.get();
    coins.resize(pairs.len(), 0);
    let mut count = 0;
    for (key, slot) in pairs {
        coins[count] = key;
        count += usize::from((slot < n) && w.tosses(slot.min(n - 1)));
    }
    coins.truncate(count);
    kernel.xxh64(coins, coin_seed(attempt));
}
