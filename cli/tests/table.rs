//! `table fingerprint` and `table diff`: the golden fingerprints, standard
//! input, diff's words and its three exit statuses.

use crate::support;

use support::*;

/// The golden file's lines, as `table fingerprint` prints them, run from
/// `testdata/` with the paths it names.
#[test]
fn fingerprints_are_the_golden_values() {
    let testdata = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata");
    let golden = std::fs::read_to_string(format!("{testdata}/fingerprints.txt")).unwrap();
    let lines: Vec<&str> = golden.lines().filter(|l| !l.starts_with('#')).collect();
    let paths: Vec<&str> = lines
        .iter()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    let mut args = vec!["table", "fingerprint"];
    args.extend(&paths);
    let o = run_command(command().args(&args).current_dir(testdata), b"");
    assert_ok(&o);
    assert_eq!(stdout(&o), lines.join("\n") + "\n");
}

#[test]
fn standard_input_and_unreadable_files() {
    let d = dir();
    let t = table(d.path(), "t", "alpha\nbeta\ngamma\n");
    let o = run_with_stdin(
        &["table", "fingerprint", "-", path_str(&t), "missing"],
        b"alpha # a\r\nbeta\r\ngamma",
    );
    assert_eq!(o.status.code(), Some(1));
    let want = "jt1:d70b10eaa580f6c47d1adddea44280d3";
    assert_eq!(stdout(&o), format!("{want}  -\n{want}  {}\n", t.display()));
    assert!(
        stderr(&o).contains("missing: cannot read it"),
        "{}",
        stderr(&o)
    );
    let o = run(&["table", "fingerprint", "-", "-"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("standard input is read once"));
    let bad = table(d.path(), "bad", "a\nb\na\n");
    let o = run(&["table", "fingerprint", path_str(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("line 3: \"a\" already serves"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "");
}

#[test]
fn diff_says_what_differs_and_exits_like_diff() {
    let d = dir();
    let a = table(d.path(), "a", "db-a\ndb-b\ndb-c weight=2\n");
    let same = table(d.path(), "same", "db-a   # first\ndb-b\ndb-c weight=2.0");
    let other = table(d.path(), "other", "db-a\ndb-x\ndb-c weight=3\n+db-a\n");
    let o = run(&["table", "diff", path_str(&a), path_str(&same)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("the same meaning: every key is placed alike\n"));
    let o = run(&["table", "diff", path_str(&a), path_str(&other)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    let body: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(
        body,
        [
            "line 2: slot 1 renamed, db-b -> db-x",
            "line 3: slot 2's weight changed, 2 -> 3, db-c",
            "line 4: slot 3 added, db-a",
            "3 differences in meaning",
        ]
    );
    assert!(
        text.starts_with(&format!("--- {} jt1:", a.display())),
        "{text}"
    );
    let o = run_with_stdin(
        &["table", "diff", "-", path_str(&a)],
        b"db-a\ndb-b removed=1\ndb-c\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o).lines().skip(2).collect::<Vec<_>>(),
        [
            "line 2: slot 1's removal undone (was removed=1), db-b",
            "line 3: slot 2's weight changed, 1 -> 2, db-c",
            "2 differences in meaning"
        ]
    );
    for args in [
        vec!["table", "diff", path_str(&a), "missing"],
        vec!["table", "diff", "-", "-"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&o), "");
    }
}

/// `fingerprint` of the file at `path`, as the CLI prints it.
fn fingerprint(path: &std::path::Path) -> String {
    let o = run(&["table", "fingerprint", path_str(path)]);
    assert_ok(&o);
    stdout(&o).split_once("  ").unwrap().0.to_owned()
}

#[test]
fn every_node_table_report_names_its_tables_fingerprints() {
    let d = dir();
    let a = table(d.path(), "a", "db-a\ndb-b\ndb-c\n");
    let b = table(d.path(), "b", "db-a\ndb-b\ndb-c\ndb-d\n");
    let (removed, restored) = (d.path().join("c"), d.path().join("d"));
    let (fa, fb) = (fingerprint(&a), fingerprint(&b));
    let header = |o: &std::process::Output| stdout(o).lines().nth(1).unwrap_or("").to_owned();
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&a),
        "--to-nodes",
        path_str(&b),
        "--generate",
        "1000",
    ]);
    assert_ok(&o);
    assert_eq!(header(&o), format!("tables           {fa} -> {fb}"));
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&a),
        "--to-nodes",
        path_str(&b),
        "--generate",
        "1000",
        "--json",
    ]);
    assert_eq!(
        (
            json(&o)["from_fingerprint"].clone(),
            json(&o)["to_fingerprint"].clone()
        ),
        (fa.clone().into(), fb.clone().into())
    );

    let o = run(&[
        "remove",
        "--from-nodes",
        path_str(&b),
        "--node",
        "db-b",
        "--generate",
        "1000",
        "--memento",
        "--write-table",
        path_str(&removed),
    ]);
    assert_ok(&o);
    let fc = fingerprint(&removed);
    assert_eq!(
        header(&o),
        format!("tables           {fb} -> {fc} (memento)")
    );
    let o = run(&[
        "restore",
        "--from-nodes",
        path_str(&removed),
        "--write-table",
        path_str(&restored),
        "--json",
    ]);
    assert_ok(&o);
    // Restoring the only removal gives back the table's meaning.
    assert_eq!(
        (
            json(&o)["from_fingerprint"].clone(),
            json(&o)["to_fingerprint"].clone()
        ),
        (fc.clone().into(), fb.clone().into())
    );
    let o = run(&[
        "restore",
        "--from-nodes",
        path_str(&removed),
        "--write-table",
        path_str(&restored),
    ]);
    assert_eq!(header(&o), format!("tables           {fc} -> {fb}"));

    // The plots too, under their title.
    let plot = d.path().join("plot.svg");
    let o = run(&[
        "reshard",
        "--from-nodes",
        path_str(&a),
        "--to-nodes",
        path_str(&b),
        "--generate",
        "1000",
        "--plot",
        path_str(&plot),
    ]);
    assert_ok(&o);
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.contains(&format!("tables {fa} -&gt; {fb}"))
            || svg.contains(&format!("tables {fa} -> {fb}")),
        "{svg}"
    );
    let o = run(&[
        "remove",
        "--from-nodes",
        path_str(&b),
        "--node",
        "db-b",
        "--generate",
        "1000",
        "--memento",
        "--plot",
        path_str(&plot),
    ]);
    assert_ok(&o);
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.contains(&format!("tables {fb} -&gt; {fc}"))
            || svg.contains(&format!("tables {fb} -> {fc}")),
        "{svg}"
    );

    let out = d.path().join("out.txt");
    let o = run(&[
        "assign",
        "--nodes",
        path_str(&b),
        "--generate",
        "100",
        "--output",
        path_str(&out),
    ]);
    assert_ok(&o);
    assert_eq!(header(&o), format!("table            {fb}"));
    let o = run(&[
        "assign",
        "--nodes",
        path_str(&b),
        "--generate",
        "100",
        "--output",
        path_str(&out),
        "--json",
    ]);
    assert_eq!(json(&o)["table_fingerprint"], fb.as_str());
    let o = run(&[
        "assign",
        "--buckets",
        "4",
        "--generate",
        "100",
        "--output",
        path_str(&out),
        "--json",
    ]);
    assert!(json(&o).get("table_fingerprint").is_none());
}

