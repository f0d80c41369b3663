//! Zoned sets of a batch on the lanes, for the shape most tables have:
//! `k` at most the zones with a live node, and those at most
//! [`MAX_ZONES`]. Each of a key's first `k` zones then holds one member,
//! so no zone's racks are walked and no zone needs a replica set: rank 1
//! is the table's batch, and rank `j + 1` is the local choice of the zone
//! at place `j` of the key's order, [`crate::Memento::batch`] over its
//! derived key.
//!
//! What is left per key is the order itself, found from the zone scores
//! (XXH64 on the lanes) without a sort or a branch: each live zone's place
//! is the number of zones that outscore it, one compare per pair of
//! zones, kept as one 4-bit field per zone of a `u32`; the primary's zone
//! leads, the zones it outscored move up one place, and a zone whose place
//! is below `k` gives the member of that column. Each zone then takes the
//! keys that ask it for a member in one pass, runs one Memento batch over
//! their derived keys and scatters the members into their columns.

use super::domain::LOCAL;
use super::order::MAX_ZONES;
use super::ZonedReplicas;
use crate::Kernel;

/// Keys per round: a round's scores (8 bytes per zone and key) stay in
/// the L2 cache from their hashing to the keys' codes.
const ROUND: usize = 4096;

/// A 1 in each zone's 4-bit field of a key's code.
const FIELDS: u32 = 0x1111_1111;
const _: () = assert!(MAX_ZONES * 4 <= 32);

/// A round's buffers, sized for the batch's first round (`size` keys).
struct Scratch {
    size: usize,
    slots: Vec<u32>,
    /// Each key's primary zone, a place in [`super::order::Order::live`].
    first: Vec<u8>,
    /// Each live zone's scores of the round's keys, `size` apart.
    scores: Vec<u64>,
    /// Each key's code: in zone `z`'s field, the column of the key's
    /// member there, 0 for none.
    codes: Vec<u32>,
    /// A zone's requests: the derived keys, and where each member goes in
    /// `sets`.
    derived: Vec<u64>,
    targets: Vec<u32>,
    buckets: Vec<u32>,
    /// Columns 1.. of the round, `size` apart.
    sets: Vec<u32>,
}

