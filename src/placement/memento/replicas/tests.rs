//! Memento's replica sets against the one-key sets and the plain
//! construction.

use super::*;

fn mix(i: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0xC0FFEE)
}

impl Memento {
    /// The replay of one run on the active kernel, with working areas of
    /// its own.
    fn replay_columns(&self, keys: &[u64], columns: &mut [&mut [u32]]) {
        Replay::new(self, active_kernel(), &mut Work::default()).run(keys, columns);
    }
}

fn set_of(m: &Memento, key: u64, k: usize) -> Vec<u32> {
    let mut out = vec![0; k];
    m.replicas(key, &mut out).unwrap();
    out
}

/// The sets of `keys` by one batch, each row checked against the one-key
/// call for one key in 64 (the batches are held to the one-key replay on
/// every kernel below; thousands of one-key calls a step took a minute
/// and a half under qemu).
fn sets_of(m: &Memento, keys: &[u64], k: usize) -> Vec<Vec<u32>> {
    let mut columns = vec![vec![0u32; keys.len()]; k];
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
    m.replicas_batch(keys, &mut refs).unwrap();
    let sets: Vec<Vec<u32>> = (0..keys.len())
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect();
    for (i, &key) in keys.iter().enumerate().step_by(64) {
        assert_eq!(sets[i], set_of(m, key, k), "key {key}");
    }
    sets
}

/// Over random removal sequences: members distinct and working, the
/// first the Memento bucket; each removal replaces at most one member
/// (exactly the removed one, when it was a member); each restore
/// undoes the last removal's change.
#[test]
#[cfg_attr(miri, ignore = "thousands of sets per step take hours under Miri")]
fn removals_replace_only_the_removed_member_and_restores_undo() {
    for (n, k, steps) in [
        (5u32, 3usize, 4usize),
        (20, 3, 18),
        (200, 5, 150),
        (1000, 3, 600),
    ] {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        let keys: Vec<u64> = (0..2000).map(mix).collect();
        let mut sets = sets_of(&m, &keys, k);
        let mut history = Vec::new();
        let mut r = 0x1234_5678_u64;
        for step in 0..steps {
            r = mix(r);
            // A restore now and then, else a removal of a random
            // working bucket (never the tail while nothing is removed,
            // which would be a shrink).
            if step % 5 == 4 && !m.removals().is_empty() {
                m.restore().unwrap();
                let old: Vec<Vec<u32>> = history.pop().unwrap();
                assert!(sets_of(&m, &keys, k) == old, "restore did not undo");
                sets = old;
                continue;
            }
            let working: Vec<u32> = (0..n - 1).filter(|&b| !m.is_removed(b)).collect();
            if working.len() <= k {
                break;
            }
            let x = working[(r % working.len() as u64) as usize];
            m.remove(x).unwrap();
            let now = sets_of(&m, &keys, k);
            for (i, &key) in keys.iter().enumerate() {
                let new = now[i].clone();
                assert_eq!(new[0], m.bucket(key));
                let mut sorted = new.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), k, "duplicate member {new:?}");
                assert!(new.iter().all(|&b| !m.is_removed(b) && b < n));
                let old = &sets[i];
                let gone: Vec<u32> = old.iter().copied().filter(|b| !new.contains(b)).collect();
                if old.contains(&x) {
                    assert_eq!(gone, [x], "n {n}: {old:?} -> {new:?} removing {x}");
                } else {
                    assert_eq!(old, &new, "n {n}: a set without {x} changed");
                }
            }
            history.push(std::mem::replace(&mut sets, now));
        }
    }
}

