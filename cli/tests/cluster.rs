//! Node tables that carry removals and weights through every command:
//! the Memento golden vectors replayed with `remove --choose memento`,
//! `restore` and `lookup --hex`; move lists of removals, restores and
//! weight changes; replica sets; and tables that contradict themselves.

use crate::support;

use std::path::{Path, PathBuf};

use jumpshard::NodeTable;
use support::*;

/// The table file `name` in `d` after one removal or restore, from `from`.
fn step(d: &Path, from: &Path, name: &str, args: &[&str]) -> PathBuf {
    let to = d.join(name);
    let mut all = args.to_vec();
    all.extend([
        "--from-nodes",
        path_str(from),
        "--write-table",
        path_str(&to),
    ]);
    assert_ok(&run(&all));
    to
}

/// Replays `testdata/memento/golden.txt`: each scenario's table built by
/// the CLI, each lookup answered by `lookup --hex`. A node table lists
/// every slot, so the scenario of 2^31 - 1 buckets is left to the library's
/// and the C ABI's replays.
#[test]
fn golden_vectors_through_the_cli() {
    let text = include_str!("../../testdata/memento/golden.txt");
    let d = dir();
    let mut current: Option<PathBuf> = None;
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut steps = 0;
    let mut skipping = false;
    let check = |table: &Path, pending: &mut Vec<(String, String)>| {
        if pending.is_empty() {
            return;
        }
        let mut args = vec!["lookup", "--hex", "--nodes", path_str(table)];
        args.extend(pending.iter().map(|(k, _)| k.as_str()));
        let o = run(&args);
        assert_ok(&o);
        let out = stdout(&o);
        for ((key, want), line) in pending.iter().zip(out.lines()) {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(
                (fields[0], fields[1]),
                (key.as_str(), want.as_str()),
                "{line}"
            );
        }
        assert_eq!(out.lines().count(), pending.len());
        pending.clear();
    };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split(' ').collect();
        if words[0] == "scenario" {
            skipping = words[1].parse::<u64>().unwrap() > 1 << 20;
        }
        if skipping {
            continue;
        }
        if words[0] != "lookup" {
            if let Some(t) = &current {
                check(t, &mut pending);
            }
        }
        steps += 1;
        let name = format!("t{steps}");
        match words[..] {
            ["scenario", n] => {
                let n: usize = n.parse().unwrap();
                let names: String = (0..n).map(|i| format!("n{i}\n")).collect();
                current = Some(table(d.path(), &name, &names));
            }
            ["remove", b] => {
                let node = format!("n{b}");
                let from = current.take().unwrap();
                current = Some(step(
                    d.path(),
                    &from,
                    &name,
                    &[
                        "remove",
                        "--node",
                        &node,
                        "--generate",
                        "10",
                        "--choose",
                        "memento",
                    ],
                ));
            }
            ["add", "->", b] => {
                let node = format!("n{b}");
                let from = current.take().unwrap();
                let to = step(d.path(), &from, &name, &["restore", "--node", &node]);
                let t = NodeTable::parse(&std::fs::read_to_string(&to).unwrap()).unwrap();
                assert_eq!(t.slot(b.parse().unwrap()), node);
                current = Some(to);
            }
            ["state", "size", working, "barray", barray] => {
                let t = current.as_ref().unwrap();
                let t = NodeTable::parse(&std::fs::read_to_string(t).unwrap()).unwrap();
                assert_eq!(t.len().to_string(), barray, "{line}");
                assert_eq!(
                    (t.len() - t.removals().len()).to_string(),
                    working,
                    "{line}"
                );
            }
            ["lookup", key, bucket] => pending.push((key.to_owned(), bucket.to_owned())),
            _ => panic!("unknown golden line {line:?}"),
        }
    }
    check(current.as_ref().unwrap(), &mut pending);
}

