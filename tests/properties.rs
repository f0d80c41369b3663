//! Properties of jump hash, checked with proptest, plus a balance test
//! with a stated bound.

use crate::common;

use jumpshard::{bucket, BucketCount, Kernel};
use proptest::prelude::*;

fn count() -> impl Strategy<Value = u32> {
    prop_oneof![
        1u32..=64,
        1u32..=100_000,
        1u32..=i32::MAX as u32,
        Just(i32::MAX as u32)
    ]
}

fn n(v: u32) -> BucketCount {
    BucketCount::new(v).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn result_is_in_range(key: u64, num in count()) {
        prop_assert!(bucket(key, n(num)) < num);
    }

    /// Growing from `num` to `num + 1` buckets, a key stays or moves to the
    /// new bucket `num`; nothing moves between old buckets.
    #[test]
    fn growing_moves_only_to_the_new_bucket(key: u64, num in 1u32..i32::MAX as u32) {
        let before = bucket(key, n(num));
        let after = bucket(key, n(num + 1));
        prop_assert!(after == before || after == num, "{} -> {}", before, after);
    }

    /// Shrinking from `num` to `num - 1`, only keys in the last bucket move.
    #[test]
    fn shrinking_moves_only_the_last_bucket(key: u64, num in 2u32..=i32::MAX as u32) {
        let before = bucket(key, n(num));
        let after = bucket(key, n(num - 1));
        prop_assert!(after == before || before == num - 1, "{} -> {}", before, after);
    }

    /// Over any span of counts, the bucket changes only to the newest one.
    #[test]
    fn monotone_over_a_range(key: u64, start in 1u32..1_000_000, span in 1u32..200) {
        let mut prev = bucket(key, n(start));
        for num in start + 1..=start + span {
            let b = bucket(key, n(num));
            prop_assert!(b == prev || b == num - 1);
            prev = b;
        }
    }

    /// Every signed count, valid or not, against the C++ reference: valid
    /// counts agree, and the counts Figure 1 answers with -1 are refused.
    #[test]
    fn agrees_with_reference(key: u64, num: i32) {
        let want = jumpshard::reference::jump_consistent_hash(key, num);
        match BucketCount::try_from(num) {
            Ok(count) => prop_assert_eq!(bucket(key, count) as i32, want),
            Err(_) => prop_assert_eq!(want, -1),
        }
    }

    /// Batches of any length on every kernel agree with the reference.
    #[test]
    fn batches_agree_with_reference(keys in proptest::collection::vec(any::<u64>(), 0..200), num in count()) {
        let want = common::reference_batch(&keys, num);
        for kernel in Kernel::supported() {
            let mut got = vec![0u32; keys.len()];
            kernel.batch(&keys, n(num), &mut got).unwrap();
            prop_assert_eq!(&got, &want, "{}", kernel);
        }
    }
}

/// Balance: with K keys in N buckets each bucket's count is Binomial(K, 1/N),
/// standard deviation s = sqrt(K (1/N)(1 - 1/N)). Every bucket must lie within
/// 6 s of K/N; for the sizes here the chance that a fair hash fails that is
/// below 10^-6. Checked on random keys and on the plain sequence 0..K, which
/// the paper says needs no pre-hash because the LCG remixes it.
#[test]
fn balance_within_six_sigma() {
    // 2^22 keys; under qemu 2^20, 16 per bucket of the largest count.
    let k = common::scaled_keys(1 << 22, 1 << 20);
    let random = common::SplitMix64::new(99).keys(k);
    let sequential: Vec<u64> = (0..k as u64).collect();
    for keys in [&random, &sequential] {
        for num in [2u32, 10, 12, 1000, 65536] {
            let mut counts = vec![0u64; num as usize];
            let mut out = vec![0u32; k];
            jumpshard::batch(keys, n(num), &mut out).unwrap();
            for b in out {
                counts[b as usize] += 1;
            }
            let p = 1.0 / f64::from(num);
            let mean = k as f64 * p;
            let sigma = (k as f64 * p * (1.0 - p)).sqrt();
            for (i, &c) in counts.iter().enumerate() {
                let dev = (c as f64 - mean).abs();
                assert!(
                    dev <= 6.0 * sigma,
                    "N={num}: bucket {i} has {c}, mean {mean}, bound {}",
                    6.0 * sigma
                );
            }
        }
    }
}
