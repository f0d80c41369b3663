//! `--key-format auto`, the default: inputs say what they are. Parquet
//! (file or directory), CSV by name and u64le are told apart; text is
//! refused with the choices named, and Parquet is never read as u64le.

mod support;

use support::*;

/// `assign --buckets 1000` over `args`.
fn assign(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut all = vec!["assign", "--buckets", "1000"];
    all.extend(args);
    run_with_stdin(&all, stdin)
}

fn want(keys: &[u64]) -> String {
    let n = jumpshard::BucketCount::new(1000).unwrap();
    keys.iter()
        .map(|&k| format!("{}\n", jumpshard::bucket(k, n)))
        .collect()
}

const CHOICES: [&str; 3] = [
    "--key-format decimal",
    "--key-format bytes",
    "--key-format csv",
];

#[test]
fn binary_keys_are_u64le_from_a_file_and_a_pipe() {
    let d = dir();
    let keys = keys(11, 3000);
    let file = u64le_file(d.path(), "keys.bin", &keys);
    let o = assign(&[path_str(&file)], b"");
    assert_ok(&o);
    assert_eq!(stdout(&o), want(&keys));
    let bytes = std::fs::read(&file).unwrap();
    let o = assign(&["--chunk-keys", "100"], &bytes);
    assert_ok(&o);
    assert_eq!(stdout(&o), want(&keys));
}

#[test]
fn empty_input_is_zero_keys() {
    let d = dir();
    let empty = d.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    for o in [assign(&[path_str(&empty)], b""), assign(&[], b"")] {
        assert_ok(&o);
        assert_eq!(stdout(&o), "");
    }
}

#[test]
fn decimal_text_is_refused_with_the_choices() {
    // `seq 1 8`: 16 bytes, a multiple of 8, which used to pass as 2 keys.
    let seq: String = (1..=8).map(|i| format!("{i}\n")).collect();
    let o = run_with_stdin(&["reshard", "--from", "10", "--to", "12"], seq.as_bytes());
    assert_fails(&o, &["standard input", "looks like text"]);
    assert_fails(&o, &CHOICES);
    let d = dir();
    let file = d.path().join("keys.txt");
    std::fs::write(&file, &seq).unwrap();
    let o = run(&["reshard", "--from", "10", "--to", "12", path_str(&file)]);
    assert_fails(&o, &["keys.txt"]);
    assert_fails(&o, &CHOICES);
    // Said outright, the same text is read.
    let o = assign(&["--key-format", "decimal"], seq.as_bytes());
    assert_ok(&o);
    assert_eq!(stdout(&o), want(&(1..=8).collect::<Vec<u64>>()));
}

#[test]
fn a_node_table_is_refused_as_keys() {
    let d = dir();
    let table = d.path().join("nodes");
    std::fs::write(&table, "alpha-1\nbeta--2\n").unwrap();
    assert!(std::fs::metadata(&table).unwrap().len().is_multiple_of(8));
    let o = run(&["reshard", "--from", "10", "--to", "12", path_str(&table)]);
    assert_fails(&o, &["nodes", "looks like text"]);
    assert_fails(&o, &CHOICES);
}

#[test]
fn a_csv_file_is_told_by_its_name() {
    let d = dir();
    let keys = keys(12, 500);
    let mut text = String::from("id,key\n");
    for (i, k) in keys.iter().enumerate() {
        text.push_str(&format!("{i},{k}\n"));
    }
    let csv = d.path().join("keys.csv");
    std::fs::write(&csv, &text).unwrap();
    let o = assign(&[path_str(&csv), "--column", "key"], b"");
    assert_ok(&o);
    assert_eq!(stdout(&o), want(&keys));
    let o = assign(&[path_str(&csv)], b"");
    assert_fails(&o, &["keys.csv", "--column"]);
}

#[test]
fn a_parquet_name_without_the_magic_is_refused() {
    let d = dir();
    let fake = u64le_file(d.path(), "keys.parquet", &keys(13, 10));
    let o = assign(&[path_str(&fake), "--column", "k"], b"");
    assert_fails(&o, &["keys.parquet", "PAR1"]);
}

#[cfg(feature = "parquet")]
mod parquet_inputs {
    use super::*;

    use std::path::Path;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
    use parquet::arrow::ArrowWriter;

    /// Writes `keys` as column `k` of a Parquet file at `path`.
    fn write(path: &Path, keys: &[u64]) {
        let column = Arc::new(UInt64Array::from(keys.to_vec())) as ArrayRef;
        let batch = RecordBatch::try_from_iter([("k", column)]).unwrap();
        let file = std::fs::File::create(path).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }

    #[test]
    fn a_parquet_file_whose_size_is_a_multiple_of_8() {
        let d = dir();
        let path = d.path().join("keys");
        // Grow the file a key at a time until its size could pass for
        // u64le keys.
        let mut keys = keys(14, 1000);
        write(&path, &keys);
        while !std::fs::metadata(&path).unwrap().len().is_multiple_of(8) {
            keys.push(keys.len() as u64);
            write(&path, &keys);
        }
        let o = assign(&[path_str(&path), "--column", "k"], b"");
        assert_ok(&o);
        assert_eq!(stdout(&o), want(&keys));
        let o = run(&["reshard", "--from", "10", "--to", "12", path_str(&path)]);
        assert_fails(&o, &["keys", "--column"]);
        let o = run(&[
            "reshard",
            "--from",
            "10",
            "--to",
            "12",
            "--key-format",
            "u64le",
            path_str(&path),
        ]);
        assert_fails(&o, &["is a Parquet file", "--key-format parquet"]);
        let bytes = std::fs::read(&path).unwrap();
        let o = assign(&[], &bytes);
        assert_fails(&o, &["standard input"]);
    }

    #[test]
    fn a_directory_is_a_parquet_dataset() {
        let d = dir();
        let keys = keys(15, 2000);
        write(&d.path().join("a.parquet"), &keys[..1200]);
        write(&d.path().join("b.parquet"), &keys[1200..]);
        let o = assign(&[path_str(d.path()), "--column", "k"], b"");
        assert_ok(&o);
        assert_eq!(stdout(&o), want(&keys));
    }
}
