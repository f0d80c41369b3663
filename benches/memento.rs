//! Memento lookups with 0, 1, 10, 50 and 99% of 1000 buckets removed, over
//! 2^20 random keys: the batch (Figure 1 on the kernels, then the keys on
//! removed buckets resolved), the one-key-at-a-time loop, and the C++
//! Figure 1 reference (the yardstick every speed is quoted against);
//! replica sets of 3 under the same removals; and plain replica sets of 3
//! against the same reference.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::{replicas, BucketCount, Memento};

const KEYS: usize = 1 << 20;
const N: u32 = 1000;

fn lookups(c: &mut Criterion) {
    let keys = jumpshard::verify::SplitMix64::new(0xFEED_F00D).keys(KEYS);
    let mut out = vec![0u32; KEYS];
    let mut out_ref = vec![0i32; KEYS];
    let mut removal_order = jumpshard::verify::SplitMix64::new(99);
    let mut memento = Memento::new(BucketCount::new(N).unwrap());
    let mut columns = vec![vec![0u32; KEYS]; 3];
    for percent in [0u32, 1, 10, 50, 99] {
        while memento.removals().len() < (N * percent / 100) as usize {
            let b = (removal_order.next_u64() % u64::from(N)) as u32;
            if !memento.is_removed(b) && b != N - 1 {
                memento.remove(b).unwrap();
            }
        }
        let mut group = c.benchmark_group(format!("memento/N={N}/{percent}% removed"));
        group.throughput(Throughput::Elements(KEYS as u64));
        group.sample_size(10);
        group.bench_function("Figure 1 reference", |b| {
            b.iter(|| jumpshard::reference::batch(black_box(&keys), N as i32, &mut out_ref))
        });
        group.bench_function("plain batch", |b| {
            b.iter(|| {
                jumpshard::batch(black_box(&keys), BucketCount::new(N).unwrap(), &mut out).unwrap()
            })
        });
        group.bench_function("batch", |b| {
            b.iter(|| memento.batch(black_box(&keys), &mut out).unwrap())
        });
        group.bench_function("replicas k=3", |b| {
            b.iter(|| {
                let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
                memento.replicas_batch(black_box(&keys), &mut refs).unwrap()
            })
        });
        group.bench_function("one key at a time", |b| {
            b.iter(|| {
                for (o, &k) in out.iter_mut().zip(black_box(&keys)) {
                    *o = memento.bucket(k);
                }
            })
        });
        group.finish();
    }
    let n = BucketCount::new(N).unwrap();
    let mut group = c.benchmark_group(format!("replicas/N={N}/k=3"));
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(10);
    group.bench_function("Figure 1 reference", |b| {
        b.iter(|| jumpshard::reference::batch(black_box(&keys), N as i32, &mut out_ref))
    });
    group.bench_function("batch", |b| {
        b.iter(|| {
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            replicas::batch(black_box(&keys), n, &mut refs).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, lookups);
criterion_main!(benches);
