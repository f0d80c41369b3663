//! Every integer the command line takes, in every command, given 0, -1,
//! 2^31, 2^32, 2^63, 2^64 and 2^100: each value is either accepted (and
//! the command runs as usual, without sizing anything by it) or refused as
//! a usage error (exit status 2) naming the option, the value and the
//! range, before anything is read or allocated; never a panic, an abort or
//! a huge allocation.

use crate::support;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use support::*;

const VALUES: [&str; 7] = [
    "0",
    "-1",
    "2147483648",
    "4294967296",
    "9223372036854775808",
    "18446744073709551616",
    "1267650600228229401496703205376",
];

/// 0, 2^31, 2^32 and 2^63: what an unsigned 64-bit option takes.
const U64S: &[&str] = &["0", "2147483648", "4294967296", "9223372036854775808"];

/// One option of one command: its arguments with `V` for the value, how
/// clap names the option in messages, and the values it accepts (every
/// other one must be a usage error).
struct Case {
    args: Vec<String>,
    option: &'static str,
    accepted: &'static [&'static str],
}

fn cases(d: &Path) -> Vec<Case> {
    let t = path_str(&table(d, "t", "a\nb\nc\n")).to_owned();
    let t2 = path_str(&table(d, "t2", "a\nb\nc\nd\n")).to_owned();
    let keys = path_str(&u64le_file(d, "keys.u64", &keys(3, 1000))).to_owned();
    let case = |args: &[&str], option, accepted| Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        option,
        accepted,
    };
    let reshard = ["reshard", "--from", "10", "--to", "12"];
    let gen = ["--generate", "10"];
    let remove = ["remove", "--from-nodes", &t, "--node", "b"];
    let bench_reshard = ["bench", "--reshard", &keys, "--repeat", "1"];
    vec![
        case(&["bucket", "1", "V"], "<BUCKETS>", &[]),
        case(&["bucket", "V", "10"], "<KEY>", U64S),
        case(&["verify", "--keys", "V"], "--keys", &["0"]),
        case(&["verify", "--keys", "0", "--seed", "V"], "--seed", U64S),
        case(&["bench", "--keys", "V", "--repeat", "1"], "--keys", &[]),
        case(
            &["bench", "--keys", "1000", "--repeat", "V"],
            "--repeat",
            &[],
        ),
        case(
            &[&bench_reshard[..], &["--from", "V"]].concat(),
            "--from",
            &[],
        ),
        case(&[&bench_reshard[..], &["--to", "V"]].concat(), "--to", &[]),
        case(
            &[&bench_reshard[..], &["--threads", "V"]].concat(),
            "--threads",
            &["0"],
        ),
        case(
            &["reshard", "--from", "V", "--to", "12", "--generate", "10"],
            "--from",
            &[],
        ),
        case(
            &["reshard", "--from", "10", "--to", "V", "--generate", "10"],
            "--to",
            &[],
        ),
        case(
            &[&reshard[..], &gen, &["--threads", "V"]].concat(),
            "--threads",
            &["0"],
        ),
        case(
            &[&reshard[..], &["--generate", "V"]].concat(),
            "--generate",
            U64S,
        ),
        case(
            &[&reshard[..], &gen, &["--seed", "V"]].concat(),
            "--seed",
            U64S,
        ),
        case(
            &[&reshard[..], &gen, &["--chunk-keys", "V"]].concat(),
            "--chunk-keys",
            &[],
        ),
        case(
            &[&reshard[..], &["--key-format", "bytes", "--hash-seed", "V"]].concat(),
            "--hash-seed",
            U64S,
        ),
        case(
            &[
                &reshard[..],
                &["--key-format", "bytes", "--max-line-bytes", "V"],
            ]
            .concat(),
            "--max-line-bytes",
            &[],
        ),
        case(
            &[
                "reshard",
                "--from-nodes",
                &t,
                "--to-nodes",
                &t2,
                "--generate",
                "10",
                "--replicas",
                "V",
            ],
            "--replicas",
            &[],
        ),
        case(
            &["assign", "--buckets", "V", "--generate", "10"],
            "--buckets",
            &[],
        ),
        case(
            &[
                "assign",
                "--buckets",
                "10",
                "--generate",
                "10",
                "--replicas",
                "V",
            ],
            "--replicas",
            &[],
        ),
        case(
            &[
                "assign",
                "--nodes",
                &t,
                "--generate",
                "10",
                "--replicas",
                "V",
            ],
            "--replicas",
            &[],
        ),
        case(
            &[
                "assign",
                "--buckets",
                "10",
                "--generate",
                "10",
                "--threads",
                "V",
            ],
            "--threads",
            &["0"],
        ),
        case(
            &["assign", "--buckets", "10", "--generate", "V"],
            "--generate",
            U64S,
        ),
        case(
            &[&remove[..], &gen, &["--threads", "V"]].concat(),
            "--threads",
            &["0"],
        ),
        case(
            &[&remove[..], &["--generate", "V"]].concat(),
            "--generate",
            U64S,
        ),
        case(
            &[&remove[..], &["--generate", "10", "--seed", "V"]].concat(),
            "--seed",
            U64S,
        ),
        case(
            &["lookup", "--nodes", &t, "--replicas", "V", "5"],
            "--replicas",
            &[],
        ),
    ]
}

