//! The differential check behind `jumpshard verify` and the test suites:
//! key sets that find porting mistakes, and a comparison of any kernel
//! with the compiled Figure 1 reference. Present with the `reference`
//! feature.
//!
//! ```
//! use jumpshard::{verify, BucketCount, Kernel};
//!
//! let keys = verify::adversarial_keys();
//! for kernel in Kernel::supported() {
//!     let report = verify::compare(kernel, &keys, BucketCount::new(1000)?);
//!     assert_eq!(report.mismatches, 0, "{:?}", report.first_mismatch);
//! }
//! # Ok::<(), jumpshard::Error>(())
//! ```

use crate::{reference, BucketCount, Kernel};

/// The paper's LCG multiplier, 2862933555777941757.
pub const LCG_MULTIPLIER: u64 = crate::kernel::scalar::LCG_MULTIPLIER;

pub use crate::splitmix::SplitMix64;

/// The multiplier's inverse mod 2^64 (it is odd), by Newton's iteration:
/// each step doubles the number of correct low bits, and the multiplier is
/// its own inverse mod 8.
pub fn multiplier_inverse() -> u64 {
    let mut inv = LCG_MULTIPLIER;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(LCG_MULTIPLIER.wrapping_mul(inv)));
    }
    inv
}

/// The key whose LCG state after `steps` steps of Figure 1's loop is
/// `state`.
///
/// ```
/// use jumpshard::verify::{key_reaching, LCG_MULTIPLIER};
///
/// let key = key_reaching(u64::MAX, 1);
/// let state = key.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
/// assert_eq!((state >> 33) + 1, 1 << 31); // the largest divisor
/// ```
pub fn key_reaching(state: u64, steps: u32) -> u64 {
    let inv = multiplier_inverse();
    (0..steps).fold(state, |s, _| s.wrapping_sub(1).wrapping_mul(inv))
}

/// Keys where ports go wrong: the 64-bit edges, the keys where Guava's port
/// differs from Figure 1 (1253737204188795044 at N=100 and
/// 1431648187546111166 at N=65536), and keys whose LCG state after 1 to 4
/// steps makes the divisor `(state >> 33) + 1` equal 1 (the longest jump)
/// or 2^31 (the shortest), with the states next to those.
pub fn adversarial_keys() -> Vec<u64> {
    let mut keys = vec![0, 1, 2, 1 << 63, (1 << 63) - 1, u64::MAX, u64::MAX - 1];
    keys.extend([1253737204188795044, 1431648187546111166]);
    let states = [
        0u64,
        1,
        (1 << 33) - 1, // top 31 bits still 0: divisor 1
        1 << 33,       // divisor 2
        u64::MAX,      // top 31 bits all 1: divisor 2^31
        u64::MAX - (1 << 33) + 1,
        u64::MAX - (1 << 33), // divisor 2^31 - 1
    ];
    for steps in 1..=4 {
        keys.extend(states.iter().map(|&s| key_reaching(s, steps)));
    }
    keys
}

/// Bucket counts at the edges: the ends of the valid range, small counts
/// where the first step decides, powers of two and their neighbours, and
/// the counts the paper and common deployments use.
pub fn edge_bucket_counts() -> Vec<BucketCount> {
    let mut ns = vec![
        1u32,
        2,
        3,
        10,
        12,
        100,
        1000,
        65536,
        1_000_000,
        (1 << 31) - 2,
        (1 << 31) - 1,
    ];
    for p in [4, 8, 16, 20, 24, 30] {
        ns.extend([(1u32 << p) - 1, 1 << p, (1 << p) + 1]);
    }
    ns.sort_unstable();
    ns.dedup();
    ns.into_iter()
        .map(|n| BucketCount::new(n).expect("in range"))
        .collect()
}

/// The outcome of one comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// (key, N) pairs compared.
    pub pairs: u64,
    /// Pairs where the kernel and the reference differ.
    pub mismatches: u64,
    /// The first differing pair: (key, N, kernel's bucket, reference's).
    pub first_mismatch: Option<(u64, u32, u32, i32)>,
}

impl Report {
    /// Adds another report's counts to this one.
    pub fn merge(&mut self, other: Report) {
        self.pairs += other.pairs;
        self.mismatches += other.mismatches;
        self.first_mismatch = self.first_mismatch.or(other.first_mismatch);
    }
}

/// The kernel's answers for `keys` at `n`, against the compiled reference's.
pub fn compare(kernel: Kernel, keys: &[u64], n: BucketCount) -> Report {
    let mut want = vec![0i32; keys.len()];
    reference::batch(keys, n.get() as i32, &mut want);
    compare_with(kernel, keys, n, &want)
}

/// As [`compare`], with the reference's answers already computed (so that
/// several kernels can share them).
///
/// # Panics
/// When `want` and `keys` differ in length.
pub fn compare_with(kernel: Kernel, keys: &[u64], n: BucketCount, want: &[i32]) -> Report {
    assert_eq!(keys.len(), want.len(), "one reference answer per key");
    let mut got = vec![0u32; keys.len()];
    kernel.batch(keys, n, &mut got).expect("lengths match");
    let mut report = Report {
        pairs: keys.len() as u64,
        ..Report::default()
    };
    for ((&k, &g), &w) in keys.iter().zip(&got).zip(want) {
        if g as i64 != i64::from(w) {
            report.mismatches += 1;
            report.first_mismatch.get_or_insert((k, n.get(), g, w));
        }
    }
    report
}
