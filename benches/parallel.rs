//! The parallel batch on 2 threads against the single-threaded batch, on
//! the same 2^22 random keys at N = 1000 (the target is at least 1.8x on a
//! machine with 2 idle cores).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::BucketCount;

const KEYS: usize = 1 << 22;

fn parallel(c: &mut Criterion) {
    let keys = jumpshard::verify::SplitMix64::new(0x0123_4567_89AB_CDEF).keys(KEYS);
    let mut out = vec![0u32; KEYS];
    let n = BucketCount::new(1000).unwrap();
    let mut group = c.benchmark_group("batch/N=1000");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(10);
    group.bench_function("1 thread", |b| {
        b.iter(|| {
            jumpshard::batch(black_box(&keys), n, &mut out).unwrap();
            black_box(&mut out);
        })
    });
    group.bench_function("parallel, 2 threads", |b| {
        b.iter(|| {
            jumpshard::batch_parallel(black_box(&keys), n, &mut out, 2).unwrap();
            black_box(&mut out);
        })
    });
    group.finish();
}

criterion_group!(benches, parallel);
criterion_main!(benches);
