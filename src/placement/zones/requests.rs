//! A round's buffers for the zoned lanes (`lanes.rs`), and each key's
//! requests made from them in plain code: the key's code, one 4-bit field
//! per live zone holding the column of the key's member there (0 for
//! none), then the keys dealt to the zones their codes ask.
//!
//! The code is found without a sort or a branch: each live zone's place
//! is the number of zones that outscore it, one compare per pair of zones;
//! the primary's zone leads, the zones it outscored move up one place, and
//! a zone whose place is below `k` gives the member of that column.

use super::order::MAX_ZONES;

/// A 1 in each zone's 4-bit field of a key's code.
pub(super) const FIELDS: u32 = 0x1111_1111;
const _: () = assert!(MAX_ZONES * 4 <= 32);

/// Room past each zone's list for a full vector stored after its last
/// request (`lanes_avx512.rs`).
const SLACK: usize = 8;

/// A round's buffers, sized for the batch's first round (`size` keys).
pub(super) struct Scratch {
    /// The round's keys, the sets' members and the live zones it was
    /// made for: a batch of that shape may reuse it.
    pub(super) shape: (usize, usize, usize),
    /// The keys of the largest round.
    pub(super) size: usize,
    /// The zones' lists and scores lie `stride` apart: `size` and a full
    /// vector's slack.
    pub(super) stride: usize,
    pub(super) slots: Vec<u32>,
    /// Each key's primary zone, a place in [`super::order::Order::live`],
    /// and a vector's slack.
    pub(super) first: Vec<u8>,
    /// Each live zone's scores of the round's keys.
    pub(super) scores: Vec<u64>,
    /// Each key's code.
    codes: Vec<u32>,
    /// Each live zone's requests, `lengths[p]` of them from `starts[p]`:
    /// the keys (then their derived keys), and where each member goes in
    /// `sets`. Within [`MAX_ZONES`] zones, each zone's list starts at a
    /// multiple of `stride`; with more (`wide.rs`), the lists lie end to
    /// end.
    pub(super) derived: Vec<u64>,
    pub(super) targets: Vec<u32>,
    pub(super) starts: Vec<usize>,
    pub(super) lengths: Vec<usize>,
    /// With more than [`MAX_ZONES`] live zones (`wide.rs`): each key's
    /// primary zone as a place in the live zones (which `first` cannot
    /// hold), and the zones of its columns 1 to `k - 1`, each `stride`
    /// long, so that a vector's loads and stores stay inside.
    pub(super) places: Vec<u32>,
    pub(super) picks: Vec<u32>,
    pub(super) buckets: Vec<u32>,
    /// Columns 1.. of the round, `size` apart.
    pub(super) sets: Vec<u32>,
}

impl Scratch {
    /// The buffers for rounds of at most `size` keys, sets of `k` over
    /// `zones` live zones (none when `k = 1`: rank 1 alone).
    pub(super) fn new(size: usize, k: usize, zones: usize) -> Scratch {
        let stride = size + SLACK;
        let wide = zones > MAX_ZONES;
        // A round asks for `k - 1` members of each key: end to end, the
        // lists need no more room than that, however many the zones.
        let lists = if wide { (k - 1) * size } else { zones * stride };
        let (places, picks) = if wide {
            (vec![0; stride], vec![0; (k - 1) * stride])
        } else {
            (Vec::new(), Vec::new())
        };
        Scratch {
            shape: (size, k, zones),
            size,
            stride,
            slots: vec![0; size],
            first: vec![0; stride],
            scores: vec![0; zones * stride],
            codes: vec![0; size],
            derived: vec![0; lists],
            targets: vec![0; lists],
            starts: (0..zones)
                .map(|p| if wide { 0 } else { p * stride })
                .collect(),
            lengths: vec![0; zones],
            places,
            picks,
            buckets: vec![0; size],
            sets: vec![0; (k - 1) * size],
        }
    }

    /// The requests of `keys` (a round's) for `L` live zones and sets of
    /// `k` (`2 <= k <= L`), from the scores and first zones.
    pub(super) fn requests<const L: usize>(&mut self, keys: &[u64], k: usize) {
        let n = keys.len();
        code::<L>(
            &self.scores,
            self.stride,
            &self.first[..n],
            k,
            &mut self.codes[..n],
        );
        let codes = core::mem::take(&mut self.codes);
        deal(keys, &codes[..n], self, k);
        self.codes = codes;
    }
}

/// Each key's code for `L` live zones, from
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

/// Deals each of `keys` to the `k - 1` zones its code asks, as requests:
/// one step per member, not per zone.
fn deal(keys: &[u64], codes: &[u32], s: &mut Scratch, k: usize) {
    let (size, stride) = (s.size, s.stride);
    let mut lengths = [0; MAX_ZONES];
    for (i, (&key, &code)) in keys.iter().zip(codes).enumerate() {
        let mut asked = code;
        // Columns 1 to k - 1, one zone each.
        for _ in 1..k {
            let shift = asked.trailing_zeros() & !3;
            let column = (asked >> shift) & 15;
            asked &= !(15 << shift);
            let zone = (shift / 4) as usize;
            let at = zone * stride + lengths[zone];
            s.derived[at] = key;
            s.targets[at] = ((column as usize - 1) * size + i) as u32;
            lengths[zone] += 1;
        }
        debug_assert_eq!(asked, 0);
    }
    let zones = s.lengths.len();
    s.lengths.copy_from_slice(&lengths[..zones]);
}
