//! Short batches, the storage hot path: 1 to 4096 keys per call through the
//! public `jumpshard::batch` (the dispatch included), on every kernel this
//! CPU runs, against the C++ Figure 1 loop over the same keys. Compare a
//! kernel with `reference` in the same group for its ratio.
//!
//! The sizes are fine enough to show a dip where a kernel switches paths
//! (a ratio that falls as the batch grows; see docs/kernels.md). Each SIMD
//! kernel runs with the division strategy this CPU's table picks, and with
//! IEEE division too where the table picks another (`avx512:ieee`), as
//! other CPUs run it. One second of measurement a point:
//! `cargo bench --bench short -- 'N=1000/'` runs one bucket count.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jumpshard::{BucketCount, Division, Kernel};

const SIZES: [usize; 19] = [
    1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096,
];
const COUNTS: [u32; 2] = [1000, 1_000_000];

/// Every kernel this CPU runs with its table's division, then each SIMD
/// kernel with IEEE division where the table picks another.
fn kernels() -> Vec<(String, Kernel)> {
    let mut kernels: Vec<(String, Kernel)> = Kernel::supported()
        .into_iter()
        .map(|k| (k.name().to_owned(), k))
        .collect();
    for k in Kernel::supported() {
        if k.division() != Division::Ieee {
            if let Ok(ieee) = k.with_division(Division::Ieee) {
                kernels.push((format!("{}:ieee", k.name()), ieee));
            }
        }
    }
    kernels
}

fn short(c: &mut Criterion) {
    let keys = jumpshard::verify::SplitMix64::new(0x5407_7BA7).keys(4096);
    let mut out = vec![0u32; keys.len()];
    let mut out_ref = vec![0i32; keys.len()];
    let before = jumpshard::active_kernel();
    let kernels = kernels();
    for n in COUNTS {
        let count = BucketCount::new(n).unwrap();
        for size in SIZES {
            let mut group = c.benchmark_group(format!("short/N={n}/keys={size}"));
            group.throughput(Throughput::Elements(size as u64));
            group.warm_up_time(Duration::from_millis(300));
            group.measurement_time(Duration::from_secs(1));
            let (keys, out, out_ref) = (&keys[..size], &mut out[..size], &mut out_ref[..size]);
            group.bench_function("reference", |b| {
                b.iter(|| {
                    jumpshard::reference::batch(black_box(keys), n as i32, out_ref);
                    black_box(&mut *out_ref);
                })
            });
            for (name, kernel) in &kernels {
                jumpshard::set_active_kernel(*kernel);
                group.bench_with_input(BenchmarkId::from_parameter(name), kernel, |b, _| {
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
