//! `--key-format auto`, the default: inputs say what they are. Parquet
//! (file or directory), CSV by name and u64le are told apart; text is
//! refused with the choices named, and Parquet is never read as u64le.

use crate::support;

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

/// `bytes` with `pad` added (a space, in text) up to a multiple of 8
/// bytes, the size of whole u64le keys.
fn whole_keys(mut bytes: Vec<u8>, pad: &[u8]) -> Vec<u8> {
    while !bytes.len().is_multiple_of(8) {
        bytes.extend(pad);
    }
    bytes
}

#[test]
fn what_is_not_raw_keys_is_refused_before_the_output_is_touched() {
    let d = dir();
    let utf16 =
        |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let cases: [(&str, Vec<u8>, &[&str]); 6] = [
        (
            "utf16-bom.txt",
            whole_keys(utf16("\u{feff}alpha\nbeta\ngamma\n"), b" \0"),
            &["UTF-16LE text, with a byte order mark", "iconv -f UTF-16LE"],
        ),
        (
            "utf16.txt",
            whole_keys(utf16("10\n20\n30\n"), b" \0"),
            &["UTF-16LE text", "iconv"],
        ),
        (
            "latin1.txt",
            whole_keys(b"caf\xe9\nna\xefve\nm\xfcller\n".to_vec(), b" "),
            &["Latin-1", "--key-format bytes"],
        ),
        (
            "one-line.txt",
            whole_keys("café crème brûlée".as_bytes().to_vec(), b" "),
            &["looks like text", "--key-format bytes"],
        ),
        (
            "keys.gz",
            // gzip's header, then a deflate stream.
            whole_keys(
                b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x33\x34\xe2\x02\x00".to_vec(),
                b"\0",
            ),
            &["gzip-compressed", "gzip -dc"],
        ),
        (
            "keys.zst",
            whole_keys(b"\x28\xb5\x2f\xfd\x04\x58\x19\x00\x00".to_vec(), b"\0"),
            &["zstd-compressed", "zstd -dc"],
        ),
    ];
    let output = d.path().join("moves.csv");
    for (name, bytes, words) in cases {
        let input = d.path().join(name);
        std::fs::write(&input, &bytes).unwrap();
        std::fs::write(&output, "the previous moves\n").unwrap();
        let o = run(&[
            "reshard",
            "--from",
            "10",
            "--to",
            "12",
            path_str(&input),
            "--output",
            path_str(&output),
        ]);
        assert_fails(&o, &[name, "--key-format u64le"]);
        assert_fails(&o, words);
        assert_eq!(
            std::fs::read_to_string(&output).unwrap(),
            "the previous moves\n"
        );
        // From a pipe too.
        let o = assign(&[], &bytes);
        assert_fails(&o, &["standard input"]);
        assert_fails(&o, words);
        // Standard input has no name to give a decompressor.
        assert!(!stderr(&o).contains("-dc standard input"), "{}", stderr(&o));
        // Said outright, the bytes are read as keys.
        assert_ok(&assign(&["--key-format", "u64le"], &bytes));
    }
}

/// u64le keys whose first bytes spell Parquet's mark: each refusal says
/// how to read them as keys, whether `--column` was given or not.
#[test]
fn keys_starting_with_par1_are_refused_with_the_way_out() {
    let d = dir();
    let input = d.path().join("keys.u64");
    std::fs::write(&input, b"PAR1\0\0\0\0").unwrap();
    for extra in [&[][..], &["--column", "k"]] {
        let mut args = vec!["assign", "--buckets", "10", path_str(&input)];
        args.extend(extra);
        let o = run(&args);
        assert_fails(&o, &["starts with PAR1", "--key-format u64le"]);
    }
    let o = run(&[
        "assign",
        "--buckets",
        "10",
        path_str(&input),
        "--key-format",
        "u64le",
    ]);
    assert_ok(&o);
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

    /// Runs `args` and waits for it at most a minute (a hang fails the
    /// test instead of stopping the suite).
    fn run_or_kill(args: &[&str]) -> std::process::Output {
        let mut child = command()
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        for _ in 0..600 {
            if child.try_wait().unwrap().is_some() {
                return child.wait_with_output().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        child.kill().unwrap();
        panic!("{args:?} still running after a minute");
    }

    #[test]
    fn parquet_through_a_fifo_or_a_pipe_is_refused_at_once() {
        let d = dir();
        let file = d.path().join("keys.parquet");
        write(&file, &keys(16, 1000));
        let bytes = std::fs::read(&file).unwrap();
        let fifo = d.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        for format in ["auto", "parquet"] {
            // A writer that feeds the FIFO whenever it is opened for
            // reading; left blocked if it never is.
            let (fifo_path, data) = (fifo.clone(), bytes.clone());
            std::thread::spawn(move || {
                use std::io::Write;
                if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(fifo_path) {
                    let _ = w.write_all(&data);
                }
            });
            let args = [
                "assign",
                "--buckets",
                "10",
                "--key-format",
                format,
                "--column",
                "k",
                path_str(&fifo),
            ];
            let o = run_or_kill(&args);
            assert_fails(
                &o,
                &["fifo", "not a regular file", "save it to a file first"],
            );
            // Standard input as a path: a pipe too.
            let mut args = args;
            args[7] = "/dev/stdin";
            let o = run_with_stdin(&args, &bytes);
            assert_fails(&o, &["/dev/stdin", "not a regular file"]);
        }
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
