//! The zones as the lanes order them for a key: the live zones by
//! descending id, so that a pair of zones is ordered by one compare of
//! their scores, and each slot's zone among them, so that a key's primary
//! zone is one lookup of its slot.

use super::domain::Domain;

/// The most live zones the lanes order by comparing every pair of zone
/// scores (`requests.rs`, `lanes_avx512.rs`, `lanes_avx2.rs`): the pairs
/// grow with the square of the zones, and a key's code has a 4-bit field
/// per zone. With more, each key keeps its best few zones in one pass over
/// them (`wide.rs`).
pub(super) const MAX_ZONES: usize = 8;

/// The zones as the lanes order them, prepared with the table.
#[derive(Clone, Debug)]
pub(crate) struct Order {
    /// The zones with a live node (indices into the zones) by descending
    /// id: a tie of scores goes to the earlier, so one compare of the
    /// scores orders a pair.
    pub(super) live: Vec<u32>,
    /// Each slot's zone as a place in `live` (a slot of a dead node, which
    /// no batch answers, 0).
    pub(super) slot_zone: Vec<u32>,
    /// The fewest live nodes of a live zone: what decides whether sets of
    /// more members than zones fall to every zone in turn, round after
    /// round.
    pub(super) fewest: usize,
}

impl Order {
    /// The lanes' view of `zones`, whose nodes `zone_of` maps to them, for
    /// a table of `slot_nodes`.
    pub(super) fn new(zones: &[Domain], zone_of: &[u32], slot_nodes: &[u32]) -> Order {
        let mut live: Vec<u32> = (0..zones.len() as u32)
            .filter(|&z| zones[z as usize].live > 0)
            .collect();
        live.sort_unstable_by_key(|&z| core::cmp::Reverse(zones[z as usize].id));
        let mut place = vec![0u32; zones.len()];
        for (p, &z) in live.iter().enumerate() {
            place[z as usize] = p as u32;
        }
        let slot_zone = slot_nodes
            .iter()
            .map(|&node| place[zone_of[node as usize] as usize])
            .collect();
        let live_zones = live.iter().map(|&z| &zones[z as usize]);
        let fewest = live_zones.map(|z| z.live).min().unwrap_or(0);
        Order {
            live,
            slot_zone,
            fewest,
        }
    }
}
