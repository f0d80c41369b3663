//! Weighted tables of N = 1000 slots under the weight mixes operators
//! meet (all equal, two host sizes, one heavy node, half the slots drained
//! to 0) and tables of 2^20 slots with one and with 16 positive (the
//! latter all through the fallback), each beside plain `batch` over the
//! same N (the goals are fractions of it) and the C++ Figure 1 reference
//! over the same keys (the yardstick every speed is quoted against), on
//! 2^20 keys a call.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::weights::Weights;

const N: usize = 1000;

fn mixes() -> Vec<(&'static str, Vec<f64>)> {
    let mut heavy = vec![1.0; N];
    heavy[N / 2] = 100.0;
    let mut one_positive = vec![0.0; 1 << 20];
    one_positive[12345] = 1.0;
    let mut sixteen_positive = vec![0.0; 1 << 20];
    for i in 0..16 {
        sixteen_positive[(i * 65_521 + 777) % (1 << 20)] = 1.0;
    }
    vec![
        ("all equal", vec![1.0; N]),
        (
            "half 1, half 4",
            (0..N).map(|i| if i % 2 == 0 { 1.0 } else { 4.0 }).collect(),
        ),
        ("one node at 100x", heavy),
        (
            "half drained to 0",
            (0..N).map(|i| (i % 2) as f64).collect(),
        ),
        ("2^20 slots, one positive", one_positive),
        ("2^20 slots, 16 positive", sixteen_positive),
    ]
}

fn weighted(c: &mut Criterion) {
    for (name, weights) in mixes() {
        let keys_len = 1 << 20;
        let keys = jumpshard::verify::SplitMix64::new(0xFEED_F00D).keys(keys_len);
        let mut out = vec![0u32; keys_len];
        let mut out_ref = vec![0i32; keys_len];
        let table = Weights::new(&weights).unwrap();
        let n = weights.len() as i32;
        let count = jumpshard::BucketCount::new(n as u32).unwrap();
        let mut group = c.benchmark_group(format!("weights/{name}"));
        group.throughput(Throughput::Elements(keys_len as u64));
        group.sample_size(10);
        group.bench_function("Figure 1 reference", |b| {
            b.iter(|| jumpshard::reference::batch(black_box(&keys), n, &mut out_ref))
        });
        group.bench_function("plain batch", |b| {
            b.iter(|| jumpshard::batch(black_box(&keys), count, &mut out).unwrap())
        });
        group.bench_function("batch", |b| {
            b.iter(|| table.batch(black_box(&keys), &mut out).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, weighted);
criterion_main!(benches);