/// Under removals, every position of the set is spread evenly over the
/// working buckets, as the plain sets' positions are over all of them.
#[test]
#[cfg_attr(miri, ignore = "statistics over 10^5 keys take hours under Miri")]
fn every_position_is_balanced_under_removals() {
    for (n, k, removed) in [
        (10u32, 3usize, 3usize),
        (100, 2, 10),
        (100, 3, 10),
        (100, 5, 50),
        (1000, 4, 300),
    ] {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        let mut r = 0xABCD_u64;
        while ((n - m.working()) as usize) < removed {
            r = mix(r);
            let b = (r % u64::from(n - 1)) as u32;
            if !m.is_removed(b) {
                m.remove(b).unwrap();
            }
        }
        let keys: Vec<u64> = (0..(60 * u64::from(n)).max(30_000)).map(mix).collect();
        let mut columns = vec![vec![0u32; keys.len()]; k];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        m.replicas_batch(&keys, &mut refs).unwrap();
        for (j, column) in columns.iter().enumerate() {
            let mut counts = vec![0u64; n as usize];
            column.iter().for_each(|&b| counts[b as usize] += 1);
            let working: Vec<u64> = (0..n)
                .filter(|&b| !m.is_removed(b))
                .map(|b| counts[b as usize])
                .collect();
            assert_eq!(working.iter().sum::<u64>(), keys.len() as u64);
            if let Err(e) = crate::replicas::tests::chi_square_is_uniform(&working) {
                panic!("n {n}, k {k}, {removed} removed, position {j}: {e}");
            }
        }
    }
}

#[test]
fn nothing_removed_is_the_plain_set_and_batches_match() {
    // Fewer keys under Miri, which runs them a thousand times slower: a
    // block of the lanes' 16 and a part of one.
    let keys: Vec<u64> = (0..if cfg!(miri) { 20 } else { 300 }).map(mix).collect();
    let mut m = Memento::new(BucketCount::new(64).unwrap());
    // One key at a time: safe code, left to the native and qemu runs.
    for &key in keys.iter().filter(|_| !cfg!(miri)) {
        let mut plain = [0u32; 4];
        crate::replicas::set(key, m.barray(), &mut plain).unwrap();
        assert_eq!(set_of(&m, key, 4), plain);
    }
    for b in [3, 60, 17, 0, 40] {
        m.remove(b).unwrap();
    }
    let mut columns = vec![vec![0u32; keys.len()]; 4];
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
    m.replicas_batch(&keys, &mut refs).unwrap();
    for (i, &key) in keys.iter().enumerate() {
        let got: Vec<u32> = columns.iter().map(|c| c[i]).collect();
        assert_eq!(got, set_of(&m, key, 4));
    }
}

/// The batches on every kernel's lanes are the one-key sets (the plain
/// set over the b-array, then the replay), over removals of 0 to 99%.
#[test]
#[cfg_attr(miri, ignore = "thousands of sets per kernel take hours under Miri")]
fn batches_on_every_kernel_are_the_one_key_sets() {
    let kernels = [
        Some(crate::Kernel::scalar()),
        crate::Kernel::avx2(),
        crate::Kernel::avx512(),
        crate::Kernel::neon(),
    ];
    let keys: Vec<u64> = (0..301).map(mix).collect();
    for (n, removed) in [
        (20u32, 0usize),
        (100, 10),
        (1000, 100),
        (1000, 500),
        (1000, 990),
    ] {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        let mut r = 0x77_u64;
        while ((n - m.working()) as usize) < removed {
            r = mix(r);
            let b = (r % u64::from(n - 1)) as u32;
            if !m.is_removed(b) {
                m.remove(b).unwrap();
            }
        }
        for kernel in kernels.into_iter().flatten() {
            for k in [2usize, 3, 5, 8] {
                let len = keys.len() - k;
                let keys = &keys[k..k + len];
                let mut columns = vec![vec![0u32; len]; k];
                let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
                crate::replicas::fill_columns_on(
                    kernel,
                    keys,
                    m.barray.get(),
                    m.working_count(),
                    &mut refs,
                    |keys, columns| m.replay_columns(keys, columns),
                )
                .unwrap();
                for (i, &key) in keys.iter().enumerate() {
                    let mut want = vec![0u32; k];
                    crate::replicas::set(key, m.barray(), &mut want).unwrap();
                    m.replay(key, &mut want, Candidate::of(key, 0, n));
                    let got: Vec<u32> = columns.iter().map(|c| c[i]).collect();
                    assert_eq!(
                        got,
                        want,
                        "{}, n {n}, {removed} removed, k {k}",
                        kernel.name()
                    );
                }
            }
        }
    }
}

