//! Node tables and their changes: the fast plan against the definition
//! (both tables evaluated in full for every key), and the table syntax.

use std::collections::BTreeMap;

use jumpshard::verify::SplitMix64;
use jumpshard::{NodePlan, NodeTable, TableChange, TableError};

/// A table of `len` slots over nodes named `n0..`, `heavy` of them
/// serving a second slot somewhere.
fn table(len: usize, rng: &mut SplitMix64) -> NodeTable {
    let names: Vec<String> = (0..len)
        .map(|i| {
            if i > 0 && rng.next_u64().is_multiple_of(4) {
                format!("n{}", rng.next_u64() as usize % i)
            } else {
                format!("n{i}")
            }
        })
        .collect();
    NodeTable::new(&names).unwrap()
}

/// Checks `plan` of `change` over `keys` against the definition.
fn check(old: &NodeTable, new: &NodeTable, keys: &[u64], first: u64) {
    let change = TableChange::new(old, new);
    let mut plan = NodePlan::new();
    change.plan(keys, first, &mut plan, true);
    let mut want = Vec::new();
    let mut before = vec![0u64; change.nodes().len()];
    let mut after = vec![0u64; change.nodes().len()];
    let mut transfers = BTreeMap::new();
    let mut bucket_changes = 0;
    for (i, &k) in keys.iter().enumerate() {
        let (from, to) = change.nodes_of(k);
        assert_eq!(change.nodes()[from as usize], old.node(k));
        assert_eq!(change.nodes()[to as usize], new.node(k));
        before[from as usize] += 1;
        after[to as usize] += 1;
        let (b, c) = (old.bucket(k), new.bucket(k));
        bucket_changes += u64::from(b != c);
        if from != to {
            want.push((first + i as u64, from, to));
            *transfers.entry((from, to)).or_insert(0u64) += 1;
        }
    }
    let got: Vec<_> = plan.moves().map(|m| (m.position, m.from, m.to)).collect();
    assert_eq!(got, want, "{} -> {} slots", old.len(), new.len());
    let counts = plan.counts();
    assert_eq!(counts.keys(), keys.len() as u64);
    assert_eq!(counts.moved(), want.len() as u64);
    assert_eq!(counts.bucket_changes(), bucket_changes);
    assert_eq!(counts.load_before(), before);
    assert_eq!(counts.load_after(), after);
    assert_eq!(counts.transfers().collect::<BTreeMap<_, _>>(), transfers);
    // The counts alone are the same without the list.
    let mut counted = NodePlan::new();
    change.plan(keys, first, &mut counted, false);
    assert!(counted.is_empty());
    assert_eq!(counted.counts(), counts);
}

#[test]
fn every_kind_of_change_matches_the_definition() {
    let mut rng = SplitMix64::new(13);
    let keys = rng.keys(20_000);
    for (n, m) in [
        (1, 1),
        (1, 2),
        (2, 1),
        (5, 5),
        (10, 12),
        (12, 10),
        (3, 40),
        (40, 3),
        (300, 290),
        (290, 300),
    ] {
        let old = table(n, &mut rng);
        // Appending to or truncating `old`.
        let mut names: Vec<String> = (0..m)
            .map(|i| match i < n {
                true => old.slot(i).to_owned(),
                false => format!("new{i}"),
            })
            .collect();
        let prefix = NodeTable::new(&names).unwrap();
        assert!(TableChange::new(&old, &prefix).is_append_or_truncate());
        check(&old, &prefix, &keys, 0);
        // Some shared slots change hands, to old and new names.
        for name in names.iter_mut().take(n.min(m)) {
            if rng.next_u64().is_multiple_of(3) {
                *name = format!("n{}", rng.next_u64() as usize % n);
            }
        }
        names[0] = "moved0".into();
        check(&old, &NodeTable::new(&names).unwrap(), &keys, 7);
        // An unrelated table.
        check(&old, &table(m, &mut rng), &keys, 1 << 40);
    }
}

