//! Zoned sets of a batch of keys on the lanes: rank 1 as the table's batch,
//! the zone scores as XXH64 on the lanes, the per-key order and counts (no
//! hashing left in them), then each zone's first members as one Memento
//! batch over the keys that need members there, and the next members of
//! the zones that hold several one key at a time, scattered back to their
//! ranks.

use super::domain::{counts_into, LOCAL};
use super::ZonedReplicas;
use crate::Kernel;

/// Keys per round: the scores of every zone for a round stay in cache.
const ROUND: usize = 4096;

/// A key's request of `m` members from one zone: the key's index in the
/// round and whether the zone holds its primary.
#[derive(Clone, Copy)]
struct Request {
    key: u32,
    m: u32,
    primary: bool,
    /// The rank of the zone's first member for this key.
    rank: u32,
}

impl ZonedReplicas<'_> {
    /// The sets of `keys` into `columns` on `kernel`, whose lengths and
    /// count were checked, a round of keys at a time: every shape of set,
    /// and what the lanes' (`lanes.rs`) are tested against.
    pub(super) fn rounds(&self, kernel: Kernel, keys: &[u64], columns: &mut [&mut [u32]]) {
        for (round, chunk) in keys.chunks(ROUND).enumerate() {
            let start = round * ROUND;
            let mut parts: Vec<&mut [u32]> = columns
                .iter_mut()
                .map(|c| &mut c[start..start + chunk.len()])
                .collect();
            self.round(kernel, chunk, &mut parts);
        }
    }

    /// The sets of `keys` (at most [`ROUND`]) into `columns`, whose lengths
    /// and count were checked.
    fn round(&self, kernel: Kernel, keys: &[u64], columns: &mut [&mut [u32]]) {
        let (k, n) = (columns.len(), keys.len());
        let mut primary = vec![0u32; n];
        self.table
            .batch_on(kernel, keys, &mut primary)
            .expect("one slot per key");
        let slot_nodes = self.table.slot_nodes();
        primary
            .iter_mut()
            .for_each(|p| *p = slot_nodes[*p as usize]);
        columns[0].copy_from_slice(&primary);
        if k == 1 {
            return;
        }
        let zones = &self.zones;
        let mut scores = vec![Vec::new(); zones.len()];
        for (z, zone) in zones.iter().enumerate().filter(|(_, z)| z.live > 0) {
            scores[z] = vec![0; keys.len()];
            kernel.xxh64_into(keys, &mut scores[z], zone.id);
        }
        // Each rank's zone and round, per key, and each zone's requests.
        let mut rank_zone = vec![0u32; n * k];
        let mut rank_round = vec![0u32; n * k];
        let mut requests: Vec<Vec<Request>> = vec![Vec::new(); zones.len()];
        let live: Vec<usize> = (0..zones.len()).filter(|&z| zones[z].live > 0).collect();
        let mut order = Vec::with_capacity(zones.len());
        let mut m = Vec::with_capacity(zones.len());
        for i in 0..n {
            let first = self.zone_of[primary[i] as usize] as usize;
            order.clear();
            order.push(first);
            order.extend(live.iter().copied().filter(|&z| z != first));
            order[1..].sort_unstable_by_key(|&z| core::cmp::Reverse((scores[z][i], zones[z].id)));
            counts_into(zones, &order, k, &mut m);
            let mut j = 0;
            for round in 0..m.iter().copied().max().unwrap_or(0) {
                for (pos, &z) in order.iter().enumerate() {
                    if round < m[pos] {
                        rank_zone[i * k + j] = z as u32;
                        rank_round[i * k + j] = round as u32;
                        j += 1;
                    }
                }
            }
            for (pos, &z) in order.iter().enumerate().filter(|(pos, _)| m[*pos] > 0) {
                // Every zone of the order holds a member in the first
                // round, so the first member of position `pos` is rank `pos`.
                requests[z].push(Request {
                    key: i as u32,
                    m: m[pos] as u32,
                    primary: pos == 0,
                    rank: pos as u32,
                });
            }
        }
        let mut members = Vec::with_capacity(k);
        let place = |columns: &mut [&mut [u32]], request: Request, z: usize, members: &[u32]| {
            let i = request.key as usize;
            for j in (0..k).filter(|&j| rank_zone[i * k + j] == z as u32) {
                columns[j][i] = members[rank_round[i * k + j] as usize];
            }
        };
        for (z, zone) in zones.iter().enumerate() {
            let Some(memento) = zone.memento.as_ref() else {
                continue;
            };
            // Every request but a primary's takes the zone's first member
            // from one Memento batch; a primary alone is in column 0
            // already.
            let asked: Vec<Request> = requests[z]
                .iter()
                .copied()
                .filter(|r| !(r.m == 1 && r.primary))
                .collect();
            let chosen: Vec<Request> = asked.iter().copied().filter(|r| !r.primary).collect();
            let mut derived: Vec<u64> = chosen.iter().map(|r| keys[r.key as usize]).collect();
            kernel.xxh64(&mut derived, zone.id ^ LOCAL);
            let mut firsts = vec![0u32; chosen.len()];
            memento
                .batch_on(kernel, &derived, &mut firsts)
                .expect("lengths match");
            let mut firsts = firsts.iter().map(|&b| zone.nodes[b as usize]);
            // The replica sets that start the sequences of the zones
            // holding several members, in one batch on the lanes.
            let several: Vec<u64> = (asked.iter())
                .filter(|r| r.m >= 2)
                .map(|r| zone.derived(keys[r.key as usize]))
                .collect();
            let mut sets = vec![vec![0u32; several.len()]; k];
            if !several.is_empty() {
                let mut refs: Vec<&mut [u32]> = sets.iter_mut().map(|c| &mut c[..]).collect();
                crate::replicas::batch(&several, zone.axis(k), &mut refs)
                    .expect("k within the axis");
            }
            let mut set = vec![0u32; k];
            let mut g = 0;
            for request in asked {
                let i = request.key as usize;
                let first = if request.primary {
                    primary[i]
                } else {
                    firsts.next().expect("one first member per chosen request")
                };
                if request.m == 1 {
                    // One member, not the primary: straight to its rank.
                    columns[request.rank as usize][i] = first;
                    continue;
                }
                for (member, column) in set.iter_mut().zip(&sets) {
                    *member = column[g];
                }
                g += 1;
                members.clear();
                members.push(first);
                zone.others_in(keys[i], first, request.m as usize - 1, &set, &mut members);
                place(columns, request, z, &members);
            }
        }
    }
}
