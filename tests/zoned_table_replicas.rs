//! A zoned table's own replica calls (`NodeTable::check_replicas`,
//! `NodeTable::replicas_batch`) give its zoned sets: the golden vectors of
//! `testdata/zones/sets.txt`, each member as its node's first slot.

use std::path::PathBuf;

use jumpshard::nodes::ReplicaError;
use jumpshard::zones::ZoneError;
use jumpshard::NodeTable;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/zones")
}

#[test]
fn table_replicas_give_the_golden_zoned_sets() {
    let sets = std::fs::read_to_string(dir().join("sets.txt")).unwrap();
    let mut rows = 0;
    for line in sets.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let text = std::fs::read_to_string(dir().join(f[0])).unwrap();
        let table = NodeTable::parse(&text).unwrap();
        let key: u64 = f[1].parse().unwrap();
        let k: usize = f[2].parse().unwrap();
        let mut columns = vec![[u32::MAX; 1]; k];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        table.replicas_batch(&[key], &mut refs).unwrap();
        let names: Vec<&str> = columns.iter().map(|c| table.slot(c[0] as usize)).collect();
        assert_eq!(names.join(","), f[3], "{line}");
        rows += 1;
    }
    assert_eq!(rows, 4 * 8 * 5);
}

#[test]
fn zoned_refusals_leave_the_columns_untouched() {
    let text = std::fs::read_to_string(dir().join("three.txt")).unwrap();
    let table = NodeTable::parse(&text).unwrap();
    assert_eq!(
        table.check_replicas(10),
        Err(ReplicaError::Zone(ZoneError::TooManyReplicas {
            replicas: 10,
            live: 9
        }))
    );
    let mut column = [7u32; 2];
    let mut short = [7u32; 1];
    let err = table
        .replicas_batch(&[1, 2], &mut [&mut column, &mut short])
        .unwrap_err();
    assert_eq!(err, ReplicaError::LengthMismatch { keys: 2, out: 1 });
    assert_eq!((column, short), ([7; 2], [7]));
    let weighted = NodeTable::parse("a zone=x weight=2\nb zone=y weight=1\n");
    if let Ok(weighted) = weighted {
        assert_eq!(
            weighted.check_replicas(1),
            Err(ReplicaError::Zone(ZoneError::Weighted))
        );
    }
}

#[test]
fn replica_changes_of_zoned_tables_are_the_zoned_ones() {
    use jumpshard::{NodePlan, TableChange};
    let text = std::fs::read_to_string(dir().join("three.txt")).unwrap();
    let old = NodeTable::parse(&text).unwrap();
    let new = old.with_zone_lost("west").unwrap();
    let keys: Vec<u64> = (0..2000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let (mut a, mut b) = (NodePlan::new(), NodePlan::new());
    TableChange::with_replicas(&old, &new, 3)
        .unwrap()
        .plan(&keys, 0, &mut a, true);
    TableChange::with_zoned_replicas(&old, &new, 3)
        .unwrap()
        .plan(&keys, 0, &mut b, true);
    assert_eq!(a.moves().collect::<Vec<_>>(), b.moves().collect::<Vec<_>>());
    let plain = NodeTable::parse("a\nb\nc\n").unwrap();
    assert_eq!(
        TableChange::with_replicas(&plain, &old, 2).unwrap_err(),
        ReplicaError::Zone(ZoneError::NotZoned)
    );
}