/// A table given as `-` is read from standard input, so that one command's
/// `--write-table -` feeds the next; standard input serves one reader.
#[test]
fn tables_read_from_standard_input() {
    let d = dir();
    let text = "a\nb\nc\n";
    let t = table(d.path(), "t.txt", text);
    let o = run_with_stdin(&["lookup", "--nodes", "-", "42", "7"], text.as_bytes());
    assert_ok(&o);
    let from_file = run(&["lookup", "--nodes", path_str(&t), "42", "7"]);
    assert_eq!(stdout(&o), stdout(&from_file));
    let grown = "a\nb\nc\nd\n";
    let o = run_with_stdin(
        &[
            "reshard",
            "--from-nodes",
            path_str(&t),
            "--to-nodes",
            "-",
            "--generate",
            "1000",
            "--output",
            "-",
        ],
        grown.as_bytes(),
    );
    // The summary on standard error, the moves on standard output.
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().skip(1).all(|l| l.ends_with(",d")));
    for args in [
        vec![
            "reshard",
            "--from-nodes",
            "-",
            "--to-nodes",
            "-",
            "--generate",
            "9",
        ],
        vec!["assign", "--nodes", "-", "--key-format", "decimal"],
    ] {
        let o = run_with_stdin(&args, text.as_bytes());
        assert_fails(&o, &["both read standard input"]);
    }
    // Either table alone names what it lacks, not --to as well.
    let o = run(&["reshard", "--from-nodes", path_str(&t), "--generate", "9"]);
    assert_fails(&o, &["--to-nodes"]);
    assert!(!stderr(&o).contains("--to <TO>"), "{}", stderr(&o));
}

