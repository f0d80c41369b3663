//! The replay by class against the one-key replay, on every kernel and
//! division strategy this CPU runs, through each way a removed bucket is
//! told (bitmap and link table, bitmap alone, map alone).

use super::*;
use crate::replicas::fill_columns_on;
use crate::BucketCount;

fn mix(i: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0xC1A55)
}

/// Every kernel this CPU runs with each of its division strategies; under
/// Miri each with its own only, as the class pass does not divide.
fn kernels() -> Vec<Kernel> {
    if cfg!(miri) {
        Kernel::supported()
    } else {
        Kernel::every_strategy()
    }
}

/// The set of `key` one key at a time: the plain set over the b-array,
/// then [`Memento::replay`] with candidate 0 computed alone.
fn one_key(m: &Memento, key: u64, k: usize) -> Vec<u32> {
    let mut set = vec![0u32; k];
    crate::replicas::set(key, m.barray(), &mut set).unwrap();
    m.replay(key, &mut set, Candidate::of(key, 0, m.barray.get()));
    set
}

/// Removes from `m` until `removed` buckets are, half of them members of
/// the sets of `keys` (so that every class is met even over b-arrays far
/// larger than the removals), the others at random; never the tail while
/// nothing is removed, which would be a shrink.
fn remove_until(m: &mut Memento, removed: usize, keys: &[u64], r: &mut u64) {
    let n = m.barray().get();
    while m.removals().len() < removed {
        *r = mix(*r);
        let b = if r.is_multiple_of(2) {
            let key = keys[(*r >> 8) as usize % keys.len()];
            let k = 3.min(m.working() as usize);
            one_key(m, key, k)[(*r >> 40) as usize % k]
        } else {
            ((*r >> 8) % u64::from(n - 1)) as u32
        };
        if b < n - 1 && !m.is_removed(b) && m.working() > 1 {
            m.remove(b).unwrap();
        }
    }
}

/// The rows of `keys[at..at + len]` by [`Replay::run`] after
/// `fill_columns_on(kernel, ..)`, into columns misaligned by `at` too,
/// against `want` (the one-key sets of `keys`).
fn check(m: &Memento, kernel: Kernel, keys: &[u64], at: usize, len: usize, want: &[Vec<u32>]) {
    let k = want[0].len();
    let mut columns = vec![vec![0u32; at + len]; k];
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[at..]).collect();
    // In the areas the thread keeps, as the batches run: each test of one
    // kernel finds those of another (and its pending keys remade).
    crate::scratch::with(|work: &mut Work| {
        let mut replay = Replay::new(m, kernel, work);
        fill_columns_on(
            kernel,
            &keys[at..at + len],
            m.barray.get(),
            m.working_count(),
            &mut refs,
            |keys, columns| replay.run(keys, columns),
        )
    })
    .unwrap();
    for i in 0..len {
        let got: Vec<u32> = columns.iter().map(|c| c[at + i]).collect();
        assert_eq!(
            got,
            want[at + i],
            "{}, b-array {}, {} removed, k {k}, {len} keys from {at}, row {i}",
            kernel.name(),
            m.barray(),
            m.removals().len(),
        );
    }
}

/// Batches of 0 to 300 keys at misaligned starts, and one of several
/// blocks, against the one-key replay, over removals of 0 to 99% of the
/// b-array and sets of 1 to 8 members (the lanes' runs and blocks), of 9
/// and 12 (column 0 on the kernel, the others one key at a time) and of
/// 20 (past the 15 slots a key's mask tells apart).
#[test]
fn every_class_on_every_kernel_is_the_one_key_replay() {
    let (lengths, ks, long): (Vec<usize>, Vec<usize>, usize) = if cfg!(miri) {
        // A part of one vector of AVX2's class pass, and two whole ones
        // and a part: its unsafe code is the same for every k.
        (vec![3, 17], vec![3], 0)
    } else {
        let mut lengths: Vec<usize> = (0..=40).collect();
        lengths.extend([47, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300]);
        (lengths, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 20], 9_000)
    };
    // Room for the longest batch at the last start.
    let short = lengths.iter().max().unwrap() + 7;
    let keys: Vec<u64> = (0..short.max(long) as u64).map(mix).collect();
    // (b-array, removal counts): the link table's sizes; past it, the
    // bitmap alone; past that, the map alone.
    let clusters: Vec<(u32, Vec<usize>)> = if cfg!(miri) {
        vec![(100, vec![30])]
    } else {
        vec![
            (50, vec![0, 1, 5, 25, 45, 49]),
            (1000, vec![10, 100, 500, 900, 990]),
            ((1 << 22) + 3, vec![40, 300]),
            ((1 << 27) + 5, vec![40, 300]),
        ]
    };
    let mut r = 0x5EED_u64;
    for (n, counts) in clusters {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        for removed in counts {
            remove_until(&mut m, removed, &keys[..short], &mut r);
            for &k in ks.iter().filter(|&&k| k <= m.working() as usize) {
                // Several blocks of the replay, and runs of the lanes.
                let long = if (k == 3 || k == 9) && (removed == 100 || removed == 300) {
                    long
                } else {
                    0
                };
                let want: Vec<Vec<u32>> = keys[..short.max(long)]
                    .iter()
                    .map(|&key| one_key(&m, key, k))
                    .collect();
                for kernel in kernels() {
                    // Sets past 12 members take the paths of 12 but for
                    // their masks: a few lengths around the vectors.
                    let lengths = lengths.iter().filter(|&&len| k <= 12 || len % 16 < 2);
                    for (t, &len) in lengths.enumerate() {
                        check(&m, kernel, &keys, 1 + t % 7, len, &want);
                    }
                    if long > 0 {
                        check(&m, kernel, &keys, 0, long, &want);
                    }
                }
            }
        }
    }
}
