//! Byte-string keys: the golden vectors (produced outside the crate), the
//! batch against the single-key function, and every offsets error.

use crate::common;

use common::{reference_batch, SplitMix64};
use jumpshard::{batch_bytes, bucket_bytes, bytes, BucketCount, Error};

fn count(n: u32) -> BucketCount {
    BucketCount::new(n).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn golden_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/golden.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows = 0;
    for line in text.lines().filter(|l| l.starts_with("bytes ")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 5, "{line}");
        let key = unhex(f[1]);
        let n: u32 = f[2].parse().unwrap();
        let hash: u64 = f[3].parse().unwrap();
        let want: u32 = f[4].parse().unwrap();
        assert_eq!(bytes::prehash(&key), hash, "{line}");
        assert_eq!(reference_batch(&[hash], n), [want], "reference: {line}");
        assert_eq!(bucket_bytes(&key, count(n)), want, "{line}");
        let mut out = [u32::MAX];
        batch_bytes(&key, &[0usize, key.len()], count(n), &mut out).unwrap();
        assert_eq!(out, [want], "{line}");
        rows += 1;
    }
    assert!(rows >= 80, "only {rows} bytes lines");
}

#[test]
fn seeded_golden_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/seeded_golden.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows = 0;
    for line in text.lines().filter(|l| l.starts_with("bytes_seeded ")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 6, "{line}");
        let key = unhex(f[1]);
        let seed: u64 = f[2].parse().unwrap();
        let n: u32 = f[3].parse().unwrap();
        let hash: u64 = f[4].parse().unwrap();
        let want: u32 = f[5].parse().unwrap();
        assert_ne!(seed, 0, "{line}");
        assert_eq!(bytes::prehash_seeded(&key, seed), hash, "{line}");
        assert_eq!(reference_batch(&[hash], n), [want], "reference: {line}");
        let mut out = [u32::MAX];
        bytes::batch_bytes_seeded(&key, &[0usize, key.len()], seed, count(n), &mut out).unwrap();
        assert_eq!(out, [want], "{line}");
        rows += 1;
    }
    assert!(rows >= 300, "only {rows} bytes_seeded lines");
}

#[test]
fn seed_zero_is_the_unseeded_prehash() {
    let (data, offsets) = corpus(600);
    let n = count(1000);
    let (mut seeded, mut plain) = (vec![0u32; 600], vec![1u32; 600]);
    bytes::batch_bytes_seeded(&data, &offsets, 0, n, &mut seeded).unwrap();
    batch_bytes(&data, &offsets, n, &mut plain).unwrap();
    assert_eq!(seeded, plain);
    for w in offsets.windows(2) {
        let key = &data[w[0] as usize..w[1] as usize];
        assert_eq!(bytes::prehash_seeded(key, 0), bytes::prehash(key));
    }
}

/// Random byte strings of every length 0..300, back to back.
fn corpus(keys: usize) -> (Vec<u8>, Vec<i64>) {
    let mut rng = SplitMix64::new(0xB17E5);
    let mut data = Vec::new();
    let mut offsets = vec![0i64];
    for i in 0..keys {
        let len = i % 300;
        data.extend((0..len).map(|_| rng.next_u64() as u8));
        offsets.push(data.len() as i64);
    }
    (data, offsets)
}

