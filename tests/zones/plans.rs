//! Move plans of zoned replica sets: for a node added in a zone, a node
//! removed, a zone lost and a zone added, the plan lists exactly the
//! members that leave each set, each to one that joins it; bad arguments
//! are refused with typed errors, outputs untouched.

use std::collections::BTreeSet;

use jumpshard::nodes::{NodeRemoval, Removal};
use jumpshard::zones::ZoneError;
use jumpshard::{NodePlan, NodeTable, TableChange};

use super::{mix, sets};

fn table() -> NodeTable {
    NodeTable::parse(
        "a1 zone=a\nb1 zone=b\nc1 zone=c\na2 zone=a\nb2 zone=b\nc2 zone=c\na3 zone=a\nb3 zone=b\nc3 zone=c\nd1 zone=d\nd2 zone=d\n",
    )
    .unwrap()
}

#[test]
fn plans_list_exactly_the_members_that_move() {
    let old = table();
    let changes = [
        ("node added", old.with_node_added("a4", "a", None).unwrap()),
        (
            "node removed",
            NodeRemoval::new(&old, "b2")
                .unwrap()
                .table(&Removal::Memento)
                .unwrap(),
        ),
        ("zone lost", old.with_zone_lost("c").unwrap()),
        (
            "zone added",
            old.with_zone_added("e", &["e1", "e2", "e3"]).unwrap(),
        ),
    ];
    let keys: Vec<u64> = (0..if cfg!(miri) { 30 } else { 5000 }).map(mix).collect();
    for k in 1..=3 {
        for (what, new) in &changes {
            let change = TableChange::with_zoned_replicas(&old, new, k).unwrap();
            let mut plan = NodePlan::new();
            change.plan(&keys, 100, &mut plan, true);
            let (before, after) = (sets(&old, &keys, k), sets(new, &keys, k));
            let mut want = BTreeSet::new();
            for (i, (o, n)) in before.iter().zip(&after).enumerate() {
                let o: BTreeSet<&str> = o
                    .iter()
                    .map(|&x| old.nodes()[x as usize].as_str())
                    .collect();
                let n: BTreeSet<&str> = n
                    .iter()
                    .map(|&x| new.nodes()[x as usize].as_str())
                    .collect();
                let gone: Vec<&str> = o.difference(&n).copied().collect();
                let come: Vec<&str> = n.difference(&o).copied().collect();
                assert_eq!(gone.len(), come.len());
                for (g, c) in gone.iter().zip(&come) {
                    want.insert((i as u64 + 100, g.to_string(), c.to_string()));
                }
            }
            let got: BTreeSet<(u64, String, String)> = plan
                .moves()
                .map(|m| {
                    let name = |i: u32| change.nodes()[i as usize].clone();
                    (m.position, name(m.from), name(m.to))
                })
                .collect();
            // The pairing follows rank order; the moved members match.
            let strip = |s: &BTreeSet<(u64, String, String)>| -> BTreeSet<(u64, String)> {
                s.iter().map(|m| (m.0, m.1.clone())).collect()
            };
            assert_eq!(strip(&got), strip(&want), "{what}, k {k}");
            assert_eq!(got.len(), plan.len(), "{what}, k {k}");
            let moved = plan.len() as f64 / (keys.len() * k) as f64;
            eprintln!("{what}, k {k}: {moved:.4} of replica slots move");
        }
    }
}

