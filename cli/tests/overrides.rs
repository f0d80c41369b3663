//! Override lines of a node table (`override KEY NODE`): `assign` and
//! `lookup` answer pinned keys with their node, byte keys by their
//! prehash, and `remove --write-table` keeps the lines.

use crate::support;

use support::*;

#[test]
fn assign_and_lookup_answer_pinned_keys_first() {
    let d = dir();
    let keys = keys(41, 300);
    let plain = jumpshard::NodeTable::parse("a\nb\nc\n").unwrap();
    // Every tenth key pinned to a node that is not its own.
    let pins: Vec<(u64, &str)> = keys
        .iter()
        .step_by(10)
        .map(|&k| (k, if plain.node(k) == "c" { "a" } else { "c" }))
        .collect();
    let mut text = String::from("a\nb\nc\n");
    for (i, (key, node)) in pins.iter().enumerate() {
        // Decimal and hex spellings both read.
        if i % 2 == 0 {
            text.push_str(&format!("override {key} {node}\n"));
        } else {
            text.push_str(&format!("override 0x{key:x} {node}  # hot\n"));
        }
    }
    let t = table(d.path(), "pinned.txt", &text);
    let input = u64le_file(d.path(), "keys.u64", &keys);
    let o = run(&["assign", "--nodes", path_str(&t), path_str(&input)]);
    assert_ok(&o);
    let want: String = keys
        .iter()
        .map(|&k| match pins.iter().find(|p| p.0 == k) {
            Some(&(_, node)) => format!("{node}\n"),
            None => format!("{}\n", plain.node(k)),
        })
        .collect();
    assert_eq!(stdout(&o), want);

    let (key, node) = pins[1];
    let o = run(&["lookup", "--nodes", path_str(&t), &key.to_string()]);
    assert_ok(&o);
    let slot = ["a", "b", "c"].iter().position(|&n| n == node).unwrap();
    assert_eq!(stdout(&o), format!("{key} {slot} {node}\n"));

    // A byte key is pinned by its prehash.
    let hashed = jumpshard::bytes::prehash(b"hot-user");
    let own = jumpshard::Memento::new(plain.bucket_count()).bucket_bytes(b"hot-user");
    let byte_pin = if own == 2 { "a" } else { "c" };
    let t2 = table(
        d.path(),
        "bytes.txt",
        &format!("a\nb\nc\noverride {hashed} {byte_pin}\n"),
    );
    let hex: String = b"hot-user".iter().map(|b| format!("{b:02x}")).collect();
    let o = run(&["lookup", "--hex", "--nodes", path_str(&t2), &hex]);
    assert_ok(&o);
    assert!(
        stdout(&o).trim_end().ends_with(&format!(" {byte_pin}")),
        "{}",
        stdout(&o)
    );
}

#[test]
fn remove_writes_the_overrides_back() {
    let d = dir();
    let t = table(
        d.path(),
        "t.txt",
        "n0\nn1\nn2\nn3\noverride 5 n1\noverride 0x10 n3\n",
    );
    let written = d.path().join("after.txt");
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&t),
        "--node",
        "n1",
        "--generate",
        "1000",
        "--write-table",
        path_str(&written),
        "--choose",
        "memento",
    ]);
    assert_ok(&o);
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.ends_with("override 5 n1\noverride 16 n3\n"), "{text}");
    // The override to the removed node falls through to the key's node.
    let after = jumpshard::NodeTable::parse(&text).unwrap();
    assert_ne!(after.node(5), "n1");
    assert_eq!(after.node(16), "n3");
    // A swap takes n1 out of the table, and its override with it.
    let o = run(&[
        "remove",
        "--nodes",
        path_str(&t),
        "--node",
        "n1",
        "--generate",
        "1000",
        "--write-table",
        path_str(&written),
        "--choose",
        "swap",
    ]);
    assert_ok(&o);
    let text = std::fs::read_to_string(&written).unwrap();
    assert_eq!(text, "n0\nn3\nn2\noverride 16 n3\n");
}

#[test]
fn a_table_with_a_bad_override_is_refused_with_its_line() {
    let d = dir();
    let t = table(d.path(), "t.txt", "a\nb\noverride 1 a\noverride 1 b\n");
    let o = run(&["lookup", "--nodes", path_str(&t), "1"]);
    assert_fails(&o, &["line 4", "key 1 is already overridden on line 3"]);
    let t = table(d.path(), "u.txt", "a\nb\noverride 1 z\n");
    let out = d.path().join("out.txt");
    let o = run(&[
        "assign",
        "--nodes",
        path_str(&t),
        "--generate",
        "10",
        "--output",
        path_str(&out),
    ]);
    assert_fails(&o, &["line 3", "\"z\" is not in the table"]);
    assert!(!out.exists());
}
