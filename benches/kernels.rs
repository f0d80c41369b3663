//! Throughput of every kernel this CPU runs and of the C++ Figure 1
//! reference, over 2^22 random keys, for N in {10, 1000, 10^6, 2^31-1}.
//! Compare a kernel with `reference` in the same group for its ratio.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jumpshard::{BucketCount, Kernel};

const KEYS: usize = 1 << 22;
const COUNTS: [u32; 4] = [10, 1000, 1_000_000, (1 << 31) - 1];

fn keys() -> Vec<u64> {
    jumpshard::verify::SplitMix64::new(0x0123_4567_89AB_CDEF).keys(KEYS)
}

fn kernels(c: &mut Criterion) {
    let keys = keys();
    let mut out = vec![0u32; KEYS];
    let mut out_ref = vec![0i32; KEYS];
    for n in COUNTS {
        let mut group = c.benchmark_group(format!("jump/N={n}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        group.sample_size(10);
        group.bench_function("reference", |b| {
            b.iter(|| {
                jumpshard::reference::batch(black_box(&keys), n as i32, &mut out_ref);
                black_box(&mut out_ref);
            })
        });
        let count = BucketCount::new(n).unwrap();
        for kernel in Kernel::supported() {
            group.bench_with_input(BenchmarkId::from_parameter(kernel), &kernel, |b, k| {
                b.iter(|| {
                    k.batch(black_box(&keys), count, &mut out).unwrap();
                    black_box(&mut out);
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
