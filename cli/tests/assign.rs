//! `jumpshard assign` as a user runs it: every key's bucket, in order, in
//! each output format.

use crate::support;

use jumpshard::{bucket, BucketCount};
use support::*;

fn buckets(keys: &[u64], n: u32) -> Vec<u32> {
    keys.iter()
        .map(|&k| bucket(k, BucketCount::new(n).unwrap()))
        .collect()
}

#[test]
fn binary_i32_file_from_u64le() {
    let d = dir();
    let keys = keys(7, 30_000);
    let input = u64le_file(d.path(), "keys.bin", &keys);
    let out = d.path().join("buckets.bin");
    let o = run(&[
        "assign",
        "--buckets",
        "1000",
        path_str(&input),
        "--output",
        path_str(&out),
        "--output-format",
        "binary",
        "--json",
    ]);
    assert_ok(&o);
    let got: Vec<u32> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as u32)
        .collect();
    assert_eq!(got, buckets(&keys, 1000));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["keys"], 30_000);
    assert_eq!(j["buckets"], 1000);
}

#[test]
fn text_to_stdout_from_decimal_stdin() {
    let keys = keys(8, 2000);
    let text: String = keys.iter().map(|k| format!("{k}\n")).collect();
    let o = run_with_stdin(
        &[
            "assign",
            "--buckets",
            "2147483647",
            "--key-format",
            "decimal",
        ],
        text.as_bytes(),
    );
    assert_ok(&o);
    let got: Vec<u32> = stdout(&o).lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got, buckets(&keys, 2147483647));
}

#[test]
fn generated_keys_to_a_text_file_across_chunks() {
    let d = dir();
    let out = d.path().join("buckets.txt");
    let n = 1_100_000;
    let o = run(&[
        "assign",
        "--buckets",
        "12",
        "--generate",
        &n.to_string(),
        "--output",
        path_str(&out),
    ]);
    assert_ok(&o);
    let got: Vec<u32> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(got, buckets(&support::keys(0x6A75_6D70, n), 12));
    assert!(stdout(&o).starts_with("assigned 1100000 keys to 12 buckets"));
}

#[test]
fn byte_keys_hash_each_line() {
    let o = run_with_stdin(
        &["assign", "--buckets", "100", "--key-format", "bytes"],
        b"alice\nbob\r\n\ncarol",
    );
    assert_ok(&o);
    let n = BucketCount::new(100).unwrap();
    let want: Vec<String> = [&b"alice"[..], b"bob", b"", b"carol"]
        .iter()
        .map(|k| jumpshard::bucket_bytes(k, n).to_string())
        .collect();
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), want);
}

/// Tiny chunks on two workers: the buckets still come out in input order.
#[test]
fn tiny_chunks_come_out_in_input_order() {
    let d = dir();
    let keys = support::keys(9, 3_000);
    let input = u64le_file(d.path(), "keys.bin", &keys);
    let out = d.path().join("buckets.bin");
    for chunk in ["1", "5", "1000"] {
        let o = run(&[
            "assign",
            "--buckets",
            "1000",
            path_str(&input),
            "--threads",
            "2",
            "--chunk-keys",
            chunk,
            "--output",
            path_str(&out),
            "--output-format",
            "binary",
        ]);
        assert_ok(&o);
        let got: Vec<u32> = std::fs::read(&out)
            .unwrap()
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert!(got == buckets(&keys, 1000), "chunks of {chunk}");
    }
}
