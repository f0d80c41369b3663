//! Replica sets: growth, balance, batches and refusals.

use super::*;

fn mix(i: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0x5EED)
}

fn set_of(key: u64, n: u32, k: usize) -> Vec<u32> {
    let mut out = vec![0; k];
    set(key, BucketCount::new(n).unwrap(), &mut out).unwrap();
    out
}

/// Distinct members, the first Figure 1's; growing by one bucket changes
/// at most one member, and only to the new bucket, with probability
/// about k / (n + 1).
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn growth_changes_at_most_one_member_with_probability_k_over_n() {
    for k in [1usize, 2, 3, 5] {
        for n in [k as u32, k as u32 + 1, 10, 99, 1000] {
            if (n as usize) < k {
                continue;
            }
            let keys = 20_000u64;
            let mut changed = 0u64;
            for i in 0..keys {
                let key = mix(i);
                let before = set_of(key, n, k);
                let after = set_of(key, n + 1, k);
                assert_eq!(before[0], crate::bucket(key, BucketCount::new(n).unwrap()));
                let mut sorted = before.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), k, "duplicate member: {before:?}");
                assert!(before.iter().all(|&b| b < n));
                let diffs: Vec<usize> = (0..k).filter(|&j| before[j] != after[j]).collect();
                assert!(diffs.len() <= 1, "k {k}, n {n}: {before:?} -> {after:?}");
                if let Some(&j) = diffs.first() {
                    assert_eq!(after[j], n, "a member moved to an old bucket");
                    changed += 1;
                }
            }
            let p = k as f64 / f64::from(n + 1);
            let want = p * keys as f64;
            let sigma = (want * (1.0 - p)).sqrt();
            assert!(
                (changed as f64 - want).abs() < 5.0 * sigma + 1.0,
                "k {k}, n {n}: {changed} changed, expected {want}"
            );
        }
    }
}

/// Every bucket holds about k / n of the replicas: the set is a uniform
/// sample, including the first buckets, which every set starts from.
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn members_spread_evenly_over_the_buckets() {
    let (n, k, keys) = (50u32, 3usize, 200_000u64);
    let mut load = vec![0u64; n as usize];
    for i in 0..keys {
        for b in set_of(mix(i), n, k) {
            load[b as usize] += 1;
        }
    }
    let mean = (keys * k as u64) as f64 / f64::from(n);
    for (b, &got) in load.iter().enumerate() {
        assert!(
            (got as f64 - mean).abs() < 6.0 * mean.sqrt(),
            "bucket {b}: {got} replicas, mean {mean}"
        );
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri; the lanes' memory accesses are checked by lanes_tests"
)]
fn batches_are_the_one_key_sets_and_bad_arguments_are_refused() {
    let keys: Vec<u64> = (0..300).map(mix).collect();
    for n in [3u32, 17, 1 << 20, (1 << 31) - 1] {
        let count = BucketCount::new(n).unwrap();
        let mut columns = vec![vec![0u32; keys.len()]; 3];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        batch(&keys, count, &mut refs).unwrap();
        for (i, &key) in keys.iter().enumerate() {
            let want = set_of(key, n, 3);
            assert_eq!([columns[0][i], columns[1][i], columns[2][i]], want[..]);
        }
    }
    let two = BucketCount::new(2).unwrap();
    let mut out = [7u32; 3];
    assert_eq!(
        set(1, two, &mut out),
        Err(Error::TooManyReplicas {
            replicas: 3,
            buckets: 2
        })
    );
    assert_eq!(out, [7; 3]);
    let (mut a, mut b) = (vec![9u32; 4], vec![9u32; 3]);
    assert_eq!(
        batch(&[1, 2, 3, 4], two, &mut [&mut a, &mut b]),
        Err(Error::LengthMismatch { keys: 4, out: 3 })
    );
    assert_eq!(a, [9; 4]);
}

/// A count of members legal against 2^31 - 1 buckets but past
/// [`MAX_REPLICAS`] is refused by value, naming the limit, before a
/// set is sized by it; the limit itself is served.
#[test]
fn sets_past_the_limit_are_refused_before_anything_is_sized() {
    let n = BucketCount::new((1 << 31) - 1).unwrap();
    for k in [MAX_REPLICAS + 1, 1 << 20, (1 << 31) - 1] {
        let err = check(k, n).unwrap_err();
        assert_eq!(
            err,
            Error::ReplicasOverLimit {
                replicas: k,
                limit: 1024
            }
        );
        assert_eq!(
            err.to_string(),
            format!("{k} replicas asked: a set holds at most 1024 members")
        );
    }
    assert_eq!(check(MAX_REPLICAS, n), Ok(()));
    // A set of the limit's size costs k^2 steps: hours under Miri.
    if cfg!(miri) {
        return;
    }
    let mut set_of_limit = vec![0u32; MAX_REPLICAS];
    set(42, n, &mut set_of_limit).unwrap();
    let mut sorted = set_of_limit.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), MAX_REPLICAS);
    assert_eq!(
        check(5, BucketCount::new(3).unwrap())
            .unwrap_err()
            .to_string(),
        "5 replicas asked of 3 buckets: a set holds distinct buckets"
    );
}

