//! Weighted tables of N = 1000 slots under the weight mixes operators
//! meet (all equal, two host sizes, one heavy node, half the slots drained
//! to 0) and a table of 2^20 slots with one positive, each beside the C++
//! Figure 1 reference over the same keys (the yardstick every speed is
//! quoted against).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::weights::Weights;

const N: usize = 1000;

fn mixes() -> Vec<(&'static str, Vec<f64>)> {
    let mut heavy = vec![1.0; N];
    heavy[N / 2] = 100.0;
    let mut one_positive = vec![0.0; 1 << 20];
    one_positive[12345] = 1.0;
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
    ]
}

fn weighted(c: &mut Criterion) {
    for (name, weights) in mixes() {
        // The slow mixes on fewer keys, so that a sample takes under a second.
        let keys_len = if name.starts_with("2^20") {
            1 << 12
        } else {
            1 << 18
        };
        let keys = jumpshard::verify::SplitMix64::new(0xFEED_F00D).keys(keys_len);
        let mut out = vec![0u32; keys_len];
        let mut out_ref = vec![0i32; keys_len];
        let table = Weights::new(&weights).unwrap();
        let n = weights.len() as i32;
        let mut group = c.benchmark_group(format!("weights/{name}"));
        group.throughput(Throughput::Elements(keys_len as u64));
        group.sample_size(10);
        group.bench_function("Figure 1 reference", |b| {
            b.iter(|| jumpshard::reference::batch(black_box(&keys), n, &mut out_ref))
        });
        group.bench_function("batch", |b| {
            b.iter(|| table.batch(black_box(&keys), &mut out).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, weighted);
criterion_main!(benches);
