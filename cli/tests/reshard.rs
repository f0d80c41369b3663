//! `jumpshard reshard` as a user runs it: move lists against the naive plan
//! (both counts evaluated per key) in every input and output format.

use crate::support;

use jumpshard::{bucket, bucket_bytes, BucketCount};
use support::*;

fn count(n: u32) -> BucketCount {
    BucketCount::new(n).unwrap()
}

/// (id, from, to) for every key whose bucket differs between the counts.
fn naive(keys: &[u64], from: u32, to: u32, by_position: bool) -> Vec<(u64, u32, u32)> {
    keys.iter()
        .enumerate()
        .filter_map(|(i, &k)| {
            let (a, b) = (bucket(k, count(from)), bucket(k, count(to)));
            (a != b).then_some((if by_position { i as u64 } else { k }, a, b))
        })
        .collect()
}

fn parse_csv(text: &str, header: &str) -> Vec<(u64, u32, u32)> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 3, "{l}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

fn parse_binary(bytes: &[u8]) -> Vec<(u64, u32, u32)> {
    assert_eq!(bytes.len() % 16, 0);
    bytes
        .chunks_exact(16)
        .map(|r| {
            (
                u64::from_le_bytes(r[..8].try_into().unwrap()),
                u32::from_le_bytes(r[8..12].try_into().unwrap()),
                u32::from_le_bytes(r[12..].try_into().unwrap()),
            )
        })
        .collect()
}

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn growth_csv_from_a_u64le_file() {
    let d = dir();
    let keys = keys(1, 50_000);
    let input = u64le_file(d.path(), "keys.bin", &keys);
    let out = d.path().join("moves.csv");
    let o = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        path_str(&input),
        "--output",
        path_str(&out),
    ]);
    assert_ok(&o);
    let moves = parse_csv(&std::fs::read_to_string(&out).unwrap(), "key,from,to");
    assert_eq!(moves, naive(&keys, 10, 12, false));
    let text = stdout(&o);
    assert!(text.contains("keys read      50000"), "{text}");
    assert!(
        text.contains(&format!("keys moved     {} ", moves.len())),
        "{text}"
    );
    assert!(text.contains("expected 1 - 10 / 12 = 16.6667%"), "{text}");
    assert_eq!(listing(d.path()), ["keys.bin", "moves.csv"]);
}

#[test]
fn shrinking_binary_with_json_summary() {
    let d = dir();
    let keys = keys(2, 40_000);
    let input = u64le_file(d.path(), "keys.bin", &keys);
    let out = d.path().join("moves.bin");
    let o = run(&[
        "reshard",
        "--from",
        "1000",
        "--to",
        "700",
        path_str(&input),
        "--output",
        path_str(&out),
        "--output-format",
        "binary",
        "--json",
    ]);
    assert_ok(&o);
    let want = naive(&keys, 1000, 700, false);
    assert_eq!(parse_binary(&std::fs::read(&out).unwrap()), want);
    let j = json(&o);
    assert_eq!(j["keys"], 40_000);
    assert_eq!(j["moved"], want.len());
    assert_eq!(j["from"], 1000);
    assert_eq!(j["to"], 700);
    assert!(j["seconds"].as_f64().unwrap() >= 0.0);
    assert!((j["expected_fraction"].as_f64().unwrap() - 0.3).abs() < 1e-12);
    let per: &serde_json::Map<_, _> = j["per_destination"].as_object().unwrap();
    let sum: u64 = per.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(sum, want.len() as u64);
    for (bucket, n) in per {
        let b: u32 = bucket.parse().unwrap();
        let expect = want.iter().filter(|m| m.2 == b).count() as u64;
        assert_eq!(n.as_u64(), Some(expect), "bucket {b}");
    }
}

#[test]
fn decimal_keys_from_stdin_with_crlf_lines() {
    let keys = keys(3, 5_000);
    let mut text: String = keys.iter().map(|k| format!("{k}\r\n")).collect();
    text.push_str("42"); // a last line without a line end
    let mut all = keys.clone();
    all.push(42);
    let d = dir();
    let out = d.path().join("moves.csv");
    let o = run_with_stdin(
        &[
            "reshard",
            "--from",
            "3",
            "--to",
            "7",
            "--key-format",
            "decimal",
            "--output",
            path_str(&out),
            "--positions",
        ],
        text.as_bytes(),
    );
    assert_ok(&o);
    let moves = parse_csv(&std::fs::read_to_string(&out).unwrap(), "position,from,to");
    assert_eq!(moves, naive(&all, 3, 7, true));
}

