//! `reshard --from-nodes/--to-nodes` and `--plot`: move lists that name
//! nodes, the summary against keys checked one by one, and every bad table
//! refused without leaving a file.

use crate::support;

use std::collections::BTreeMap;

use jumpshard::NodeTable;
use support::*;

/// The move list and the summary of `reshard --nodes OLD --to-nodes NEW`
/// over `keys`, checked against each key's nodes.
fn check_reshard(old_text: &str, new_text: &str, keys: &[u64], extra: &[&str]) {
    let d = dir();
    let old = table(d.path(), "old.txt", old_text);
    let new = table(d.path(), "new.txt", new_text);
    let input = u64le_file(d.path(), "keys.bin", keys);
    let out = d.path().join("moves.csv");
    let mut args = vec![
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        path_str(&input),
        "--output",
        path_str(&out),
        "--json",
    ];
    args.extend(extra);
    let o = run(&args);
    assert_ok(&o);
    let (old_t, new_t) = (
        NodeTable::parse(old_text).unwrap(),
        NodeTable::parse(new_text).unwrap(),
    );
    let mut want = String::from("key,from_node,to_node\n");
    let mut before = BTreeMap::<&str, u64>::new();
    let mut after = BTreeMap::<&str, u64>::new();
    let mut moved = 0;
    for &k in keys {
        let (a, b) = (old_t.node(k), new_t.node(k));
        *before.entry(a).or_default() += 1;
        *after.entry(b).or_default() += 1;
        if a != b {
            want.push_str(&format!("{k},{a},{b}\n"));
            moved += 1;
        }
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    let s = json(&o);
    assert_eq!(s["keys"], keys.len() as u64);
    assert_eq!(s["moved"], moved);
    for (node, n) in before {
        assert_eq!(s["load_before"][node], n, "{node}");
    }
    for (node, n) in after {
        assert_eq!(s["load_after"][node], n, "{node}");
    }
}

/// The summary's fields say what the tables are, whatever `--replicas`
/// makes the change evaluate, and name each field once.
#[test]
fn summaries_describe_the_tables() {
    let d = dir();
    let old = table(d.path(), "old.txt", "a\nb\nc\n");
    let new = table(d.path(), "new.txt", "a\nb\nc\nd\n");
    let drained = table(d.path(), "drained.txt", "a\nb weight=0\nc\nd\n");
    let input = u64le_file(d.path(), "keys.bin", &keys(8, 1000));
    for (to, replicas, append, weights) in [
        (&new, "1", true, false),
        (&new, "2", true, false),
        (&drained, "1", false, true),
    ] {
        let mut args = vec![
            "reshard",
            "--nodes",
            path_str(&old),
            "--to-nodes",
            path_str(to),
            path_str(&input),
            "--output",
            "/dev/null",
            "--json",
        ];
        if replicas != "1" {
            args.extend(["--replicas", replicas]);
        }
        let o = run(&args);
        assert_ok(&o);
        assert_eq!(
            stdout(&o).matches("\"replicas\":").count(),
            1,
            "{}",
            stdout(&o)
        );
        let s = json(&o);
        assert_eq!(s["replicas"], replicas.parse::<u64>().unwrap());
        assert_eq!(s["append_or_truncate"], append, "{replicas}");
        assert_eq!(s["removals_or_weights"], weights, "{replicas}");
    }
}

#[test]
fn move_lists_name_nodes() {
    let keys = keys(1, 50_000);
    let chunks = ["--chunk-keys", "777", "--threads", "2"];
    check_reshard("a\nb\nc\n", "a\nb\nc\nd\ne\n", &keys, &chunks);
    check_reshard("a\nb\nc\nd\ne\n", "a\nb\nc\n", &keys, &chunks);
    check_reshard("a\nb\nc\nd\n", "a\nd\nc\n", &keys, &chunks);
    check_reshard("a\nb\n+a\n", "a\nb\n+a\nc\n", &keys, &[]);
    check_reshard("a\nb\nc\n", "x\ny\nz\n", &keys, &[]);
}

#[test]
fn positions_and_text_summary() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\n");
    let new = table(d.path(), "new", "a\nb\nc\n");
    let out = d.path().join("moves.csv");
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "3000",
        "--output",
        path_str(&out),
        "--positions",
    ]);
    assert_ok(&o);
    let text = stdout(&o);
    for words in [
        "2 slots (2 nodes) -> 3 slots (3 nodes)",
        "keys moved",
        "a -> c",
        "b -> c",
        "balance",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }
    let list = std::fs::read_to_string(&out).unwrap();
    assert!(list.starts_with("position,from_node,to_node\n"));
    let t = NodeTable::parse("a\nb\nc\n").unwrap();
    let keys = jumpshard::verify::SplitMix64::new(0x6A75_6D70).keys(3000);
    for line in list.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let k = keys[f[0].parse::<usize>().unwrap()];
        assert_eq!(f[2], t.node(k));
        assert_eq!(f[2], "c");
    }
}

