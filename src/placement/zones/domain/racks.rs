//! The members past the first of a zone that names racks: dealt over its
//! racks round by round, the racks in the key's order (the first
//! member's rack, then the others by rendezvous score), each rack's nodes
//! in its own sequence (a replica set over the rack's nodes, then
//! rendezvous). A node added to a rack enters only that rack's sequence,
//! and a rack added enters only the racks' order, so neither moves
//! another member (see `crate::zones`, step 4).

use super::{sequence, Domain, Rack, LOCAL};
use crate::kernel::xxh64::one;
use crate::BucketCount;

/// The most members past the first taken from one round of racks without
/// a sort (a key's set of `k` asks at most `k - 1` of a zone).
const BEST: usize = 8;

impl Domain {
    /// The `count` members after `first` of `key`'s set of `k` in a zone
    /// that names racks, pushed in rank order: round by round over the
    /// racks, `first`'s rack first (its nodes after `first`), then the
    /// other racks with a live node by descending `XXH64(key, rack id)`,
    /// ties by the larger id; each rack's nodes in its sequence
    /// ([`Domain::rack_sequence`]); a rack out of live nodes passed over.
    pub(super) fn dealt(&self, key: u64, first: u32, count: usize, k: usize, out: &mut Vec<u32>) {
        let home = self.rack[self.local[&first] as usize] as usize;
        let scored = (self.racks.iter().enumerate())
            .filter(|&(r, rack)| r != home && rack.live > 0)
            .map(|(r, rack)| (one(key, rack.id), rack.id, r));
        // One round, the usual case: the first node of each of the best
        // `count` racks, kept on the stack as the racks are scored, a
        // rack below the worst kept passed over at one compare.
        if count <= BEST {
            let mut best = [(0u64, 0u64, 0usize); BEST];
            let mut kept = 0;
            for rack in scored.clone() {
                if kept == count && rack <= best[count - 1] {
                    continue;
                }
                let at = best[..kept].partition_point(|b| *b > rack);
                best.copy_within(at..count - 1, at + 1);
                best[at] = rack;
                kept = (kept + 1).min(count);
            }
            if kept == count {
                let firsts = best[..count]
                    .iter()
                    .map(|&(_, _, r)| self.first_in_rack(key, r, k));
                out.extend(firsts);
                return;
            }
        }
        let mut order: Vec<(u64, u64, usize)> = scored.collect();
        let by_score = |a: &(u64, u64, usize), b: &(u64, u64, usize)| b.cmp(a);
        order.sort_unstable_by(by_score);
        if count <= order.len() {
            out.extend(
                order[..count]
                    .iter()
                    .map(|&(_, _, r)| self.first_in_rack(key, r, k)),
            );
            return;
        }
        let mut lists: Vec<Vec<u32>> = Vec::with_capacity(order.len() + 1);
        let mut own = Vec::new();
        self.rack_sequence(key, home, first, k, usize::MAX, &mut own);
        lists.push(own);
        for &(_, _, r) in &order {
            let mut list = Vec::new();
            self.rack_sequence(key, r, first, k, usize::MAX, &mut list);
            lists.push(list);
        }
        // Round 1 is `first`, then each other rack's first node; from
        // round 2 `first`'s rack gives its sequence's nodes after `first`.
        let start = out.len();
        out.extend(lists[1..].iter().map(|l| l[0]));
        for round in 0.. {
            if out.len() - start >= count {
                break;
            }
            let before = out.len();
            out.extend(lists[0].get(round));
            out.extend(lists[1..].iter().filter_map(|l| l.get(round + 1)));
            assert!(out.len() > before, "count within the live nodes");
        }
        out.truncate(start + count);
    }

    /// The first node of rack `r`'s sequence for `key`: its replica set's
    /// first member (Figure 1's bucket of the derived key) when that is a
    /// live node, as it nearly always is; else the sequence's first.
    fn first_in_rack(&self, key: u64, r: usize, k: usize) -> u32 {
        let rack = &self.racks[r];
        let b = crate::bucket(one(key, rack.id ^ LOCAL), rack_axis(rack, k)) as usize;
        if let Some(&l) = rack.buckets.get(b) {
            if self.alive[l as usize] {
                return self.nodes[l as usize];
            }
        }
        let mut first = Vec::with_capacity(1);
        self.rack_sequence(key, r, u32::MAX, k, 1, &mut first);
        first[0]
    }

    /// Pushes rack `r`'s live nodes but `skip` in its sequence for `key`,
    /// `want` at most: the live members of the replica set of `k` over
    /// the derived key `XXH64(key, rack id ^ LOCAL)` among `max(n, k)`
    /// buckets (`n` the rack's nodes, bucket `b` its `b`-th), in rank
    /// order, then its other live nodes by rendezvous score.
    fn rack_sequence(
        &self,
        key: u64,
        r: usize,
        skip: u32,
        k: usize,
        want: usize,
        out: &mut Vec<u32>,
    ) {
        let rack = &self.racks[r];
        let mut set = vec![0u32; k];
        crate::replicas::set(one(key, rack.id ^ LOCAL), rack_axis(rack, k), &mut set)
            .expect("k within the axis");
        let list = (rack.buckets.len(), |b: usize| rack.buckets[b] as usize);
        sequence(self, key, skip, &set, list, want, out);
    }
}

/// The buckets of a rack's replica sets of `k`: `max(n, k)`.
fn rack_axis(rack: &Rack, k: usize) -> BucketCount {
    BucketCount::new(rack.buckets.len().max(k) as u32).expect("a rack's nodes or a set's members")
}
