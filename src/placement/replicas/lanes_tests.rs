//! The lanes against the one-key sets, on every kernel this CPU runs.

use super::*;
use crate::Kernel;

fn mix(i: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0x1A7E5)
}

/// Every key's row of `fill_columns_on(kernel, ...)` is its one-key set.
fn check(kernel: Kernel, keys: &[u64], n: u32, k: usize) {
    check_sets(kernel, keys, n, k, &one_key_sets(keys, n, k));
}

/// The one-key set of every key, as `Slots::fill` draws it: each walk's
/// landings recorded, one walk after the other (the scalar kernel's
/// batches go through `one_key`, which `set` also takes).
fn one_key_sets(keys: &[u64], n: u32, k: usize) -> Vec<Vec<u32>> {
    let mut want = vec![0u32; k];
    keys.iter()
        .map(|&key| {
            Slots::default().fill(key, n, crate::kernel::scalar::jump(key, n), &mut want);
            want.clone()
        })
        .collect()
}

/// Every key's row of `fill_columns_on(kernel, ...)` is its set in `want`.
fn check_sets(kernel: Kernel, keys: &[u64], n: u32, k: usize, want: &[Vec<u32>]) {
    let count = BucketCount::new(n).unwrap();
    let mut columns = vec![vec![u32::MAX; keys.len()]; k];
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
    fill_columns_on(kernel, keys, n, count, &mut refs, |_, _| {}).unwrap();
    for (i, (&key, want)) in keys.iter().zip(want).enumerate() {
        let got: Vec<u32> = columns.iter().map(|c| c[i]).collect();
        assert_eq!(
            &got,
            want,
            "{} kernel ({:?}), key {key}, n {n}, k {k}",
            kernel.name(),
            kernel.division()
        );
    }
}

/// The lengths Miri runs: each takes milliseconds per set there, and Miri
/// checks memory accesses, not arithmetic. On the lockstep blocks of
/// `walk::LANES` (16) keys: none, one, a block but one, a block, a block
/// and one, two blocks and one. Past the runs' threshold (a multiple of
/// 4), lengths whose last AVX2 vector holds 1, 2 and 3 keys (Miri runs no
/// AVX-512), for the masked loads of a run's last keys.
const MIRI_BLOCK_LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 33];
const MIRI_RUN_LENGTHS: [usize; 3] = [
    super::refill::MIN_KEYS + 1,
    super::refill::MIN_KEYS + 2,
    super::refill::MIN_KEYS + 3,
];

#[test]
fn every_length_and_misaligned_slices() {
    let keys: Vec<u64> = (0..320).map(mix).collect();
    if cfg!(miri) {
        // The blocks do not divide (their walks are the same for every
        // strategy): each kernel on its own division. The runs do: one
        // run length for each of a kernel's strategies. The scalar
        // kernel's runs are plain code without an unsafe block
        // (`refill_plain`), left to the native and qemu runs.
        for &len in &MIRI_BLOCK_LENGTHS {
            let offset = len % 5;
            let keys = &keys[offset..offset + len];
            let want = one_key_sets(keys, 1000, 3);
            for kernel in Kernel::supported() {
                check_sets(kernel, keys, 1000, 3, &want);
            }
        }
        for kernel in Kernel::supported()
            .into_iter()
            .filter(|k| k.name() != "scalar")
        {
            for (&division, len) in kernel.divisions().iter().zip(MIRI_RUN_LENGTHS) {
                let kernel = kernel.with_division(division).unwrap();
                let offset = len % 5;
                check(kernel, &keys[offset..offset + len], 1000, 3);
            }
        }
        return;
    }
    for kernel in Kernel::every_strategy() {
        for len in 0..301 {
            let offset = len % 5;
            check(kernel, &keys[offset..offset + len], 1000, 3);
        }
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "thousands of sets among 2^31 - 1 buckets take hours under Miri"
)]
fn every_count_and_size() {
    let keys: Vec<u64> = [0, 1, u64::MAX, 1 << 63]
        .into_iter()
        .chain((0..200).map(mix))
        .collect();
    let mut r = 0x5EED_u64;
    for kernel in Kernel::every_strategy() {
        for k in 1..=8usize {
            for n in [k as u32, k as u32 + 1, 17, 1000, 1 << 20, (1 << 31) - 1] {
                if (n as usize) >= k {
                    check(kernel, &keys[1..], n, k);
                }
            }
        }
        // Random counts and sizes, past the lanes' limit too.
        for _ in 0..20 {
            r = mix(r);
            let k = 1 + (r % 12) as usize;
            let n = (k as u32).max((mix(r) % (1 << 31)) as u32 >> (r % 31));
            check(kernel, &keys[..(r % 200) as usize], n.max(1), k);
        }
    }
}

/// Runs of keys cut at and around the refilling walks' run length, where a
/// run's last keys leave lanes idle and the next run starts afresh.
#[test]
#[cfg_attr(miri, ignore = "tens of thousands of sets take hours under Miri")]
fn runs_cut_at_and_around_their_length() {
    let keys: Vec<u64> = (0..16_400).map(mix).collect();
    for kernel in Kernel::every_strategy() {
        for len in [8191, 8192, 8193, 16_390] {
            check(kernel, &keys[3..3 + len], 1000, 3);
        }
        check(kernel, &keys[..9000], 5, 4);
    }
}

/// The lockstep blocks themselves at every length one holds, whichever
/// lengths `fill_columns_on` hands them on this CPU: half blocks (up to
/// `lanes::HALF` keys, half the vectors on AVX2 and AVX-512) and full
/// ones, one `Blocks` reused from the longest to the shortest and back, so
/// that a half block finds the lanes it leaves alone written by a full one.
#[test]
fn blocks_of_every_length() {
    let keys: Vec<u64> = [0, u64::MAX, 1 << 63]
        .into_iter()
        .chain((0..40).map(mix))
        .collect();
    let (lengths, counts, sizes): (Vec<usize>, &[u32], Vec<usize>) = if cfg!(miri) {
        (vec![16, 5, 9, 8, 1], &[1000], vec![3])
    } else {
        (
            (0..=16).rev().chain(0..=16).collect(),
            &[8, 17, 1000, 1 << 20, (1 << 31) - 1],
            (2..=lanes::MAX_LANE_SLOTS).collect(),
        )
    };
    for kernel in Kernel::supported() {
        for &k in &sizes {
            for &n in counts.iter().filter(|&&n| n as usize >= k) {
                let mut blocks = lanes::Blocks::new(kernel, k);
                for &len in &lengths {
                    let keys = &keys[len % 7..len % 7 + len];
                    let want = one_key_sets(keys, n, k);
                    let mut sets = vec![u32::MAX; len * k];
                    blocks.fill(keys, n, &mut sets);
                    for (i, set) in sets.chunks_exact(k).enumerate() {
                        assert_eq!(
                            set,
                            &want[i][..],
                            "{} kernel, {len} keys, n {n}, k {k}",
                            kernel.name()
                        );
                    }
                }
            }
        }
    }
}
