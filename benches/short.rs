//! Short batches, the storage hot path: 1 to 4096 keys per call through the
//! public `jumpshard::batch` (the dispatch included), on every kernel this
//! CPU runs, against the C++ Figure 1 loop over the same keys. Compare a
//! kernel with `reference` in the same group for its ratio.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jumpshard::{BucketCount, Kernel};

const SIZES: [usize; 10] = [1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096];
const COUNTS: [u32; 2] = [1000, 1_000_000];

fn short(c: &mut Criterion) {
    let keys = jumpshard::verify::SplitMix64::new(0x5407_7BA7).keys(4096);
    let mut out = vec![0u32; keys.len()];
    let mut out_ref = vec![0i32; keys.len()];
    let before = jumpshard::active_kernel();
    for n in COUNTS {
        let count = BucketCount::new(n).unwrap();
        for size in SIZES {
            let mut group = c.benchmark_group(format!("short/N={n}/keys={size}"));
            group.throughput(Throughput::Elements(size as u64));
            let (keys, out, out_ref) = (&keys[..size], &mut out[..size], &mut out_ref[..size]);
            group.bench_function("reference", |b| {
                b.iter(|| {
                    jumpshard::reference::batch(black_box(keys), n as i32, out_ref);
                    black_box(&mut *out_ref);
                })
            });
            for kernel in Kernel::supported() {
                jumpshard::set_active_kernel(kernel);
                group.bench_with_input(BenchmarkId::from_parameter(kernel), &kernel, |b, _| {
                    b.iter(|| {
                        jumpshard::batch(black_box(keys), count, out).unwrap();
                        black_box(&mut *out);
                    })
                });
            }
            group.finish();
        }
    }
    jumpshard::set_active_kernel(before);
}

criterion_group!(benches, short);
criterion_main!(benches);