#[test]
fn bad_tables_are_refused_and_leave_no_file() {
    let d = dir();
    let good = table(d.path(), "good", "a\nb\n");
    let keys = u64le_file(d.path(), "keys.bin", &keys(2, 100));
    let cases: [(&str, &[u8], &[&str]); 6] = [
        ("empty", b"", &["empty", "no node"]),
        ("blank", b"a\n\nb\n", &["blank", "line 2", "empty line"]),
        ("repeat", b"a\nb\na\n", &["repeat", "line 3", "+a"]),
        ("spaces", b"a\nb c\n", &["spaces", "line 2", "whitespace"]),
        ("binary", b"a\n\xff\n", &["binary", "UTF-8"]),
        ("marked", b"a\n+b\n", &["marked", "line 2", "+b"]),
    ];
    let out = d.path().join("out");
    std::fs::write(&out, "precious").unwrap();
    for (name, text, words) in cases {
        let bad = d.path().join(name);
        std::fs::write(&bad, text).unwrap();
        let before = listing(d.path());
        for (old, new, option) in [(&bad, &good, "--from-nodes"), (&good, &bad, "--to-nodes")] {
            let o = run(&[
                "reshard",
                "--nodes",
                path_str(old),
                "--to-nodes",
                path_str(new),
                path_str(&keys),
                "--output",
                path_str(&out),
            ]);
            assert_fails(&o, words);
            assert_fails(&o, &[option]);
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
            assert_eq!(listing(d.path()), before);
        }
        let o = run(&[
            "remove",
            "--nodes",
            path_str(&bad),
            "--node",
            "a",
            "--generate",
            "10",
        ]);
        assert_fails(&o, words);
    }
    let missing = d.path().join("missing");
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&missing),
        "--to-nodes",
        path_str(&good),
        "--generate",
        "1",
    ]);
    assert_fails(&o, &["--from-nodes", "missing", "cannot read"]);
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(d.path()),
        "--to-nodes",
        path_str(&good),
        "--generate",
        "1",
    ]);
    assert_fails(&o, &["--from-nodes", "cannot read"]);
    // --nodes replaces --from/--to, and needs --to-nodes.
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&good),
        "--from",
        "2",
        "--to-nodes",
        path_str(&good),
        "--generate",
        "1",
    ]);
    assert_fails(&o, &["--from"]);
    let o = run(&["reshard", "--nodes", path_str(&good), "--generate", "1"]);
    assert_fails(&o, &["--to-nodes"]);
}

#[test]
fn plots_are_svg_naming_every_node() {
    let d = dir();
    let old = table(d.path(), "old", "alpha\nbeta\ngamma\n");
    let new = table(d.path(), "new", "alpha\nbeta\ngamma\ndelta&co\n");
    let plot = d.path().join("change.svg");
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "10000",
        "--plot",
        path_str(&plot),
    ]);
    assert_ok(&o);
    let svg = std::fs::read_to_string(&plot).unwrap();
    check_svg(&svg, &["alpha", "beta", "gamma", "delta&amp;co"]);
    let plot = d.path().join("remove.svg");
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&new),
        "--node",
        "beta",
        "--generate",
        "10000",
        "--plot",
        path_str(&plot),
    ]);
    assert_ok(&o);
    let svg = std::fs::read_to_string(&plot).unwrap();
    check_svg(&svg, &["alpha", "beta", "gamma", "delta&amp;co"]);
    assert!(svg.contains("remove beta, swap"));
    // A plot that cannot be written fails the command, leaving nothing.
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "10",
        "--plot",
        path_str(d.path()),
    ]);
    assert_fails(&o, &["directory"]);
    let o = run(&[
        "reshard",
        "--from",
        "2",
        "--to",
        "3",
        "--generate",
        "10",
        "--plot",
        "x.svg",
    ]);
    assert_fails(&o, &["--from", "--plot"]);
}