/// The move list of a Memento removal holds exactly the removed node's
/// keys; of the restore after it, exactly the same keys coming back; of a
/// weight change, only keys onto or off the node whose weight changed.
#[test]
fn move_lists_of_removals_restores_and_weights() {
    let d = dir();
    let keys = keys(7, 50_000);
    let input = u64le_file(d.path(), "keys", &keys);
    let old = table(d.path(), "old", "a\nb\nc\nd\ne\nf\n");
    let removed = step(
        d.path(),
        &old,
        "removed",
        &["remove", "--node", "c", "--memento", path_str(&input)],
    );
    let removed_table = NodeTable::parse(&std::fs::read_to_string(&removed).unwrap()).unwrap();
    assert_eq!(removed_table.removals(), [2]);
    let restored = step(d.path(), &removed, "restored", &["restore"]);
    assert_eq!(
        std::fs::read_to_string(&restored).unwrap(),
        "a\nb\nc\nd\ne\nf\n"
    );
    let moves = |from: &Path, to: &Path| -> Vec<(u64, String, String)> {
        let out = d.path().join("moves.csv");
        assert_ok(&run(&[
            "reshard",
            "--from-nodes",
            path_str(from),
            "--to-nodes",
            path_str(to),
            path_str(&input),
            "--output",
            path_str(&out),
        ]));
        let text = std::fs::read_to_string(&out).unwrap();
        text.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].parse().unwrap(), f[1].to_owned(), f[2].to_owned())
            })
            .collect()
    };
    let old_table = NodeTable::parse("a\nb\nc\nd\ne\nf\n").unwrap();
    let on_c: Vec<u64> = keys
        .iter()
        .copied()
        .filter(|&k| old_table.node(k) == "c")
        .collect();
    let away = moves(&old, &removed);
    assert_eq!(away.iter().map(|m| m.0).collect::<Vec<_>>(), on_c);
    assert!(away.iter().all(|m| m.1 == "c" && m.2 != "c"));
    let back = moves(&removed, &restored);
    assert_eq!(back.iter().map(|m| m.0).collect::<Vec<_>>(), on_c);
    assert!(back.iter().all(|m| m.2 == "c"));

    let heavier = table(d.path(), "heavier", "a\nb\nc weight=0.5\nd\ne\nf\n");
    let changed = moves(&old, &heavier);
    assert!(!changed.is_empty());
    assert!(
        changed.iter().all(|m| m.1 == "c" && m.2 != "c"),
        "only c's keys leave"
    );
    let weighted = NodeTable::parse("a\nb\nc weight=0.5\nd\ne\nf\n").unwrap();
    for (key, from, to) in &changed {
        assert_eq!(
            (old_table.node(*key), weighted.node(*key)),
            (from.as_str(), to.as_str())
        );
    }
}

/// `assign --nodes` places keys as the table says, replica sets included.
#[test]
fn assign_and_lookup_follow_the_table() {
    let d = dir();
    let keys = keys(3, 2000);
    let input = u64le_file(d.path(), "keys", &keys);
    let t = table(d.path(), "t", "a\nb removed=2\nc\nd removed=1\ne\nf\n");
    let o = run(&[
        "assign",
        "--nodes",
        path_str(&t),
        path_str(&input),
        "--replicas",
        "3",
    ]);
    assert_ok(&o);
    let parsed = NodeTable::parse(&std::fs::read_to_string(&t).unwrap()).unwrap();
    let m = parsed.memento().unwrap();
    for (line, &key) in stdout(&o).lines().zip(&keys) {
        let mut set = [0u32; 3];
        m.replicas(key, &mut set).unwrap();
        let names: Vec<&str> = set.iter().map(|&s| parsed.slot(s as usize)).collect();
        assert_eq!(line, names.join(","));
        assert_eq!(names[0], parsed.node(key));
    }
    let o = run(&["lookup", "--nodes", path_str(&t), &keys[5].to_string()]);
    assert_ok(&o);
    let slot = parsed.bucket(keys[5]);
    assert_eq!(
        stdout(&o),
        format!("{} {slot} {}\n", keys[5], parsed.slot(slot as usize))
    );
}

