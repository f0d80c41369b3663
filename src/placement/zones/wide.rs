//! The requests of a round for more live zones than the lanes order by
//! pairs ([`MAX_ZONES`]), in sets of `k` at most the zones: each key keeps
//! its `k - 1` best-scoring zones other than its primary's in one pass over
//! the zones, the way a short insertion sort keeps the top of a stream, and
//! the keys are then dealt to those zones by a counting sort, so that the
//! lists hold `k - 1` requests per key whatever the number of zones.
//!
//! The order is the pairwise one (`requests.rs`): descending score, a tie
//! to the earlier live zone (the higher id). Taking the zones in order and
//! moving a kept zone down only for a strictly higher score gives exactly
//! that. On AVX-512 and AVX2 a vector of keys takes each zone at once
//! (`wide_avx512.rs`, `wide_avx2.rs`), for sets of up to 8.

use super::order::MAX_ZONES;
use super::requests::Scratch;
use crate::Kernel;

/// The most zones per key the vector passes keep in registers: `by_ranks!`
/// stamps one copy of each pass per count up to it, and larger sets take
/// the plain pass.
#[cfg(target_arch = "x86_64")]
const LANE_RANKS: usize = 7;

impl Scratch {
    /// The requests of `keys` (a round's) for the scratch's live zones,
    /// more than [`MAX_ZONES`], and sets of `k` (`2 <= k <= zones`), from
    /// the scores and each key's primary place in `places`, on `kernel`'s
    /// lanes when it has them.
    pub(super) fn requests_wide(&mut self, kernel: Kernel, keys: &[u64], k: usize) {
        let (n, zones, others) = (keys.len(), self.lengths.len(), k - 1);
        debug_assert!(zones > MAX_ZONES && (2..=zones).contains(&k) && n <= self.size);
        debug_assert!(self.picks.len() >= others * self.stride);
        pick(kernel, self, n, others);
        let stride = self.stride;
        self.lengths.fill(0);
        for column in self.picks.chunks_exact(stride).take(others) {
            for &p in &column[..n] {
                self.lengths[p as usize] += 1;
            }
        }
        // Each zone's list after the ones before it; `starts` runs ahead
        // as its list fills, and ends one list further on.
        let mut end = 0;
        for (start, &length) in self.starts.iter_mut().zip(&self.lengths) {
            *start = end;
            end += length;
        }
        for (i, &key) in keys.iter().enumerate() {
            for column in 0..others {
                let p = self.picks[column * stride + i] as usize;
                let at = self.starts[p];
                self.derived[at] = key;
                self.targets[at] = (column * self.size + i) as u32;
                self.starts[p] = at + 1;
            }
        }
        for (start, &length) in self.starts.iter_mut().zip(&self.lengths) {
            *start -= length;
        }
    }
}

/// `$ranks::<O>($s, $n)` for `O` the count `$others` (1 to
/// [`LANE_RANKS`]), so that each pass keeps its ranks in registers.
#[cfg(target_arch = "x86_64")]
macro_rules! by_ranks {
    ($others:expr, $($ranks:ident)::+, $s:expr, $n:expr) => {
        match $others {
            1 => $($ranks)::+::<1>($s, $n),
            2 => $($ranks)::+::<2>($s, $n),
            3 => $($ranks)::+::<3>($s, $n),
            4 => $($ranks)::+::<4>($s, $n),
            5 => $($ranks)::+::<5>($s, $n),
            6 => $($ranks)::+::<6>($s, $n),
            _ => $($ranks)::+::<7>($s, $n),
        }
    };
}

/// Each of the round's first `n` keys' `others` best zones but its
/// primary's, best first, into `s.picks` (a column per rank, `stride`
/// apart): on the AVX-512 or AVX2 lanes when `kernel` is theirs and
/// `others` at most seven, else in plain code.
fn pick(kernel: Kernel, s: &mut Scratch, n: usize, others: usize) {
    #[cfg(target_arch = "x86_64")]
    if others <= LANE_RANKS && kernel.name() == "avx512" {
        // SAFETY: a kernel named "avx512" is only made by `Kernel::avx512`
        // after detecting AVX-512F, AVX-512DQ, AVX2 and POPCNT, the
        // features the pass enables; `others` is within its ranks.
        unsafe { by_ranks!(others, super::wide_avx512::ranks, s, n) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if others <= LANE_RANKS && kernel.name() == "avx2" {
        // SAFETY: a kernel named "avx2" is only made by `Kernel::avx2`
        // after detecting AVX2, FMA and POPCNT, which cover the features
        // the pass enables; `others` is within its ranks.
        unsafe { by_ranks!(others, super::wide_avx2::ranks, s, n) };
        return;
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    pick_plain(s, n, others);
}

/// [`pick`] one key at a time.
fn pick_plain(s: &mut Scratch, n: usize, others: usize) {
    // The key's best zones so far, best first: (score, place).
    let mut best = vec![(0u64, 0u32); others];
    for (i, &first) in s.places[..n].iter().enumerate() {
        let mut kept = 0;
        for (p, scores) in s.scores.chunks_exact(s.stride).enumerate() {
            let score = scores[i];
            if p as u32 == first || (kept == others && score <= best[others - 1].0) {
                continue;
            }
            let mut at = kept.min(others - 1);
            kept = (kept + 1).min(others);
            while at > 0 && best[at - 1].0 < score {
                best[at] = best[at - 1];
                at -= 1;
            }
            best[at] = (score, p as u32);
        }
        for (column, &(_, p)) in best.iter().enumerate() {
            s.picks[column * s.stride + i] = p;
        }
    }
}
