//! The C ABI's move plan against the Rust one on the same random keys (2^17,
//! which stay in cache, and 2^22), 10 -> 12 and 12 -> 10 buckets, one thread: `jumpshard_plan` writes into
//! caller buffers of `capacity = len` (with and without `sources`), and
//! `Resize::plan` into a reused `MovePlan`. The C plan should stay within
//! 10% of the Rust one. "Figure 1 at both counts" is the naive plan on the
//! C++ reference, the yardstick every speed is quoted against.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::{BucketCount, MovePlan, Resize};

extern "C" {
    fn jumpshard_plan(
        keys: *const u64,
        len: usize,
        from_buckets: i32,
        to_buckets: i32,
        positions: *mut u64,
        sources: *mut i32,
        destinations: *mut i32,
        capacity: usize,
        moved: *mut usize,
    ) -> i32;
}

fn plans(c: &mut Criterion) {
    for keys in [1 << 17, 1 << 22] {
        plans_of(c, keys);
    }
}

fn plans_of(c: &mut Criterion, n: usize) {
    let keys = jumpshard::verify::SplitMix64::new(0xFEDC_BA98_7654_3210).keys(n);
    let mut plan = MovePlan::new();
    let (mut before, mut after) = (vec![0i32; n], vec![0i32; n]);
    let mut positions = vec![0u64; n];
    let (mut sources, mut destinations) = (vec![0i32; n], vec![0i32; n]);
    for (from, to) in [(10, 12), (12, 10)] {
        let resize = Resize::new(
            BucketCount::new(from).unwrap(),
            BucketCount::new(to).unwrap(),
        )
        .unwrap();
        let mut group = c.benchmark_group(format!("ffi_plan/{n} keys/{from}->{to}"));
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(20);
        group.bench_function("Figure 1 at both counts", |b| {
            b.iter(|| {
                jumpshard::reference::batch(black_box(&keys), from as i32, &mut before);
                jumpshard::reference::batch(black_box(&keys), to as i32, &mut after);
                black_box(before.iter().zip(&after).filter(|(x, y)| x != y).count());
            })
        });
        group.bench_function("Resize::plan", |b| {
            b.iter(|| {
                resize.plan(black_box(&keys), 0, &mut plan);
                black_box(plan.len());
            })
        });
        for (name, with_sources) in [
            ("jumpshard_plan", true),
            ("jumpshard_plan, no sources", false),
        ] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    let mut moved = 0usize;
                    let sources = match with_sources {
                        true => sources.as_mut_ptr(),
                        false => std::ptr::null_mut(),
                    };
                    // SAFETY: every buffer holds n elements, the capacity
                    // passed, and none overlaps another.
                    let status = unsafe {
                        jumpshard_plan(
                            black_box(keys.as_ptr()),
                            n,
                            from as i32,
                            to as i32,
                            positions.as_mut_ptr(),
                            sources,
                            destinations.as_mut_ptr(),
                            n,
                            &mut moved,
                        )
                    };
                    assert_eq!(status, 0);
                    black_box(moved);
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, plans);
criterion_main!(benches);
