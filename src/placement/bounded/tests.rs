use std::sync::Arc;

use super::*;
use crate::splitmix::SplitMix64;
use crate::BucketCount;

pub(super) fn cluster(n: u32, removals: &[u32]) -> Memento {
    Memento::from_removals(BucketCount::new(n).unwrap(), removals).unwrap()
}

const KEYS: u64 = if cfg!(miri) { 40 } else { 5000 };

#[test]
fn infinite_factor_is_the_plain_bucket() {
    for removals in [&[][..], &[3, 17, 5][..]] {
        let m = cluster(40, removals);
        let router = BoundedLoads::new(m.clone(), f64::INFINITY).unwrap();
        let mut s = SplitMix64::new(1);
        for _ in 0..KEYS {
            let key = s.next_u64();
            let node = router.acquire(key);
            assert_eq!(node, m.bucket(key));
            if removals.is_empty() {
                assert_eq!(node, crate::bucket(key, m.barray()));
            }
        }
        assert_eq!(router.total(), KEYS);
        assert_eq!(router.loads().iter().sum::<u64>(), KEYS);
    }
}

#[test]
fn under_the_bound_is_the_plain_bucket() {
    // Each key acquired and released at once: every load stays below the
    // bound (1 at the least), so every answer is the key's bucket.
    let m = cluster(30, &[4, 9]);
    let router = BoundedLoads::new(m.clone(), 1.01).unwrap();
    let mut s = SplitMix64::new(2);
    for _ in 0..KEYS {
        let key = s.next_u64();
        let node = router.acquire(key);
        assert_eq!(node, m.bucket(key));
        router.release(node).unwrap();
    }
    assert_eq!(router.total(), 0);
}

#[test]
fn a_full_bucket_sends_keys_down_the_walk() {
    let m = cluster(10, &[]);
    let router = BoundedLoads::new(m.clone(), 1.5).unwrap();
    let mut walk = [0u32; 8];
    m.replicas(99, &mut walk).unwrap();
    // The same key over and over: its bucket fills to the bound, then the
    // next members of its walk do, in order.
    let answers: Vec<u32> = (0..6).map(|_| router.acquire(99)).collect();
    assert_eq!(answers[0], walk[0]);
    assert_eq!(answers[1], walk[1]); // bound ceil(1.5 * 2 / 10) = 1
    assert!(answers.iter().all(|a| walk.contains(a)));
    for a in answers {
        router.release(a).unwrap();
    }
    assert!(router.loads().iter().all(|&l| l == 0));
}

#[test]
fn the_fallback_is_the_least_loaded_of_the_walk() {
    // 20 nodes, a walk of 2 and c = 1.1: one key acquired 5 times fills
    // both members (bound 1 or 2), then falls back to the lesser loaded.
    let m = cluster(20, &[]);
    let router = BoundedLoads::with_walk(m.clone(), 1.1, 2).unwrap();
    let mut walk = [0u32; 2];
    m.replicas(5, &mut walk).unwrap();
    let counted: Vec<Counted> = (0..5).map(|_| router.acquire_counted(5)).collect();
    assert!(counted.iter().all(|c| walk.contains(&c.node)));
    assert!(!counted[0].fallback && counted[2].fallback);
    let fallback = counted.iter().find(|c| c.fallback).unwrap();
    assert!(fallback.load > fallback.bound);
    let loads = router.loads();
    assert!(loads[walk[0] as usize].abs_diff(loads[walk[1] as usize]) <= 1);
    assert_eq!(router.total(), 5);
}

#[test]
fn many_threads_keep_the_bound_and_the_counts() {
    const THREADS: usize = 8;
    let rounds = if cfg!(miri) { 2 } else { 20 };
    let steps = if cfg!(miri) { 10 } else { 2000 };
    for factor in [1.25, 2.0] {
        let router = Arc::new(BoundedLoads::new(cluster(12, &[2, 7]), factor).unwrap());
        let live = 10f64;
        for round in 0..rounds {
            // Acquires only, then a quiescent check of the bound.
            let held: Vec<Vec<u32>> = run(&router, THREADS, |router, t| {
                let mut s = SplitMix64::new((round * 100 + t) as u64);
                (0..steps)
                    .map(|_| {
                        let c = router.acquire_counted(s.next_u64());
                        assert!(c.fallback || c.load <= c.bound, "{c:?}");
                        c.node
                    })
                    .collect()
            });
            let total = router.total();
            let loads = router.loads();
            assert_eq!(total, loads.iter().sum::<u64>());
            let bound = (factor * total as f64 / live).ceil() as u64;
            // 10 live nodes and a walk of 8: c >= 10/8 never falls back.
            assert!(loads.iter().all(|&l| l <= bound), "{loads:?} {bound}");
            // Then releases of what each thread holds, mixed with more
            // acquires released at once.
            run(&router, THREADS, |router, t| {
                let mut s = SplitMix64::new((round * 100 + t + 50) as u64);
                for &node in &held[t] {
                    router.release(node).unwrap();
                    let extra = router.acquire(s.next_u64());
                    router.release(extra).unwrap();
                }
            });
            assert_eq!(router.total(), 0);
            assert!(router.loads().iter().all(|&l| l == 0));
        }
    }
}

