//! `release_batch` against `release` of each node in turn on a twin
//! router, its refusals, and batches beside other threads and membership
//! changes.

use super::tests::cluster;
use super::*;
use crate::splitmix::SplitMix64;

/// Keys with half of them on three hot ones, whose buckets fill and walk
/// on: the nodes of a batch repeat.
fn keys(len: usize, s: &mut SplitMix64) -> Vec<u64> {
    (0..len)
        .map(|i| {
            if i % 2 == 0 {
                (i % 3) as u64
            } else {
                s.next_u64()
            }
        })
        .collect()
}

/// `router.acquire_batch(keys)`, which must succeed.
fn acquired(router: &BoundedLoads, keys: &[u64]) -> Vec<u32> {
    let mut nodes = vec![u32::MAX; keys.len()];
    router.acquire_batch(keys, &mut nodes).unwrap();
    nodes
}

#[test]
fn a_release_batch_is_each_release_in_turn() {
    let lengths: &[usize] = if cfg!(miri) {
        &[0, 1, 3]
    } else {
        &[0, 1, 255, 256, 257, 1000, 2]
    };
    for (n, removals, factor) in [(40, &[][..], 1.25), (300, &[10, 0, 57][..], 1.1)] {
        let m = cluster(n, removals);
        let (batch, one) = (
            BoundedLoads::new(m.clone(), factor).unwrap(),
            BoundedLoads::new(m, factor).unwrap(),
        );
        let mut s = SplitMix64::new(u64::from(n));
        for &len in lengths {
            // Five more than released: some load stays held throughout.
            let keys = keys(len + 5, &mut s);
            let nodes = acquired(&batch, &keys);
            assert_eq!(acquired(&one, &keys), nodes);
            // A node that serves some of them dies before they end.
            let victim = nodes[len / 2];
            batch.remove(victim).unwrap();
            one.remove(victim).unwrap();
            let mut released = nodes[..len].to_vec();
            released.reverse();
            batch.release_batch(&released).unwrap();
            for &node in &released {
                one.release(node).unwrap();
            }
            assert_eq!(batch.loads(), one.loads(), "n {n}, {len} nodes");
            assert_eq!(batch.total(), one.total());
            assert_eq!(batch.total(), batch.loads().iter().sum::<u64>());
            assert_eq!(batch.restore().unwrap(), victim);
            assert_eq!(one.restore().unwrap(), victim);
        }
        assert!(batch.total() > 0);
    }
}

#[test]
fn refusals_release_nothing() {
    let len = if cfg!(miri) { 300 } else { 1000 };
    // Buckets 3 and 5 are removed: no acquire answers them, so their
    // loads stay 0.
    let router = BoundedLoads::new(cluster(20, &[3, 5]), 1.25).unwrap();
    let mut s = SplitMix64::new(9);
    let held = acquired(&router, &keys(len, &mut s));
    let (loads, total) = (router.loads(), router.total());
    let unchanged = |why: &str| {
        assert_eq!(router.loads(), loads, "{why}");
        assert_eq!(router.total(), total, "{why}");
    };
    let with = |at: &[(usize, u32)]| {
        let mut nodes = held.clone();
        for &(i, node) in at {
            nodes.insert(i, node);
        }
        nodes
    };
    let not_a_bucket = with(&[(300, 20), (700, u32::MAX)]);
    assert_eq!(
        router.release_batch(&not_a_bucket),
        Err(Error::NotABucket {
            bucket: 20,
            barray: 20
        })
    );
    unchanged("not a bucket");
    // At the first node, in the middle of the second block, at the last.
    for at in [0, 256 + 100, len] {
        assert_eq!(
            router.release_batch(&with(&[(at, 3)])),
            Err(Error::NoLoad { node: 3 }),
            "at {at}"
        );
        unchanged(&format!("no load at {at}"));
    }
    // The first node found empty is named; one release too many of a held
    // node is found at its last copy.
    assert_eq!(
        router.release_batch(&with(&[(len, 3), (10, 5)])),
        Err(Error::NoLoad { node: 5 })
    );
    unchanged("two empty nodes");
    let node = held[0];
    assert_eq!(
        router.release_batch(&with(&[(len, node)])),
        Err(Error::NoLoad { node })
    );
    unchanged("one too many");
    router.release_batch(&held).unwrap();
    assert_eq!(router.total(), 0);
    assert!(router.loads().iter().all(|&l| l == 0));
}

#[test]
fn batches_beside_membership_changes_lose_no_count() {
    let (rounds, len) = if cfg!(miri) { (3, 20) } else { (200, 600) };
    let router = BoundedLoads::new(cluster(16, &[]), 1.25).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let router = &router;
            scope.spawn(move || {
                let mut s = SplitMix64::new(t + 1);
                for _ in 0..rounds {
                    let nodes = acquired(router, &keys(len, &mut s));
                    // Released in two batches, the second across blocks.
                    let (first, rest) = nodes.split_at(len / 3);
                    router.release_batch(rest).unwrap();
                    router.release_batch(first).unwrap();
                }
            });
        }
        // Removals and restores meanwhile, of nodes the batches hold.
        for round in 0..rounds {
            let held = acquired(&router, &keys(10, &mut SplitMix64::new(round as u64)));
            router.remove(held[1]).unwrap();
            router.remove((held[1] + 5) % 16).ok();
            router.release_batch(&held).unwrap();
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
