//! Zoned sets of a batch on the lanes, for the shapes most tables have:
//! `k` at most the number of zones with a live node, or, within
//! [`MAX_ZONES`] such zones, more members than zones with every zone able
//! to take its share. With `k` at most the zones, each of a key's first
//! `k` zones holds one member, its first: rank 1 is the table's batch, and
//! rank `j + 1` is the first member of the zone at place `j` of the key's
//! order, [`crate::Memento::batch`] over its derived key. With more, the
//! members of the rounds after the first come from the zones' sequences
//! (`several.rs`).
//!
//! What is left per key is the order itself, and which zones it asks for
//! a member: within [`MAX_ZONES`] zones, `requests.rs` finds both without
//! a sort or a branch, from the zone scores (XXH64 on the lanes), in plain
//! code or several keys a step on AVX-512 and AVX2 (`lanes_avx512.rs`,
//! `lanes_avx2.rs`); with more, `wide.rs` keeps each key's best few zones
//! in one pass over them. Each zone then runs one Memento batch over the
//! derived keys of the keys that ask it, and its members go straight to
//! their columns.

use super::domain::LOCAL;
use super::order::MAX_ZONES;
use super::requests::Scratch;
use super::ZonedReplicas;
use crate::Kernel;

/// Keys per round within [`MAX_ZONES`] zones: a round's scores (8 bytes
/// per zone and key) stay in the L2 cache from their hashing to the keys'
/// codes. With more zones, rounds shrink to keep the scores that size, down
/// to [`FEWEST`] keys: with thousands of zones a round's requests then
/// reach only some of them, and the scores are what bounds the memory.
const ROUND: usize = 4096;
const FEWEST: usize = 64;

/// The keys of a round over `zones` live zones.
fn round_keys(zones: usize) -> usize {
    (ROUND * MAX_ZONES / zones.max(MAX_ZONES)).max(FEWEST)
}

impl ZonedReplicas<'_> {
    /// Whether the lanes draw sets of `k`: one member per zone, or, within
    /// [`MAX_ZONES`] live zones, more members than zones dealt to every
    /// zone round after round (or `k = 1`, rank 1 alone).
    pub(super) fn on_lanes(&self, k: usize) -> bool {
        let (zones, order) = (self.order.live.len(), &self.order);
        // With more members than zones, each zone holds one member per
        // round while every zone has live nodes for every round.
        let dealt = order.fewest >= k.div_ceil(zones.max(1));
        k == 1 || k <= zones || (zones <= MAX_ZONES && dealt)
    }

    /// The sets of `keys` into `columns` on `kernel`, when
    /// [`ZonedReplicas::on_lanes`] says so; lengths and count checked.
    pub(super) fn lane_rounds(&self, kernel: Kernel, keys: &[u64], columns: &mut [&mut [u32]]) {
        debug_assert!(self.on_lanes(columns.len()));
        let k = columns.len();
        let zones = if k == 1 { 0 } else { self.order.live.len() };
        let round = round_keys(zones);
        let shape = (keys.len().min(round), k, zones);
        // The buffers are the thread's from call to call (`crate::scratch`)
        // while the batches keep their shape: rounds of one call reuse
        // them already, so a call finds in them only what a round after
        // its first would.
        crate::scratch::with(|kept: &mut Option<Scratch>| {
            let scratch = match kept {
                Some(scratch) if scratch.shape == shape => scratch,
                _ => kept.insert(Scratch::new(shape.0, k, zones)),
            };
            for (r, chunk) in keys.chunks(round).enumerate() {
                let start = r * round;
                self.lane_round(kernel, chunk, start, columns, scratch);
            }
        });
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
        // The scratch's zones: none for rank 1 alone.
        let wide = s.lengths.len() > MAX_ZONES;
        for (i, (out, &slot)) in columns[0][start..start + n]
            .iter_mut()
            .zip(slots.iter())
            .enumerate()
        {
            *out = slot_nodes[slot as usize];
            let place = self.order.slot_zone[slot as usize];
            if wide {
                s.places[i] = place;
            } else {
                s.first[i] = place as u8;
            }
        }
        if k == 1 {
            return;
        }
        let live = &self.order.live;
        for (scores, &z) in s.scores.chunks_exact_mut(s.stride).zip(live) {
            kernel.xxh64_into(keys, &mut scores[..n], self.zones[z as usize].id);
        }
        // The first round's columns: with more members than zones, every
        // zone is asked, in the column of its place.
        let zones = live.len();
        if zones >= 2 {
            requests(kernel, zones, keys, k.min(zones), s);
        } else {
            s.lengths.fill(0);
        }
        for (p, &z) in live.iter().enumerate() {
            let zone = &self.zones[z as usize];
            if k > zones {
                let primaries = &columns[0][start..start + n];
                self.later_rounds(keys, k, p, primaries, s);
            }
            if s.lengths[p] == 0 {
                // Many zones, few keys: no call for a zone nobody asks.
                continue;
            }
            let nodes = &zone.nodes[..];
            let memento = zone.memento.as_ref().expect("a live zone");
            let sets = &mut s.sets[..];
            let asked = s.starts[p]..s.starts[p] + s.lengths[p];
            let derived = &mut s.derived[asked.clone()];
            kernel.xxh64(derived, zone.id ^ LOCAL);
            let buckets = &mut s.buckets[..derived.len()];
            memento
                .batch_on(kernel, derived, buckets)
                .expect("lengths match");
            for (&target, &b) in s.targets[asked].iter().zip(buckets.iter()) {
                sets[target as usize] = nodes[b as usize];
            }
        }
        for (column, set) in columns[1..].iter_mut().zip(s.sets.chunks_exact(size)) {
            column[start..start + n].copy_from_slice(&set[..n]);
        }
    }
}

