//! The lanes' sets (`lanes.rs`) against the general rounds (`batch.rs`),
//! on every kernel this CPU runs: every length to 300 at misaligned
//! offsets, one to 8 zones of uneven sizes and more than 8 (`wide.rs`),
//! nodes removed (none, 10%, 90%), a zone emptied, racks, and each `k` the
//! lanes take (more members than zones included); and each key's requests
//! against a sort of its zones, ties included.

use crate::verify::SplitMix64;
use crate::{Kernel, NodeTable};

/// A zoned table: `sizes[z]` nodes in zone `z{z}` in a shuffled order,
/// racks `r0..r{racks}` when `racks > 0`, about `removed` (a fraction) of
/// the nodes removed in a random order, and every node of zone 1 removed
/// when `emptied`. The last row, never removed (removing it first would
/// shrink the table), is one more node of zone 0.
fn table(rng: &mut SplitMix64, sizes: &[usize], racks: u64, removed: f64, emptied: bool) -> String {
    let mut rows: Vec<(usize, usize)> = Vec::new();
    for (z, &n) in sizes.iter().enumerate() {
        rows.extend((0..n).map(|i| (z, i)));
    }
    for i in (1..rows.len()).rev() {
        rows.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let mut dying: Vec<usize> = (0..rows.len())
        .filter(|&r| {
            let drawn = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            (emptied && rows[r].0 == 1) || drawn < removed
        })
        .collect();
    for i in (1..dying.len()).rev() {
        dying.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let mut text = String::new();
    for (row, &(z, i)) in rows.iter().enumerate() {
        text.push_str(&format!("n{z}-{i} zone=z{z}"));
        if racks > 0 {
            text.push_str(&format!(" rack=r{}", rng.next_u64() % racks));
        }
        if let Some(d) = dying.iter().position(|&r| r == row) {
            text.push_str(&format!(" removed={}", d + 1));
        }
        text.push('\n');
    }
    text + "last zone=z0\n"
}

/// Every length from 0 to `lengths` of `keys` at misaligned offsets
/// (keys one past a vector's start, columns three past theirs) on every
/// kernel, for each `k` up to `most` the lanes take: each row the general
/// rounds'.
fn check_up_to(most: usize, text: &str, keys: &[u64], lengths: usize) {
    let table = NodeTable::parse(text).unwrap();
    let zoned = table.zoned_replicas().unwrap();
    for k in (1..=zoned.live.min(most)).filter(|&k| zoned.on_lanes(k)) {
        let mut want = vec![vec![0u32; keys.len()]; k];
        let mut refs: Vec<&mut [u32]> = want.iter_mut().map(|c| &mut c[..]).collect();
        zoned.rounds(Kernel::scalar(), keys, &mut refs);
        // Past the zones, the later rounds run in plain code over the
        // first round's lists: fewer lengths do.
        let lengths = if k > zoned.order.live.len() {
            lengths.min(24)
        } else {
            lengths
        };
        for kernel in Kernel::supported() {
            for len in (0..=lengths.min(keys.len() - 1)).chain([keys.len() - 1]) {
                let mut got = vec![vec![u32::MAX; len + 3]; k];
                let mut refs: Vec<&mut [u32]> = got.iter_mut().map(|c| &mut c[3..]).collect();
                zoned.lane_rounds(kernel, &keys[1..=len], &mut refs);
                for (j, (got, want)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(got[..3], [u32::MAX; 3]);
                    assert_eq!(
                        got[3..],
                        want[1..=len],
                        "{kernel}, k {k}, rank {}, {len} keys, table:\n{text}",
                        j + 1
                    );
                }
            }
        }
    }
}

/// [`check_up_to`] sets of 8: past the zones, a few rounds of members
/// each.
fn check(text: &str, keys: &[u64], lengths: usize) {
    check_up_to(8, text, keys, lengths);
}

fn keys(count: usize) -> Vec<u64> {
    SplitMix64::new(0x20E5_1A4E).keys(count)
}

#[test]
fn the_lanes_are_the_general_rounds_at_every_length() {
    let mut rng = SplitMix64::new(42);
    let keys = keys(if cfg!(miri) { 20 } else { 302 });
    let lengths = if cfg!(miri) { 18 } else { 300 };
    let wide: &[usize] = if cfg!(miri) { &[9] } else { &[9, 12, 17] };
    for zones in (1..=8).chain(wide.iter().copied()) {
        let sizes: Vec<usize> = (0..zones).map(|z| 1 + (z * 5 + 3) % 7).collect();
        check(&table(&mut rng, &sizes, 0, 0.0, false), &keys, lengths);
    }
}

#[test]
fn the_lanes_are_the_general_rounds_after_removals() {
    let mut rng = SplitMix64::new(43);
    let keys = keys(if cfg!(miri) { 20 } else { 700 });
    let lengths = if cfg!(miri) { 6 } else { 40 };
    let cases = if cfg!(miri) { 1 } else { 3 };
    for zones in (2..=8).chain([11]) {
        for case in 0..cases {
            let sizes: Vec<usize> = (0..zones)
                .map(|_| 1 + (rng.next_u64() % 30) as usize)
                .collect();
            let racks = [0, 3, 0][case];
            for (removed, emptied) in [(0.1, false), (0.9, false), (0.1, true)] {
                check(
                    &table(&mut rng, &sizes, racks, removed, emptied),
                    &keys,
                    lengths,
                );
            }
        }
    }
}

#[test]
fn the_lanes_fill_rounds_after_the_first() {
    // Three rounds and a part, where each round writes past the first.
    let mut rng = SplitMix64::new(44);
    let keys = keys(if cfg!(miri) { 20 } else { 3 * 4096 + 77 });
    let sizes = [40, 7, 25, 12, 30];
    check(&table(&mut rng, &sizes, 2, 0.1, false), &keys, 0);
    // More zones take shorter rounds (`lanes::round_keys`).
    let sizes = [3, 9, 1, 4, 7, 2, 5, 8, 6, 3, 2, 4];
    check(&table(&mut rng, &sizes, 2, 0.1, false), &keys, 0);
    // So many zones that a round is 64 keys, and most zones get no
    // request in it.
    if !cfg!(miri) {
        let sizes = [1; 600];
        check(&table(&mut rng, &sizes, 0, 0.1, false), &keys[..300], 70);
    }
}

#[test]
fn more_zones_than_the_lanes_compare_by_pairs_take_sets_up_to_the_zones() {
    // Ten zones of two nodes: sets of up to ten, one member per zone, on
    // the lanes; more members than zones take the general rounds.
    let text: String = (0..20)
        .map(|i| format!("n{i} zone=z{}\n", i % 10))
        .collect();
    let table = NodeTable::parse(&text).unwrap();
    let zoned = table.zoned_replicas().unwrap();
    assert!((1..=10).all(|k| zoned.on_lanes(k)));
    assert!(!zoned.on_lanes(11));
    let lengths = if cfg!(miri) { 4 } else { 40 };
    check_up_to(10, &text, &keys(if cfg!(miri) { 6 } else { 300 }), lengths);
}

/// Each key's requests on every kernel against a sort of its zones by
/// descending score, ties to the earlier zone (the higher id), over
/// scores drawn from a handful of values so that ties are common: the
/// rule no table's real scores would show.
#[test]
fn the_requests_are_the_sorted_order_with_ties() {
    use super::lanes::requests;
    use super::requests::Scratch;
    let mut rng = SplitMix64::new(45);
    let lengths = if cfg!(miri) {
        [0, 1, 9].as_slice()
    } else {
        &[0, 1, 7, 8, 9, 63, 300]
    };
    let wide: &[usize] = if cfg!(miri) { &[9] } else { &[9, 10, 13] };
    for zones in (2..=8).chain(wide.iter().copied()) {
        for k in 2..=zones {
            for &n in lengths {
                let keys = rng.keys(n);
                let mut want: Vec<Vec<(usize, usize)>> = vec![Vec::new(); zones];
                let mut made = Scratch::new(n.max(1), k, zones);
                for (i, _) in keys.iter().enumerate() {
                    let first = (rng.next_u64() % zones as u64) as usize;
                    if zones > super::order::MAX_ZONES {
                        made.places[i] = first as u32;
                    } else {
                        made.first[i] = first as u8;
                    }
                    let score: Vec<u64> = (0..zones).map(|_| rng.next_u64() % 3).collect();
                    for (z, &s) in score.iter().enumerate() {
                        made.scores[z * made.stride + i] = s;
                    }
                    let mut others: Vec<usize> = (0..zones).filter(|&z| z != first).collect();
                    others.sort_by_key(|&z| (core::cmp::Reverse(score[z]), z));
                    for (place, &z) in others.iter().enumerate().take(k - 1) {
                        want[z].push((i, place + 1));
                    }
                }
                for kernel in Kernel::supported() {
                    let mut s = Scratch::new(n.max(1), k, zones);
                    s.first.copy_from_slice(&made.first);
                    s.places.copy_from_slice(&made.places);
                    s.scores.copy_from_slice(&made.scores);
                    requests(kernel, zones, &keys, k, &mut s);
                    for (z, want) in want.iter().enumerate() {
                        let at = s.starts[z];
                        let got: Vec<(usize, usize)> = s.targets[at..at + s.lengths[z]]
                            .iter()
                            .map(|&t| (t as usize % s.size, t as usize / s.size + 1))
                            .collect();
                        assert_eq!(&got, want, "{kernel}, {zones} zones, k {k}, {n} keys");
                        let asked: Vec<u64> = want.iter().map(|&(i, _)| keys[i]).collect();
                        assert_eq!(s.derived[at..at + s.lengths[z]], asked[..]);
                    }
                }
            }
        }
    }
}