impl ZonedReplicas<'_> {
    /// Whether the lanes draw sets of `k`: one member per zone, within
    /// [`MAX_ZONES`] live zones (or `k = 1`, rank 1 alone).
    pub(super) fn on_lanes(&self, k: usize) -> bool {
        let zones = self.order.live.len();
        k == 1 || (k <= zones && zones <= MAX_ZONES)
    }

    /// The sets of `keys` into `columns` on `kernel`, when
    /// [`ZonedReplicas::on_lanes`] says so; lengths and count checked.
    pub(super) fn lane_rounds(&self, kernel: Kernel, keys: &[u64], columns: &mut [&mut [u32]]) {
        debug_assert!(self.on_lanes(columns.len()));
        let size = keys.len().min(ROUND);
        let k = columns.len();
        let zones = if k == 1 { 0 } else { self.order.live.len() };
        let mut scratch = Scratch {
            size,
            slots: vec![0; size],
            first: vec![0; size],
            scores: vec![0; zones * size],
            codes: vec![0; size],
            derived: vec![0; size],
            targets: vec![0; size],
            buckets: vec![0; size],
            sets: vec![0; (k - 1) * size],
        };
        for (round, chunk) in keys.chunks(ROUND).enumerate() {
            let start = round * ROUND;
            self.lane_round(kernel, chunk, start, columns, &mut scratch);
        }
    }

    /// The sets of `keys` (a round's, at most [`ROUND`]) into
    /// `columns[..][start..]`.
    fn lane_round(
        &self,
        kernel: Kernel,
        keys: &[u64],
        start: usize,
        columns: &mut [&mut [u32]],
        s: &mut Scratch,
    ) {
        let (n, k, size) = (keys.len(), columns.len(), s.size);
        let slots = &mut s.slots[..n];
        self.table
            .batch_on(kernel, keys, slots)
            .expect("one slot per key");
        let slot_nodes = self.table.slot_nodes();
        for ((out, &slot), first) in columns[0][start..start + n]
            .iter_mut()
            .zip(slots.iter())
            .zip(&mut s.first[..n])
        {
            *out = slot_nodes[slot as usize];
            *first = self.order.slot_zone[slot as usize];
        }
        if k == 1 {
            return;
        }
        let live = &self.order.live;
        for (scores, &z) in s.scores.chunks_exact_mut(size).zip(live) {
            scores[..n].copy_from_slice(keys);
            kernel.xxh64(&mut scores[..n], self.zones[z as usize].id);
        }
        let (scores, first, codes) = (&s.scores, &s.first[..n], &mut s.codes[..n]);
        match live.len() {
            2 => code::<2>(scores, size, first, k, codes),
            3 => code::<3>(scores, size, first, k, codes),
            4 => code::<4>(scores, size, first, k, codes),
            5 => code::<5>(scores, size, first, k, codes),
            6 => code::<6>(scores, size, first, k, codes),
            7 => code::<7>(scores, size, first, k, codes),
            _ => code::<8>(scores, size, first, k, codes),
        }
        let sets = &mut s.sets[..];
        for (p, &z) in live.iter().enumerate() {
            let zone = &self.zones[z as usize];
            let nodes = &zone.nodes[..];
            let memento = zone.memento.as_ref().expect("a live zone");
            // The keys asking this zone, without a branch per key: each
            // written, counted only when asked.
            let (derived, targets) = (&mut s.derived[..], &mut s.targets[..]);
            let mut count = 0;
            for (i, (&code, &key)) in codes.iter().zip(keys).enumerate() {
                let column = (code >> (4 * p)) & 15;
                derived[count] = key;
                targets[count] = (column.wrapping_sub(1) as usize * size + i) as u32;
                count += usize::from(column != 0);
            }
            let derived = &mut derived[..count];
            kernel.xxh64(derived, zone.id ^ LOCAL);
            let buckets = &mut s.buckets[..count];
            memento
                .batch_on(kernel, derived, buckets)
                .expect("lengths match");
            for (&target, &b) in targets[..count].iter().zip(buckets.iter()) {
                sets[target as usize] = nodes[b as usize];
            }
        }
        for (column, set) in columns[1..].iter_mut().zip(sets.chunks_exact(size)) {
            column[start..start + n].copy_from_slice(&set[..n]);
        }
    }
}

/// Each key's code (see [`Scratch::codes`]) for `L` live zones, from
/// their `scores` (`size` apart) and the keys' `first` zones, for sets of
/// `k` (`2 <= k <= L`).
fn code<const L: usize>(scores: &[u64], size: usize, first: &[u8], k: usize, codes: &mut [u32]) {
    let mut by_zone = scores.chunks_exact(size);
    let scores: [&[u64]; L] = core::array::from_fn(|_| by_zone.next().expect("a zone's"));
    let live = FIELDS >> (32 - 4 * L);
    // Fields stay below 16 in every sum below: places are at most 7,
    // columns at most 8, and k at least 2.
    let below = (8 - k as u32) * live;
    for (i, (code, &first)) in codes.iter_mut().zip(first).enumerate() {
        let score: [u64; L] = core::array::from_fn(|z| scores[z][i]);
        // Each zone's place among all live zones, in its field: how many
        // outscore it (of a tie the earlier zone, the higher id, wins).
        let mut place = 0;
        for a in 0..L {
            for b in a + 1..L {
                let later = u32::from(score[b] > score[a]);
                place += (later << (4 * a)) + ((1 - later) << (4 * b));
            }
        }
        let shift = 4 * u32::from(first);
        let primary = (place >> shift) & 15;
        // 1 in the fields of the zones the primary's outscored (their
        // place plus 7 minus its reaches 8), which move up a place.
        let after = ((place + (7 - primary) * live) >> 3) & live;
        let column = place + live - after;
        // 1 in the fields asked: below column k (plus 8 - k, below 8),
        // and not the primary's.
        let within = !((column + below) >> 3) & live & !(1 << shift);
        *code = column & (within * 15);
    }
}
