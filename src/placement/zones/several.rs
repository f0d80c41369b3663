//! The lanes' sets (`lanes.rs`) of more members than live zones, when
//! every live zone has live nodes for every round and none names racks:
//! members are then dealt to every zone in turn, round after round, so a
//! zone at place `p` of a key's order holds `k / zones` members, one more
//! when `p < k % zones`, in columns `p`, `p + zones`, `p + 2 * zones` and
//! so on. A zone's single members stay on its Memento batch; a zone that
//! holds several takes the first members of its local replica set of
//! `min(k, live)` ([`crate::Memento::replicas_batch`]), the key's primary
//! first in its own zone, as the general rounds (`batch.rs`) do.

use super::domain::LOCAL;
use super::requests::Scratch;
use super::ZonedReplicas;
use crate::Kernel;

impl ZonedReplicas<'_> {
    /// Takes, from the requests of the zone at `place` of the live zones
    /// (a zone of the first round), the keys for which it holds several
    /// members of a set of `k`, adds the keys whose primary (`primaries`)
    /// it holds when that zone holds several too, and writes all their
    /// members into `s.sets`; the zone's single members stay requests.
    pub(super) fn later_rounds(
        &self,
        kernel: Kernel,
        keys: &[u64],
        k: usize,
        place: usize,
        primaries: &[u32],
        s: &mut Scratch,
    ) {
        let zones = self.order.live.len();
        let zone = &self.zones[self.order.live[place] as usize];
        let members = |p: usize| k / zones + usize::from(p < k % zones);
        let (size, base) = (s.size, s.starts[place]);
        // (index in the round, place in the key's order, key)
        let mut several: Vec<(usize, usize, u64)> = Vec::new();
        let mut kept = 0;
        for j in 0..s.lengths[place] {
            let (key, target) = (s.derived[base + j], s.targets[base + j] as usize);
            let p = target / size + 1;
            if members(p) >= 2 {
                several.push((target % size, p, key));
            } else {
                s.derived[base + kept] = key;
                s.targets[base + kept] = target as u32;
                kept += 1;
            }
        }
        s.lengths[place] = kept;
        if members(0) >= 2 {
            let held = s.first[..keys.len()].iter().enumerate();
            for (i, _) in held.filter(|&(_, &f)| usize::from(f) == place) {
                several.push((i, 0, keys[i]));
            }
        }
        if several.is_empty() {
            return;
        }
        let mut derived: Vec<u64> = several.iter().map(|&(_, _, key)| key).collect();
        kernel.xxh64(&mut derived, zone.id ^ LOCAL);
        let mut sets = vec![vec![0u32; derived.len()]; k.min(zone.live)];
        let mut refs: Vec<&mut [u32]> = sets.iter_mut().map(|c| &mut c[..]).collect();
        zone.memento
            .as_ref()
            .expect("a live zone")
            .replicas_batch(&derived, &mut refs)
            .expect("a set within the zone's live nodes");
        for (g, &(i, p, _)) in several.iter().enumerate() {
            // The primary leads its zone from column 0, where it is.
            let primary = (p == 0).then(|| primaries[i]);
            let mut round = usize::from(primary.is_some());
            for set in &sets {
                if round == members(p) {
                    break;
                }
                let node = zone.nodes[set[g] as usize];
                if Some(node) != primary {
                    s.sets[(p + round * zones - 1) * size + i] = node;
                    round += 1;
                }
            }
        }
    }
}
