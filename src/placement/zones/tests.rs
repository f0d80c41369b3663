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