/// A name `restore --node` cannot take is named as the option's value, not
/// at a line of a table never written.
#[test]
fn restore_names_a_bad_node_name_as_given() {
    let d = dir();
    let t = table(d.path(), "t.txt", "a\nb removed=1\nc\n");
    let out = d.path().join("new.txt");
    let o = run(&[
        "restore",
        "--from-nodes",
        path_str(&t),
        "--node",
        "x y",
        "--write-table",
        path_str(&out),
    ]);
    assert_fails(&o, &["--node: node name \"x y\" contains whitespace"]);
    assert!(!stderr(&o).contains("line"), "{}", stderr(&o));
    assert!(!out.exists());
}

/// A path to the pipe standard input is (`/dev/stdin`, `/proc/self/fd/0`)
/// reads standard input as `-` does: with another reader of it, refused,
/// where the table used to consume the keys and `assign` print nothing.
#[test]
fn paths_to_standard_input_serve_one_reader() {
    let text = "a\nb\nc\n";
    for (args, words) in [
        (
            vec!["assign", "--nodes", "/dev/stdin", "-"],
            &["--nodes and the keys both read standard input"][..],
        ),
        (
            vec![
                "assign",
                "--nodes",
                "/proc/self/fd/0",
                "--key-format",
                "decimal",
            ],
            &["--nodes and the keys both read standard input"],
        ),
        (
            vec![
                "reshard",
                "--from-nodes",
                "-",
                "--to-nodes",
                "/dev/stdin",
                "--generate",
                "9",
            ],
            &["--from-nodes and --to-nodes both read standard input"],
        ),
        (
            vec!["table", "diff", "/dev/stdin", "-"],
            &["both read standard input"],
        ),
        (
            vec!["table", "fingerprint", "-", "/dev/stdin"],
            &["/dev/stdin: standard input is read once"],
        ),
    ] {
        let o = run_with_stdin(&args, text.as_bytes());
        assert_fails(&o, words);
        if args[1] != "fingerprint" {
            assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
        }
    }
    // One reader is one reader, however named.
    let o = run_with_stdin(&["lookup", "--nodes", "/dev/stdin", "42"], text.as_bytes());
    assert_ok(&o);
}

/// A table or weights file read as `-` from a file (`< nodes.txt`) is
/// that file, which no output may replace, as when it is named.
#[test]
fn a_file_read_as_standard_input_is_not_replaced() {
    let d = dir();
    let nodes = table(d.path(), "nodes.txt", "db-a\ndb-b\ndb-c\n");
    let zoned = table(d.path(), "z.txt", "a zone=z1\nb zone=z2\n");
    let weights = table(d.path(), "w.txt", "key,weight\n1,1\n2,1\n");
    let (n, z, w) = (path_str(&nodes), path_str(&zoned), path_str(&weights));
    let write = |f: &str| ["--write-table".to_string(), f.to_string()];
    for (stdin, mut args, words) in [
        (
            n,
            vec![
                "remove",
                "--from-nodes",
                "-",
                "--node",
                "db-b",
                "--generate",
                "9",
            ],
            "--from-nodes file (on standard input)",
        ),
        (
            n,
            vec!["restore", "--from-nodes", "-", "--node", "db-d"],
            "--from-nodes file (on standard input)",
        ),
        (
            z,
            vec!["table", "add-zone", "-", "z3", "e"],
            "TABLE file (on standard input)",
        ),
        (
            n,
            vec!["balance", w, "--nodes", "-", "--factor", "3"],
            "--nodes file (on standard input)",
        ),
        (
            w,
            vec!["balance", "-", "--nodes", n, "--factor", "3"],
            "WEIGHTS file (on standard input)",
        ),
    ] {
        let before = std::fs::read(stdin).unwrap();
        let out = write(stdin);
        args.extend(out.iter().map(String::as_str));
        let o = command()
            .args(&args)
            .stdin(std::fs::File::open(stdin).unwrap())
            .output()
            .unwrap();
        assert_fails(&o, &[words, "which the output would replace"]);
        assert_eq!(std::fs::read(stdin).unwrap(), before, "{args:?}");
    }
}
