//! One key's slots at a time: each slot's landings, the lowest slot's
//! claim on each bucket, and the starting buckets (see the construction in
//! [`crate::replicas`]).

use crate::kernel::scalar::{jump, next_jump, LCG_MULTIPLIER};

/// The seed of the starting order's draw `i` is this plus `i`: far above
/// the slots' seeds (at most [`super::MAX_REPLICAS`]) and Memento's
/// candidates' (`2^40` and up).
pub(crate) const ORDER_SEED: u64 = 1 << 41;

/// The key that slot `slot` (1 or more) runs Figure 1's loop over.
#[inline]
pub(crate) fn slot_key(key: u64, slot: usize) -> u64 {
    xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), slot as u64)
}

/// The buckets slot `slot >= 1` lands on below `n`, in increasing order, for
/// a set of `k` slots, pushed after what `out` holds.
pub(crate) fn landings(key: u64, slot: usize, k: u32, n: u32, out: &mut Vec<u32>) {
    let shift = slot as u32;
    // Figure 1's loop from `b = k - 1 - slot`; `next_jump` is its quotient,
    // bit for bit.
    let mut state = slot_key(key, slot);
    let mut b = i64::from(k - 1 - shift);
    let end = i64::from(n - shift);
    loop {
        state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        let next = next_jump((b + 1) as u32, state);
        if next >= end {
            return;
        }
        out.push(next as u32 + shift);
        b = next;
    }
}

/// Figure 1's landings for slot 0 at or above `k`, below `n`.
fn first_landings(key: u64, k: u32, n: u32, out: &mut Vec<u32>) {
    out.clear();
    let mut state = key;
    let mut j = 0i64;
    while j < i64::from(n) {
        let b = j;
        if b >= i64::from(k) {
            out.push(b as u32);
        }
        state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        j = next_jump((b + 1) as u32, state);
    }
}

/// The starting buckets of slots `1..k` into `out` (`k - 1` of them): the
/// buckets `0..k` but `first = figure1(key, k)`, in increasing order, then
/// shuffled by Fisher-Yates with draws of their own seeds.
pub(crate) fn deal_starts(key: u64, first: u32, out: &mut [u32]) {
    let k = out.len() as u32 + 1;
    for (slot, b) in out.iter_mut().zip((0..k).filter(|&b| b != first)) {
        *slot = b;
    }
    for i in (1..out.len()).rev() {
        let r = xxhash_rust::xxh64::xxh64(&key.to_le_bytes(), ORDER_SEED + i as u64);
        // Uniform over 0..=i: the high half of r * (i + 1).
        let t = ((u128::from(r) * (i as u128 + 1)) >> 64) as usize;
        out.swap(i, t);
    }
}

/// A key's starting buckets, dealt ([`deal_starts`]) only when a slot
/// first keeps its start: most sets never need them.
pub(crate) struct Starts<'a> {
    key: u64,
    /// `k - 1` elements, the buckets once dealt.
    buckets: &'a mut [u32],
    dealt: bool,
}

impl<'a> Starts<'a> {
    /// The starts of `key`'s set of `buckets.len() + 1` members, to be
    /// dealt into `buckets`.
    pub(crate) fn new(key: u64, buckets: &'a mut [u32]) -> Starts<'a> {
        Starts {
            key,
            buckets,
            dealt: false,
        }
    }

    /// The member of slot `slot >= 1`: `taken`, its last landing that no
    /// lower slot landed on, or else its starting bucket.
    pub(crate) fn member(&mut self, slot: usize, taken: Option<u32>) -> u32 {
        taken.unwrap_or_else(|| {
            if !self.dealt {
                let k = self.buckets.len() as u32 + 1;
                deal_starts(self.key, jump(self.key, k), self.buckets);
                self.dealt = true;
            }
            self.buckets[slot - 1]
        })
    }
}

/// Working buffers of one key's slots, reused from key to key.
#[derive(Default)]
pub(crate) struct Slots {
    landings: Vec<Vec<u32>>,
    starts: Vec<u32>,
}

impl Slots {
    /// The set of `key` into `out` (`out.len() = k <= n`), slot 0 given.
    pub(crate) fn fill(&mut self, key: u64, n: u32, first: u32, out: &mut [u32]) {
        let k = out.len() as u32;
        out[0] = first;
        if k == 1 {
            return;
        }
        self.landings.resize_with(out.len(), Vec::new);
        first_landings(key, k, n, &mut self.landings[0]);
        self.starts.resize(out.len() - 1, 0);
        let mut starts = Starts::new(key, &mut self.starts);
        for (slot, member) in out.iter_mut().enumerate().skip(1) {
            let (lower, this) = self.landings.split_at_mut(slot);
            this[0].clear();
            landings(key, slot, k, n, &mut this[0]);
            let taken = this[0]
                .iter()
                .rev()
                .find(|x| !lower.iter().any(|l| l.binary_search(x).is_ok()));
            *member = starts.member(slot, taken.copied());
        }
    }
}
