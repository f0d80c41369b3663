//! Cliffs in a keys-per-call sweep: a ratio to Figure 1 that falls more
//! than [`TOLERANCE`] below the best ratio of any smaller call. A kernel's
//! cost per key should only fall as calls grow; a drop is a switch between
//! paths tuned on another CPU, so `bench --sizes` flags every one it
//! meets, on whatever CPU it runs.

use serde::Serialize;

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
                .map(|(keys, b)| Cliff {
                    best_keys_per_call: keys,
                    best_ratio: b,
                    drop: 1.0 - ratio / b,
                });
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