/// Runs `work(router, thread)` on `threads` threads, returning each result.
fn run<T: Send>(
    router: &Arc<BoundedLoads>,
    threads: usize,
    work: impl Fn(&BoundedLoads, usize) -> T + Sync,
) -> Vec<T> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let work = &work;
                scope.spawn(move || work(router, t))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn membership_changes_keep_the_counts() {
    let router = BoundedLoads::new(cluster(6, &[]), 3.0).unwrap();
    let nodes: Vec<u32> = (0..60).map(|k| router.acquire(k)).collect();
    let before = router.loads();
    let victim = nodes[0];
    router.remove(victim).unwrap();
    assert_eq!(router.loads(), before);
    assert_eq!(router.total(), 60);
    // New requests avoid the removed node; its own release still counts.
    let m = router.cluster();
    assert!(m.is_removed(victim));
    assert!((100..200).all(|k| {
        let n = router.acquire(k);
        router.release(n).unwrap();
        n != victim
    }));
    router.release(victim).unwrap();
    assert_eq!(router.total(), 59);
    assert_eq!(router.load(victim).unwrap(), before[victim as usize] - 1);
    assert_eq!(router.restore().unwrap(), victim);
    assert_eq!(router.restore().unwrap(), 6); // growth
    let grown = router.loads();
    assert_eq!(grown.len(), 7);
    assert_eq!(grown[6], 0);
    assert_eq!(grown.iter().sum::<u64>(), 59);
    // A shrink off the tail keeps the tail's count too.
    let tail = router.acquire((0..).find(|&k| router.cluster().bucket(k) == 6).unwrap());
    assert_eq!(tail, 6);
    router.remove(6).unwrap();
    assert_eq!(router.cluster().barray().get(), 6);
    router.release(6).unwrap();
    assert_eq!(router.total(), 59);
}

#[test]
fn bad_input_is_refused() {
    let m = cluster(4, &[]);
    for bad in [1.0, 0.5, -3.0, f64::NAN, f64::NEG_INFINITY] {
        let err = BoundedLoads::new(m.clone(), bad).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidLoadFactor {
                value: bad.to_string()
            }
        );
        assert!(err.to_string().contains(&bad.to_string()));
    }
    for walk in [0, MAX_REPLICAS + 1] {
        assert_eq!(
            BoundedLoads::with_walk(m.clone(), 2.0, walk).unwrap_err(),
            Error::InvalidWalk {
                walk,
                limit: MAX_REPLICAS
            }
        );
    }
    assert!(BoundedLoads::with_walk(m.clone(), 2.0, MAX_REPLICAS).is_ok());
    let router = BoundedLoads::new(m, 2.0).unwrap();
    assert_eq!(router.release(1), Err(Error::NoLoad { node: 1 }));
    assert_eq!(
        router.release(4),
        Err(Error::NotABucket {
            bucket: 4,
            barray: 4
        })
    );
    assert!(router.load(9).unwrap_err().to_string().contains('9'));
    assert_eq!(router.total(), 0);
    assert_eq!(
        router.remove(9),
        Err(Error::NotABucket {
            bucket: 9,
            barray: 4
        })
    );
}

#[test]
fn a_cluster_past_the_counters_is_refused() {
    for buckets in [MAX_NODES + 1, i32::MAX as u32] {
        let err = BoundedLoads::new(cluster(buckets, &[]), 2.0).unwrap_err();
        assert_eq!(
            err,
            Error::RouterTooLarge {
                buckets,
                limit: MAX_NODES
            }
        );
        assert!(err.to_string().contains(&buckets.to_string()));
    }
}

/// 128 MiB of counters: too slow for Miri.
#[test]
#[cfg_attr(miri, ignore)]
fn a_growth_past_the_counters_is_refused() {
    let router = BoundedLoads::new(cluster(MAX_NODES, &[]), 2.0).unwrap();
    let too_large = Error::RouterTooLarge {
        buckets: MAX_NODES + 1,
        limit: MAX_NODES,
    };
    assert_eq!(router.restore(), Err(too_large));
    assert_eq!(router.cluster().barray().get(), MAX_NODES);
    // A removed bucket comes back: no growth.
    router.remove(7).unwrap();
    assert_eq!(router.restore(), Ok(7));
    assert_eq!(router.loads().len(), MAX_NODES as usize);
}

