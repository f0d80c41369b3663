//! A failing standard output, in every command: a write that fails
//! (`> /dev/full`) is a clear error and a non-zero exit, never a panic nor
//! a success with the output lost; a closed standard output (`>&-`) is
//! refused before any work, so that no output file is written either.

use crate::support;

use std::fs::{File, OpenOptions};
use std::process::{Command, Stdio};

use support::*;

/// Every command, in forms that write to standard output differently: the
/// results themselves, or a summary beside an output file `out`.
fn commands(keys: &str, out: &str) -> Vec<Vec<String>> {
    let forms: [&[&str]; 13] = [
        &["bucket", "1", "10"],
        &["kernels"],
        &["kernels", "--supported"],
        &["verify", "--keys", "100"],
        &["verify", "--keys", "100", "--json"],
        &["bench", "--keys", "1000", "--repeat", "1"],
        &["bench", "--reshard", keys, "--repeat", "1", "--json"],
        &[
            "reshard",
            "--from",
            "10",
            "--to",
            "12",
            "--generate",
            "1000",
        ],
        &[
            "reshard",
            "--from",
            "10",
            "--to",
            "12",
            "--generate",
            "1000",
            "--json",
        ],
        &[
            "reshard",
            "--from",
            "10",
            "--to",
            "12",
            "--generate",
            "1000",
            "--output",
            out,
        ],
        &["assign", "--buckets", "10", "--generate", "1000"],
        &[
            "assign",
            "--buckets",
            "10",
            "--generate",
            "1000",
            "--output",
            out,
        ],
        &[
            "assign",
            "--buckets",
            "10",
            "--generate",
            "1000",
            "--output",
            out,
            "--json",
        ],
    ];
    forms
        .iter()
        .map(|f| f.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn a_full_standard_output_is_an_error_in_every_command() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(1, 1000));
    let out = d.path().join("out");
    for args in commands(path_str(&keys), path_str(&out)) {
        let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = command()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(
            err.starts_with("jumpshard: cannot write standard output: No space left"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let _ = std::fs::remove_file(&out);
    }
}

/// `--help` and `--version`, which clap would report as written and exit
/// 0 whatever became of them.
#[test]
fn a_full_standard_output_fails_help_and_version() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["reshard", "--help"],
        &["help"],
    ] {
        let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = command()
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&o).starts_with("jumpshard: cannot write standard output: No space left"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_closed_standard_output_is_refused_in_every_command() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(1, 1000));
    let out = d.path().join("out");
    for args in commands(path_str(&keys), path_str(&out)) {
        let mut closed = Command::new("sh");
        closed
            .args(["-c", "exec \"$@\" >&-", "sh"])
            .arg(BIN)
            .args(&args);
        let o = run_command(&mut closed, b"");
        assert_fails(&o, &["standard output is closed"]);
        assert!(!out.exists(), "{args:?} wrote its output file");
        assert_eq!(listing(d.path()), ["keys.u64"]);
    }
}

/// A closed standard input (`<&-`) is refused wherever `-` reads it (the
/// keys, a table, the weights), where it read as empty and the command
/// succeeded on nothing; a command that does not read it runs.
#[test]
fn a_closed_standard_input_is_refused_where_it_is_read() {
    let d = dir();
    let nodes = table(d.path(), "n.txt", "a\nb\n");
    let n = path_str(&nodes);
    for (args, words) in [
        (
            vec!["assign", "--buckets", "10", "-"],
            "the keys would read nothing",
        ),
        (
            vec!["assign", "--nodes", n, "--key-format", "decimal"],
            "the keys would read nothing",
        ),
        (
            vec!["table", "fingerprint", "-"],
            "the table would read nothing",
        ),
        (
            vec![
                "balance",
                "-",
                "--nodes",
                n,
                "--factor",
                "3",
                "--write-table",
                "-",
            ],
            "the weights would read nothing",
        ),
        (vec!["bucket", "1", "10"], ""),
    ] {
        let mut closed = Command::new("sh");
        closed
            .args(["-c", "exec \"$@\" <&-", "sh"])
            .arg(BIN)
            .args(&args);
        let o = run_command(&mut closed, b"");
        match words {
            "" => assert_ok(&o),
            _ => assert_fails(&o, &["standard input is closed", words]),
        }
    }
}

/// A shell's `> /dev/null` is an open standard output, not a closed one.
#[test]
fn standard_output_on_dev_null_is_fine() {
    let null = File::create("/dev/null").unwrap();
    let o = command()
        .args(["bucket", "1", "10"])
        .stdout(null)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

/// /dev/null opened read-write (Python's `subprocess.DEVNULL`) is an open
/// standard output too, in every command: only a descriptor closed when
/// the command starts is refused.
#[test]
fn standard_output_on_dev_null_read_write_is_fine() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(2, 1000));
    let out = d.path().join("out");
    for args in commands(path_str(&keys), path_str(&out)) {
        let null = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .unwrap();
        let o = command()
            .args(&args)
            .stdin(std::process::Stdio::null())
            .stdout(null)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let _ = std::fs::remove_file(&out);
    }
}

