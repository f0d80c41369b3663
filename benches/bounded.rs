//! Bounded-load routing on N = 1000 nodes with c = 1.25 and 100 000
//! requests in flight (a mean load of 100, a bound of 125): one acquire and
//! its release per key (or the acquires of 256 keys in one batch, then
//! each release, or their releases in one batch too), on one thread and on two sharing the router, beside
//! the C++ Figure 1 reference one key at a time over the same keys (the
//! yardstick every speed is quoted against). Uniform keys find their
//! bucket under the bound; the hot mix sends half the requests to 10 keys
//! that also hold 300 requests each in flight: their buckets are full, so
//! those requests walk their replica sets.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::placement::BoundedLoads;
use jumpshard::{BucketCount, Memento};

const N: u32 = 1000;
const KEYS: usize = 1 << 16;
const IN_FLIGHT: u64 = 100_000;

/// A router with `IN_FLIGHT` requests of other keys held, and 300 of each
/// hot key (0 to 9) when `hot`.
fn loaded_router(hot: bool) -> BoundedLoads {
    let router = BoundedLoads::new(Memento::new(BucketCount::new(N).unwrap()), 1.25).unwrap();
    for key in jumpshard::verify::SplitMix64::new(0xB0B).keys(IN_FLIGHT as usize) {
        router.acquire(key);
    }
    for key in (0..10).filter(|_| hot) {
        for _ in 0..300 {
            router.acquire(key);
        }
    }
    router
}

/// Every key acquired and released at once.
fn pairs(router: &BoundedLoads, keys: &[u64]) {
    for &key in keys {
        let node = router.acquire(black_box(key));
        router.release(node).unwrap();
    }
}

/// The keys acquired 256 at a time by one batch call, each block's nodes
/// then released one by one.
fn batch_pairs(router: &BoundedLoads, keys: &[u64]) {
    let mut nodes = [0u32; 256];
    for block in keys.chunks(nodes.len()) {
        let nodes = &mut nodes[..block.len()];
        router.acquire_batch(black_box(block), nodes).unwrap();
        for &node in nodes.iter() {
            router.release(node).unwrap();
        }
    }
}

/// The keys acquired 256 at a time by one batch call, each block's nodes
/// then released by one batch call.
fn batches(router: &BoundedLoads, keys: &[u64]) {
    let mut nodes = [0u32; 256];
    for block in keys.chunks(nodes.len()) {
        let nodes = &mut nodes[..block.len()];
        router.acquire_batch(black_box(block), nodes).unwrap();
        router.release_batch(nodes).unwrap();
    }
}

/// Figure 1's reference, one key at a time.
fn figure1(keys: &[u64]) {
    for &key in keys {
        black_box(jumpshard::reference::jump_consistent_hash(
            black_box(key),
            N as i32,
        ));
    }
}

/// `work` over the two halves of `keys` on two threads, `iters` times.
fn two_threads(iters: u64, keys: &[u64], work: impl Fn(&[u64]) + Sync) -> Duration {
    let (a, b) = keys.split_at(keys.len() / 2);
    let start = Instant::now();
    for _ in 0..iters {
        std::thread::scope(|s| {
            s.spawn(|| work(a));
            s.spawn(|| work(b));
        });
    }
    start.elapsed()
}

fn bounded(c: &mut Criterion) {
    let uniform = jumpshard::verify::SplitMix64::new(0xFEED).keys(KEYS);
    let hot: Vec<u64> = uniform
        .iter()
        .enumerate()
        .map(|(i, &k)| if i % 2 == 0 { (i as u64 / 2) % 10 } else { k })
        .collect();
    for (name, keys) in [
        ("uniform keys", &uniform),
        ("half the requests on 10 keys", &hot),
    ] {
        let router = loaded_router(std::ptr::eq(keys, &hot));
        let mut group = c.benchmark_group(format!("bounded/{name}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        group.sample_size(10);
        group.bench_function("Figure 1 reference, 1 thread", |b| b.iter(|| figure1(keys)));
        group.bench_function("acquire+release, 1 thread", |b| {
            b.iter(|| pairs(&router, keys))
        });
        group.bench_function("acquire_batch(256)+release, 1 thread", |b| {
            b.iter(|| batch_pairs(&router, keys))
        });
        group.bench_function("acquire_batch(256)+release_batch, 1 thread", |b| {
            b.iter(|| batches(&router, keys))
        });
        group.bench_function("Figure 1 reference, 2 threads", |b| {
            b.iter_custom(|iters| two_threads(iters, keys, figure1))
        });
        group.bench_function("acquire+release, 2 threads", |b| {
            b.iter_custom(|iters| two_threads(iters, keys, |part| pairs(&router, part)))
        });
        group.bench_function("acquire_batch(256)+release, 2 threads", |b| {
            b.iter_custom(|iters| two_threads(iters, keys, |part| batch_pairs(&router, part)))
        });
        group.bench_function("acquire_batch(256)+release_batch, 2 threads", |b| {
            b.iter_custom(|iters| two_threads(iters, keys, |part| batches(&router, part)))
        });
        group.finish();
        let held = if std::ptr::eq(keys, &hot) { 3000 } else { 0 };
        assert_eq!(router.total(), IN_FLIGHT + held);
    }
}

criterion_group!(benches, bounded);
criterion_main!(benches);
