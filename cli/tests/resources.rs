//! What the process cannot have: a thread that cannot be started, memory
//! that cannot be allocated. Each is a one-line error and exit 1, with no
//! output written, never a panic or an abort.

use crate::support;

use std::process::Command;

use support::*;

/// A thread stack larger than any address space: every thread the binary
/// starts fails as under a limit on processes (`ulimit -u`) or memory
/// (`ulimit -v`), without needing either, nor root.
const NO_THREADS: (&str, &str) = ("RUST_MIN_STACK", "1152921504606846976");

#[test]
fn a_thread_that_cannot_start_is_an_error_and_one_thread_needs_none() {
    let d = dir();
    // No extension: each command's output is of its own kind.
    let out = d.path().join("out");
    let table = table(d.path(), "nodes", "a\nb\nc\n");
    let commands: [&[&str]; 3] = [
        &["reshard", "--from", "10", "--to", "12", "--output"],
        &["assign", "--buckets", "10", "--output"],
        &[
            "remove",
            "--nodes",
            path_str(&table),
            "--node",
            "b",
            "--write-table",
        ],
    ];
    // More threads than the cores run as many as there are cores.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for args in commands {
        let run = |threads: &str| {
            let mut command = Command::new(BIN);
            command
                .env(NO_THREADS.0, NO_THREADS.1)
                .args(args)
                .arg(&out)
                .args(["--generate", "1000", "--threads", threads]);
            run_command(&mut command, b"")
        };
        if cores > 1 {
            let o = run("2");
            assert_fails(&o, &["cannot start a thread", "--threads 1"]);
            assert_eq!(o.status.code(), Some(1));
            assert!(!out.exists(), "{args:?}");
        }
        let o = run("1");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        std::fs::remove_file(&out).unwrap();
    }
    // `bench --reshard` starts rayon's pool, whose threads fail the same.
    let keys = u64le_file(d.path(), "keys.u64", &keys(1, 100));
    for threads in ["1", "2"] {
        let o = run_command(
            Command::new(BIN)
                .env(NO_THREADS.0, NO_THREADS.1)
                .args(["bench", "--reshard", path_str(&keys), "--repeat", "1"])
                .args(["--threads", threads]),
            b"",
        );
        match (threads, cores) {
            ("2", 2..) => assert_fails(&o, &["cannot start a thread"]),
            _ => assert!(o.status.success(), "{}", stderr(&o)),
        }
    }
}

/// `bench --keys` up to its maximum of 2^28 keys wants 4 GiB and more: a
/// machine without them says so.
#[cfg(target_os = "linux")]
#[test]
fn bench_keys_past_the_memory_is_an_error() {
    let o = run_command(
        Command::new("sh").args([
            "-c",
            "ulimit -v 400000 && exec \"$0\" bench --keys 268435456 --repeat 1",
            BIN,
        ]),
        b"",
    );
    assert_fails(&o, &["cannot allocate", "--keys 268435456"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}
