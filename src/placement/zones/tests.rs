//! Unit tests of the zoned walk; the properties are in `tests/zones*.rs`.

use crate::NodeTable;

#[test]
fn one_key_sets_are_the_batch_rows() {
    let table = NodeTable::parse(
        "a1 zone=a\nb1 zone=b rack=r1\nc1 zone=c\na2 zone=a removed=1\nb2 zone=b rack=r2\nb3 zone=b rack=r1\n",
    )
    .unwrap();
    let zoned = table.zoned_replicas().unwrap();
    let keys: Vec<u64> = (0..if cfg!(miri) { 20 } else { 500u64 })
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    for k in 1..=5 {
        let mut columns = vec![vec![0u32; keys.len()]; k];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        zoned.batch(&keys, &mut refs).unwrap();
        for (i, &key) in keys.iter().enumerate() {
            let mut set = vec![0u32; k];
            zoned.set(key, &mut set).unwrap();
            let row: Vec<u32> = columns.iter().map(|c| c[i]).collect();
            assert_eq!(row, set);
            let mut distinct = set.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), k, "key {key} k {k}: {set:?}");
            assert!(set.iter().all(|&n| table.is_live(n as usize)));
        }
    }
}

/// One key's sets take their own path (`one_key.rs`) when each zone holds
/// one member and `k` is at most 8, the domains' walk otherwise: both
/// against the batch's rounds and lanes, over 12 zones of 1 to 4 nodes
/// (one zone dead, nodes removed, racks in one zone, keys pinned), for
/// every `k` on both sides of each switch.
#[test]
fn one_key_sets_over_many_zones_are_the_batch_rows() {
    let mut text = String::new();
    let mut removal = 0;
    for z in 0..12 {
        for n in 0..1 + z % 4 {
            text += &format!("n{z}x{n} zone=z{z}");
            if z == 5 {
                text += &format!(" rack=r{}", n % 2);
            }
            if z == 3 || (n > 0 && (z + n) % 3 == 0) {
                removal += 1;
                text += &format!(" removed={removal}");
            }
            text += "\n";
        }
    }
    let table = NodeTable::parse(&text).unwrap();
    let keys: Vec<u64> = (0..if cfg!(miri) { 10 } else { 400u64 })
        .map(|i| i.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ i)
        .collect();
    let pinned = table
        .with_overrides([(keys[1], "n7x2"), (keys[2], "n0x0")])
        .unwrap();
    for table in [&table, &pinned] {
        let zoned = table.zoned_replicas().unwrap();
        let live = (0..table.nodes().len())
            .filter(|&n| table.is_live(n))
            .count();
        for k in (1..=12).chain([live]) {
            let mut columns = vec![vec![0u32; keys.len()]; k];
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            zoned.batch(&keys, &mut refs).unwrap();
            for (i, &key) in keys.iter().enumerate() {
                let mut set = vec![u32::MAX; k];
                zoned.set(key, &mut set).unwrap();
                let row: Vec<u32> = columns.iter().map(|c| c[i]).collect();
                assert_eq!(row, set, "key {key} k {k}");
            }
        }
    }
}

/// Batches short enough to go key by key (`one_key::ALONE`) and just
/// longer, from every start, give the rows of one long batch.
#[test]
fn short_batches_are_the_long_batch_rows() {
    let mut text = String::new();
    for n in 0..40 {
        text += &format!("n{n} zone=z{}\n", n % 5);
    }
    let table = NodeTable::parse(&text).unwrap();
    let zoned = table.zoned_replicas().unwrap();
    let keys: Vec<u64> = (0..24u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    for k in [1, 3, 7] {
        let mut long = vec![vec![0u32; keys.len()]; k];
        let mut refs: Vec<&mut [u32]> = long.iter_mut().map(|c| &mut c[..]).collect();
        zoned.batch(&keys, &mut refs).unwrap();
        for len in 0..=6 {
            for start in 0..keys.len() - len {
                let mut short = vec![vec![u32::MAX; len]; k];
                let mut refs: Vec<&mut [u32]> = short.iter_mut().map(|c| &mut c[..]).collect();
                zoned.batch(&keys[start..start + len], &mut refs).unwrap();
                for (column, want) in short.iter().zip(&long) {
                    assert_eq!(column[..], want[start..start + len], "k {k} len {len}");
                }
            }
        }
    }
}
