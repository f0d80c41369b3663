//! Cliffs in a keys-per-call sweep: a ratio to Figure 1 that falls more
//! than [`TOLERANCE`] below the best ratio of any smaller call. A kernel's
//! cost per key should only fall as calls grow; a drop is a switch between
//! paths tuned on another CPU, so `bench --sizes` flags every one it
//! meets, on whatever CPU it runs, once paired measurements confirm it.

use serde::Serialize;

use super::kernels::median;

/// How far below the best smaller call a ratio may fall before it is a
/// cliff: beyond what repeated runs on a shared host scatter (a few
/// percent), well short of the drops seen on real CPUs (20-50%).
pub const TOLERANCE: f64 = 0.10;

/// Where a ratio fell below the best of the smaller calls.
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
pub struct Cliff {
    /// The smaller call with the best ratio.
    pub best_keys_per_call: usize,
    /// Its ratio to Figure 1.
    pub best_ratio: f64,
    /// How far below it this ratio is, as a fraction of it (0.2: 20%).
    pub drop: f64,
    /// This call's ratio: the sweep's, or once confirmed ([`confirm`]),
    /// the confirmation's, as `best_ratio` is.
    pub ratio: f64,
}

impl Cliff {
    fn new(best_keys_per_call: usize, best_ratio: f64, ratio: f64) -> Cliff {
        Cliff {
            best_keys_per_call,
            best_ratio,
            drop: 1.0 - ratio / best_ratio,
            ratio,
        }
    }
}

/// The cliff that paired measurements confirm: ratios of the call (`at`)
/// and of the best smaller call of `best_keys_per_call` keys (`best`),
/// taken in turn, round by round. The drop is the median over the rounds
/// of each round's own (the two cells milliseconds apart, so that a slow
/// spell of the host lowers both); a cliff, with the medians of the two
/// cells' ratios, when it is more than [`TOLERANCE`], none otherwise.
pub fn confirm(best_keys_per_call: usize, at: &[f64], best: &[f64]) -> Option<Cliff> {
    let drop = median(at.iter().zip(best).map(|(a, b)| 1.0 - a / b));
    (drop > TOLERANCE).then(|| Cliff {
        best_keys_per_call,
        best_ratio: median(best.iter().copied()),
        drop,
        ratio: median(at.iter().copied()),
    })
}

/// For each `(keys per call, ratio)` of one kernel and N, in ascending
/// keys per call, the cliff it sits on, if any.
pub fn find(points: &[(usize, f64)]) -> Vec<Option<Cliff>> {
    let mut best: Option<(usize, f64)> = None;
    points
        .iter()
        .map(|&(size, ratio)| {
            let cliff = best
                .filter(|&(_, b)| ratio < b * (1.0 - TOLERANCE))
                .map(|(keys, b)| Cliff::new(keys, b, ratio));
            if best.is_none_or(|(_, b)| ratio > b) {
                best = Some((size, ratio));
            }
            cliff
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Zen 5's AVX-512 sweep before the paths met: 19.9x at 64 keys, 16.0x
    /// at 256, back to 20.4x at 1024.
    #[test]
    fn a_dip_below_the_best_smaller_call_is_a_cliff() {
        let found = find(&[
            (16, 12.0),
            (64, 19.9),
            (128, 19.0),
            (256, 16.0),
            (1024, 20.4),
        ]);
        assert_eq!(found[..3], [None, None, None]);
        let cliff = found[3].expect("16.0x is 20% below 19.9x");
        assert_eq!((cliff.best_keys_per_call, cliff.best_ratio), (64, 19.9));
        assert!((cliff.drop - (1.0 - 16.0 / 19.9)).abs() < 1e-12);
        assert_eq!(found[4], None);
    }

    /// The best smaller call counts, not the one just before: a slow slide
    /// of 5% a step is a cliff once it adds up to more than 10%.
    #[test]
    fn a_slide_is_measured_from_the_best() {
        let found = find(&[(8, 10.0), (16, 9.5), (32, 9.1), (64, 8.9), (128, 8.95)]);
        assert_eq!(found[..3], [None, None, None]);
        assert_eq!(found[3].map(|c| c.best_keys_per_call), Some(8));
        assert_eq!(found[4].map(|c| c.best_keys_per_call), Some(8));
    }

    /// A drop the paired runs repeat stands, with their ratios; one they
    /// do not (a busy spell that lowered the sweep's cell) is dropped.
    #[test]
    fn paired_runs_confirm_or_clear_a_cliff() {
        let cliff = confirm(16, &[4.0, 4.4, 8.0], &[5.0, 5.0, 5.0]).expect("a drop");
        assert_eq!(cliff.best_keys_per_call, 16);
        assert!((cliff.best_ratio - 5.0).abs() < 1e-12 && (cliff.ratio - 4.4).abs() < 1e-12);
        assert!((cliff.drop - (1.0 - 4.4 / 5.0)).abs() < 1e-12);
        assert_eq!(confirm(16, &[5.4, 5.3, 5.5], &[5.6, 5.5, 5.7]), None);
        // Both cells slowed together in some rounds: each round's own drop
        // counts, not the drop between the medians (6.0 against 4.3).
        let at = [6.0, 6.0, 4.3, 4.3, 4.3];
        let best = [6.2, 6.2, 4.4, 4.4, 6.2];
        assert_eq!(confirm(16, &at, &best), None);
    }

    #[test]
    fn rising_flat_and_noisy_sweeps_have_no_cliff() {
        let rising = find(&[(1, 1.0), (2, 1.4), (4, 2.7), (8, 4.5), (16, 6.8)]);
        assert!(rising.iter().all(Option::is_none));
        // 9.5% below the best: within the tolerance.
        let noisy = find(&[(8, 10.0), (12, 9.05), (16, 10.2), (24, 9.25)]);
        assert!(noisy.iter().all(Option::is_none));
        assert!(find(&[]).is_empty());
    }
}
