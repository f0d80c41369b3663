//! The members past the first of a zone that names racks, dealt over its
//! racks (a node without a rack is a rack of its own). Round 1 takes each
//! rack's first node in the zone's *rack sequence*: the racks of the
//! replica set of `k` over the zone's derived key among `max(racks, k)`
//! (rack `b` being the `b`-th to appear in the table), in rank order, then
//! the other racks by rendezvous score. Rounds 2 on take each rack's next
//! node, the first member's rack first, then the others by rendezvous
//! score. Inside a rack, nodes come in the rack's own sequence (the same
//! construction over its nodes).
//!
//! With every node a rack of its own this is the zone's sequence of a
//! zone without racks, node for node, so a zone's first rack moves no
//! member; a node appended to a rack enters only that rack's sequence; a
//! rack appended enters the rack sequence as a node enters a zone's. None
//! moves another member (see `crate::zones`, step 4).

use super::{in_sequence, sequence, Domain, Rack, LOCAL};
use crate::kernel::xxh64::one;
use crate::BucketCount;

impl Domain {
    /// The `count` members after `first` of `key`'s set in a zone that
    /// names racks, pushed in rank order, `set` being the replica set of
    /// the zone's derived key among [`Domain::axis`] buckets (racks here).
    pub(super) fn dealt(
        &self,
        key: u64,
        first: u32,
        count: usize,
        set: &[u32],
        out: &mut Vec<u32>,
    ) {
        let k = set.len();
        let home = self.rack[self.local[&first] as usize] as usize;
        let start = out.len();
        let serves = |r: usize| r != home && self.racks[r].live > 0;
        // Round 1: the first node of each rack of the rack sequence but
        // `first`'s.
        let id = |r: usize| self.racks[r].id;
        let racks = self.racks.len();
        in_sequence(key, set, racks, serves, id, count, |r| {
            out.push(self.first_in_rack(key, r, k));
        });
        if out.len() - start == count {
            return;
        }
        // Rounds 2 on: `first`'s rack, then the others by score.
        let mut scored: Vec<(u64, u64, usize)> = (0..racks)
            .filter(|&r| serves(r))
            .map(|r| (one(key, id(r)), id(r), r))
            .collect();
        scored.sort_unstable_by(|a, b| b.cmp(a));
        let mut lists: Vec<Vec<u32>> = Vec::with_capacity(scored.len() + 1);
        for r in std::iter::once(home).chain(scored.iter().map(|s| s.2)) {
            let mut list = Vec::new();
            self.rack_sequence(key, r, first, k, usize::MAX, &mut list);
            lists.push(list);
        }
        for round in 0.. {
            if out.len() - start == count {
                return;
            }
            let before = out.len();
            // `first`'s rack gave `first` in round 1.
            let own = lists[0].get(round).into_iter();
            let rest = lists[1..].iter().filter_map(|l| l.get(round + 1));
            for node in own.chain(rest) {
                if out.len() - start == count {
                    return;
                }
                out.push(*node);
            }
            assert!(out.len() > before, "count within the live nodes");
        }
    }

    /// The first node of rack `r`'s sequence for `key`: its one live node,
    /// or its replica set's first member (Figure 1's bucket of the derived
    /// key) when that is a live node, as it nearly always is; else the
    /// sequence's first.
    fn first_in_rack(&self, key: u64, r: usize, k: usize) -> u32 {
        let rack = &self.racks[r];
        if rack.live == 1 {
            let alone = rack.buckets.iter().find(|&&l| self.alive[l as usize]);
            return self.nodes[*alone.expect("a live node") as usize];
        }
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