#[test]
fn next_bound_is_the_formula() {
    let router = BoundedLoads::new(cluster(4, &[]), 1.5).unwrap();
    assert_eq!(router.next_bound(), 1); // ceil(1.5 * 1 / 4)
    for k in 0..10 {
        router.acquire(k);
    }
    assert_eq!(router.next_bound(), 5); // ceil(1.5 * 11 / 4) = ceil(4.125)
    let inf = BoundedLoads::new(cluster(4, &[]), f64::INFINITY).unwrap();
    assert_eq!(inf.next_bound(), u64::MAX);
}

#[test]
fn membership_changes_beside_running_threads_lose_no_count() {
    let steps = if cfg!(miri) { 5 } else { 3000 };
    let router = BoundedLoads::new(cluster(16, &[]), 1.25).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let router = &router;
            scope.spawn(move || {
                let mut s = SplitMix64::new(t + 1);
                for _ in 0..steps {
                    let node = router.acquire(s.next_u64());
                    router.release(node).unwrap();
                }
            });
        }
        // Removals and restores (and a growth, then its undo) meanwhile.
        for round in 0..if cfg!(miri) { 2 } else { 200 } {
            let held: Vec<u32> = (0..10).map(|k| router.acquire(k + round)).collect();
            router.remove(held[0]).unwrap();
            router.remove((held[0] + 5) % 16).ok();
            for node in held {
                router.release(node).unwrap();
            }
            while !router.cluster().removals().is_empty() {
                router.restore().unwrap();
            }
            if router.cluster().barray().get() < 16 {
                router.restore().unwrap(); // the tail shrink undone
            }
        }
    });
    assert_eq!(router.total(), 0);
    assert!(router.loads().iter().all(|&l| l == 0));
    assert_eq!(router.cluster(), cluster(16, &[]));
}

/// `acquire_batch` against `acquire` of each key in turn on a twin router:
/// the same nodes, loads and totals after every batch, over batches of
/// every length around the lock's block, hot keys that fill their buckets
/// and reach the fallback, removals, and releases in between.
#[test]
fn a_batch_is_each_acquire_in_turn() {
    let lengths: &[usize] = if cfg!(miri) {
        &[0, 1, 5, 3]
    } else {
        &[0, 1, 2, 7, 255, 256, 257, 600, 1000, 3]
    };
    let cases: [(u32, &[u32], f64, usize); 5] = [
        (40, &[], 1.25, 8),
        (40, &[3, 17, 5], 1.1, 3),
        (7, &[2], 1.5, 8),
        (300, &[10, 200, 299, 0, 57], 1.25, 2),
        (5, &[], f64::INFINITY, 8),
    ];
    for (n, removals, factor, walk) in cases {
        let m = cluster(n, removals);
        let batch = BoundedLoads::with_walk(m.clone(), factor, walk).unwrap();
        let one = BoundedLoads::with_walk(m, factor, walk).unwrap();
        let mut s = SplitMix64::new(u64::from(n));
        for &len in lengths {
            // Half the keys on three hot ones.
            let keys: Vec<u64> = (0..len)
                .map(|i| {
                    if i % 2 == 0 {
                        (i % 3) as u64
                    } else {
                        s.next_u64()
                    }
                })
                .collect();
            let mut got = vec![u32::MAX; len];
            batch.acquire_batch(&keys, &mut got).unwrap();
            let want: Vec<u32> = keys.iter().map(|&key| one.acquire(key)).collect();
            assert_eq!(
                got, want,
                "n {n}, {removals:?}, c {factor}, walk {walk}, {len} keys"
            );
            assert_eq!(batch.loads(), one.loads());
            assert_eq!(batch.total(), one.total());
            // Give a third back on both.
            for &node in got.iter().step_by(3) {
                batch.release(node).unwrap();
                one.release(node).unwrap();
            }
        }
    }
}

#[test]
fn a_batch_of_the_wrong_length_acquires_nothing() {
    let router = BoundedLoads::new(cluster(10, &[4]), 1.25).unwrap();
    router.acquire(1);
    let mut out = [7u32; 3];
    assert_eq!(
        router.acquire_batch(&[1, 2], &mut out),
        Err(Error::LengthMismatch { keys: 2, out: 3 })
    );
    assert_eq!(out, [7; 3]);
    assert_eq!(router.total(), 1);
    assert_eq!(router.loads().iter().sum::<u64>(), 1);
}
