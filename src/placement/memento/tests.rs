//! The golden vectors of the authors' engine, the plain chain of replacers
//! against the resolved one, and the promises of removal and restore.

use super::*;
use crate::splitmix::mix;
use crate::Kernel;

/// Replays `testdata/memento/golden.txt` (see its README) and checks every
/// state and lookup.
#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri; the batches' memory accesses are the kernels', which Miri checks in their own tests"
)]
fn golden_vectors_of_the_authors_engine() {
    let text = include_str!("../../../testdata/memento/golden.txt");
    let mut memento: Option<Memento> = None;
    let (mut lookups, mut scenarios) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        let at = || format!("golden.txt line {}: {line}", i + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [w, ..] if w.starts_with('#') => {}
            ["scenario", n] => {
                memento = Some(Memento::new(BucketCount::new(n.parse().unwrap()).unwrap()));
                scenarios += 1;
            }
            ["remove", b] => memento
                .as_mut()
                .unwrap()
                .remove(b.parse().unwrap())
                .unwrap(),
            ["add", "->", b] => {
                let got = memento.as_mut().unwrap().restore().unwrap();
                assert_eq!(got.to_string(), *b, "{}", at());
            }
            ["state", "size", w, "barray", n] => {
                let m = memento.as_ref().unwrap();
                assert_eq!(m.working().to_string(), *w, "{}", at());
                assert_eq!(m.barray().get().to_string(), *n, "{}", at());
            }
            ["lookup", key, want] => {
                let key = if *key == "-" { Vec::new() } else { hex(key) };
                let m = memento.as_ref().unwrap();
                assert_eq!(m.bucket_bytes(&key).to_string(), *want, "{}", at());
                lookups += 1;
            }
            _ => panic!("unknown record: {}", at()),
        }
    }
    assert!(
        scenarios >= 8 && lookups >= 1000,
        "{scenarios} scenarios, {lookups} lookups"
    );
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// MementoHash as the paper states it, with the plain chain of replacers:
/// each removed bucket remembers the working count after its removal,
/// which is also the bucket that replaced it.
struct PlainChain {
    barray: u32,
    /// (bucket, working count after its removal), in removal order.
    removed: Vec<(u32, u32)>,
}

impl PlainChain {
    fn of(m: &Memento) -> PlainChain {
        let n = m.barray().get();
        let removed = m
            .removals()
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, n - i as u32 - 1))
            .collect();
        PlainChain { barray: n, removed }
    }

    fn replacer(&self, b: u32) -> Option<u32> {
        self.removed.iter().find(|&&(r, _)| r == b).map(|&(_, w)| w)
    }

    fn bucket(&self, key: u64) -> u32 {
        let mut b = crate::kernel::scalar::jump(key, self.barray);
        let mut replacer = self.replacer(b);
        while let Some(r) = replacer {
            b = (lookup::rehash_u64(key, b) % u64::from(r)) as u32;
            let mut next = self.replacer(b);
            while let Some(n) = next.filter(|&n| n >= r) {
                b = n;
                next = self.replacer(b);
            }
            replacer = next;
        }
        b
    }
}

