//! Zoned replica sets of k = 3 on N = 1000 nodes in 3 and in 5 zones
//! (`jumpshard::zones`), with nothing removed and with 10% of the nodes
//! removed, and in 12 zones (past the 8 whose pairs the lanes compare),
//! beside the C++ Figure 1 reference one key at a time over the
//! same keys (the yardstick every speed is quoted against), the plain
//! batch and plain replica sets of 3 in the same run; then one key a call
//! (`ZonedReplicas::set` in 3 and 12 zones, 10% removed) beside
//! `replicas::set`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jumpshard::nodes::{NodeRemoval, Removal};
use jumpshard::{BucketCount, NodeTable};

const N: usize = 1000;
const K: usize = 3;
const KEYS: usize = 1 << 20;
/// Calls of one key in the one-key group.
const ONE_KEY_CALLS: usize = 1 << 16;

/// N nodes dealt to `zones` zones in turn, and `removed` of them removed.
fn table(zones: usize, removed: usize) -> NodeTable {
    let text: String = (0..N)
        .map(|i| format!("n{i} zone=z{}\n", i % zones))
        .collect();
    let mut table = NodeTable::parse(&text).unwrap();
    for i in 0..removed {
        let name = format!("n{}", (i * 7919) % (N - 1));
        if let Ok(removal) = NodeRemoval::new(&table, &name) {
            table = removal.table(&Removal::Memento).unwrap();
        }
    }
    table
}

fn zones(c: &mut Criterion) {
    let keys = jumpshard::verify::SplitMix64::new(0x20E5).keys(KEYS);
    let n = BucketCount::new(N as u32).unwrap();
    let mut columns = vec![vec![0u32; KEYS]; K];
    let mut out = vec![0u32; KEYS];
    let mut group = c.benchmark_group(format!("zones/N={N}, k={K}"));
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(10);
    group.bench_function("Figure 1 reference", |b| {
        b.iter(|| {
            for &key in &keys {
                black_box(jumpshard::reference::jump_consistent_hash(
                    black_box(key),
                    N as i32,
                ));
            }
        })
    });
    group.bench_function("plain batch", |b| {
        b.iter(|| jumpshard::batch(black_box(&keys), n, &mut out).unwrap())
    });
    group.bench_function("plain replica sets", |b| {
        b.iter(|| {
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            jumpshard::replicas::batch(black_box(&keys), n, &mut refs).unwrap()
        })
    });
    for (zone_count, removed) in [(3, 0), (5, 0), (3, N / 10), (5, N / 10), (12, 0)] {
        let table = table(zone_count, removed);
        let zoned = table.zoned_replicas().unwrap();
        let name = format!("zoned, {zone_count} zones, {}% removed", removed * 100 / N);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
                zoned.batch(black_box(&keys), &mut refs).unwrap()
            })
        });
    }
    group.finish();

    // One key a call, as a router places it: `set` over the first keys.
    let few = &keys[..ONE_KEY_CALLS];
    let mut group = c.benchmark_group(format!("zones/N={N}, k={K}, one key a call"));
    group.throughput(Throughput::Elements(ONE_KEY_CALLS as u64));
    group.sample_size(10);
    let mut set = [0u32; K];
    group.bench_function("plain replicas::set", |b| {
        b.iter(|| {
            for &key in few {
                jumpshard::replicas::set(black_box(key), n, &mut set).unwrap();
            }
            black_box(set)
        })
    });
    for zone_count in [3, 12] {
        let table = table(zone_count, N / 10);
        let zoned = table.zoned_replicas().unwrap();
        group.bench_function(format!("zoned set, {zone_count} zones, 10% removed"), |b| {
            b.iter(|| {
                for &key in few {
                    zoned.set(black_box(key), &mut set).unwrap();
                }
                black_box(set)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, zones);
criterion_main!(benches);