/// A batch of several runs of the refilling walks, each run replayed
/// on its own, against the one-key sets, on every kernel.
#[test]
#[cfg_attr(miri, ignore = "tens of thousands of sets take hours under Miri")]
fn batches_of_several_runs_are_the_one_key_sets() {
    let keys: Vec<u64> = (0..20_000).map(mix).collect();
    let n = 1000u32;
    let mut m = Memento::new(BucketCount::new(n).unwrap());
    let mut r = 0x99_u64;
    while m.working() > 900 {
        r = mix(r);
        let b = (r % u64::from(n - 1)) as u32;
        if !m.is_removed(b) {
            m.remove(b).unwrap();
        }
    }
    let kernels = [
        Some(crate::Kernel::scalar()),
        crate::Kernel::avx2(),
        crate::Kernel::avx512(),
    ];
    let mut want = vec![[0u32; 3]; keys.len()];
    for (w, &key) in want.iter_mut().zip(&keys) {
        m.replicas(key, w).unwrap();
    }
    for kernel in kernels.into_iter().flatten() {
        let mut columns = vec![vec![0u32; keys.len()]; 3];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        crate::replicas::fill_columns_on(
            kernel,
            &keys,
            n,
            m.working_count(),
            &mut refs,
            |keys, columns| m.replay_columns(keys, columns),
        )
        .unwrap();
        for (i, w) in want.iter().enumerate() {
            let got = [columns[0][i], columns[1][i], columns[2][i]];
            assert_eq!(&got, w, "{}, key {i}", kernel.name());
        }
    }
}

#[test]
fn more_replicas_than_working_buckets_are_refused() {
    let mut m = Memento::new(BucketCount::new(4).unwrap());
    m.remove(1).unwrap();
    m.remove(0).unwrap();
    let mut out = [9u32; 3];
    assert_eq!(
        m.replicas(5, &mut out),
        Err(Error::TooManyReplicas {
            replicas: 3,
            buckets: 2
        })
    );
    assert_eq!(out, [9; 3]);
    let mut two = [0u32; 2];
    m.replicas(5, &mut two).unwrap();
    assert_eq!(
        {
            two.sort_unstable();
            two
        },
        [2, 3]
    );
}

/// Batches on both sides of the short ones' length refuse alike, leaving
/// every column untouched, and give the one-key sets.
#[test]
fn short_and_long_batches_refuse_and_answer_alike() {
    let mut m = Memento::new(BucketCount::new(50).unwrap());
    for b in [4, 30, 12] {
        m.remove(b).unwrap();
    }
    let keys: Vec<u64> = (0..40).map(mix).collect();
    for len in [0, 1, SHORT - 1, SHORT, 17] {
        let keys = &keys[..len];
        let mut columns = vec![vec![7u32; len]; 3];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        let mut short = vec![7u32; len.saturating_sub(1)];
        let mut bad: Vec<&mut [u32]> = vec![&mut short];
        if len > 0 {
            assert_eq!(
                m.replicas_batch(keys, &mut bad),
                Err(Error::LengthMismatch {
                    keys: len,
                    out: len - 1
                })
            );
        }
        let mut many = vec![vec![7u32; len]; 48];
        let mut too_many: Vec<&mut [u32]> = many.iter_mut().map(|c| &mut c[..]).collect();
        assert_eq!(
            m.replicas_batch(keys, &mut too_many),
            Err(Error::TooManyReplicas {
                replicas: 48,
                buckets: 47
            })
        );
        assert!(short.iter().chain(many.iter().flatten()).all(|&b| b == 7));
        m.replicas_batch(keys, &mut refs).unwrap();
        for (i, &key) in keys.iter().enumerate() {
            let got: Vec<u32> = columns.iter().map(|c| c[i]).collect();
            assert_eq!(got, set_of(&m, key, 3), "{len} keys, key {key}");
        }
    }
}
