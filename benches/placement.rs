//! The calls built on Figure 1, as `jumpshard bench --placement` measures
//! them: the plain batch, Memento after 0, 1, 10, 50 and 99% of the buckets
//! removed, replica sets of 3 (plain, and Memento after 10% removed),
//! weighted tables of four weight mixes, zoned replica sets of 3 over 3
//! zones, and the bounded-load router's acquire and release (one key at a
//! time, and batches of 256 acquired and released at once), over the same
//! 2^20 random keys at N = 1000. Each
//! call has a group of its own with the C++ Figure 1 over the same keys
//! (`Figure 1 reference`), so that its ratio is read off one run; the plain
//! batch is a group too, for the fraction of its speed a call keeps.
//!
//! `cargo bench --bench placement -- 'Memento'` runs the Memento groups.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::placement::BoundedLoads;
use jumpshard::verify::SplitMix64;
use jumpshard::weights::Weights;
use jumpshard::{replicas, BucketCount, Memento, NodeTable};

const KEYS: usize = 1 << 20;
/// A cluster of a thousand nodes, as in `jumpshard bench --placement`.
const N: u32 = 1000;

/// A Memento of `N` buckets with `percent` of them removed in the order
/// `jumpshard bench --placement` removes them (never the last bucket,
/// whose removal shrinks the array instead of being remembered).
fn removed(percent: u32) -> Memento {
    let mut order = SplitMix64::new(99);
    let mut memento = Memento::new(BucketCount::new(N).unwrap());
    while memento.removals().len() < (N * percent / 100) as usize {
        let b = (order.next_u64() % u64::from(N)) as u32;
        if !memento.is_removed(b) && b != N - 1 {
            memento.remove(b).unwrap();
        }
    }
    memento
}

/// The weight mixes of `jumpshard bench --placement`, by name.
fn mixes() -> [(&'static str, Vec<f64>); 4] {
    let mix = |f: fn(u32) -> f64| (0..N).map(f).collect::<Vec<f64>>();
    [
        ("all weights equal", mix(|_| 1.0)),
        (
            "half weight 1, half weight 4",
            mix(|i| [1.0, 4.0][i as usize % 2]),
        ),
        (
            "one node at 100x",
            mix(|i| if i == 0 { 100.0 } else { 1.0 }),
        ),
        ("half drained to 0", mix(|i| [1.0, 0.0][i as usize % 2])),
    ]
}

/// A bounded-load router with c = 1.25 and 100 requests per node held (a
/// bound of 125), as `jumpshard bench --placement` loads it.
fn loaded_router() -> BoundedLoads {
    let router = BoundedLoads::new(Memento::new(BucketCount::new(N).unwrap()), 1.25).unwrap();
    for key in SplitMix64::new(0xB0B).keys(100 * N as usize) {
        router.acquire(key);
    }
    router
}

/// A call over the keys, into `out` or (replica sets) the columns.
type Call<'a> = dyn FnMut(&[u64], &mut [u32], &mut [Vec<u32>]) + 'a;

/// The three columns of a replica set.
fn triple(columns: &mut [Vec<u32>]) -> Vec<&mut [u32]> {
    columns.iter_mut().map(|c| &mut c[..]).collect()
}

fn placement(c: &mut Criterion) {
    let keys = SplitMix64::new(0x91ACE).keys(KEYS);
    let mut out = vec![0u32; KEYS];
    let mut out_ref = vec![0i32; KEYS];
    let mut columns = vec![vec![0u32; KEYS]; 3];
    let n = BucketCount::new(N).unwrap();
    // Each group: Figure 1 over the keys, then `call` over them.
    let mut group = |name: &str, call: &mut Call| {
        let mut group = c.benchmark_group(format!("placement/N={N}/{name}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(2));
        group.bench_function("Figure 1 reference", |b| {
            b.iter(|| jumpshard::reference::batch(black_box(&keys), N as i32, &mut out_ref))
        });
        group.bench_function("call", |b| {
            b.iter(|| call(black_box(&keys), &mut out, &mut columns))
        });
        group.finish();
    };
    group("batch", &mut |keys, out, _| {
        jumpshard::batch(keys, n, out).unwrap()
    });
    for percent in [0, 1, 10, 50, 99] {
        let memento = removed(percent);
        group(
            &format!("Memento::batch, {percent}% removed"),
            &mut |keys, out, _| memento.batch(keys, out).unwrap(),
        );
    }
    group("replicas::batch, k = 3", &mut |keys, _, columns| {
        replicas::batch(keys, n, &mut triple(columns)).unwrap()
    });
    let memento = removed(10);
    group(
        "Memento::replicas_batch, k = 3, 10% removed",
        &mut |keys, _, columns| memento.replicas_batch(keys, &mut triple(columns)).unwrap(),
    );
    for (name, weights) in mixes() {
        let table = Weights::new(&weights).unwrap();
        group(&format!("Weights::batch, {name}"), &mut |keys, out, _| {
            table.batch(keys, out).unwrap()
        });
    }
    // Zoned replica sets: a table of `N` nodes dealt round-robin to 3
    // zones, sets of 3 (one member per zone).
    let lines: String = (0..N).map(|i| format!("n{i} zone=z{}\n", i % 3)).collect();
    let table = NodeTable::parse(&lines).unwrap();
    let zoned = table.zoned_replicas().unwrap();
    group(
        "ZonedReplicas::batch, k = 3, 3 zones",
        &mut |keys, _, columns| zoned.batch(keys, &mut triple(columns)).unwrap(),
    );
    let router = loaded_router();
    group(
        "BoundedLoads acquire+release, c = 1.25",
        &mut |keys, out, _| {
            for (&key, o) in keys.iter().zip(out) {
                *o = router.acquire(key);
                router.release(*o).unwrap();
            }
        },
    );
    // Its own router, loaded the same way: the acquires of 256 keys in one
    // batch call, then their releases in another, as `bench --placement`.
    let router = loaded_router();
    group(
        "BoundedLoads acquire_batch+release_batch, c = 1.25",
        &mut |keys, out, _| {
            for (keys, out) in keys.chunks(256).zip(out.chunks_mut(256)) {
                router.acquire_batch(keys, out).unwrap();
                router.release_batch(out).unwrap();
            }
        },
    );
}

criterion_group!(benches, placement);
criterion_main!(benches);
