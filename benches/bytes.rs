//! Byte-string keys: `batch_bytes` (XXH3-64, seed 0 and a tenant seed,
//! then jump) and `Memento::batch_bytes` (XXH64, nothing removed) over
//! 2^20 keys of four shapes, N = 1000: 8 bytes, 16 bytes, lengths mixed
//! from 4 to 32 bytes, and 40-byte ids (hex text). Each shape's group also
//! times the C++ Figure 1 (`Figure 1 reference`) and the plain `batch` over
//! 2^20 u64 keys, so that a byte-key call reads as a ratio to Figure 1
//! and a fraction of plain `batch` off one run; and the pre-hash alone,
//! `prehash_batch` beside `xxhash_rust`'s XXH3-64 one key at a time.
//!
//! `cargo bench --bench bytes -- 'mixed'` runs the mixed lengths.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::verify::SplitMix64;
use jumpshard::{bytes, BucketCount, Memento};

const KEYS: usize = 1 << 20;
const N: u32 = 1000;

/// Byte strings back to back, and their `KEYS + 1` offsets.
type Layout = (Vec<u8>, Vec<i32>);

/// An Arrow-style layout of `KEYS` byte strings whose lengths `length`
/// draws and whose bytes `byte` makes from a random word.
fn layout(mut length: impl FnMut(&mut SplitMix64) -> usize, byte: fn(u64) -> u8) -> Layout {
    let mut random = SplitMix64::new(0xB17E5);
    let mut data = Vec::new();
    let mut offsets = vec![0i32];
    for _ in 0..KEYS {
        let len = length(&mut random);
        data.extend((0..len).map(|_| byte(random.next_u64())));
        offsets.push(data.len() as i32);
    }
    (data, offsets)
}

fn shapes() -> Vec<(&'static str, Layout)> {
    let any = |w: u64| w as u8;
    let hex = |w: u64| b"0123456789abcdef"[(w & 15) as usize];
    vec![
        ("8 bytes", layout(|_| 8, any)),
        ("16 bytes", layout(|_| 16, any)),
        (
            "mixed 4-32 bytes",
            layout(|r| 4 + (r.next_u64() % 29) as usize, any),
        ),
        ("40-byte ids", layout(|_| 40, hex)),
    ]
}

fn byte_keys(c: &mut Criterion) {
    let keys = SplitMix64::new(0x91ACE).keys(KEYS);
    let mut out = vec![0u32; KEYS];
    let mut hashes = vec![0u64; KEYS];
    let mut out_ref = vec![0i32; KEYS];
    let n = BucketCount::new(N).unwrap();
    let memento = Memento::new(n);
    for (name, (data, offsets)) in shapes() {
        let mut group = c.benchmark_group(format!("bytes/N={N}/{name}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(2));
        group.bench_function("Figure 1 reference", |b| {
            b.iter(|| jumpshard::reference::batch(black_box(&keys), N as i32, &mut out_ref))
        });
        group.bench_function("batch", |b| {
            b.iter(|| jumpshard::batch(black_box(&keys), n, &mut out).unwrap())
        });
        for seed in [0, 0x7E4A_4701] {
            group.bench_function(format!("batch_bytes, seed {seed:#x}"), |b| {
                b.iter(|| {
                    bytes::batch_bytes_seeded(black_box(&data), &offsets, seed, n, &mut out)
                        .unwrap()
                })
            });
        }
        // The pre-hash alone: on the lanes, and key by key.
        group.bench_function("prehash_batch", |b| {
            b.iter(|| bytes::prehash_batch(black_box(&data), &offsets, &mut hashes).unwrap())
        });
        group.bench_function("xxh3_64, key by key", |b| {
            b.iter(|| {
                for (h, w) in hashes.iter_mut().zip(black_box(&offsets).windows(2)) {
                    *h = xxhash_rust::xxh3::xxh3_64(&data[w[0] as usize..w[1] as usize]);
                }
            })
        });
        group.bench_function("Memento::batch_bytes", |b| {
            b.iter(|| {
                memento
                    .batch_bytes(black_box(&data), &offsets, &mut out)
                    .unwrap()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, byte_keys);
criterion_main!(benches);