/// Random removals (0 to 99% of the buckets) with restores mixed in: the
/// resolved replacers give the plain chain's buckets, every batch on every
/// kernel gives the one-key lookups' at every length to 300, from
/// misaligned starts, and the working buckets are exactly those
/// answered.
#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri; the batches' memory accesses are the kernels', which Miri checks in their own tests"
)]
fn resolved_replacers_and_batches_agree_with_the_plain_chain() {
    let keys: Vec<u64> = (0..3000).map(mix).collect();
    for (case, n) in [7u32, 10, 64, 100, 1000, 5000].into_iter().enumerate() {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        let mut step = case as u64 * 1000;
        for percent in [0u32, 1, 10, 50, 90, 99] {
            // A first removal of the tail shrinks the b-array instead, so
            // the target follows the b-array.
            let target = |m: &Memento| (m.barray().get() * percent / 100).min(m.barray().get() - 1);
            while (m.removals().len() as u32) < target(&m) {
                step += 1;
                let b = (mix(step) % u64::from(m.barray().get())) as u32;
                if m.is_removed(b) || m.working() == 1 {
                    continue;
                }
                let before = m.clone();
                m.remove(b).unwrap();
                // Now and then a restore, which must undo the removal.
                if mix(!step).is_multiple_of(5) && !m.removals().is_empty() {
                    m.restore().unwrap();
                    assert_eq!(m, before);
                }
            }
            let plain = PlainChain::of(&m);
            let want: Vec<u32> = keys.iter().map(|&k| m.bucket(k)).collect();
            for (&k, &b) in keys.iter().zip(&want) {
                assert_eq!(b, plain.bucket(k), "n {n}, {percent}% removed, key {k}");
                assert!(!m.is_removed(b) && b < m.barray().get());
            }
            for kernel in Kernel::supported() {
                for len in (0..=300).chain([keys.len() - 3]) {
                    let start = len % 4;
                    let mut out = vec![u32::MAX; len];
                    m.batch_on(kernel, &keys[start..start + len], &mut out)
                        .unwrap();
                    assert_eq!(
                        out,
                        want[start..start + len],
                        "{kernel}, n {n}, {percent}%, {len} keys from {start}"
                    );
                }
            }
        }
    }
}

/// Batches longer than a block, cut at and around its edges, from
/// misaligned starts, on every kernel: b-arrays whose bitmap the lane scans
/// hold in registers (up to 256 buckets on AVX2, 1024 on AVX-512) and
/// larger ones they gather from, under light to heavy removal.
#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri; the batches' memory accesses are the kernels', which Miri checks in their own tests"
)]
fn batches_across_blocks_match_one_key_lookups() {
    let keys: Vec<u64> = (0..10_000).map(|i| mix(i ^ 0xB10C)).collect();
    for n in [256u32, 257, 1000, 1024, 1025, 5000] {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        let mut step = u64::from(n);
        for percent in [1u32, 50, 99] {
            while (m.removals().len() as u32) < n * percent / 100 {
                step += 1;
                let b = (mix(step) % u64::from(n - 1)) as u32;
                if !m.is_removed(b) {
                    m.remove(b).unwrap();
                }
            }
            let want: Vec<u32> = keys.iter().map(|&k| m.bucket(k)).collect();
            for kernel in Kernel::supported() {
                for len in [4095, 4096, 4097, 8192 + 13, keys.len() - 3] {
                    let start = len % 3;
                    let mut out = vec![u32::MAX; len];
                    m.batch_on(kernel, &keys[start..start + len], &mut out)
                        .unwrap();
                    assert_eq!(
                        out,
                        want[start..start + len],
                        "{kernel}, n {n}, {percent}%, {len} keys from {start}"
                    );
                }
            }
        }
    }
}

/// The largest b-array with a table of links, which the rounds read, the
/// smallest without, which every kernel resolves one key at a time, and
/// the largest of all (2^31 - 1 buckets, with neither bitmap nor links):
/// each gives the plain chain's buckets.
#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri; the batches' memory accesses are the kernels', which Miri checks in their own tests"
)]
fn batches_on_both_sides_of_the_link_table_limit() {
    let keys: Vec<u64> = (0..3000).map(|i| mix(i ^ 0x11AB)).collect();
    for n in [removed::LINK_LIMIT, removed::LINK_LIMIT + 1, (1 << 31) - 1] {
        let count = BucketCount::new(n).unwrap();
        let mut m = Memento::new(count);
        // The buckets of some keys, so that their lookups rehash, then as
        // many others.
        for (i, &key) in keys.iter().enumerate().step_by(4) {
            for b in [
                crate::bucket(key, count),
                (mix(i as u64) % u64::from(n - 1)) as u32,
            ] {
                if !m.is_removed(b) && b + 1 != n {
                    m.remove(b).unwrap();
                }
            }
        }
        let plain = PlainChain::of(&m);
        let want: Vec<u32> = keys.iter().map(|&k| plain.bucket(k)).collect();
        for kernel in Kernel::supported() {
            let mut out = vec![0u32; keys.len()];
            m.batch_on(kernel, &keys, &mut out).unwrap();
            assert_eq!(out, want, "{kernel}, n {n}");
        }
    }
}