/// What one run came to.
enum Outcome {
    /// Ended with this status and standard error.
    Ended(std::process::ExitStatus, String),
    /// Still running, healthily, after a while (an endless stream).
    Running,
}

/// Runs `args`, stopping it after a moment if it is still running (having
/// checked that it holds no huge allocation).
fn run_for_a_moment(args: &[String]) -> Outcome {
    let mut child = command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(700) {
        if child.try_wait().unwrap().is_some() {
            let o = child.wait_with_output().unwrap();
            return Outcome::Ended(o.status, String::from_utf8_lossy(&o.stderr).into_owned());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let rss_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    assert!(rss_kib < 1 << 20, "{args:?} holds {rss_kib} KiB");
    child.kill().unwrap();
    child.wait().unwrap();
    Outcome::Running
}

#[test]
fn every_integer_option_checks_its_range() {
    let d = dir();
    let mut failures = Vec::new();
    for case in cases(d.path()) {
        for value in VALUES {
            let args: Vec<String> = case
                .args
                .iter()
                .map(|a| {
                    if a == "V" {
                        value.to_owned()
                    } else {
                        a.clone()
                    }
                })
                .collect();
            let accepted = case.accepted.contains(&value);
            let problem = match (run_for_a_moment(&args), accepted) {
                (Outcome::Running, true) => None,
                (Outcome::Running, false) => Some("still running instead of refused".into()),
                (Outcome::Ended(status, err), _)
                    if status.signal().is_some() || err.contains("panicked") =>
                {
                    Some(format!("crashed ({status:?}): {err}"))
                }
                (Outcome::Ended(status, err), true) => {
                    (!status.success()).then(|| format!("refused: {err}"))
                }
                (Outcome::Ended(status, err), false) => {
                    let named = err.contains(case.option)
                        && err.contains(&format!("'{value}'"))
                        && err.contains("must be a whole number from");
                    match (status.code(), named) {
                        (Some(2), true) => None,
                        _ => Some(format!("not a usage error naming it ({status:?}): {err}")),
                    }
                }
            };
            if let Some(problem) = problem {
                failures.push(format!("{args:?}: {problem}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Limits that depend on what is read are checked once it is read, before
/// anything is sized by them, naming the option, the value and the limit.
#[test]
fn replicas_beyond_the_input_are_named() {
    let d = dir();
    let t = table(d.path(), "t", "a\nb\nc\n");
    let t2 = table(d.path(), "t2", "a\nb\nc\nd\n");
    let big = "1024";
    for args in [
        vec![
            "assign",
            "--nodes",
            path_str(&t),
            "--generate",
            "10",
            "--replicas",
            big,
        ],
        vec![
            "assign",
            "--buckets",
            "10",
            "--generate",
            "10",
            "--replicas",
            big,
        ],
        vec!["lookup", "--nodes", path_str(&t), "--replicas", big, "5"],
        vec![
            "reshard",
            "--from-nodes",
            path_str(&t),
            "--to-nodes",
            path_str(&t2),
            "--generate",
            "10",
            "--replicas",
            big,
        ],
    ] {
        let o = run(&args);
        assert_fails(&o, &["--replicas", big]);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
    }
}
