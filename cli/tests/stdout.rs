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
