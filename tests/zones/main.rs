//! Zoned replica sets (`jumpshard::zones`): the batched walk against a
//! plain second implementation, the properties of the construction over
//! random zoned tables, and the golden vectors of `testdata/zones/`.

mod golden;
mod plans;
mod properties;
/// The plain implementation written from the construction's text, kept
/// beside the C++ Figure 1 and Memento in `reference/`.
#[path = "../../reference/zones.rs"]
mod reference;

use jumpshard::verify::SplitMix64;
use jumpshard::NodeTable;

/// A well-mixed key of index `i`.
pub fn mix(i: u64) -> u64 {
    xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0x2013)
}

/// A small deterministic generator, so that every run draws the same
/// tables.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
}

/// The text of a zoned table: `sizes[z]` nodes in zone `z{z}`, interleaved
/// in a random order, racks `r0..r{racks}` when `racks > 0`, then
/// `removed` of its nodes removed in a random order (never all).
pub fn table_text(rng: &mut Rng, sizes: &[usize], racks: u64, removed: usize) -> String {
    let mut rows: Vec<(usize, usize)> = Vec::new();
    for (z, &n) in sizes.iter().enumerate() {
        rows.extend((0..n).map(|i| (z, i)));
    }
    for i in (1..rows.len()).rev() {
        rows.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut removal = vec![0usize; rows.len()];
    let mut k = 0;
    // The last row removed first would be a shrink: leave it out then.
    for &row in order.iter().filter(|&&r| r + 1 != rows.len()) {
        if k == removed.min(rows.len() - 1) {
            break;
        }
        k += 1;
        removal[row] = k;
    }
    let mut text = String::new();
    for (row, &(z, i)) in rows.iter().enumerate() {
        text.push_str(&format!("n{z}-{i} zone=z{z}"));
        if racks > 0 {
            text.push_str(&format!(" rack=r{}", rng.below(racks)));
        }
        if removal[row] > 0 {
            text.push_str(&format!(" removed={}", removal[row]));
        }
        text.push('\n');
    }
    text
}

/// The zoned sets of `keys` in `table`, one row of `k` nodes per key.
pub fn sets(table: &NodeTable, keys: &[u64], k: usize) -> Vec<Vec<u32>> {
    let zoned = table.zoned_replicas().unwrap();
    let mut columns = vec![vec![0u32; keys.len()]; k];
    let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
    zoned.batch(keys, &mut refs).unwrap();
    (0..keys.len())
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

#[test]
fn the_batched_walk_is_the_plain_one() {
    let mut rng = Rng::new(7);
    let keys: Vec<u64> = (0..if cfg!(miri) { 20 } else { 400 }).map(mix).collect();
    for case in 0..if cfg!(miri) { 4 } else { 60 } {
        let zones = 1 + rng.below(5) as usize;
        let sizes: Vec<usize> = (0..zones).map(|_| 1 + rng.below(6) as usize).collect();
        let total: usize = sizes.iter().sum();
        let racks = [0, 0, 2, 3][case % 4];
        let removed = rng.below(total as u64) as usize;
        let text = table_text(&mut rng, &sizes, racks, removed);
        let table = NodeTable::parse(&text).unwrap();
        let live = (0..table.nodes().len())
            .filter(|&n| table.is_live(n))
            .count();
        for k in 1..=live.min(6) {
            let got = sets(&table, &keys, k);
            for (i, &key) in keys.iter().enumerate() {
                let want: Vec<u32> = reference::set(&table, key, k)
                    .into_iter()
                    .map(|n| n as u32)
                    .collect();
                assert_eq!(got[i], want, "k {k}, key {key}, table:\n{text}");
            }
        }
    }
}