#[test]
fn batch_equals_single_keys_for_every_offset_type() {
    let (data, offsets) = corpus(3000);
    let singles: Vec<&[u8]> = offsets
        .windows(2)
        .map(|w| &data[w[0] as usize..w[1] as usize])
        .collect();
    for n in [1, 10, 1000, i32::MAX as u32] {
        let want: Vec<u32> = singles.iter().map(|s| bucket_bytes(s, count(n))).collect();
        let mut out = vec![u32::MAX; want.len()];
        batch_bytes(&data, &offsets, count(n), &mut out).unwrap();
        assert_eq!(out, want);
        let as_i32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        batch_bytes(&data, &as_i32, count(n), &mut out).unwrap();
        assert_eq!(out, want);
        let as_u64: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
        batch_bytes(&data, &as_u64, count(n), &mut out).unwrap();
        assert_eq!(out, want);
    }
    let mut keys = vec![0u64; singles.len()];
    bytes::prehash_batch(&data, &offsets, &mut keys).unwrap();
    assert!(keys
        .iter()
        .zip(&singles)
        .all(|(&k, s)| k == bytes::prehash(s)));
    // Every call length 0 to 300, from misaligned starts, with seeds.
    for seed in [0, 1, 0x5EED_0000_0000_0007, u64::MAX] {
        for len in 0..=300 {
            let from = (len * 7) % 13;
            let mut keys = vec![0u64; len];
            bytes::prehash_batch_seeded(&data, &offsets[from..=from + len], seed, &mut keys)
                .unwrap();
            let want = singles[from..from + len]
                .iter()
                .map(|s| bytes::prehash_seeded(s, seed));
            assert!(keys.iter().copied().eq(want), "seed {seed}, {len} keys");
        }
    }
}

#[test]
fn an_arrow_slice_need_not_start_at_zero() {
    let data = b"__abc_de";
    let mut out = [0u32; 2];
    batch_bytes(data, &[2u32, 5, 8], count(1000), &mut out).unwrap();
    assert_eq!(
        out,
        [
            bucket_bytes(b"abc", count(1000)),
            bucket_bytes(b"_de", count(1000))
        ]
    );
}

#[test]
fn bad_offsets_are_errors_and_leave_the_output_untouched() {
    let data = b"abcdef";
    let n = count(10);
    let cases: Vec<(Vec<i64>, usize, Error)> = vec![
        (
            vec![0, 3],
            2,
            Error::OffsetCount {
                offsets: 2,
                keys: 2,
            },
        ),
        (
            vec![0, 3, 6, 6],
            2,
            Error::OffsetCount {
                offsets: 4,
                keys: 2,
            },
        ),
        (
            vec![],
            0,
            Error::OffsetCount {
                offsets: 0,
                keys: 0,
            },
        ),
        (
            vec![0, 3, 7],
            2,
            Error::OffsetOutOfRange {
                index: 2,
                offset: 7,
                data_len: 6,
            },
        ),
        (
            vec![-1, 3, 6],
            2,
            Error::OffsetOutOfRange {
                index: 0,
                offset: -1,
                data_len: 6,
            },
        ),
        (
            vec![0, 4, 3],
            2,
            Error::OffsetDecreasing {
                index: 2,
                offset: 3,
                previous: 4,
            },
        ),
        (
            vec![0, 4, 3, 6],
            3,
            Error::OffsetDecreasing {
                index: 2,
                offset: 3,
                previous: 4,
            },
        ),
    ];
    for (offsets, keys, want) in cases {
        let mut out = vec![u32::MAX; keys];
        assert_eq!(batch_bytes(data, &offsets, n, &mut out), Err(want.clone()));
        assert!(out.iter().all(|&b| b == u32::MAX), "{offsets:?}");
        let mut hashes = vec![u64::MAX; keys];
        assert_eq!(
            bytes::prehash_batch(data, &offsets, &mut hashes),
            Err(want.clone())
        );
        assert!(hashes.iter().all(|&h| h == u64::MAX), "{offsets:?}");
        assert!(!want.to_string().is_empty());
    }
    // Offsets past what isize holds are out of range, not a panic.
    let mut out = [0u32; 1];
    assert_eq!(
        batch_bytes(data, &[0u64, u64::MAX], n, &mut out),
        Err(Error::OffsetOutOfRange {
            index: 1,
            offset: u64::MAX.into(),
            data_len: 6
        })
    );
}

#[test]
fn empty_batch_with_one_offset_is_fine() {
    let mut out: [u32; 0] = [];
    batch_bytes(b"", &[0i32], count(3), &mut out).unwrap();
    batch_bytes(b"xyz", &[3i32], count(3), &mut out).unwrap();
}