#[test]
fn byte_keys_are_listed_by_position() {
    let lines: Vec<String> = (0..3000).map(|i| format!("user:{i}")).collect();
    let mut text = lines.join("\n");
    text.push_str("\n\n"); // the last line is the empty key
    let d = dir();
    let input = d.path().join("keys.txt");
    std::fs::write(&input, &text).unwrap();
    let out = d.path().join("moves.csv");
    let o = run(&[
        "reshard",
        "--from",
        "5",
        "--to",
        "8",
        "--key-format",
        "bytes",
        path_str(&input),
        "--output",
        path_str(&out),
    ]);
    assert_ok(&o);
    let mut keys: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
    keys.push(b"");
    let want: Vec<(u64, u32, u32)> = keys
        .iter()
        .enumerate()
        .filter_map(|(i, k)| {
            let (a, b) = (bucket_bytes(k, count(5)), bucket_bytes(k, count(8)));
            (a != b).then_some((i as u64, a, b))
        })
        .collect();
    let moves = parse_csv(&std::fs::read_to_string(&out).unwrap(), "position,from,to");
    assert_eq!(moves, want);
}

/// Several chunks, so positions carry across chunk boundaries.
#[test]
fn generated_keys_across_chunks() {
    let d = dir();
    let out = d.path().join("moves.bin");
    let n = 2_500_000;
    let o = run(&[
        "reshard",
        "--from",
        "2",
        "--to",
        "1",
        "--generate",
        &n.to_string(),
        "--seed",
        "99",
        "--output",
        path_str(&out),
        "--output-format",
        "binary",
        "--positions",
        "--json",
    ]);
    assert_ok(&o);
    let keys = keys(99, n);
    assert_eq!(
        parse_binary(&std::fs::read(&out).unwrap()),
        naive(&keys, 2, 1, true)
    );
    let j = json(&o);
    assert_eq!(j["keys"], n);
    assert_eq!(j["per_destination"].as_object().unwrap().len(), 1);
}

#[test]
fn without_output_only_the_summary_is_printed() {
    let o = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        "--generate",
        "100000",
    ]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(
        text.starts_with("reshard 10 -> 12 buckets (growth)"),
        "{text}"
    );
    assert!(text.contains("keys read      100000"), "{text}");
    for bucket in ["10", "11"] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(bucket)),
            "{text}"
        );
    }
}

#[test]
fn an_existing_output_is_replaced_on_success() {
    let d = dir();
    let out = d.path().join("moves.csv");
    std::fs::write(&out, "old").unwrap();
    let o = run(&[
        "reshard",
        "--from",
        "1",
        "--to",
        "2",
        "--generate",
        "1000",
        "--output",
        path_str(&out),
    ]);
    assert_ok(&o);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("key,from,to\n"), "{text}");
    assert_eq!(listing(d.path()), ["moves.csv"]);
}

#[test]
fn empty_input_moves_nothing() {
    let o = run_with_stdin(&["reshard", "--from", "4", "--to", "9", "--json"], b"");
    assert_ok(&o);
    let j = json(&o);
    assert_eq!(j["keys"], 0);
    assert_eq!(j["moved"], 0);
    assert_eq!(j["per_destination"], serde_json::json!({}));
}

/// Behind a symbolic link, the file it points to is replaced; the link
/// stays a link.
#[test]
fn an_output_behind_a_symbolic_link_replaces_its_target() {
    let d = dir();
    let target = d.path().join("real.csv");
    std::fs::write(&target, "old").unwrap();
    let link = d.path().join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = run(&[
        "reshard",
        "--from",
        "3",
        "--to",
        "4",
        "--generate",
        "100",
        "--output",
        path_str(&link),
    ]);
    assert_ok(&o);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .starts_with("key,from,to\n"));
    assert_eq!(listing(d.path()), ["link.csv", "real.csv"]);
}

/// Tiny chunks on two workers, so that chunks finish out of order and must
/// be written back in input order, from each kind of source: a file (read
/// in parallel), a pipe and decimal text (read in turn).
#[test]
fn tiny_chunks_come_out_in_input_order() {
    let d = dir();
    let keys = keys(8, 5_000);
    let input = u64le_file(d.path(), "keys.bin", &keys);
    let bytes = std::fs::read(&input).unwrap();
    let decimal: String = keys.iter().map(|k| format!("{k}\n")).collect();
    let want = naive(&keys, 12, 10, false);
    let out = d.path().join("moves.bin");
    let sources: [(&[&str], &[u8]); 3] = [
        (&[path_str(&input)], b""),
        (&["-"], &bytes),
        (&["--key-format", "decimal"], decimal.as_bytes()),
    ];
    for (source, stdin) in sources {
        for chunk in ["1", "7", "4096"] {
            let mut args = vec![
                "reshard",
                "--from",
                "12",
                "--to",
                "10",
                "--threads",
                "2",
                "--chunk-keys",
                chunk,
                "--output",
                path_str(&out),
                "--output-format",
                "binary",
                "--json",
            ];
            args.extend(source);
            let o = run_with_stdin(&args, stdin);
            assert_ok(&o);
            let got = parse_binary(&std::fs::read(&out).unwrap());
            assert!(got == want, "{source:?} in chunks of {chunk}");
            assert_eq!(json(&o)["keys"], 5_000);
        }
    }
}