/// Pearson's statistic of `counts` against a uniform spread, and the bound
/// it stays under unless the spread is not uniform: the degrees of freedom
/// plus six of their standard deviations (and a margin for small counts).
pub(crate) fn chi_square_is_uniform(counts: &[u64]) -> Result<(), String> {
    let total: u64 = counts.iter().sum();
    let want = total as f64 / counts.len() as f64;
    let stat: f64 = counts
        .iter()
        .map(|&c| (c as f64 - want).powi(2) / want)
        .sum();
    let df = (counts.len() - 1) as f64;
    let bound = df + 6.0 * (2.0 * df).sqrt() + 20.0;
    if stat < bound {
        Ok(())
    } else {
        Err(format!("chi-square {stat:.1} over {bound:.1}: {counts:?}"))
    }
}

/// Every position (slot) of the set, not only the set, is spread evenly
/// over the buckets, for every k and n from k up; the sets grow one member
/// at a time all the same (the test above).
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn every_position_is_balanced_on_its_own() {
    for k in 2usize..=5 {
        for n in [
            k as u32,
            k as u32 + 1,
            k as u32 + 2,
            7,
            10,
            17,
            50,
            100,
            333,
            1000,
        ] {
            if (n as usize) < k {
                continue;
            }
            let keys: Vec<u64> = (0..(60 * n as u64).max(30_000)).map(mix).collect();
            let mut columns = vec![vec![0u32; keys.len()]; k];
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            batch(&keys, BucketCount::new(n).unwrap(), &mut refs).unwrap();
            for (j, column) in columns.iter().enumerate() {
                let mut counts = vec![0u64; n as usize];
                column.iter().for_each(|&b| counts[b as usize] += 1);
                if let Err(e) = chi_square_is_uniform(&counts) {
                    panic!("k {k}, n {n}, position {j}: {e}");
                }
            }
        }
    }
}

/// The starting order is a permutation of `0..k` without slot 0's bucket,
/// each order equally likely.
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn starting_orders_are_uniform_permutations() {
    let mut starts = Vec::new();
    for k in [3u32, 4, 5] {
        let mut seen = std::collections::HashMap::new();
        for i in 0..120_000u64 {
            let key = mix(i);
            let first = crate::kernel::scalar::jump(key, k);
            starts.resize(k as usize - 1, 0);
            slots::deal_starts(key, first, &mut starts);
            let mut sorted = starts.clone();
            sorted.sort_unstable();
            let want: Vec<u32> = (0..k).filter(|&b| b != first).collect();
            assert_eq!(sorted, want);
            *seen.entry(starts.clone()).or_insert(0u64) += 1;
        }
        let orders: u64 = (1..k as u64).product::<u64>() * u64::from(k);
        assert_eq!(seen.len() as u64, orders, "k {k}");
        let counts: Vec<u64> = seen.values().copied().collect();
        chi_square_is_uniform(&counts).unwrap();
    }
}

/// `testdata/replicas/golden.txt` (see its README): plain sets and sets
/// under Memento removals, computed by a separate Python implementation of
/// the construction's text, one key at a time and as one batch.
#[test]
#[cfg_attr(miri, ignore = "sets among 2^31 - 1 buckets take minutes under Miri")]
fn golden_vectors() {
    let text = include_str!("../../../testdata/replicas/golden.txt");
    let mut memento = None;
    let (mut plain, mut under_removals) = (0, 0);
    let numbers = |s: &str| -> Vec<u64> { s.split(' ').map(|x| x.parse().unwrap()).collect() };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (kind, rest) = line.split_once(' ').unwrap();
        let v = numbers(rest);
        match kind {
            "plain" => {
                let (key, n, k) = (v[0], BucketCount::new(v[1] as u32).unwrap(), v[2] as usize);
                let want: Vec<u32> = v[3..].iter().map(|&b| b as u32).collect();
                let mut got = vec![0; k];
                set(key, n, &mut got).unwrap();
                assert_eq!(got, want, "{line}");
                let mut columns = vec![[0u32; 1]; k];
                let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
                batch(&[key], n, &mut refs).unwrap();
                assert_eq!(columns.concat(), want, "{line} in a batch");
                plain += 1;
            }
            "memento" => {
                memento = Some(crate::Memento::new(BucketCount::new(v[0] as u32).unwrap()))
            }
            "remove" => memento.as_mut().unwrap().remove(v[0] as u32).unwrap(),
            "set" => {
                let m = memento.as_ref().unwrap();
                let (key, k) = (v[0], v[1] as usize);
                let want: Vec<u32> = v[2..].iter().map(|&b| b as u32).collect();
                let mut got = vec![0; k];
                m.replicas(key, &mut got).unwrap();
                assert_eq!(got, want, "{line}");
                under_removals += 1;
            }
            _ => panic!("unknown line {line}"),
        }
    }
    assert!(
        plain > 1000 && under_removals > 200,
        "{plain}, {under_removals}"
    );
}
