//! Zoned sets of a batch of keys on the lanes: rank 1 as the table's batch,
//! the zone scores as XXH64 on the lanes, the per-key order and counts (no
//! hashing left in them), then each zone's local choices as one batch over
//! the keys that need members there, scattered back to their ranks.

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
            // Requests the lanes serve, by their count; the rest (a
            // primary alone, or a rack walk) one by one.
            let mut flat: Vec<Vec<Request>> = Vec::new();
            for &request in &requests[z] {
                let m = request.m as usize;
                let p = request.primary.then_some(primary[request.key as usize]);
                if m == 1 && p.is_some() {
                    // The primary alone: column 0 holds it already.
                    continue;
                }
                if m >= 2 && !zone.racks.is_empty() {
                    members.clear();
                    zone.members(keys[request.key as usize], m, k, p, &mut members);
                    place(columns, request, z, &members);
                } else {
                    if flat.len() < m {
                        flat.resize_with(m, Vec::new);
                    }
                    flat[m - 1].push(request);
                }
            }
            let Some(memento) = zone.memento.as_ref() else {
                continue;
            };
            // One batch for single members, one for the rest: every set
            // of several is the first members of a set of min(k, live).
            let single = flat.first().map_or(&[][..], |g| &g[..]);
            let several: Vec<Request> = flat.iter().skip(1).flatten().copied().collect();
            for group in [single, &several[..]].into_iter().filter(|g| !g.is_empty()) {
                let size = zone.set_size(group[0].m as usize, k);
                let mut derived: Vec<u64> = group.iter().map(|r| keys[r.key as usize]).collect();
                kernel.xxh64(&mut derived, zone.id ^ LOCAL);
                let mut sets = vec![vec![0u32; group.len()]; size];
                if size == 1 {
                    memento
                        .batch_on(kernel, &derived, &mut sets[0])
                        .expect("lengths match");
                } else {
                    let mut refs: Vec<&mut [u32]> = sets.iter_mut().map(|c| &mut c[..]).collect();
                    memento
                        .replicas_batch(&derived, &mut refs)
                        .expect("a set within the zone's live nodes");
                }
                for (g, &request) in group.iter().enumerate() {
                    if size == 1 {
                        // One member, not the primary: straight to its rank.
                        let node = zone.nodes[sets[0][g] as usize];
                        columns[request.rank as usize][request.key as usize] = node;
                        continue;
                    }
                    let p = request.primary.then_some(primary[request.key as usize]);
                    let set = sets.iter().map(|c| zone.nodes[c[g] as usize]);
                    members.clear();
                    zone.finish(set, request.m as usize, p, &mut members);
                    place(columns, request, z, &members);
                }
            }
        }
    }
}