/// `$call::<Z>($args)` for `Z` the number of live zones `$zones` (2 to
/// [`MAX_ZONES`]), so that each pass keeps its zones' scores in registers.
macro_rules! by_zones {
    ($zones:expr, $($call:ident)::+, $($args:expr),*) => {
        match $zones {
            2 => $($call)::+::<2>($($args),*),
            3 => $($call)::+::<3>($($args),*),
            4 => $($call)::+::<4>($($args),*),
            5 => $($call)::+::<5>($($args),*),
            6 => $($call)::+::<6>($($args),*),
            7 => $($call)::+::<7>($($args),*),
            _ => $($call)::+::<8>($($args),*),
        }
    };
}

/// The requests of `keys` for `zones` live zones (2 or more) and sets of
/// `k` into `s`: within [`MAX_ZONES`] zones on the AVX-512 or AVX2 lanes
/// when `kernel` is one of theirs, else in plain code.
pub(super) fn requests(kernel: Kernel, zones: usize, keys: &[u64], k: usize, s: &mut Scratch) {
    if zones > MAX_ZONES {
        s.requests_wide(kernel, keys, k);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if kernel.name() == "avx512" {
        // SAFETY: a kernel named "avx512" is only made by `Kernel::avx512`
        // after detecting AVX-512F, AVX-512DQ, AVX2 and POPCNT, the
        // features the pass enables; `s` was made for rounds of at most
        // `s.size` keys and `zones` zones.
        unsafe { by_zones!(zones, super::lanes_avx512::requests, keys, k, s) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if kernel.name() == "avx2" {
        // SAFETY: a kernel named "avx2" is only made by `Kernel::avx2`
        // after detecting AVX2, FMA and POPCNT, which cover the features
        // the pass enables; `s` was made for rounds of at most `s.size`
        // keys and `zones` zones.
        unsafe { by_zones!(zones, super::lanes_avx2::requests, keys, k, s) };
        return;
    }
    // Only x86 has a lane pass for the requests.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    by_zones!(zones, Scratch::requests, s, keys, k)
}
