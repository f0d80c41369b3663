//! Memento's second pass in plain code, for every kernel but AVX-512 (whose
//! lanes run the same rounds, `crate::arch::x86_64::memento`): the keys of
//! a block whose Figure 1 bucket is removed, resolved together in rounds.
//!
//! One key at a time, a lookup's chain is a loop whose length varies from
//! key to key, and each step waits on the last (hash, remainder, table
//! read): the loop's exits are mispredicted and nothing overlaps. Here
//! every pending key takes one step a round, chosen without a branch, so
//! that the steps of successive keys are independent and overlap in the
//! core; keys done are dropped from the pending list by a packing store
//! that does not branch either. A round, for each pending key, with `r`
//! the working count it is being resolved into (at first none):
//!
//! - a bucket removed no later than the one being resolved (working count
//!   `>= r`) stands for its replacer; any other removed bucket `b` sends
//!   the key to `XXH64(key, seed b) mod working`, which becomes `r` (both
//!   are computed, one kept);
//! - then [`HOPS`] more replacer steps, each kept only where it applies;
//! - the bucket reached is written to the key's answer (a removed bucket
//!   is written over by a later round), and the key stays pending while
//!   that bucket is removed.
//!
//! This is the lookup of the module documentation step for step, so the
//! answers are [`super::Memento::bucket`]'s. The rehash is the caller's:
//! XXH64 of a u64 key's 8 bytes, or of a byte key's bytes, found by the
//! span the rounds carry in place of its key (`super::span`).

use core::hint::select_unpredictable as select;

use crate::kernel::xxh64::one as xxh64;

/// Replacer steps in a round after its first step: most chains at 50%
/// removed end within them, and a step that does not apply costs a load
/// that hits the cache.
const HOPS: usize = 2;

/// Room past a block's length in [`Pending::index`], so that a scan on
/// the lanes can store a whole vector of positions at any count.
pub(super) const SPARE: usize = 16;

/// A key whose bucket is removed, as a round reads and writes it.
#[derive(Clone, Copy, Debug, Default)]
struct Chain {
    key: u64,
    /// The link of `bucket` (see [`super::removed`]): its working count in
    /// the low half, its replacer in the high half.
    link: u64,
    /// The key's position in the block.
    index: u32,
    /// The removed bucket the key is on.
    bucket: u32,
    /// The working count the key is being resolved into (`u32::MAX`
    /// before its first rehash).
    limit: u32,
    /// Where the round's first step leads.
    next: u32,
}

/// The keys of a block still to be resolved.
pub(super) struct Pending {
    /// The positions of the block's keys on removed buckets, as the scan
    /// packs them: the block's length plus [`SPARE`].
    pub(super) index: Vec<u32>,
    chains: Vec<Chain>,
}

impl Pending {
    /// Room for blocks of up to `block` keys.
    pub(super) fn new(block: usize) -> Pending {
        Pending {
            index: vec![0; block + SPARE],
            chains: vec![Chain::default(); block],
        }
    }

    /// The longest block it has room for.
    pub(super) fn capacity(&self) -> usize {
        self.chains.len()
    }

    /// Resolves the keys at the first `count` positions of [`Pending::index`]
    /// (Figure 1's buckets of `keys` in `out`, each removed), writing their
    /// answers into `out`. `links` is the table of links, every bucket of
    /// the b-array.
    pub(super) fn resolve(&mut self, keys: &[u64], out: &mut [u32], links: &[u64], count: usize) {
        self.resolve_with(keys, out, links, count, rehash_u64);
    }

    /// [`Pending::resolve`] with `rehash(key, position, seed)`, the rehash
    /// of the key at that position of the block, whose first-stage key is
    /// `key`.
    pub(super) fn resolve_with(
        &mut self,
        keys: &[u64],
        out: &mut [u32],
        links: &[u64],
        count: usize,
        rehash: impl Fn(u64, u32, u32) -> u64,
    ) {
        assert!(keys.len() == out.len() && count <= out.len().min(self.chains.len()));
        for (chain, &i) in self.chains.iter_mut().zip(&self.index[..count]) {
            let b = out[i as usize];
            *chain = Chain {
                key: keys[i as usize],
                link: link_of(links, b),
                index: i,
                bucket: b,
                limit: u32::MAX,
                next: 0,
            };
        }
        let mut count = count;
        while count > 0 {
            count = round(&mut self.chains[..count], links, out, &rehash);
        }
    }
}

/// One step of every chain, and the replacer steps after it; returns how
/// many chains are still on a removed bucket, packed at the front.
///
/// In two loops: the first step of every chain (hash and remainder), then
/// the replacer steps (dependent table reads). Each loop's iterations are
/// shorter chains of fewer operations than one loop's, so that more keys
/// fit in the core's out-of-order window at once: 13% faster at 99%
/// removed and 6% at 50% than one loop (AVX2 on AMD Zen 4).
#[inline]
fn round(
    chains: &mut [Chain],
    links: &[u64],
    out: &mut [u32],
    rehash: impl Fn(u64, u32, u32) -> u64,
) -> usize {
    for c in chains.iter_mut() {
        let working = c.link as u32;
        let hop = working >= c.limit;
        // At least 1 whatever the table holds, so that no remainder can
        // divide by 0 (a removed bucket's working count is never 0).
        let limit = select(hop, c.limit, working).max(1);
        let rehashed = (rehash(c.key, c.index, c.bucket) % u64::from(limit)) as u32;
        c.next = select(hop, (c.link >> 32) as u32, rehashed);
        c.limit = limit;
    }
    let mut kept = 0;
    for at in 0..chains.len() {
        let c = chains[at];
        let mut b = c.next;
        let mut link = link_of(links, b);
        for _ in 0..HOPS {
            let hop = link as u32 >= c.limit;
            b = select(hop, (link >> 32) as u32, b);
            link = link_of(links, b);
        }
        out[c.index as usize] = b;
        // `kept <= at`: the packing only writes over chains already read.
        chains[kept] = Chain {
            link,
            bucket: b,
            ..c
        };
        kept += usize::from(link as u32 != 0);
    }
    kept
}

/// The link of bucket `b`. Every bucket a chain reaches is in the table
/// (a remainder by a working count, or a replacer, both below the b-array
/// size), so the bounds check is a branch always predicted: the load does
/// not wait on it, where a clamp by a conditional move put two more
/// operations on the chain of dependent loads (13% slower at 99% removed).
#[inline]
fn link_of(links: &[u64], b: u32) -> u64 {
    links[b as usize]
}

/// The rehash of a u64 key with seed `bucket` (the position unused), as
/// [`Pending::resolve_with`] takes it.
#[inline]
fn rehash_u64(key: u64, _: u32, bucket: u32) -> u64 {
    xxh64(key, u64::from(bucket))
}

/// Packs the positions of the answers in `out` that are removed buckets
/// (bit `b % 64` of word `b / 64` of `removed`) into `index`; returns how
/// many. Every position is stored, and the count only advances past a
/// removed one, so that no branch waits on the bitmap.
pub(super) fn scan(out: &[u32], removed: &[u64], index: &mut [u32]) -> usize {
    assert!(index.len() >= out.len());
    let mut count = 0;
    for (i, &b) in out.iter().enumerate() {
        let word = removed.get(b as usize / 64).copied().unwrap_or(0);
        index[count] = i as u32;
        count += (word >> (b % 64) & 1) as usize;
    }
    count
}
