//! The lanes' sets (`lanes.rs`) of more members than live zones, when
//! every live zone has live nodes for every round: members are then dealt
//! to every zone in turn, round after round, so a zone at place `p` of a
//! key's order holds `k / zones` members, one more when `p < k % zones`,
//! in columns `p`, `p + zones`, `p + 2 * zones` and so on. A zone's single
//! members stay on its Memento batch; a zone that holds several gives its
//! first member (Memento's bucket, or the key's primary in its own zone)
//! and the next ones of its order (`Domain::others`), one key at a time,
//! as the general rounds (`batch.rs`) do.

use super::requests::Scratch;
use super::ZonedReplicas;

impl ZonedReplicas<'_> {
    /// Takes, from the requests of the zone at `place` of the live zones
    /// (a zone of the first round), the keys for which it holds several
    /// members of a set of `k`, adds the keys whose primary (`primaries`)
    /// it holds when that zone holds several too, and writes all their
    /// members into `s.sets`; the zone's single members stay requests.
    pub(super) fn later_rounds(
        &self,
        keys: &[u64],
        k: usize,
        place: usize,
        primaries: &[u32],
        s: &mut Scratch,
    ) {
        let zones = self.order.live.len();
        let zone = &self.zones[self.order.live[place] as usize];
        let share = |p: usize| k / zones + usize::from(p < k % zones);
        let (size, base) = (s.size, s.starts[place]);
        // (index in the round, place in the key's order, key)
        let mut several: Vec<(usize, usize, u64)> = Vec::new();
        let mut kept = 0;
        for j in 0..s.lengths[place] {
            let (key, target) = (s.derived[base + j], s.targets[base + j] as usize);
            let p = target / size + 1;
            if share(p) >= 2 {
                several.push((target % size, p, key));
            } else {
                s.derived[base + kept] = key;
                s.targets[base + kept] = target as u32;
                kept += 1;
            }
        }
        s.lengths[place] = kept;
        if share(0) >= 2 {
            let held = s.first[..keys.len()].iter().enumerate();
            for (i, _) in held.filter(|&(_, &f)| usize::from(f) == place) {
                several.push((i, 0, keys[i]));
            }
        }
        if several.is_empty() {
            return;
        }
        // The replica sets that start the zone's sequences, in one batch
        // on the lanes.
        let derived: Vec<u64> = several
            .iter()
            .map(|&(_, _, key)| zone.derived(key))
            .collect();
        let mut sets = vec![vec![0u32; derived.len()]; k];
        let mut refs: Vec<&mut [u32]> = sets.iter_mut().map(|c| &mut c[..]).collect();
        crate::replicas::batch(&derived, zone.axis(k), &mut refs).expect("k within the axis");
        let (mut members, mut set) = (Vec::with_capacity(share(0)), vec![0u32; k]);
        for (g, &(i, p, key)) in several.iter().enumerate() {
            // The primary leads its zone from column 0, where it is.
            let primary = (p == 0).then(|| primaries[i]);
            let first = primary.unwrap_or_else(|| zone.first(key));
            for (member, column) in set.iter_mut().zip(&sets) {
                *member = column[g];
            }
            members.clear();
            members.push(first);
            zone.others_in(key, first, share(p) - 1, &set, &mut members);
            let from = usize::from(primary.is_some());
            for (round, &node) in members.iter().enumerate().skip(from) {
                s.sets[(p + round * zones - 1) * size + i] = node;
            }
        }
    }
}
