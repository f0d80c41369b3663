//! Keys from Parquet files and dataset directories in every codec, and
//! Parquet move lists: the same results as the u64le input, and every bad
//! file, column or type refused without leaving a file.

#![cfg(feature = "parquet")]

use crate::support;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, UInt64Array};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use support::*;

mod byte_keys;

/// Writes `columns` to `path` in row groups of `group` rows.
fn write(path: &std::path::Path, columns: Vec<(&str, ArrayRef)>, group: usize) {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

fn u64s(keys: &[u64]) -> ArrayRef {
    Arc::new(UInt64Array::from(keys.to_vec()))
}

#[test]
fn uint64_and_int64_columns_files_and_directories() {
    let d = dir();
    let keys = keys(4, 30_000);
    let file = d.path().join("keys.parquet");
    write(
        &file,
        vec![
            (
                "name",
                Arc::new(StringArray::from_iter_values(
                    keys.iter().map(|k| k.to_string()),
                )) as ArrayRef,
            ),
            ("k", u64s(&keys)),
        ],
        7000,
    );
    let args = [path_str(&file), "--key-format", "parquet", "--column", "k"];
    assert_eq!(assign(&args), want(&keys));
    // int64 bits as uint64.
    let signed = d.path().join("signed.parquet");
    let ints: Vec<i64> = keys.iter().map(|&k| k as i64).collect();
    write(
        &signed,
        vec![("k", Arc::new(Int64Array::from(ints)) as ArrayRef)],
        1 << 20,
    );
    assert_eq!(
        assign(&[
            path_str(&signed),
            "--key-format",
            "parquet",
            "--column",
            "k"
        ]),
        want(&keys)
    );
    // A directory with Hive partitions: files in path order, positions
    // running on; writers' side files skipped.
    let parts = d.path().join("parts");
    std::fs::create_dir_all(parts.join("p=1")).unwrap();
    std::fs::create_dir_all(parts.join("p=2/q=x")).unwrap();
    std::fs::create_dir_all(parts.join("_temporary")).unwrap();
    write(
        &parts.join("p=2/q=x/c.parquet"),
        vec![("k", u64s(&keys[20_000..]))],
        3000,
    );
    write(
        &parts.join("p=1/b.parquet"),
        vec![("k", u64s(&keys[10_000..20_000]))],
        3000,
    );
    write(
        &parts.join("a.parquet"),
        vec![("k", u64s(&keys[..10_000]))],
        4096,
    );
    std::fs::write(parts.join("_SUCCESS"), "").unwrap();
    std::fs::write(parts.join("p=1/.b.parquet.crc"), "crc").unwrap();
    std::fs::write(parts.join("_temporary/x.parquet"), "partial").unwrap();
    let o = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        path_str(&parts),
        "--key-format",
        "parquet",
        "--column",
        "k",
        "--output",
        path_str(&d.path().join("m.csv")),
        "--positions",
    ]);
    assert_ok(&o);
    let bin = u64le_file(d.path(), "keys.bin", &keys);
    let o = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        path_str(&bin),
        "--output",
        path_str(&d.path().join("w.csv")),
        "--positions",
    ]);
    assert_ok(&o);
    assert_eq!(
        std::fs::read(d.path().join("m.csv")).unwrap(),
        std::fs::read(d.path().join("w.csv")).unwrap()
    );
}

/// Files written by other tools come in every codec Parquet has:
/// each reads to the same keys.
#[test]
fn every_codec() {
    use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};

    let d = dir();
    let keys = keys(9, 5000);
    let codecs = [
        ("none", Compression::UNCOMPRESSED),
        ("snappy", Compression::SNAPPY),
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("lz4", Compression::LZ4),
        ("lz4_raw", Compression::LZ4_RAW),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
        ("brotli", Compression::BROTLI(BrotliLevel::default())),
    ];
    for (name, codec) in codecs {
        let path = d.path().join(format!("{name}.parquet"));
        let batch = RecordBatch::try_from_iter([("k", u64s(&keys))]).unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(2000))
            .set_compression(codec)
            .build();
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let o = run(&[
            "assign",
            "--buckets",
            "1000",
            path_str(&path),
            "--column",
            "k",
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(stdout(&o) == want(&keys), "{name}: other buckets");
    }
}