/// `--output /dev/stdout` after `>> file` writes through standard output:
/// appended, where replacing the file (as another output path would be)
/// lost what it held, and the summary goes to standard error.
#[test]
fn dev_stdout_on_a_file_appends_to_it() {
    let d = dir();
    let path = u64le_file(d.path(), "keys.u64", &keys(3, 5));
    let log = d.path().join("log.txt");
    std::fs::write(&log, "precious\n").unwrap();
    let append = OpenOptions::new().append(true).open(&log).unwrap();
    let o = command()
        .args(["assign", "--buckets", "10", path_str(&path)])
        .args(["--output", "/dev/stdout", "--output-format", "text"])
        .stdout(append)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let n = jumpshard::BucketCount::new(10).unwrap();
    let want: String = keys(3, 5)
        .iter()
        .map(|&k| format!("{}\n", jumpshard::bucket(k, n)))
        .collect();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("precious\n{want}")
    );
    assert!(stderr(&o).contains("assigned 5 keys"), "{}", stderr(&o));
}

/// Standard output that is the input file (`1<> keys.u64`, or a shell's
/// `> keys.u64`, which empties it first) is refused, as `cat` refuses it:
/// the results would overwrite keys not read yet.
#[test]
fn standard_output_on_the_input_is_refused() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(4, 1000));
    let before = std::fs::read(&keys).unwrap();
    for output in [&[][..], &["--output", "-"]] {
        let same = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&keys)
            .unwrap();
        let o = command()
            .args(["assign", "--buckets", "10", path_str(&keys)])
            .args(output)
            .stdout(same)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{output:?}");
        assert!(
            stderr(&o).contains("standard output (--output) is the input file"),
            "{}",
            stderr(&o)
        );
        assert_eq!(std::fs::read(&keys).unwrap(), before);
    }
}

/// Every command that reads files and prints refuses a standard output
/// that is one of them (`1<> nodes.txt`): the answers of `lookup`, `table
/// fingerprint` and `table diff`, `bench --reshard`'s table, or a report
/// beside a written table, would overwrite it.
#[test]
fn standard_output_on_a_file_read_is_refused() {
    let d = dir();
    let nodes = table(d.path(), "nodes.txt", "a\nb\nc\n");
    let other = table(d.path(), "other.txt", "a\nb\n");
    let keys = u64le_file(d.path(), "keys.u64", &keys(6, 1000));
    let new = d.path().join("new.txt");
    let (n, k) = (path_str(&nodes), path_str(&keys));
    let cases: [(&[&str], &std::path::Path, u8); 6] = [
        (&["lookup", "--nodes", n, "42"], &nodes, 1),
        (&["table", "fingerprint", path_str(&other), n], &nodes, 1),
        (&["table", "diff", path_str(&other), n], &nodes, 2),
        (
            &[
                "restore",
                "--from-nodes",
                n,
                "--node",
                "d",
                "--write-table",
                path_str(&new),
            ],
            &nodes,
            1,
        ),
        (
            &[
                "remove",
                "--from-nodes",
                n,
                "--node",
                "a",
                k,
                "--write-table",
                path_str(&new),
            ],
            &keys,
            1,
        ),
        (&["bench", "--reshard", k, "--repeat", "1"], &keys, 1),
    ];
    for (args, read, status) in cases {
        let before = std::fs::read(read).unwrap();
        let same = OpenOptions::new()
            .read(true)
            .write(true)
            .open(read)
            .unwrap();
        let o = command()
            .args(args)
            .stdout(same)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(i32::from(status)), "{args:?}");
        assert_fails(
            &o,
            &["standard output is the", path_str(read), "overwrite it"],
        );
        assert_eq!(std::fs::read(read).unwrap(), before, "{args:?}");
        assert!(!new.exists(), "{args:?}");
    }
}

/// A standard error that cannot take the message (`2> /dev/full`) loses
/// the message, not the exit status: no panic, no status 101. A reshard
/// whose move list went to standard output in full, whose summary on
/// standard error is lost, ends with 3 (outputs written, report lost).
#[test]
fn a_full_standard_error_keeps_the_status() {
    let d = dir();
    let keys = u64le_file(d.path(), "keys.u64", &keys(5, 100));
    let missing = d.path().join("missing");
    for (args, status) in [
        (vec!["assign", "--buckets", "10", path_str(&missing)], 1),
        (
            vec![
                "reshard",
                "--from",
                "10",
                "--to",
                "12",
                path_str(&keys),
                "--output",
                "-",
            ],
            3,
        ),
        (vec!["bucket", "1", "0"], 2),
    ] {
        let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = command()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(status), "{args:?}");
    }
}
