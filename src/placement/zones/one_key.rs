//! One key's zoned set without the batch's rounds. A call of one key
//! through [`ZonedReplicas::batch`] paid the rounds' set-up (a score
//! column per zone, request lists, one Memento batch per zone): 357 ns for
//! 3 zones and 573 for 12 on Zen 4, three times `replicas::set`. A set of
//! at most [`ON_STACK`] members, one per zone, needs none of it: the
//! primary, the best other zones by score, and one Memento bucket in each.

use super::domain::walk;
use super::ZonedReplicas;
use crate::kernel::xxh64::one;

/// Sets of at most this many members whose zones each hold one take the
/// path without allocation: the best other zones are kept sorted in an
/// array of `ON_STACK - 1` on the stack. Larger sets, and sets with more
/// members than live zones (a zone holding several), take the domains'
/// walk.
const ON_STACK: usize = 8;

/// A zone as the order ranks it: its rendezvous score for the key, its id
/// (ties), its index.
type Ranked = (u64, u64, usize);

/// Batches of fewer keys than this go one key at a time. The rounds pay a
/// score pass per live zone and a Memento batch per zone asked, per call:
/// one key cost 1.4 to 2.7 times a set alone (AVX-512, k = 3, N = 1000,
/// 10% removed, a Sapphire Rapids-class Xeon: 357, 417 and 1255 ns over 3,
/// 12 and 100 zones, against 179, 238 and 458 alone), 2 keys up to 1.6
/// times. From 4 keys the rounds on the vector kernels cost less than a
/// set alone over 3 and 12 zones (AVX2: 115 and 186 ns a key, against 172
/// and 229), and at most 14% more on the scalar kernel or over 100 zones.
/// At 3 keys they differ by a quarter either way (AVX2 over 3 zones: 136
/// in the rounds; AVX-512 over 100 zones: 512), so 3 keys go alone too,
/// and no call of 4 costs more a key than one of 3 on the vector kernels.
const ALONE: usize = 4;

impl ZonedReplicas<'_> {
    /// The sets of `keys` into `columns` one key at a time, as
    /// [`ZonedReplicas::set`] gives them, when the call is too short to pay
    /// for the rounds ([`ALONE`]); returns whether it did. Lengths are
    /// checked.
    pub(super) fn each_alone(&self, keys: &[u64], columns: &mut [&mut [u32]]) -> bool {
        if keys.len() >= ALONE {
            return false;
        }
        // Sets of up to 16 members on the stack, as `one_key` keeps its own.
        let (mut stack, mut heap) = ([0u32; 16], Vec::new());
        let set = match columns.len() {
            k if k <= stack.len() => &mut stack[..k],
            k => {
                heap.resize(k, 0);
                &mut heap[..]
            }
        };
        for (i, &key) in keys.iter().enumerate() {
            self.one_key(key, set);
            for (column, &member) in columns.iter_mut().zip(set.iter()) {
                column[i] = member;
            }
        }
        true
    }

    /// The set of `key` into `out` (`k = out.len()` members, checked):
    /// what [`ZonedReplicas::batch`] gives for one key, by the domains'
    /// one-key walk (`domain::walk`), whose every step the batch's rounds
    /// take in bulk.
    pub(super) fn one_key(&self, key: u64, out: &mut [u32]) {
        let k = out.len();
        let primary = self.table.slot_nodes()[self.table.bucket(key) as usize];
        let first = self.zone_of[primary as usize] as usize;
        out[0] = primary;
        if k == 1 {
            return;
        }
        let keep = k - 1;
        if keep < ON_STACK {
            let mut best: [Ranked; ON_STACK - 1] = [(0, 0, 0); ON_STACK - 1];
            let len = self.best_zones(key, first, &mut best[..keep]);
            if len == keep {
                for (member, &(_, _, z)) in out[1..].iter_mut().zip(&best[..keep]) {
                    *member = self.zones[z].first(key);
                }
                return;
            }
        }
        let mut members = Vec::with_capacity(k);
        walk(&self.zones, key, Some((first, primary)), k, k, &mut members);
        out.copy_from_slice(&members);
    }

    /// The live zones other than `first` with the highest (score, id)
    /// for `key`, the highest first, into `best` (at most its length);
    /// returns how many there were.
    fn best_zones(&self, key: u64, first: usize, best: &mut [Ranked]) -> usize {
        let mut len = 0;
        for (z, zone) in self.zones.iter().enumerate() {
            if zone.live == 0 || z == first {
                continue;
            }
            let ranked = (one(key, zone.id), zone.id, z);
            if len == best.len() {
                if ranked <= best[len - 1] {
                    continue;
                }
                len -= 1;
            }
            let mut i = len;
            while i > 0 && best[i - 1] < ranked {
                best[i] = best[i - 1];
                i -= 1;
            }
            best[i] = ranked;
            len += 1;
        }
        len
    }
}