/// A dataset directory is read whole or not at all: an entry that is
/// neither a `.parquet` file nor a partition directory is an error
/// naming it, wherever it is.
#[test]
fn dataset_directories_hold_only_parquet() {
    let d = dir();
    let parts = d.path().join("parts");
    std::fs::create_dir_all(parts.join("p=9")).unwrap();
    write(&parts.join("a.parquet"), vec![("k", u64s(&[1, 2]))], 10);
    write(&parts.join("p=9/x.parquet"), vec![("k", u64s(&[3]))], 10);
    let args = |dir: &std::path::Path| {
        vec![
            "assign".to_string(),
            "--buckets".into(),
            "10".into(),
            path_str(dir).into(),
            "--column".into(),
            "k".into(),
        ]
    };
    let o = command().args(args(&parts)).output().unwrap();
    assert_eq!(stdout(&o).lines().count(), 3, "{}", stderr(&o));
    std::fs::write(parts.join("p=9/README"), "not parquet").unwrap();
    let o = command().args(args(&parts)).output().unwrap();
    assert_fails(&o, &["p=9/README", "not named *.parquet", "move it out"]);
    std::fs::remove_file(parts.join("p=9/README")).unwrap();
    let fifo = parts.join("p=9/pipe.parquet");
    let c = std::ffi::CString::new(path_str(&fifo)).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let o = command().args(args(&parts)).output().unwrap();
    assert_fails(&o, &["pipe.parquet", "neither a file nor a directory"]);
}

/// A file on which the parquet crate itself panics (found by fuzzing,
/// kept as a seed of `fuzz/seeds/parquet_input`): an error naming the
/// file, exit status 1, never an abort.
#[test]
fn a_corrupt_file_is_an_error() {
    let seeds =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/parquet_input");
    let name = "reader-panics";
    let o = command()
        .args([
            "assign",
            "--buckets",
            "3",
            "--key-format",
            "parquet",
            "--column",
            "k",
        ])
        .arg(seeds.join(name))
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let last = stderr(&o).lines().last().unwrap_or_default().to_owned();
    assert!(last.starts_with("jumpshard: "), "{last}");
    assert!(
        last.contains(name) && last.contains("not a readable Parquet file"),
        "{last}"
    );
}

#[test]
fn parquet_move_lists() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{UInt32Type, UInt64Type};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let d = dir();
    let keys = keys(5, 20_000);
    let bin = u64le_file(d.path(), "keys.bin", &keys);
    let out = d.path().join("moves.parquet");
    let o = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        path_str(&bin),
        "--output",
        path_str(&out),
        "--output-format",
        "parquet",
        "--chunk-keys",
        "999",
    ]);
    assert_ok(&o);
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&out).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let (ten, twelve) = (
        jumpshard::BucketCount::new(10).unwrap(),
        jumpshard::BucketCount::new(12).unwrap(),
    );
    let want: Vec<(u64, u32, u32)> = keys
        .iter()
        .map(|&k| (k, jumpshard::bucket(k, ten), jumpshard::bucket(k, twelve)))
        .filter(|m| m.1 != m.2)
        .collect();
    let mut got = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        assert_eq!(batch.schema().field(0).name(), "key");
        let (k, f, t) = (
            batch.column(0).as_primitive::<UInt64Type>(),
            batch.column(1).as_primitive::<UInt32Type>(),
            batch.column(2).as_primitive::<UInt32Type>(),
        );
        got.extend((0..batch.num_rows()).map(|i| (k.value(i), f.value(i), t.value(i))));
    }
    assert_eq!(got, want);
    // With node names.
    let (old, new) = (d.path().join("old"), d.path().join("new"));
    std::fs::write(&old, "a\nb\n").unwrap();
    std::fs::write(&new, "a\nb\nc\n").unwrap();
    let out = d.path().join("nodes.parquet");
    let o = run(&[
        "reshard",
        "--nodes",
        path_str(&old),
        "--to-nodes",
        path_str(&new),
        path_str(&bin),
        "--output",
        path_str(&out),
        "--output-format",
        "parquet",
        "--positions",
    ]);
    assert_ok(&o);
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&out).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut rows = 0;
    for batch in reader {
        let batch = batch.unwrap();
        assert_eq!(batch.schema().field(0).name(), "position");
        let to = batch.column(2).as_string::<i32>();
        assert!((0..batch.num_rows()).all(|i| to.value(i) == "c"));
        rows += batch.num_rows();
    }
    let table = jumpshard::NodeTable::parse("a\nb\nc\n").unwrap();
    assert_eq!(rows, keys.iter().filter(|&&k| table.node(k) == "c").count());
}

