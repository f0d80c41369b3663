//! Memento lookups against the C++ reference written from the
//! specification (`reference/memento.cpp`): every kernel's batches, u64 and
//! byte keys, over random removal sequences from 1 to 99% of the buckets
//! with last-in-first-out restores mixed in, up to 2^31 - 1 buckets.

use crate::common;

use common::SplitMix64;
use jumpshard::{reference, BucketCount, Kernel, Memento};

/// The reference's XXH64, written from the specification, agrees with the
/// library's on lengths that take every branch of the algorithm.
#[test]
fn xxh64_of_the_reference_is_the_library_s() {
    let data: Vec<u8> = (0..300u32).map(|i| (i * 131 + 7) as u8).collect();
    for len in 0..data.len() {
        for seed in [0, 1, 99, u64::MAX, 1 << 40] {
            assert_eq!(
                reference::xxh64(&data[..len], seed),
                xxhash_rust::xxh64::xxh64(&data[..len], seed),
                "{len} bytes, seed {seed}"
            );
        }
    }
}

/// Random removals and restores on a cluster of `n`; after each batch of
/// them, every kernel's batch (u64 keys) and the byte-key batch must give
/// the reference's buckets.
fn check_cluster(n: u32, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let keys = rng.keys(2000);
    let byte_keys: Vec<Vec<u8>> = (0..300)
        .map(|i| rng.next_u64().to_le_bytes()[..(i % 9)].to_vec())
        .collect();
    let (data, offsets) = arrow_layout(&byte_keys);
    let mut m = Memento::new(BucketCount::new(n).unwrap());
    for percent in [1u64, 10, 50, 90, 99] {
        let target = |m: &Memento| (u64::from(m.barray().get()) * percent / 100) as usize;
        let mut guard = 0;
        while m.removals().len() < target(&m).min(m.barray().get() as usize - 1)
            && guard < 1_000_000
        {
            guard += 1;
            let b = (rng.next_u64() % u64::from(m.barray().get())) as u32;
            if m.is_removed(b) {
                continue;
            }
            m.remove(b).unwrap();
            if rng.next_u64().is_multiple_of(7) {
                m.restore().unwrap();
            }
        }
        let n = m.barray().get() as i32;
        let want: Vec<u32> = keys
            .iter()
            .map(|&k| reference::memento(k, n, m.removals()) as u32)
            .collect();
        let every_strategy = Kernel::supported().into_iter().flat_map(|k| {
            k.divisions()
                .iter()
                .map(move |&d| k.with_division(d).unwrap())
        });
        for kernel in every_strategy {
            {
                for (start, len) in [(0, 0), (1, 3), (3, 61), (0, keys.len())] {
                    let mut out = vec![u32::MAX; len];
                    m.batch_on(kernel, &keys[start..start + len], &mut out)
                        .unwrap();
                    assert_eq!(
                        out,
                        want[start..start + len],
                        "{kernel} ({} division), n {n}, {} removed",
                        kernel.division(),
                        m.removals().len()
                    );
                }
            }
        }
        let mut out = vec![0u32; byte_keys.len()];
        m.batch_bytes(&data, &offsets, &mut out).unwrap();
        for (key, &got) in byte_keys.iter().zip(&out) {
            assert_eq!(
                got as i32,
                reference::memento_bytes(key, n, m.removals()),
                "n {n}"
            );
            assert_eq!(got, m.bucket_bytes(key));
        }
    }
}

fn arrow_layout(keys: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
    let mut data = Vec::new();
    let mut offsets = vec![0u64];
    for k in keys {
        data.extend_from_slice(k);
        offsets.push(data.len() as u64);
    }
    (data, offsets)
}

#[test]
fn every_kernel_agrees_with_the_reference_on_small_clusters() {
    for (i, n) in [2u32, 3, 10, 64, 100, 1000].into_iter().enumerate() {
        check_cluster(n, 0x5EED + i as u64);
    }
}

#[test]
fn every_kernel_agrees_with_the_reference_on_large_clusters() {
    // The buckets removed are those of some of the keys, so that their
    // lookups take the rehash path; few of them, since the reference walks
    // its removal list linearly.
    let mut rng = SplitMix64::new(77);
    let keys = rng.keys(3000);
    for n in [1u32 << 20, (1 << 31) - 1] {
        let count = BucketCount::new(n).unwrap();
        let mut m = Memento::new(count);
        for &key in keys.iter().step_by(20) {
            let b = jumpshard::bucket(key, count);
            if !m.is_removed(b) && b + 1 != n {
                m.remove(b).unwrap();
            }
        }
        assert!(m.removals().len() > 100);
        let want: Vec<u32> = keys
            .iter()
            .map(|&k| reference::memento(k, n as i32, m.removals()) as u32)
            .collect();
        for kernel in Kernel::supported() {
            let mut out = vec![0u32; keys.len()];
            m.batch_on(kernel, &keys, &mut out).unwrap();
            assert_eq!(out, want, "{kernel}, n {n}");
            assert!(out.iter().all(|&b| !m.is_removed(b)));
        }
    }
}
