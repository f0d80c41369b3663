//! Move plans against the naive plan, which evaluates every key at both
//! counts with the C++ Figure 1 reference and keeps the keys whose buckets
//! differ.

use crate::common;

use common::{adversarial_keys, reference_batch, SplitMix64};
use jumpshard::{BucketCount, DestinationCounts, Error, Move, MovePlan, Resize};
use proptest::prelude::*;

const MAX: u32 = i32::MAX as u32;

fn count(n: u32) -> BucketCount {
    BucketCount::new(n).unwrap()
}

fn naive(keys: &[u64], from: u32, to: u32, first_position: u64) -> Vec<Move> {
    let before = reference_batch(keys, from);
    let after = reference_batch(keys, to);
    (0..keys.len())
        .filter(|&i| before[i] != after[i])
        .map(|i| Move {
            position: first_position + i as u64,
            from: before[i],
            to: after[i],
        })
        .collect()
}

/// Both planners against the naive plan, and the summary against the moves.
fn check(keys: &[u64], from: u32, to: u32, first_position: u64) {
    let resize = Resize::new(count(from), count(to)).unwrap();
    let want = naive(keys, from, to, first_position);
    let mut plan = MovePlan::new();
    resize.plan(keys, first_position, &mut plan);
    let got: Vec<Move> = plan.moves().collect();
    assert_eq!(got, want, "plan {from} -> {to}");
    assert_eq!(plan.keys(), keys.len());
    #[cfg(feature = "parallel")]
    {
        let mut parallel = MovePlan::new();
        // 3 runs: more than this machine may have cores, and an odd split.
        for threads in [3, 0] {
            resize.plan_parallel(keys, first_position, &mut parallel, threads);
            assert!(
                parallel.moves().eq(want.iter().copied()),
                "parallel plan {from} -> {to} on {threads} threads"
            );
            assert_eq!(parallel.keys(), keys.len());
            assert_eq!(plan.per_destination(), parallel.per_destination());
        }
    }

    let mut counts = std::collections::BTreeMap::new();
    for m in &want {
        *counts.entry(m.to).or_insert(0u64) += 1;
        // Monotonicity: growing, moves go only to new buckets; shrinking,
        // only the removed buckets' keys move.
        if to > from {
            assert!(m.from < from && m.to >= from, "{m:?}");
        } else {
            assert!(m.from >= to && m.to < to, "{m:?}");
        }
        let key = keys[(m.position - first_position) as usize];
        assert_eq!(resize.destination(key), Some((m.from, m.to)));
    }
    let summary: Vec<(u32, u64)> = plan.per_destination().iter().collect();
    assert_eq!(summary, counts.into_iter().collect::<Vec<_>>());
    assert_eq!(plan.per_destination().total(), want.len() as u64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn plan_equals_naive_plan(
        keys in proptest::collection::vec(any::<u64>(), 0..300),
        from in prop_oneof![1u32..=40, 1u32..=MAX],
        to in prop_oneof![1u32..=40, 1u32..=MAX],
        first_position: u32,
    ) {
        prop_assume!(from != to);
        check(&keys, from, to, first_position.into());
    }

    #[test]
    fn one_key_destination_matches_both_evaluations(key: u64, from in 1u32..=MAX, to in 1u32..=MAX) {
        prop_assume!(from != to);
        let r = Resize::new(count(from), count(to)).unwrap();
        let (a, b) = (reference_batch(&[key], from)[0], reference_batch(&[key], to)[0]);
        prop_assert_eq!(r.destination(key), (a != b).then_some((a, b)));
    }
}

#[test]
fn large_random_sets_both_directions() {
    // 2^20 keys; under qemu 2^17, still 16 of the planners' blocks.
    let keys = SplitMix64::new(0x009E_5A4D).keys(common::scaled_keys(1 << 20, 1 << 17));
    for (from, to) in [
        (10, 12),
        (12, 10),
        (1000, 1001),
        (1001, 1000),
        (3, 300_000),
        (300_000, 3),
    ] {
        check(&keys, from, to, 1 << 40);
    }
}

#[test]
fn edge_counts_one_and_max() {
    let mut keys = SplitMix64::new(0xED6E).keys(1 << 16);
    keys.extend(adversarial_keys());
    for (from, to) in [
        (1, 2),
        (2, 1),
        (1, MAX),
        (MAX, 1),
        (MAX - 1, MAX),
        (MAX, MAX - 1),
        (2, MAX),
        (MAX, 2),
    ] {
        check(&keys, from, to, 0);
    }
}

#[test]
fn empty_input_plans_nothing() {
    let r = Resize::new(count(10), count(12)).unwrap();
    let mut plan = MovePlan::new();
    r.plan(&[1, 2, 3], 0, &mut plan);
    r.plan(&[], 0, &mut plan);
    assert!(plan.is_empty());
    assert_eq!(plan.keys(), 0);
    assert_eq!(plan.per_destination().total(), 0);
}

#[test]
fn moved_fraction_is_close_to_the_expected_one() {
    let keys = SplitMix64::new(0xF4AC).keys(1 << 20);
    let mut plan = MovePlan::new();
    for (from, to) in [(10, 12), (12, 10), (100, 200), (7, 1)] {
        let r = Resize::new(count(from), count(to)).unwrap();
        r.plan(&keys, 0, &mut plan);
        let fraction = plan.len() as f64 / keys.len() as f64;
        // Binomial standard deviation at 2^20 keys is at most 0.0005.
        assert!(
            (fraction - r.expected_moved_fraction()).abs() < 0.003,
            "{from} -> {to}: {fraction} vs {}",
            r.expected_moved_fraction()
        );
    }
}

#[test]
fn equal_counts_are_refused_by_name() {
    for n in [1, 12, MAX] {
        let err = Resize::new(count(n), count(n)).unwrap_err();
        assert_eq!(err, Error::SameBucketCount { value: n });
        assert!(err.to_string().contains(&n.to_string()), "{err}");
    }
}

#[test]
fn counts_merge_across_chunks() {
    let keys = SplitMix64::new(0xC4A7).keys(300_000);
    // Wide enough that destinations spill past the dense range.
    for (from, to) in [(10, 12), (100, 200_000), (200_000, 100_000)] {
        let r = Resize::new(count(from), count(to)).unwrap();
        let mut whole = MovePlan::new();
        r.plan(&keys, 0, &mut whole);
        let mut total = DestinationCounts::new(r);
        let mut plan = MovePlan::new();
        let mut moves = Vec::new();
        for (i, chunk) in keys.chunks(70_001).enumerate() {
            r.plan(chunk, i as u64 * 70_001, &mut plan);
            total.merge(plan.per_destination());
            moves.extend(plan.moves());
        }
        assert_eq!(&total, whole.per_destination());
        assert!(whole.moves().eq(moves));
    }
}

/// Batch lengths around the planner's internal block of 8192 keys, for
/// resizes where almost every key moves, where few do, and with 1024 and
/// 1025 destinations (the edge of the interleaved destination counters).
#[test]
fn lengths_around_the_block_size() {
    let keys = SplitMix64::new(0xB10C).keys(3 * 8192 + 65);
    for len in [
        1,
        63,
        64,
        8191,
        8192,
        8193,
        2 * 8192 - 1,
        2 * 8192 + 1,
        keys.len(),
    ] {
        for (from, to) in [
            (1, MAX),
            (MAX, 1),
            (10, 12),
            (10, 1034),
            (10, 1035),
            (1035, 11),
        ] {
            check(&keys[..len], from, to, 5);
        }
    }
}
