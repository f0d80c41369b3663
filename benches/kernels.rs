//! Throughput of every kernel this CPU runs and of the C++ Figure 1
//! reference, over 2^22 random keys, for N in {10, 1000, 10^6, 2^31-1}.
//! Compare a kernel with `reference` in the same group for its ratio.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jumpshard::{BucketCount, Kernel};

const KEYS: usize = 1 << 22;
const COUNTS: [u32; 4] = [10, 1000, 1_000_000, (1 << 31) - 1];

fn keys() -> Vec<u64> {
    let mut s = 0x0123_4567_89AB_CDEFu64;
    (0..KEYS)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
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
            b.iter(|| jumpshard::reference::batch(&keys, n as i32, &mut out_ref))
        });
        let count = BucketCount::new(n).unwrap();
        for kernel in Kernel::supported() {
            group.bench_with_input(BenchmarkId::from_parameter(kernel), &kernel, |b, k| {
                b.iter(|| k.batch(&keys, count, &mut out).unwrap())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
