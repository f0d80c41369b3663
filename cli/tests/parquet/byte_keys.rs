//! Byte keys from Parquet: string and binary columns, each value
//! pre-hashed as a line of `--key-format bytes` is.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, StringArray};

use super::{u64s, write};
use crate::support::*;

/// A string or binary column holds byte keys: each value pre-hashed as a
/// line of `--key-format bytes` is (with `--hash-seed` too), the move list
/// by position, as for the same values as lines; in a dataset whose files
/// all hold strings. A seed for an integer column, and a dataset mixing
/// integers and strings, are refused.
#[test]
fn string_and_binary_columns_are_byte_keys() {
    let d = dir();
    let values: Vec<String> = keys(6, 20_000)
        .iter()
        .enumerate()
        .map(|(i, k)| format!("user:{}", k % 10u64.pow((i % 12) as u32 + 1)))
        .collect();
    let strings = d.path().join("s.parquet");
    let column = Arc::new(StringArray::from_iter_values(&values)) as ArrayRef;
    write(&strings, vec![("id", column)], 7000);
    let binary = d.path().join("b.parquet");
    let raw: Vec<&[u8]> = values.iter().map(String::as_bytes).collect();
    write(
        &binary,
        vec![(
            "id",
            Arc::new(BinaryArray::from_iter_values(raw)) as ArrayRef,
        )],
        7000,
    );
    let lines = d.path().join("ids.txt");
    std::fs::write(
        &lines,
        values.iter().map(|v| format!("{v}\n")).collect::<String>(),
    )
    .unwrap();
    let reshard = |input: &str, format: &str, seed: &str| {
        let mut args = vec![
            "reshard",
            "--from",
            "10",
            "--to",
            "13",
            input,
            "--key-format",
            format,
        ];
        args.extend(["--hash-seed", seed, "--output", "-"]);
        if format == "parquet" {
            args.extend(["--column", "id"]);
        }
        // The summary goes to standard error beside the list on stdout.
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    for seed in ["0", "7"] {
        let want = reshard(path_str(&lines), "bytes", seed);
        assert!(want.starts_with("position,from,to\n") && want.lines().count() > 1000);
        assert_eq!(
            reshard(path_str(&strings), "parquet", seed),
            want,
            "seed {seed}"
        );
        assert_eq!(
            reshard(path_str(&binary), "parquet", seed),
            want,
            "seed {seed}"
        );
    }
    let n = jumpshard::BucketCount::new(1000).unwrap();
    let want: String = values
        .iter()
        .map(|v| format!("{}\n", jumpshard::bucket_bytes(v.as_bytes(), n)))
        .collect();
    assert_eq!(assign(&[path_str(&strings), "--column", "id"]), want);
    // A dataset: the file's values twice, positions running on.
    let dataset = d.path().join("dataset");
    std::fs::create_dir(&dataset).unwrap();
    std::fs::copy(&strings, dataset.join("part-0.parquet")).unwrap();
    std::fs::copy(&strings, dataset.join("part-1.parquet")).unwrap();
    assert_eq!(
        assign(&[path_str(&dataset), "--column", "id"]),
        want.repeat(2)
    );

    let ints = d.path().join("k.parquet");
    write(&ints, vec![("id", u64s(&[1, 2, 3]))], 3);
    let o = run(&[
        "assign",
        "--buckets",
        "9",
        path_str(&ints),
        "--column",
        "id",
        "--hash-seed",
        "0",
    ]);
    assert_fails(&o, &["--hash-seed", "k.parquet", "integer keys"]);
    std::fs::copy(&ints, dataset.join("part-2.parquet")).unwrap();
    let o = run(&[
        "assign",
        "--buckets",
        "9",
        path_str(&dataset),
        "--column",
        "id",
    ]);
    assert_fails(
        &o,
        &[
            "part-2.parquet",
            "integer keys",
            "part-0.parquet",
            "byte keys",
        ],
    );
}