#[test]
fn bad_parquet_inputs() {
    let d = dir();
    let file = d.path().join("k.parquet");
    write(
        &file,
        vec![
            ("k", u64s(&[1, 2, 3])),
            (
                "small",
                Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef,
            ),
            (
                "holes",
                Arc::new(UInt64Array::from(vec![Some(1), None, Some(3)])) as ArrayRef,
            ),
            // A null in the second row group: its position counts the first.
            (
                "late_hole",
                Arc::new(Int64Array::from(vec![Some(1), Some(2), None])) as ArrayRef,
            ),
        ],
        2,
    );
    // Two columns of one name, which Parquet allows.
    let twice = d.path().join("twice.parquet");
    write(&twice, vec![("k", u64s(&[1, 2])), ("k", u64s(&[3, 4]))], 2);
    let not = d.path().join("not.parquet");
    std::fs::write(&not, "hello").unwrap();
    let empty = d.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = d.path().join("out");
    std::fs::write(&out, "precious").unwrap();
    let before = listing(d.path());
    let f = path_str(&file);
    let cases: [(Vec<&str>, &[&str]); 8] = [
        (
            vec![f, "--column", "nope"],
            &["no column \"nope\"", "k, small, holes, late_hole"],
        ),
        (
            vec![f, "--column", "small"],
            &["Int32", "not uint64 or int64"],
        ),
        (vec![f, "--column", "holes"], &["null", "key position 1"]),
        (
            vec![f, "--column", "late_hole"],
            &["null", "key position 2"],
        ),
        (
            vec![path_str(&not), "--column", "k"],
            &["not.parquet", "not a readable Parquet file"],
        ),
        (
            vec![path_str(&empty), "--column", "k"],
            &["without any .parquet file", "partition subdirectories"],
        ),
        (vec!["--column", "k"], &["not standard input"]),
        (
            vec![path_str(&twice), "--column", "k"],
            &["twice.parquet", "columns 0, 1 are all named \"k\""],
        ),
    ];
    for (args, words) in cases {
        let mut all = vec![
            "reshard",
            "--from",
            "3",
            "--to",
            "4",
            "--key-format",
            "parquet",
            "--output",
            path_str(&out),
        ];
        all.extend(args);
        assert_fails(&run(&all), words);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        assert_eq!(listing(d.path()), before);
    }
    let o = run(&[
        "assign",
        "--buckets",
        "3",
        f,
        "--key-format",
        "parquet",
        "--column",
        "k",
        "--no-header",
    ]);
    assert_fails(&o, &["--no-header", "only with --key-format csv"]);
}

/// A null in the second file of a dataset is named by its row in that file
/// and its position in the whole input.
#[test]
fn a_null_in_a_dataset_names_its_file_and_row() {
    let d = dir();
    let data = d.path().join("ds");
    std::fs::create_dir(&data).unwrap();
    write(&data.join("a.parquet"), vec![("k", u64s(&[1, 2, 3]))], 2);
    write(
        &data.join("b.parquet"),
        vec![(
            "k",
            Arc::new(UInt64Array::from(vec![Some(4), None])) as ArrayRef,
        )],
        2,
    );
    let o = run(&[
        "assign",
        "--buckets",
        "10",
        path_str(&data),
        "--column",
        "k",
    ]);
    assert_fails(
        &o,
        &[
            "b.parquet",
            "null at row 1 of the file",
            "key position 4 of the input",
        ],
    );
}
