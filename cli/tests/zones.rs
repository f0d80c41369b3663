//! Zoned node tables through the CLI: `assign --nodes TABLE --replicas K`
//! prints the golden sets of `testdata/zones/`, `reshard --replicas K`
//! lists exactly the members that leave each set when a zone is lost, and
//! bad input names the value.

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use support::*;

fn zones() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/zones")
}

/// `assign --nodes table --replicas k` of decimal `keys`, one line a key.
fn sets(table: &str, k: usize, keys: &[u64]) -> Vec<String> {
    let text: String = keys.iter().map(|k| format!("{k}\n")).collect();
    let o = run_with_stdin(
        &[
            "assign",
            "--nodes",
            table,
            "--replicas",
            &k.to_string(),
            "--key-format",
            "decimal",
            "-",
        ],
        text.as_bytes(),
    );
    assert_ok(&o);
    stdout(&o).lines().map(str::to_owned).collect()
}

#[test]
fn assign_prints_the_golden_zoned_sets() {
    let golden = std::fs::read_to_string(zones().join("sets.txt")).unwrap();
    let mut groups: BTreeMap<(String, usize), Vec<(u64, String)>> = BTreeMap::new();
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        groups
            .entry((f[0].to_owned(), f[2].parse().unwrap()))
            .or_default()
            .push((f[1].parse().unwrap(), f[3].to_owned()));
    }
    assert_eq!(groups.len(), 4 * 5);
    for ((name, k), rows) in groups {
        let path = zones().join(&name);
        let keys: Vec<u64> = rows.iter().map(|r| r.0).collect();
        let want: Vec<String> = rows.into_iter().map(|r| r.1).collect();
        assert_eq!(sets(path_str(&path), k, &keys), want, "{name} k {k}");
    }
}

#[test]
fn reshard_lists_exactly_the_members_that_leave_when_a_zone_is_lost() {
    let d = dir();
    let three = std::fs::read_to_string(zones().join("three.txt")).unwrap();
    let old = table(d.path(), "old.txt", &three);
    let lost = jumpshard::NodeTable::parse(&three)
        .unwrap()
        .with_zone_lost("west")
        .unwrap()
        .to_text();
    let new = table(d.path(), "new.txt", &lost);
    let keys: Vec<u64> = (0..3000u64).collect();
    let before = sets(path_str(&old), 3, &keys);
    let after = sets(path_str(&new), 3, &keys);
    let text: String = keys.iter().map(|k| format!("{k}\n")).collect();
    let o = run_with_stdin(
        &[
            "reshard",
            "--from-nodes",
            path_str(&old),
            "--to-nodes",
            path_str(&new),
            "--replicas",
            "3",
            "--key-format",
            "decimal",
            "--output",
            "-",
            "-",
        ],
        text.as_bytes(),
    );
    // The summary goes to standard error when the moves take the output.
    assert!(o.status.success(), "{}", stderr(&o));
    let mut moves: BTreeMap<u64, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for line in stdout(&o).lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let entry = moves.entry(f[0].parse().unwrap()).or_default();
        entry.0.push(f[1].to_owned());
        entry.1.push(f[2].to_owned());
    }
    let mut moved = 0;
    for (i, key) in keys.iter().enumerate() {
        let old_set: Vec<&str> = before[i].split(',').collect();
        let new_set: Vec<&str> = after[i].split(',').collect();
        let mut left: Vec<String> = old_set
            .iter()
            .filter(|m| !new_set.contains(m))
            .map(|m| m.to_string())
            .collect();
        let mut joined: Vec<String> = new_set
            .iter()
            .filter(|m| !old_set.contains(m))
            .map(|m| m.to_string())
            .collect();
        // Every set held one west node, and only it leaves the zones.
        assert!(left.iter().any(|m| m.starts_with('c')), "key {key}");
        let (mut from, mut to) = moves.remove(key).unwrap_or_default();
        for v in [&mut left, &mut joined, &mut from, &mut to] {
            v.sort();
        }
        assert_eq!((from, to), (left, joined), "key {key}");
        moved += 1;
    }
    assert!(moves.is_empty());
    assert_eq!(moved, keys.len());
}

#[test]
fn bad_zoned_input_names_the_value() {
    let d = dir();
    let three = zones().join("three.txt");
    let o = run_with_stdin(
        &[
            "assign",
            "--nodes",
            path_str(&three),
            "--replicas",
            "10",
            "--key-format",
            "decimal",
            "-",
        ],
        b"1\n",
    );
    assert_fails(&o, &["--replicas 10", "9 distinct live nodes"]);
    let partial = table(d.path(), "partial.txt", "a zone=x\nb\n");
    let o = run_with_stdin(
        &[
            "assign",
            "--nodes",
            path_str(&partial),
            "--key-format",
            "decimal",
            "-",
        ],
        b"1\n",
    );
    assert_fails(&o, &["line 2"]);
    let plain = table(d.path(), "plain.txt", "a\nb\nc\n");
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&plain),
        "--to-nodes",
        path_str(&three),
        "--replicas",
        "2",
        "--generate",
        "10",
    ]);
    assert_fails(&o, &["--replicas 2", "names no zone"]);
}

