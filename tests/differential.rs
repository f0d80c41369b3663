//! Every kernel against the C++ Figure 1 reference, through one harness.

use crate::common;

use common::{check_division, check_kernel};
use jumpshard::{BucketCount, Division, Kernel};

#[test]
fn scalar_matches_reference() {
    check_kernel(Kernel::scalar());
}

// The SIMD x86 kernels, once per division strategy (the table's choice
// for this CPU is one of them).

#[test]
fn avx2_ieee_division_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::avx2(), "avx2") {
        check_division(k, Division::Ieee);
    }
}

#[test]
fn avx2_newton_division_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::avx2(), "avx2") {
        check_division(k, Division::Newton);
    }
}

#[test]
fn avx2_hybrid_division_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::avx2(), "avx2") {
        check_division(k, Division::Hybrid);
    }
}

#[test]
fn avx512_ieee_division_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::avx512(), "avx512") {
        check_division(k, Division::Ieee);
    }
}

#[test]
fn avx512_newton_division_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::avx512(), "avx512") {
        check_division(k, Division::Newton);
    }
}

#[test]
fn avx512_hybrid_division_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::avx512(), "avx512") {
        check_division(k, Division::Hybrid);
    }
}

#[test]
fn kernels_without_alternatives_refuse_them() {
    for kernel in Kernel::supported() {
        for d in Division::ALL {
            let forced = kernel.with_division(d);
            assert_eq!(
                forced.is_ok(),
                kernel.divisions().contains(&d),
                "{kernel} {d}"
            );
        }
    }
    assert_eq!(Kernel::scalar().divisions(), &[Division::Ieee]);
}

#[test]
fn neon_matches_reference() {
    if let Some(k) = common::kernel_or_skip(Kernel::neon(), "neon") {
        check_kernel(k);
    }
}

#[test]
fn dispatched_batch_matches_reference() {
    let corpus = common::corpus();
    let mut got = vec![0u32; corpus.keys.len()];
    for (&n, want) in common::BULK_COUNTS.iter().zip(&corpus.answers) {
        jumpshard::batch(&corpus.keys, BucketCount::new(n).unwrap(), &mut got).unwrap();
        common::assert_same(
            jumpshard::active_kernel(),
            "dispatch",
            &corpus.keys,
            n,
            &got,
            want,
        );
    }
}

#[test]
fn single_key_matches_reference() {
    let mut keys = common::adversarial_keys();
    keys.extend(common::SplitMix64::new(7).keys(1 << 16));
    for n in common::edge_bucket_counts() {
        let want = common::reference_batch(&keys, n);
        for (&k, &w) in keys.iter().zip(&want) {
            assert_eq!(
                jumpshard::bucket(k, BucketCount::new(n).unwrap()),
                w,
                "key {k}, N={n}"
            );
        }
    }
}

#[test]
fn guava_divergence_keys_follow_figure_1() {
    let n100 = BucketCount::new(100).unwrap();
    let n65536 = BucketCount::new(65536).unwrap();
    assert_eq!(jumpshard::bucket(1253737204188795044, n100), 86);
    assert_eq!(jumpshard::bucket(1431648187546111166, n65536), 55914);
    assert_eq!(
        jumpshard::reference::jump_consistent_hash(1253737204188795044, 100),
        86
    );
    assert_eq!(
        jumpshard::reference::jump_consistent_hash(1431648187546111166, 65536),
        55914
    );
}

#[test]
fn adversarial_keys_hit_the_divisor_extremes() {
    // The harness's LCG-inverse keys really reach divisors 1 and 2^31.
    for steps in 1..=4 {
        for (state, divisor) in [(0u64, 1u64), (u64::MAX, 1 << 31)] {
            let mut s = common::key_reaching(state, steps);
            for _ in 0..steps {
                s = s.wrapping_mul(common::LCG_MULTIPLIER).wrapping_add(1);
            }
            assert_eq!((s >> 33) + 1, divisor);
        }
    }
}

#[test]
fn reference_rejects_nonpositive_counts_with_minus_one() {
    for n in [0, -1, i32::MIN] {
        assert_eq!(jumpshard::reference::jump_consistent_hash(12345, n), -1);
    }
}

#[test]
fn golden_vectors() {
    let rows = common::golden_u64();
    for &(key, n, bucket) in &rows {
        assert_eq!(
            jumpshard::reference::jump_consistent_hash(key, n as i32),
            bucket as i32
        );
        assert_eq!(jumpshard::bucket(key, BucketCount::new(n).unwrap()), bucket);
    }
    for kernel in Kernel::supported() {
        for &(key, n, bucket) in &rows {
            let mut out = [0u32];
            kernel
                .batch(&[key], BucketCount::new(n).unwrap(), &mut out)
                .unwrap();
            assert_eq!(out[0], bucket, "{kernel}: key {key}, N={n}");
        }
    }
}

#[test]
fn every_supported_kernel_is_listed() {
    assert_eq!(Kernel::supported()[0], Kernel::scalar());
    assert_eq!(*Kernel::supported().last().unwrap(), Kernel::detect());
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_batch_is_identical_to_batch() {
    let corpus = common::corpus();
    let mut got = vec![0u32; corpus.keys.len()];
    for threads in [0, 1, 2, 3, 7] {
        for (&n, want) in common::BULK_COUNTS.iter().zip(&corpus.answers).step_by(3) {
            let n = BucketCount::new(n).unwrap();
            jumpshard::batch_parallel(&corpus.keys, n, &mut got, threads).unwrap();
            assert!(got == *want, "threads={threads}, N={n}");
        }
    }
    // Lengths around the split points.
    let keys = common::SplitMix64::new(3).keys(70_000);
    let n = BucketCount::new(1000).unwrap();
    for len in [0, 1, 63, 64, 65, 16_383, 16_384, 16_385, 32_769, 70_000] {
        let mut a = vec![0u32; len];
        let mut b = vec![1u32; len];
        jumpshard::batch(&keys[..len], n, &mut a).unwrap();
        jumpshard::batch_parallel(&keys[..len], n, &mut b, 2).unwrap();
        assert_eq!(a, b, "len {len}");
    }
}