/// `testdata/weights/golden.txt` through `assign --nodes`: each golden
/// table as a node table of `weight=W` lines, its keys placed on the
/// golden buckets' nodes.
#[test]
fn weights_golden_vectors_through_assign() {
    let d = dir();
    let text = include_str!("../../testdata/weights/golden.txt");
    let mut tables: Vec<(Vec<String>, Vec<u64>, Vec<usize>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split(' ').collect();
        match words[0] {
            "table" if words[1] == "zeros" => {
                let mut w = vec!["0".to_string(); words[2].parse().unwrap()];
                for spot in &words[3..] {
                    let (i, v) = spot.split_once('=').unwrap();
                    w[i.parse::<usize>().unwrap()] = v.to_string();
                }
                tables.push((w, Vec::new(), Vec::new()));
            }
            "table" => {
                let w = words[1..].iter().map(|w| w.to_string()).collect();
                tables.push((w, Vec::new(), Vec::new()));
            }
            "lookup" => {
                let table = tables.last_mut().unwrap();
                table.1.push(words[1].parse().unwrap());
                table.2.push(words[2].parse().unwrap());
            }
            _ => panic!("unknown golden line {line:?}"),
        }
    }
    assert_eq!(tables.len(), 12);
    for (number, (weights, keys, want)) in tables.iter().enumerate() {
        let lines: Vec<String> = weights
            .iter()
            .enumerate()
            .map(|(i, w)| format!("n{i} weight={w}\n"))
            .collect();
        let t = table(d.path(), &format!("t{number}"), &lines.concat());
        let input = u64le_file(d.path(), &format!("keys{number}"), keys);
        let o = run(&["assign", "--nodes", path_str(&t), path_str(&input)]);
        assert_ok(&o);
        let names: Vec<String> = want.iter().map(|b| format!("n{b}")).collect();
        assert_eq!(stdout(&o), names.join("\n") + "\n", "{weights:?}");
    }
}

