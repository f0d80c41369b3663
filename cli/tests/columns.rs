//! Keys from a CSV column and seeded byte keys: the same results as the
//! u64le input, and every bad column, header or option refused without
//! leaving a file. Parquet keys and move lists are `parquet.rs`'s.

use crate::support;

use support::*;

#[test]
fn csv_columns_by_name_and_index() {
    let d = dir();
    let keys = keys(3, 5000);
    let mut text = String::from("name,\"the key\",other\n");
    for (i, k) in keys.iter().enumerate() {
        text.push_str(&format!("\"user, {i}\",\"{k}\",x\r\n"));
    }
    let csv = d.path().join("keys.csv");
    std::fs::write(&csv, &text).unwrap();
    let file = path_str(&csv);
    let chunks = ["--chunk-keys", "333"];
    assert_eq!(
        assign(&[file, "--key-format", "csv", "--column", "the key"]),
        want(&keys)
    );
    assert_eq!(
        assign(&[
            file,
            "--key-format",
            "csv",
            "--column",
            "1",
            "--chunk-keys",
            "7"
        ]),
        want(&keys)
    );
    // Without a header, by index; from standard input too.
    let bare: String = keys.iter().map(|k| format!("a,{k}\n")).collect();
    let o = run_with_stdin(
        &[
            "assign",
            "--buckets",
            "1000",
            "--key-format",
            "csv",
            "--column",
            "1",
            "--no-header",
        ],
        bare.as_bytes(),
    );
    assert_ok(&o);
    assert_eq!(stdout(&o), want(&keys));
    // reshard and remove read it as well.
    let o = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        file,
        "--key-format",
        "csv",
        "--column",
        "the key",
        "--json",
    ]);
    assert_ok(&o);
    let bin = u64le_file(d.path(), "keys.bin", &keys);
    let o2 = run(&[
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        path_str(&bin),
        "--json",
    ]);
    let moved = |o: &std::process::Output| {
        serde_json::from_str::<serde_json::Value>(&stdout(o)).unwrap()["moved"].clone()
    };
    assert_eq!(moved(&o), moved(&o2));
    let nodes = d.path().join("nodes");
    std::fs::write(&nodes, "a\nb\nc\n").unwrap();
    let mut args = vec![
        "remove",
        "--nodes",
        path_str(&nodes),
        "--node",
        "b",
        file,
        "--key-format",
        "csv",
        "--column",
        "the key",
    ];
    args.extend(chunks);
    assert_ok(&run(&args));
}

#[test]
fn bad_csv_is_named_by_line() {
    let d = dir();
    let csv = d.path().join("k.csv");
    std::fs::write(&csv, "id,key\n1,10\n2,11\n3,abc\n").unwrap();
    let file = path_str(&csv);
    let out = d.path().join("out");
    std::fs::write(&out, "precious").unwrap();
    let before = listing(d.path());
    let cases: [(Vec<&str>, &[&str]); 6] = [
        (
            vec![file, "--key-format", "csv", "--column", "key"],
            &["k.csv line 4", "column key"],
        ),
        (
            vec![file, "--key-format", "csv", "--column", "nope"],
            &["no column \"nope\"", "id, key"],
        ),
        (
            vec![file, "--key-format", "csv", "--column", "5"],
            &["no column \"5\" in the header line", "id, key"],
        ),
        (
            vec![
                file,
                "--key-format",
                "csv",
                "--column",
                "key",
                "--no-header",
            ],
            &["0-based index"],
        ),
        (vec![file, "--key-format", "csv"], &["--column"]),
        (
            vec![file, "--key-format", "decimal", "--column", "key"],
            &["--column", "only with"],
        ),
    ];
    for (args, words) in cases {
        let mut all = vec!["assign", "--buckets", "10", "--output", path_str(&out)];
        all.extend(args);
        assert_fails(&run(&all), words);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        assert_eq!(listing(d.path()), before);
    }
    let o = run(&[
        "assign",
        "--buckets",
        "10",
        "--generate",
        "5",
        "--key-format",
        "csv",
        "--column",
        "1",
    ]);
    assert_fails(&o, &["--generate"]);
}

