//! Flags that do what they say: `-` is standard output for every output
//! (`--write-table -` too), `/dev/stdout` into a pipe is written directly,
//! a report that cannot be written after a table was committed says so,
//! `lookup ''` is no key, and a node-table line with both attributes is
//! refused for what it is.

use crate::support;

use std::process::Stdio;

use support::*;

#[test]
fn write_table_dash_is_standard_output() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb removed=1\nc\n");
    let o = run_command(
        command().current_dir(d.path()).args([
            "restore",
            "--from-nodes",
            "old",
            "--write-table",
            "-",
        ]),
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\nb\nc\n");
    assert!(
        stderr(&o).contains("table written to standard output"),
        "{}",
        stderr(&o)
    );
    assert_eq!(listing(d.path()), ["old"]);

    let o = run_command(
        command().current_dir(d.path()).args([
            "remove",
            "--from-nodes",
            path_str(&old),
            "--node",
            "c",
            "--generate",
            "1000",
            "--write-table",
            "-",
            "--json",
        ]),
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("a\n"), "{}", stdout(&o));
    let report: serde_json::Value = serde_json::from_str(&stderr(&o)).unwrap();
    assert_eq!(report["written_table"], "standard output");
    assert_eq!(listing(d.path()), ["old"]);
}

/// A closed standard output stops a command whose table or plot goes
/// there before any work.
#[test]
fn a_dash_output_on_a_closed_standard_output_is_refused_first() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n");
    for extra in [&["--write-table", "-"][..], &["--plot", "-"][..]] {
        let mut closed = std::process::Command::new("sh");
        closed
            .args(["-c", "exec \"$@\" >&-", "sh"])
            .arg(BIN)
            .args(["remove", "--from-nodes", path_str(&old), "--node", "b"])
            .args(["--generate", "1000000000000"])
            .args(extra);
        let o = run_command(&mut closed, b"");
        assert_fails(&o, &["standard output is closed"]);
    }
}

#[test]
fn plot_dash_is_standard_output_and_two_dashes_clash() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n");
    let new = table(d.path(), "new", "a\nb\nc\nd\n");
    let base = [
        "reshard",
        "--from-nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        "--generate",
        "1000",
    ];
    let o = run_command(
        command()
            .current_dir(d.path())
            .args(base)
            .args(["--plot", "-"]),
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("<svg"), "{}", stdout(&o));
    assert!(stderr(&o).contains("plot"), "the summary goes to stderr");
    let o = run_command(
        command()
            .current_dir(d.path())
            .args(base)
            .args(["--plot", "-", "--output", "-"]),
        b"",
    );
    assert_fails(&o, &["both name standard output"]);
    let o = run_command(
        command()
            .current_dir(d.path())
            .args(["bench", "--keys", "1000", "--repeat", "1", "--plot", "-"]),
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("<svg"));
    assert_eq!(listing(d.path()), ["new", "old"]);
}

/// `/dev/stdout` that is a pipe is written directly, for every output, as
/// `-` is: the summary then goes to standard error, not into the data.
#[test]
fn dev_stdout_into_a_pipe_is_written() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb removed=1\nc\n");
    let plain = table(d.path(), "plain", "a\nb\nc\n");
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "restore",
                "--from-nodes",
                path_str(&old),
                "--write-table",
                "/dev/stdout",
            ],
            "a\nb\nc\n",
        ),
        (
            &[
                "remove",
                "--from-nodes",
                path_str(&plain),
                "--node",
                "c",
                "--generate",
                "100",
                "--write-table",
                "/dev/stdout",
            ],
            "a\nb\n",
        ),
        (
            &[
                "reshard",
                "--from",
                "10",
                "--to",
                "12",
                "--generate",
                "100",
                "--output",
                "/dev/stdout",
            ],
            "key,from,to\n",
        ),
        (
            &[
                "assign",
                "--buckets",
                "10",
                "--generate",
                "3",
                "--output",
                "/dev/stdout",
            ],
            "",
        ),
    ];
    for (args, want) in cases {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).starts_with(want), "{args:?}: {}", stdout(&o));
        // Tables, move lists and buckets hold no spaces; summaries do.
        assert!(!stdout(&o).contains(' '), "{args:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("standard output"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert_eq!(listing(d.path()), ["old", "plain"]);
    }
}

/// After the table is committed, a full or closed standard output still
/// fails the command, but says on standard error that the table was
/// written, and where, with its own exit status (3).
#[test]
fn a_lost_report_says_the_table_was_written() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb removed=1\nc\n");
    let new = d.path().join("new");
    let args = [
        "restore",
        "--from-nodes",
        path_str(&old),
        "--write-table",
        path_str(&new),
    ];
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let (reader, closed) = std::io::pipe().unwrap();
    drop(reader);
    for (stdout, why) in [
        (Stdio::from(full), "No space left"),
        (Stdio::from(closed), "Broken pipe"),
    ] {
        let _ = std::fs::remove_file(&new);
        let o = command()
            .args(args)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(err.contains("cannot write standard output"), "{err}");
        assert!(err.contains(why), "{err}");
        assert!(
            err.contains(&format!("the table was written to {}", new.display())),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&new).unwrap(), "a\nb\nc\n");
    }
}