/// Removing a bucket moves exactly its keys; restoring brings exactly
/// them back; the keys of a removed bucket spread over the working ones.
#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri; the batches' memory accesses are the kernels', which Miri checks in their own tests"
)]
fn removal_moves_exactly_the_removed_bucket_s_keys() {
    let keys: Vec<u64> = (0..200_000).map(mix).collect();
    let mut m = Memento::new(BucketCount::new(50).unwrap());
    for (i, b) in [17u32, 3, 49, 0, 25, 26].into_iter().enumerate() {
        let mut before = vec![0; keys.len()];
        m.batch(&keys, &mut before).unwrap();
        let snapshot = m.clone();
        m.remove(b).unwrap();
        let mut after = vec![0; keys.len()];
        m.batch(&keys, &mut after).unwrap();
        let mut arrivals = vec![0u64; 50];
        for (&x, &y) in before.iter().zip(&after) {
            assert!(
                x == y || x == b,
                "removal {i}: a key moved off working bucket {x}"
            );
            assert_ne!(y, b);
            if x != y {
                arrivals[y as usize] += 1;
            }
        }
        // Each working bucket takes about 1/working of the moved keys.
        let moved: u64 = arrivals.iter().sum();
        let fair = moved as f64 / f64::from(m.working());
        for (bucket, &got) in arrivals.iter().enumerate() {
            if !m.is_removed(bucket as u32) && bucket < m.barray().get() as usize {
                assert!(
                    (got as f64 - fair).abs() < 6.0 * fair.sqrt() + 5.0,
                    "{bucket}: {got} vs {fair}"
                );
            }
        }
        let mut restored = m.clone();
        assert_eq!(restored.restore().unwrap(), b);
        assert_eq!(restored, snapshot);
    }
}

/// The extremes: a b-array of 2^31 - 1 buckets, the last working bucket,
/// and a removal list that does not replay.
#[test]
fn extremes_and_bad_removals() {
    let mut m = Memento::new(BucketCount::MAX);
    for b in [0, 5, 1 << 30, (1 << 31) - 3] {
        m.remove(b).unwrap();
    }
    // Under Miri, a batch past the kernels' short paths: the refilling
    // loop among 2^31 - 1 buckets, which `kernel::tests` also runs there,
    // then the one-key resolution of a b-array too large for links.
    let keys: Vec<u64> = (0..if cfg!(miri) { 300 } else { 5000 }).map(mix).collect();
    let mut out = vec![0; keys.len()];
    m.batch(&keys, &mut out).unwrap();
    let plain = PlainChain::of(&m);
    for (&k, &b) in keys.iter().zip(&out) {
        assert_eq!(b, plain.bucket(k));
    }
    assert_eq!(m.remove(5), Err(Error::AlreadyRemoved { bucket: 5 }));
    assert_eq!(
        m.remove(1 << 31),
        Err(Error::NotABucket {
            bucket: 1 << 31,
            barray: (1 << 31) - 1
        })
    );
    let mut grown = Memento::new(BucketCount::MAX);
    assert!(matches!(
        grown.restore(),
        Err(Error::InvalidBucketCount { .. })
    ));
    let n = BucketCount::new(4).unwrap();
    assert_eq!(
        Memento::from_removals(n, &[3, 1]),
        Err(Error::ShrinkInRemovals { bucket: 3 })
    );
    assert_eq!(
        Memento::from_removals(n, &[1, 9]),
        Err(Error::NotABucket {
            bucket: 9,
            barray: 4
        })
    );
    assert_eq!(
        Memento::from_removals(n, &[0, 1, 2, 3]),
        Err(Error::LastWorkingBucket { bucket: 3 })
    );
}