#[test]
fn table_zone_changes_write_the_library_tables_or_nothing() {
    let d = dir();
    let three_text = std::fs::read_to_string(zones().join("three.txt")).unwrap();
    let three = jumpshard::NodeTable::parse(&three_text).unwrap();
    let old = table(d.path(), "old.txt", &three_text);
    let out = d.path().join("new.txt");
    let cases: [(Vec<&str>, jumpshard::NodeTable); 3] = [
        (
            vec!["lose-zone", "west"],
            three.with_zone_lost("west").unwrap(),
        ),
        (
            vec!["add-node", "d1", "--zone", "east", "--rack", "r9"],
            three.with_node_added("d1", "east", Some("r9")).unwrap(),
        ),
        (
            vec!["add-zone", "north", "n1", "n2"],
            three.with_zone_added("north", &["n1", "n2"]).unwrap(),
        ),
    ];
    for (words, want) in cases {
        let mut args = vec!["table", words[0], path_str(&old)];
        args.extend(&words[1..]);
        args.extend(["--write-table", path_str(&out)]);
        let o = run(&args);
        assert_ok(&o);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            want.to_text(),
            "{words:?}"
        );
        std::fs::remove_file(&out).unwrap();
    }
    for (words, named) in [
        (vec!["lose-zone", "nowhere"], "\"nowhere\""),
        (vec!["add-node", "d1", "--zone", "nowhere"], "\"nowhere\""),
        (vec!["add-zone", "east", "e9"], "\"east\""),
        (vec!["add-node", "a1", "--zone", "east"], "\"a1\""),
        // Names a slot line would read otherwise: as attributes, or as a
        // repeat of a node.
        (
            vec!["add-node", "d1 weight=5", "--zone", "east"],
            "whitespace",
        ),
        (vec!["add-node", "+a1", "--zone", "east"], "'+'"),
        (
            vec!["add-node", "d1", "--zone", "east", "--rack", "r 9"],
            "rack name",
        ),
        (vec!["add-zone", "north", "n1", "n 2"], "\"n 2\""),
    ] {
        let mut args = vec!["table", words[0], path_str(&old)];
        args.extend(&words[1..]);
        args.extend(["--write-table", path_str(&out)]);
        let o = run(&args);
        assert_fails(&o, &[named]);
        assert!(!out.exists(), "{words:?} wrote a table");
    }
}

/// Beside removals, a node or zone appended would move other nodes' keys:
/// both are refused, pointing to `restore`, whose replacement under a new
/// name serves in the zone of the node it replaces, and brings back only
/// that slot's keys.
#[test]
fn nodes_join_a_table_with_removals_by_restore() {
    let d = dir();
    let three = std::fs::read_to_string(zones().join("three.txt")).unwrap();
    let lost_text = jumpshard::NodeTable::parse(&three)
        .unwrap()
        .with_zone_lost("west")
        .unwrap()
        .to_text();
    let lost = table(d.path(), "lost.txt", &lost_text);
    let out = d.path().join("new.txt");
    for words in [
        vec!["add-node", "a9", "--zone", "east"],
        vec!["add-zone", "north", "n1"],
    ] {
        let mut args = vec!["table", words[0], path_str(&lost)];
        args.extend(&words[1..]);
        args.extend(["--write-table", path_str(&out)]);
        let o = run(&args);
        assert_fails(&o, &["3 removals", "restore them first"]);
        assert!(!out.exists(), "{words:?} wrote a table");
    }
    let o = run(&[
        "restore",
        "--from-nodes",
        path_str(&lost),
        "--node",
        "w9",
        "--write-table",
        path_str(&out),
    ]);
    assert_ok(&o);
    let back = std::fs::read_to_string(&out).unwrap();
    assert!(back.contains("\nw9 zone=west\n"), "{back}");
    let (before, after) = (
        jumpshard::NodeTable::parse(&lost_text).unwrap(),
        jumpshard::NodeTable::parse(&back).unwrap(),
    );
    for key in 0..5000u64 {
        let (b, a) = (before.node(key), after.node(key));
        assert!(a == b || a == "w9", "{key}: {b} -> {a}");
    }
}

/// A zone change never writes its table over the table it read: the move
/// plan between the two needs both.
#[test]
fn table_zone_changes_refuse_to_replace_their_table() {
    let d = dir();
    let text = std::fs::read_to_string(zones().join("three.txt")).unwrap();
    let old = table(d.path(), "old.txt", &text);
    for words in [
        vec!["lose-zone", "west"],
        vec!["add-node", "d1", "--zone", "east"],
        vec!["add-zone", "north", "n1"],
    ] {
        let mut args = vec!["table", words[0], path_str(&old)];
        args.extend(&words[1..]);
        args.extend(["--write-table", path_str(&old)]);
        assert_fails(&run(&args), &["TABLE file", "would replace"]);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), text, "{words:?}");
    }
}

/// A zone change's table is text: a name that says another format is
/// refused before anything is read, as `remove`, `restore` and `balance`
/// refuse it.
#[test]
fn table_zone_changes_refuse_names_of_other_formats() {
    let d = dir();
    let text = std::fs::read_to_string(zones().join("three.txt")).unwrap();
    let old = table(d.path(), "old.txt", &text);
    let before = listing(d.path());
    for (words, name, format) in [
        (
            vec!["add-node", "d1", "--zone", "east"],
            "zl.parquet",
            "parquet",
        ),
        (vec!["lose-zone", "west"], "zz.json", "JSON"),
        (vec!["add-zone", "north", "n1"], "zz.svg", "svg"),
    ] {
        let mut args = vec!["table", words[0], path_str(&old)];
        args.extend(&words[1..]);
        args.extend(["--write-table", name]);
        let o = run_command(command().current_dir(d.path()).args(&args), b"");
        assert_fails(&o, &[&format!("--write-table {name}"), format, ".txt"]);
        assert_eq!(listing(d.path()), before, "{words:?}");
    }
}