/// Errors name the line a record starts on, counting the empty lines
/// before it and every line end of a `\r\n` file; a quote never closed
/// is an error at its line, not a field that swallows every key after it.
#[test]
fn csv_errors_name_the_true_line() {
    let d = dir();
    let csv = d.path().join("k.csv");
    for (text, words) in [
        ("id\r\n5\r\n6\r\nzz\r\n", "k.csv line 4"),
        ("id\n5\n\n\n\n\nzz\n", "k.csv line 7"),
        (
            "id,x\r\n5,y\r\n\r\n6,\"a\r\nb\"\r\nzz,q\r\n",
            "k.csv line 6",
        ),
        (
            "id,x\n5,\"oops\n7,b\n8,c\n",
            "k.csv line 2: a quoted field is never closed",
        ),
        ("x,id\na,5\nb,\n", "k.csv line 3, column id: empty field"),
    ] {
        std::fs::write(&csv, text).unwrap();
        let o = run(&[
            "assign",
            "--buckets",
            "10",
            path_str(&csv),
            "--column",
            "id",
        ]);
        assert_fails(&o, &[words]);
    }
    let weights = d.path().join("w.csv");
    std::fs::write(&weights, "id,w\r\n1,5\r\n2,zz\r\n").unwrap();
    let o = run(&[
        "balance",
        path_str(&weights),
        "--key-column",
        "id",
        "--weight-column",
        "w",
        "--buckets",
        "4",
        "--factor",
        "2",
        "--write-table",
        "-",
    ]);
    assert_fails(&o, &["w.csv line 3"]);
}