/// Tables that contradict themselves, and asks they cannot serve, are
/// refused with their line, nothing written.
#[test]
fn contradictions_are_refused() {
    let d = dir();
    let cases = [
        ("a\nb removed=2\nc\n", "line", "no line has removed=1"),
        (
            "a removed=1\nb removed=1\nc\n",
            "line 2",
            "also the removal of line 1",
        ),
        ("a\nb\nc removed=1\n", "line 3", "shrink"),
        ("a removed=1\nb weight=2\nc\n", "line 2", "do not combine"),
        ("a weight=-1\nb\n", "line 1", "finite weight"),
        ("a weight=0\nb weight=0\n", "weighs 0", ""),
        (
            "a removed=1\nb removed=2\n",
            "line 2",
            "every slot is removed",
        ),
        ("a reomved=1\nb\n", "line 1", "not an attribute"),
        ("a\na\u{200B}\n", "line 2", "invisible character"),
    ];
    for (text, first, second) in cases {
        let t = table(d.path(), "bad", text);
        let out = d.path().join("out");
        let o = run(&[
            "assign",
            "--nodes",
            path_str(&t),
            "--generate",
            "5",
            "--output",
            path_str(&out),
        ]);
        assert_fails(&o, &[path_str(&t), first, second]);
        assert!(!out.exists());
    }
    let t = table(d.path(), "t", "a\nb removed=1\nc\n");
    let out = d.path().join("out");
    let refusals: [(&[&str], &[&str]); 5] = [
        (
            &["remove", "--node", "b", "--generate", "5"],
            &["removed already"],
        ),
        (&["remove", "--node", "z", "--generate", "5"], &["no line"]),
        (
            &[
                "remove",
                "--node",
                "a",
                "--generate",
                "5",
                "--choose",
                "swap",
                "--write-table",
                "OUT",
            ],
            &["--choose swap", "memento"],
        ),
        (
            &["assign", "--generate", "5", "--replicas", "3"],
            &["--replicas 3", "1 to 2"],
        ),
        (
            &["restore", "--write-table", "OUT", "--node", "x y"],
            &["--node", "whitespace"],
        ),
    ];
    for (args, words) in refusals {
        let mut all: Vec<&str> = args
            .iter()
            .map(|a| if *a == "OUT" { path_str(&out) } else { a })
            .collect();
        all.extend(["--nodes", path_str(&t)]);
        let o = run(&all);
        assert_fails(&o, words);
        assert!(!out.exists(), "{args:?}");
    }
    // A node with two slots could stand twice in a set.
    let heavy = table(d.path(), "heavy", "a\nb\n+a\nc\n");
    for command in [&["lookup", "5"][..], &["assign", "--generate", "5"][..]] {
        let mut all = command.to_vec();
        all.extend(["--nodes", path_str(&heavy), "--replicas", "2"]);
        assert_fails(&run(&all), &["--replicas 2", "\"a\" serves several slots"]);
    }
    let only = table(d.path(), "only", "a removed=1\nb\n");
    assert_fails(
        &run(&[
            "remove",
            "--nodes",
            path_str(&only),
            "--node",
            "b",
            "--generate",
            "5",
        ]),
        &["only working node"],
    );
    // Outputs over the tables they read are refused before any work.
    let before = std::fs::read_to_string(&t).unwrap();
    assert_fails(
        &run(&[
            "restore",
            "--nodes",
            path_str(&t),
            "--write-table",
            path_str(&t),
        ]),
        &["--write-table", "--from-nodes"],
    );
    assert_fails(
        &run(&[
            "assign",
            "--nodes",
            path_str(&t),
            "--generate",
            "5",
            "--output",
            path_str(&t),
        ]),
        &["--output", "--nodes"],
    );
    assert_eq!(std::fs::read_to_string(&t).unwrap(), before);
    let plain = table(d.path(), "plain", "a\nb\n");
    assert_fails(
        &run(&[
            "restore",
            "--nodes",
            path_str(&plain),
            "--write-table",
            path_str(&out),
        ]),
        &["no removal to restore", "--node"],
    );
    assert!(!out.exists());
}

/// `reshard --replicas K`: one row per member that leaves a set, to the
/// member that joins it; a Memento removal moves only the removed node's
/// replicas, each set at most once; weights are refused.
#[test]
fn replica_move_lists() {
    let d = dir();
    let keys = keys(11, 20_000);
    let input = u64le_file(d.path(), "keys", &keys);
    let old = table(d.path(), "old", "a\nb\nc\nd\ne\nf\ng\nh\n");
    let new = table(d.path(), "new", "a\nb\nc removed=1\nd\ne\nf\ng\nh\n");
    let out = d.path().join("moves.csv");
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--replicas",
        "3",
        path_str(&input),
        "--output",
        path_str(&out),
        "--json",
    ]);
    assert_ok(&o);
    let summary = json(&o);
    assert_eq!(summary["replicas"], 3);
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len() as u64, summary["moved"].as_u64().unwrap());
    let mut seen = std::collections::HashSet::new();
    for row in &rows {
        assert_eq!(row[1], "c");
        assert!(seen.insert(row[0]), "key {} twice", row[0]);
    }
    let share = rows.len() as f64 / keys.len() as f64;
    assert!((share - 3.0 / 8.0).abs() < 0.02, "{share}");
    let weighted = table(d.path(), "w", "a weight=2\nb\nc\nd\n");
    assert_fails(
        &run(&[
            "reshard",
            "--from-nodes",
            path_str(&old),
            "--to-nodes",
            path_str(&weighted),
            "--replicas",
            "2",
            "--generate",
            "5",
        ]),
        &["--replicas 2", "weights"],
    );
}
