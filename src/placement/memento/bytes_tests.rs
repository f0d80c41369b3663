//! Batches of byte keys against [`Memento::bucket_bytes`], one key at a
//! time: every kernel and division strategy, random removals from none to
//! 99%, every key length to 300 and mixed lengths, misaligned data, blocks
//! past the pre-hash's and the resolution's, u32 and u64 offsets, and
//! b-arrays on both sides of the link-table limit.

use super::*;
use crate::splitmix::mix;
use crate::Kernel;

/// Byte keys: each length from 0 to `longest` in turn, then `more` keys of
/// mixed lengths (mostly short, some to 300 (96 under Miri, still three
/// stripes of the hash), and outside Miri one too long for a span), from
/// byte `skew` of the data; their u64 offsets.
fn keys(longest: u64, more: u64, skew: u64) -> (Vec<u8>, Vec<u64>) {
    let lengths = (0..=longest).chain((0..more).map(|i| match mix(i) % 4 {
        _ if i == 100 && !cfg!(miri) => 70_000,
        0 => mix(!i) % if cfg!(miri) { 97 } else { 301 },
        _ => mix(!i) % 65,
    }));
    let mut offsets = vec![skew];
    for len in lengths {
        offsets.push(offsets.last().unwrap() + len);
    }
    let data = (0..*offsets.last().unwrap())
        .map(|i| mix(i ^ 0xDA7A) as u8)
        .collect();
    (data, offsets)
}

/// Removes buckets at random (restoring some) until `percent` of the
/// b-array is removed.
fn remove_to(m: &mut Memento, percent: u32, step: &mut u64) {
    let target = |m: &Memento| (m.barray().get() * percent / 100).min(m.barray().get() - 1);
    while (m.removals().len() as u32) < target(m) {
        *step += 1;
        let b = (mix(*step) % u64::from(m.barray().get())) as u32;
        if m.is_removed(b) || m.working() == 1 {
            continue;
        }
        m.remove(b).unwrap();
        if mix(!*step).is_multiple_of(7) {
            m.restore().unwrap();
        }
    }
}

/// Every batch of the layout's keys from `starts`, of the lengths `lens`,
/// on every kernel and division strategy (under Miri every kernel with its
/// own strategy: the others differ only in register arithmetic, which the
/// kernels' own tests run there), with u32 and u64 offsets: `want`, the
/// one-key lookups.
fn check_batches(m: &Memento, data: &[u8], offsets: &[u64], cuts: &[(usize, usize)], what: &str) {
    let want: Vec<u32> = offsets
        .windows(2)
        .map(|w| m.bucket_bytes(&data[w[0] as usize..w[1] as usize]))
        .collect();
    let narrow: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
    let kernels = if cfg!(miri) {
        Kernel::supported()
    } else {
        Kernel::every_strategy()
    };
    for kernel in kernels {
        for &(start, len) in cuts {
            let want = &want[start..start + len];
            let mut out = vec![u32::MAX; len];
            let wide = &offsets[start..=start + len];
            m.batch_bytes_on(kernel, data, wide, &mut out).unwrap();
            assert_eq!(
                out, want,
                "{kernel}, {what}, u64 offsets, {len} keys from {start}"
            );
            out.fill(u32::MAX);
            let narrow = &narrow[start..=start + len];
            m.batch_bytes_on(kernel, data, narrow, &mut out).unwrap();
            assert_eq!(
                out, want,
                "{kernel}, {what}, u32 offsets, {len} keys from {start}"
            );
        }
    }
}

/// Small to large b-arrays, from none to 99% removed: every batch gives
/// the one-key lookups, whatever the keys' lengths and the blocks' cuts.
#[test]
fn byte_batches_match_one_key_lookups() {
    let (longest, more, barrays, percents): (u64, u64, &[u32], &[u32]) = if cfg!(miri) {
        (24, 40, &[100], &[0, 50, 99])
    } else {
        (300, 9000, &[7, 100, 1000, 5000], &[0, 1, 10, 50, 90, 99])
    };
    let (data, offsets) = keys(longest, more, 3);
    let all = offsets.len() - 1;
    // The whole layout, past a block of the pre-hash and (unless under
    // Miri) of the resolution, and shorter cuts from misaligned keys; out
    // of Miri (whose 17 keys take a short call's paths), cuts on both
    // sides of a short call's length too.
    let mut cuts = vec![(0, all), (1, all - 1), (all - 17, 17), (2, 0)];
    if !cfg!(miri) {
        cuts.extend([(5, 300), (3, 1), (7, 63), (11, 64)]);
    }
    for (case, &n) in barrays.iter().enumerate() {
        let mut m = Memento::new(BucketCount::new(n).unwrap());
        let mut step = case as u64 * 1000;
        for &percent in percents {
            remove_to(&mut m, percent, &mut step);
            check_batches(&m, &data, &offsets, &cuts, &format!("n {n}, {percent}%"));
        }
    }
}

/// The largest b-array with a table of links, whose keys go in rounds,
/// and the smallest without, whose keys are resolved one at a time.
#[test]
#[cfg_attr(
    miri,
    ignore = "the link table of 2^22 buckets takes minutes under Miri; the rounds' plain code runs there in the test above"
)]
fn byte_batches_on_both_sides_of_the_link_table_limit() {
    let (data, offsets) = keys(300, 3000, 5);
    let all = offsets.len() - 1;
    for n in [removed::LINK_LIMIT, removed::LINK_LIMIT + 1] {
        let count = BucketCount::new(n).unwrap();
        let mut m = Memento::new(count);
        // The buckets of some keys, so that their lookups rehash, then as
        // many others.
        for (i, w) in offsets.windows(2).enumerate().step_by(3) {
            let first = crate::kernel::scalar::jump(
                lookup::prehash_bytes(&data[w[0] as usize..w[1] as usize]),
                n,
            );
            for b in [first, (mix(i as u64) % u64::from(n - 1)) as u32] {
                if !m.is_removed(b) && b + 1 != n {
                    m.remove(b).unwrap();
                }
            }
        }
        check_batches(&m, &data, &offsets, &[(0, all)], &format!("n {n}"));
    }
}