/// Removals, restores and weight changes: the plan (both tables placed in
/// full) against the definition, and what each change promises: a Memento
/// removal moves exactly the node's keys, a restore exactly the keys that
/// come back, a weight change only keys onto or off that node.
#[test]
fn removals_restores_and_weights_match_the_definition() {
    use jumpshard::nodes::{restore, NodeRemoval, Removal};
    let mut rng = SplitMix64::new(29);
    let keys: Vec<u64> = (0..30_000).map(|_| rng.next_u64()).collect();
    let mut table = NodeTable::new((0..40).map(|i| format!("n{i}"))).unwrap();
    for step in 0..30 {
        let live: Vec<String> = (0..table.nodes().len())
            .filter(|&i| table.is_live(i))
            .map(|i| table.nodes()[i].clone())
            .collect();
        let next = if step % 4 == 3 {
            restore(&table, Some(&format!("r{step}"))).unwrap().0
        } else {
            let node = &live[rng.next_u64() as usize % live.len()];
            let next = NodeRemoval::new(&table, node)
                .unwrap()
                .table(&Removal::Memento)
                .unwrap();
            for &k in &keys {
                let (a, b) = (table.node(k), next.node(k));
                assert!(
                    a == b || a == node.as_str(),
                    "{k}: {a} -> {b} removing {node}"
                );
            }
            next
        };
        check(&table, &next, &keys, 7);
        let round_trip = NodeTable::parse(&next.to_text()).unwrap();
        assert_eq!(round_trip, next);
        table = next;
    }
    assert!(!table.removals().is_empty());
    let even = NodeTable::parse("a weight=2\nb weight=2\nc weight=2\nd weight=2\n").unwrap();
    let lighter = NodeTable::parse("a weight=2\nb weight=0.5\nc weight=2\nd weight=2\n").unwrap();
    for &k in &keys {
        let (a, b) = (even.node(k), lighter.node(k));
        assert!(a == b || a == "b", "{k}: {a} -> {b}");
        assert_eq!(even.bucket(k), jumpshard::bucket(k, even.bucket_count()));
    }
    check(&even, &lighter, &keys, 0);
    check(&lighter, &even, &keys[..1000], 3);
    check(&table, &lighter, &keys[..5000], 0);
}

#[test]
fn lengths_around_the_blocks_and_the_lanes() {
    let mut rng = SplitMix64::new(5);
    let old = table(7, &mut rng);
    let new = table(9, &mut rng);
    for len in (0..300).chain([8191, 8192, 8193, 20_000]) {
        let keys = rng.keys(len);
        check(&old, &new, &keys, 3);
        check(&new, &old, &keys, 3);
    }
}

#[test]
fn adversarial_keys() {
    let keys: Vec<u64> = [0, 1, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1]
        .into_iter()
        .chain((0..64).map(|s| 1u64 << s))
        .chain((0..64).map(|s| !(1u64 << s)))
        .collect();
    let names: Vec<String> = (0..1000).map(|i| format!("h{i}")).collect();
    let big = NodeTable::new(&names).unwrap();
    let small = NodeTable::new(&names[..999]).unwrap();
    check(&big, &small, &keys, 0);
    check(&small, &big, &keys, 0);
}

#[test]
fn weighted_tables_round_trip_through_text() {
    let mut rng = SplitMix64::new(9);
    for len in [1, 2, 17, 100] {
        let t = table(len, &mut rng);
        assert_eq!(NodeTable::parse(&t.to_text()).unwrap(), t);
    }
    let crlf = NodeTable::parse("a\r\nb\r\n+a").unwrap();
    assert_eq!(crlf, NodeTable::new(["a", "b", "a"]).unwrap());
}

#[test]
fn bad_tables_name_their_line() {
    let cases: [(&str, TableError); 9] = [
        ("", TableError::Empty),
        ("\n", TableError::Empty),
        ("a\n\nb\n", TableError::EmptyName { line: 2 }),
        ("a\nb\n\n", TableError::EmptyName { line: 3 }),
        (
            "a\nb\na\n",
            TableError::UnmarkedRepeat {
                line: 3,
                name: "a".into(),
                first_line: 1,
            },
        ),
        (
            "a\n+b\n",
            TableError::MarkedFirst {
                line: 2,
                name: "b".into(),
            },
        ),
        (
            "a\nb c\n",
            TableError::BadAttribute {
                line: 2,
                attribute: "c".into(),
                why: "is not an attribute: a line is NAME, then removed=K, weight=W, zone=Z or \
                      rack=R (names hold no whitespace)"
                    .into(),
            },
        ),
        (
            "a,b\n",
            TableError::BadName {
                line: 1,
                name: "a,b".into(),
                why: "contains ',' or '\"', which CSV move lists would have to quote",
            },
        ),
        ("a\n+\n", TableError::EmptyName { line: 2 }),
    ];
    for (text, want) in cases {
        assert_eq!(NodeTable::parse(text), Err(want), "{text:?}");
    }
    let err = NodeTable::parse(" a\n").unwrap_err();
    assert!(
        err.to_string().starts_with("line 1: node name \" a\""),
        "{err}"
    );
}