/// A CSV record is bounded as byte-key lines are: one longer than
/// `--max-line-bytes` (a field with no line end after it, a quote never
/// closed) is an error naming its line, read no further than the bound,
/// and the output is left as it was.
#[test]
fn a_csv_record_over_the_bound_is_refused_by_line() {
    let d = dir();
    let csv = d.path().join("k.csv");
    let field = "9".repeat(300_000);
    std::fs::write(&csv, format!("id,key\n1,10\n2,{field}")).unwrap();
    let out = d.path().join("out");
    std::fs::write(&out, "precious").unwrap();
    let before = listing(d.path());
    let args = |input: &'static str| {
        vec![
            "assign",
            "--buckets",
            "10",
            "--output",
            path_str(&out),
            "--key-format",
            "csv",
            "--column",
            "key",
            "--max-line-bytes",
            "1000",
            input,
        ]
    };
    let mut from_file = args("-");
    *from_file.last_mut().unwrap() = path_str(&csv);
    let o = run(&from_file);
    assert_fails(
        &o,
        &["k.csv line 3", "longer than 1000 bytes", "--max-line-bytes"],
    );
    let o = run_with_stdin(&args("-"), format!("key\n\"{field}").as_bytes());
    assert_fails(&o, &["standard input line 2", "longer than 1000 bytes"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    assert_eq!(listing(d.path()), before);
    // Under a bound that holds it, the record is read.
    std::fs::write(&csv, "id,key\n1,10\n2,11\n").unwrap();
    let mut from_file = args("-");
    *from_file.last_mut().unwrap() = path_str(&csv);
    from_file[10] = "10";
    assert_ok(&run(&from_file));
}

/// A CSV header line never costs a key nor picks a column by a guess: a
/// header field that is a key (a file without a header line), an index
/// that is also another column's name, and a name two columns have are
/// refused, each with the way out.
#[test]
fn csv_header_ambiguities() {
    let d = dir();
    let write = |name: &str, text: &str| {
        let path = d.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let bare = write("bare.csv", "17,3\n18,4\n");
    let numbered = write("numbered.csv", "id,0\n5,6\n");
    let twice = write("twice.csv", "k,x,k\n1,2,3\n");
    let fine = write("fine.csv", "k,0\n1,2\n");
    let out = d.path().join("out");
    std::fs::write(&out, "precious").unwrap();
    let before = listing(d.path());
    let cases: [(&std::path::Path, &str, &[&str]); 5] = [
        (
            &bare,
            "0",
            &[
                "bare.csv line 1",
                "field in the key column 0 is 17",
                "--no-header",
            ],
        ),
        (&bare, "1", &["column 1 is 3", "--no-header"]),
        (
            &numbered,
            "0",
            &[
                "--column 0 is ambiguous",
                "column 1, named \"0\"",
                "--column \"id\"",
            ],
        ),
        (
            &twice,
            "k",
            &[
                "twice.csv",
                "--column \"k\" names 2 columns",
                "indexes 0 and 2",
            ],
        ),
        (
            &fine,
            "1",
            &["field in the key column 1 is 0", "--no-header"],
        ),
    ];
    for (file, column, words) in cases {
        let o = run(&[
            "assign",
            "--buckets",
            "10",
            path_str(file),
            "--key-format",
            "csv",
            "--column",
            column,
            "--output",
            path_str(&out),
        ]);
        assert_fails(&o, words);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        assert_eq!(listing(d.path()), before);
    }
    // The ways out: --no-header reads every line; a name or an index that
    // is not ambiguous picks its column.
    let n = jumpshard::BucketCount::new(10).unwrap();
    let buckets = |keys: &[u64]| -> String {
        keys.iter()
            .map(|&k| format!("{}\n", jumpshard::bucket(k, n)))
            .collect()
    };
    let ok = |args: &[&str]| {
        let mut all = vec!["assign", "--buckets", "10", "--key-format", "csv"];
        all.extend(args);
        let o = run(&all);
        assert_ok(&o);
        stdout(&o)
    };
    assert_eq!(
        ok(&[path_str(&bare), "--column", "0", "--no-header"]),
        buckets(&[17, 18])
    );
    assert_eq!(ok(&[path_str(&numbered), "--column", "id"]), buckets(&[5]));
    assert_eq!(ok(&[path_str(&twice), "--column", "2"]), buckets(&[3]));
    assert_eq!(ok(&[path_str(&twice), "--column", "x"]), buckets(&[2]));
    // Column 0 is also named "k": the index and the name agree.
    let same = write("same.csv", "0,k\n7,8\n");
    let o = run(&[
        "assign",
        "--buckets",
        "10",
        path_str(&same),
        "--column",
        "0",
    ]);
    assert_fails(&o, &["field in the key column 0 is 0"]);
    assert_eq!(ok(&[path_str(&fine), "--column", "k"]), buckets(&[1]));
    // Digits past the header line's width are a name (a year), and one
    // that names no column is refused, not read from longer records.
    let years = write(
        "years.csv",
        "2024,x
5,a
6,b
",
    );
    assert_eq!(
        ok(&[path_str(&years), "--column", "2024"]),
        buckets(&[5, 6])
    );
    let narrow = write(
        "narrow.csv",
        "id
5,6
",
    );
    let o = run(&[
        "assign",
        "--buckets",
        "10",
        path_str(&narrow),
        "--column",
        "1",
    ]);
    assert_fails(
        &o,
        &["no column \"1\" in the header line", "its columns: id"],
    );
}

#[test]
fn hash_seeds_for_byte_keys() {
    let lines = "alice\nbob\ncarol\n";
    let n = jumpshard::BucketCount::new(1000).unwrap();
    for seed in [0u64, 1, 42, u64::MAX] {
        let seed_text = seed.to_string();
        let o = run_with_stdin(
            &[
                "assign",
                "--buckets",
                "1000",
                "--key-format",
                "bytes",
                "--hash-seed",
                &seed_text,
            ],
            lines.as_bytes(),
        );
        assert_ok(&o);
        let want: String = lines
            .lines()
            .map(|l| {
                format!(
                    "{}\n",
                    jumpshard::bucket(jumpshard::bytes::prehash_seeded(l.as_bytes(), seed), n)
                )
            })
            .collect();
        assert_eq!(stdout(&o), want, "seed {seed}");
    }
    // Refused where it does not apply, whatever its value: 0 (the default
    // seed) too, since it was given.
    let d = dir();
    let decimal = d.path().join("keys.txt");
    std::fs::write(&decimal, "1\n2\n").unwrap();
    for seed in ["3", "0"] {
        for input in [
            &["--generate", "5"][..],
            &["--key-format", "decimal", path_str(&decimal)],
        ] {
            let mut args = vec!["assign", "--buckets", "10", "--hash-seed", seed];
            args.extend(input);
            let o = run(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            assert_fails(&o, &["--hash-seed", "--key-format bytes"]);
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }
}