#[test]
fn bad_arguments_are_refused_by_type() {
    let old = table();
    assert_eq!(
        old.with_zone_lost("z"),
        Err(ZoneError::UnknownZone { zone: "z".into() })
    );
    assert_eq!(
        old.with_node_added("x", "z", None).unwrap_err().to_string(),
        "zone \"z\" is not in the table"
    );
    assert!(matches!(
        old.with_node_added("a1", "a", None),
        Err(ZoneError::Table(_))
    ));
    assert_eq!(
        old.with_zone_added("a", &["x"]),
        Err(ZoneError::ZoneExists { zone: "a".into() })
    );
    let one = NodeTable::parse("a zone=x\nb zone=x\n").unwrap();
    assert_eq!(
        one.with_zone_lost("x"),
        Err(ZoneError::LastZone { zone: "x".into() })
    );
    let plain = NodeTable::parse("a\nb\n").unwrap();
    assert_eq!(plain.with_zone_lost("x"), Err(ZoneError::NotZoned));
    // Beside removals, a slot appended would move other nodes' keys: the
    // removed slots' keys are rehashed over the grown count.
    let lost = old.with_zone_lost("c").unwrap();
    let removed = lost.removals().len();
    assert_eq!(
        lost.with_node_added("a9", "a", None),
        Err(ZoneError::Removals { removed })
    );
    assert_eq!(
        lost.with_zone_added("e", &["e1"]),
        Err(ZoneError::Removals { removed })
    );
    let one_removed = NodeTable::parse("a zone=x\nb zone=y removed=1\nc zone=y\n").unwrap();
    assert_eq!(
        one_removed
            .with_node_added("d", "x", None)
            .unwrap_err()
            .to_string(),
        "the table has 1 removal (removed=K): a slot appended beside them would move keys \
         between the other nodes, since removals are undone last in, first out; restore them \
         first, under new names if the nodes are gone"
    );
    assert!(matches!(
        TableChange::with_zoned_replicas(&old, &old, 12),
        Err(ZoneError::TooManyReplicas {
            replicas: 12,
            live: 11
        })
    ));
    let zoned = old.zoned_replicas().unwrap();
    let mut out = [7u32; 12];
    assert!(zoned.set(1, &mut out).is_err());
    assert!(zoned.set(1, &mut out[..0]).is_err());
    assert_eq!(out, [7; 12]);
    let (mut a, mut b) = (vec![9u32; 4], vec![9u32; 3]);
    assert_eq!(
        zoned.batch(&[1, 2, 3, 4], &mut [&mut a, &mut b]),
        Err(ZoneError::LengthMismatch { keys: 4, out: 3 })
    );
    assert_eq!((a, b), (vec![9; 4], vec![9; 3]));
    let weighted = NodeTable::parse("a zone=x weight=2\nb zone=y\n").unwrap();
    assert_eq!(weighted.zoned_replicas().unwrap_err(), ZoneError::Weighted);
}

/// A zoned member whose node serves several slots is that node's first
/// working slot, never a removed one, and names `batch`'s node first.
#[test]
fn members_are_first_working_slots() {
    let t =
        NodeTable::parse("a zone=x removed=1\nb zone=y\n+a zone=x\nc zone=z\nd zone=y\n").unwrap();
    let keys: Vec<u64> = (0..2000).map(mix).collect();
    let mut first = vec![0u32; keys.len()];
    let mut second = vec![0u32; keys.len()];
    t.replicas_batch(&keys, &mut [&mut first, &mut second])
        .unwrap();
    let mut batch = vec![0u32; keys.len()];
    t.batch(&keys, &mut batch).unwrap();
    for i in 0..keys.len() {
        for &m in [first[i], second[i]].iter() {
            assert!(!t.is_removed(m as usize), "key {}: slot {m}", keys[i]);
        }
        assert_eq!(t.slot(first[i] as usize), t.slot(batch[i] as usize));
    }
    assert!(first.contains(&2), "some key's first member is node a");
}

/// A weighted zoned table holds no removals, so losing a zone would have
/// dropped every weight and moved keys between the other nodes: refused,
/// the table unchanged, with the way to drain the zone instead.
#[test]
fn a_weighted_table_does_not_lose_a_zone() {
    let table = NodeTable::parse("a zone=A weight=2\nb zone=B weight=0.5\nc zone=A\n").unwrap();
    let err = table.with_zone_lost("B").unwrap_err();
    assert_eq!(err, ZoneError::Weighted);
    assert!(err.to_string().contains("weight=0"), "{err}");
}
