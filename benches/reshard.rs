//! Move plans for 10 -> 12 and 12 -> 10 buckets over 2^22 random keys: the
//! naive plan (both counts evaluated for every key), the plan on one thread
//! and on every core, and `plan_into`, the plan into the caller's columns
//! that the C ABI's `jumpshard_plan` runs (with and without `from`). The
//! plan evaluates 7/6 counts per key instead of 2.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::{BucketCount, MovePlan, PlanScratch, Resize};

const KEYS: usize = 1 << 22;

fn plans(c: &mut Criterion) {
    let keys = jumpshard::verify::SplitMix64::new(0xFEDC_BA98_7654_3210).keys(KEYS);
    let (mut before, mut after) = (vec![0u32; KEYS], vec![0u32; KEYS]);
    let mut plan = MovePlan::new();
    let mut scratch = PlanScratch::default();
    let mut positions = vec![0u64; KEYS];
    let (mut from_column, mut to_column) = (vec![0u32; KEYS], vec![0u32; KEYS]);
    for (from, to) in [(10, 12), (12, 10)] {
        let (n, m) = (
            BucketCount::new(from).unwrap(),
            BucketCount::new(to).unwrap(),
        );
        let resize = Resize::new(n, m).unwrap();
        let mut group = c.benchmark_group(format!("plan/{from}->{to}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        group.sample_size(10);
        group.bench_function("naive, 1 thread", |b| {
            b.iter(|| {
                jumpshard::batch(black_box(&keys), n, &mut before).unwrap();
                jumpshard::batch(black_box(&keys), m, &mut after).unwrap();
                let moved = before.iter().zip(&after).filter(|(x, y)| x != y).count();
                black_box(moved);
            })
        });
        group.bench_function("plan, 1 thread", |b| {
            b.iter(|| {
                resize.plan(black_box(&keys), 0, &mut plan);
                black_box(plan.len());
            })
        });
        for (name, with_from) in [
            ("plan_into, 1 thread", true),
            ("plan_into without from", false),
        ] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    let from_column = with_from.then_some(&mut from_column[..]);
                    let moved = resize
                        .plan_into(
                            black_box(&keys),
                            &mut scratch,
                            &mut positions,
                            from_column,
                            &mut to_column,
                        )
                        .unwrap();
                    black_box(moved);
                })
            });
        }
        group.bench_function("plan_parallel, all cores", |b| {
            b.iter(|| {
                resize.plan_parallel(black_box(&keys), 0, &mut plan, 0);
                black_box(plan.len());
            })
        });
        group.bench_function("batch_parallel at the new count, all cores", |b| {
            b.iter(|| {
                jumpshard::batch_parallel(black_box(&keys), m, &mut after, 0).unwrap();
                black_box(&mut after);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, plans);
criterion_main!(benches);
