//! The streaming reshard from a `u64le` file against the same work in
//! memory, in one run: `batch_parallel` at the new count (the bare
//! evaluation), `plan_parallel` (the move plan), the reshard stream over
//! the keys in memory, and the reshard stream from the file (in the page
//! cache, so that the engine's cost shows, not the disk's). 10 -> 12
//! buckets over 2^24 random keys (a 128 MiB file), on every core.
//! `jumpshard bench --reshard FILE` measures the same on any file.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::{BucketCount, MovePlan, Resize};
use jumpshard_stream::reshard::{self, Workers};
use jumpshard_stream::{u64le_file, InMemory, NoProgress, Source};

const KEYS: usize = 1 << 24;

fn file_against_memory(c: &mut Criterion) {
    let keys: Arc<[u64]> = jumpshard::verify::SplitMix64::new(0x57AE).keys(KEYS).into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.u64");
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = Workers::new(threads);
    let (n, m) = (BucketCount::new(10).unwrap(), BucketCount::new(12).unwrap());
    let resize = Resize::new(n, m).unwrap();
    let mut buckets = vec![0u32; KEYS];
    let mut plan = MovePlan::new();

    let mut group = c.benchmark_group("reshard 10->12, all cores");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(10);
    group.bench_function("batch_parallel at 12, in memory", |b| {
        b.iter(|| jumpshard::batch_parallel(black_box(&keys), m, &mut buckets, 0).unwrap())
    });
    group.bench_function("plan_parallel, in memory", |b| {
        b.iter(|| {
            resize.plan_parallel(black_box(&keys), 0, &mut plan, 0);
            black_box(plan.len());
        })
    });
    group.bench_function("stream, in memory", |b| {
        b.iter(|| {
            let source = Source::Positional(Box::new(InMemory(keys.clone())));
            reshard::resize::<Vec<u8>>(resize, source, workers, &NoProgress, None).unwrap()
        })
    });
    group.bench_function("stream, from the file", |b| {
        b.iter(|| {
            let source = Source::Positional(u64le_file(&path).unwrap());
            reshard::resize::<Vec<u8>>(resize, source, workers, &NoProgress, None).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, file_against_memory);
criterion_main!(benches);