/// The same for every command that commits a file before its report.
#[test]
fn a_lost_report_says_what_was_written_in_every_command() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n");
    let new = table(d.path(), "new", "a\nb\nc\nd\n");
    let out = d.path().join("out");
    let o = path_str(&out);
    let (t_old, t_new) = (path_str(&old), path_str(&new));
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "remove",
                "--from-nodes",
                t_old,
                "--node",
                "b",
                "--generate",
                "100",
                "--write-table",
                o,
            ],
            "the table",
        ),
        (
            &[
                "reshard",
                "--from",
                "10",
                "--to",
                "12",
                "--generate",
                "100",
                "--output",
                o,
            ],
            "the move list",
        ),
        (
            &[
                "reshard",
                "--from-nodes",
                t_old,
                "--to-nodes",
                t_new,
                "--generate",
                "100",
                "--plot",
                o,
            ],
            "the plot",
        ),
        (
            &[
                "assign",
                "--buckets",
                "10",
                "--generate",
                "100",
                "--output",
                o,
            ],
            "the bucket list",
        ),
    ];
    for (args, what) in cases {
        let _ = std::fs::remove_file(&out);
        let (reader, closed) = std::io::pipe().unwrap();
        drop(reader);
        let result = command()
            .args(args)
            .stdin(Stdio::null())
            .stdout(closed)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&result);
        assert_eq!(result.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{what} was written to {o} all the same")),
            "{args:?}: {err}"
        );
        assert!(out.exists(), "{args:?}");
    }
}

/// Results on standard output and the summary on standard error: a full
/// standard error loses the report, not the results (status 3, as for a
/// lost report on standard output); a closed one discards it as
/// `2>/dev/null` would, and the command succeeds.
#[test]
fn a_lost_report_on_standard_error_keeps_the_results() {
    let args = [
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        "--generate",
        "1000",
        "--output",
        "-",
    ];
    let want = run(&args);
    assert!(want.status.success());
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(o.stdout, want.stdout);
    assert!(!want.stdout.is_empty() && !want.stderr.is_empty());
    let mut closed = std::process::Command::new("sh");
    closed
        .args(["-c", "exec \"$@\" 2>&-", "sh"])
        .arg(BIN)
        .args(args);
    let o = run_command(&mut closed, b"");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout, want.stdout);
}

#[test]
fn lookup_refuses_an_empty_argument() {
    let d = dir();
    let t = table(d.path(), "t", "a\nb\nc\n");
    let o = run(&["lookup", "--nodes", path_str(&t), "--hex", "00", ""]);
    assert_fails(&o, &["key \"\"", "empty argument", "written -"]);
    assert!(o.stdout.is_empty());
    let o = run(&["lookup", "--nodes", path_str(&t), ""]);
    assert_fails(&o, &["key \"\"", "empty argument", "decimal"]);
    // `-` is the empty byte key.
    let o = run(&["lookup", "--nodes", path_str(&t), "--hex", "-"]);
    assert_ok(&o);
    assert!(stdout(&o).starts_with("- "), "{}", stdout(&o));
}

#[test]
fn a_line_with_a_removal_and_a_weight_says_so() {
    let d = dir();
    for (text, line, first) in [
        ("a removed=1 weight=2\nb\nc\n", "line 1", "weight=2"),
        ("a\nb weight=2 removed=1\nc\n", "line 2", "removed=1"),
    ] {
        let t = table(d.path(), "t", text);
        let o = run(&["lookup", "--nodes", path_str(&t), "1"]);
        assert_fails(
            &o,
            &[
                line,
                first,
                "one line cannot carry both removed= and weight=",
            ],
        );
        assert!(!stderr(&o).contains("same table"), "{}", stderr(&o));
    }
}

/// An option that does not apply is refused, naming it, rather than
/// ignored: a run always does what its command line says.
#[test]
fn options_that_do_not_apply_are_refused() {
    let d = dir();
    let nodes = table(d.path(), "nodes", "a\nb\nc\n");
    let keys = d.path().join("keys.txt");
    std::fs::write(&keys, "1\n2\n").unwrap();
    // Binary keys, told u64le by their contents.
    let binary = d.path().join("keys.bin");
    std::fs::write(&binary, [7u8, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let (nodes, keys, binary) = (path_str(&nodes), path_str(&keys), path_str(&binary));
    let generate = ["--generate", "10"];
    let decimal = ["assign", "--buckets", "3", keys, "--key-format", "decimal"];
    let cases: [(Vec<&str>, &[&str]); 10] = [
        (
            vec!["reshard", "--from", "3", "--to", "2", "--to-nodes", nodes],
            &["--to-nodes"],
        ),
        (
            vec!["reshard", "--from", "3", "--to-nodes", nodes],
            &["--to-nodes"],
        ),
        (
            vec!["reshard", "--from", "3", "--to", "4", "--replicas", "2"],
            &["--replicas"],
        ),
        (
            vec!["reshard", "--from", "3", "--to", "4", "--plot", "x.svg"],
            &["--plot"],
        ),
        ([&decimal[..], &["--seed", "5"]].concat(), &["--seed"]),
        (
            [&decimal[..], &["--max-line-bytes", "9"]].concat(),
            &["--max-line-bytes", "decimal"],
        ),
        (
            vec![
                "assign",
                "--buckets",
                "3",
                "--key-format",
                "bytes",
                "--hash-seed",
                "9",
            ],
            &["--generate", "bytes"],
        ),
        (
            vec!["assign", "--buckets", "3", "--max-line-bytes", "9"],
            &["--max-line-bytes", "--generate"],
        ),
        (vec!["bench", "--sizes", "--from", "5"], &["--from"]),
        (
            vec!["assign", "--buckets", "3", binary, "--max-line-bytes", "9"],
            &["--max-line-bytes", "keys.bin is read as u64le"],
        ),
    ];
    for (mut args, words) in cases {
        if args[0] != "bench" && !args.contains(&keys) && !args.contains(&binary) {
            args.extend(generate);
        }
        let o = run_command(command().current_dir(d.path()).args(&args), b"");
        assert_fails(&o, words);
        assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
        assert_eq!(
            listing(d.path()),
            ["keys.bin", "keys.txt", "nodes"],
            "{args:?}"
        );
    }
}