/// A change of 2,000 nodes, where every key moves between some 2,000 pairs
/// of nodes, gives a small plot and a small summary: the largest transfers
/// and the nodes whose load changes most, each with an aggregated rest, so
/// that the listed figures and the rest add up to the totals.
#[test]
fn big_changes_give_small_reports() {
    let d = dir();
    let n = 2000;
    let names = |shift: usize| -> String {
        (0..n)
            .map(|i| format!("node{}\n", (i + shift) % n))
            .collect()
    };
    let old = table(d.path(), "old", &names(0));
    let new = table(d.path(), "new", &names(1));
    let plot = d.path().join("change.svg");
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "100000",
        "--plot",
        path_str(&plot),
        "--json",
    ]);
    assert_ok(&o);
    assert!(
        o.stdout.len() < 64 << 10,
        "{} bytes of JSON",
        o.stdout.len()
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.len() < 256 << 10, "{} bytes of SVG", svg.len());
    check_svg(&svg, &["other 1985 nodes", "other 1936 nodes (mean)"]);
    let s = json(&o);
    let transfers = s["transfers"].as_object().unwrap();
    let listed: Vec<u64> = transfers
        .values()
        .flat_map(|to| to.as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(listed.len(), 64);
    assert_eq!(s["transfers_rest"]["pairs"], n as u64 - 64);
    assert_eq!(
        listed.iter().sum::<u64>() + s["transfers_rest"]["keys"].as_u64().unwrap(),
        s["moved"].as_u64().unwrap()
    );
    for (side, rest) in [("load_before", "keys_before"), ("load_after", "keys_after")] {
        let loads = s[side].as_object().unwrap();
        assert!(loads.len() <= 64, "{side}: {}", loads.len());
        let sum: u64 = loads.values().map(|n| n.as_u64().unwrap()).sum();
        assert_eq!(sum + s["loads_rest"][rest].as_u64().unwrap(), 100_000);
    }
    // The text says what it leaves out, in a few lines.
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "100000",
    ]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.lines().count() < 160, "{text}");
    assert!(
        text.contains("... and 1936 more pairs of nodes: "),
        "{text}"
    );
    assert!(
        text.contains("more nodes, whose loads change less"),
        "{text}"
    );
    // Removing one of 500 nodes: each of the 500 options is a few lines
    // of JSON, not two loads per node.
    let small = table(
        d.path(),
        "small",
        &(0..500).map(|i| format!("n{i}\n")).collect::<String>(),
    );
    let o = run(&[
        "remove",
        "--from-nodes",
        path_str(&small),
        "--node",
        "n7",
        "--generate",
        "20000",
        "--json",
    ]);
    assert_ok(&o);
    let s = json(&o);
    let options = s["options"].as_array().unwrap();
    assert_eq!(options.len(), 502); // swap, 499 points, memento, hole
    for option in options {
        let size = option.to_string().len();
        assert!(size < 8 << 10, "{size} bytes: {}", option["name"]);
    }
}

/// Well-formed enough: one root `<svg>` element, every tag closed in
/// order, and `names` in the text.
fn check_svg(svg: &str, names: &[&str]) {
    let body = svg.trim_start();
    let body = match body.strip_prefix("<?xml") {
        Some(rest) => &rest[rest.find("?>").unwrap() + 2..],
        None => body,
    };
    let mut open: Vec<&str> = Vec::new();
    let mut rest = body;
    let mut roots = 0;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("an unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!rest[..start].contains('>'), "a stray '>'");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name.trim()), "mismatched </{name}>");
        } else if !tag.ends_with('/') && !tag.starts_with('!') {
            let name = tag.split_whitespace().next().unwrap();
            if open.is_empty() {
                roots += 1;
            }
            open.push(name);
        } else if open.is_empty() {
            roots += 1;
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
    assert_eq!(roots, 1);
    assert!(body.starts_with("<svg"), "{}", &body[..40.min(body.len())]);
    let texts: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .map(|t| {
            let content = &t[t.find('>').unwrap() + 1..];
            content[..content.find("</text>").unwrap()].trim()
        })
        .collect();
    for name in names {
        assert!(texts.contains(name), "{name} is not drawn");
    }
}

#[test]
fn binary_move_lists_index_the_summary_nodes() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\n");
    let new = table(d.path(), "new", "c\nb\na\n");
    let keys = keys(6, 5000);
    let input = u64le_file(d.path(), "keys.bin", &keys);
    let out = d.path().join("moves.bin");
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        path_str(&input),
        "--output",
        path_str(&out),
        "--output-format",
        "binary",
        "--json",
    ]);
    assert_ok(&o);
    let s = json(&o);
    let nodes: Vec<&str> = s["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["a", "b", "c"]);
    let (o_t, n_t) = (
        NodeTable::parse("a\nb\n").unwrap(),
        NodeTable::parse("c\nb\na\n").unwrap(),
    );
    let bytes = std::fs::read(&out).unwrap();
    let records: Vec<(u64, &str, &str)> = bytes
        .chunks_exact(16)
        .map(|r| {
            let id = u64::from_le_bytes(r[..8].try_into().unwrap());
            let from = u32::from_le_bytes(r[8..12].try_into().unwrap()) as usize;
            let to = u32::from_le_bytes(r[12..].try_into().unwrap()) as usize;
            (id, nodes[from], nodes[to])
        })
        .collect();
    let want: Vec<(u64, &str, &str)> = keys
        .iter()
        .map(|&k| (k, o_t.node(k), n_t.node(k)))
        .filter(|m| m.1 != m.2)
        .collect();
    assert_eq!(records, want);
}
