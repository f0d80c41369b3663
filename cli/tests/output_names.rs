//! An output file holds the format its name says: without
//! `--output-format` the name picks it, a name and a format that
//! contradict each other are refused before anything is written, and no
//! command writes a format its file's name denies.

use crate::support;

use support::*;

/// `reshard --output NAME [--output-format F]` over a few keys, in `dir`.
fn reshard(dir: &std::path::Path, name: &str, format: Option<&str>) -> std::process::Output {
    let out = dir.join(name);
    let mut args = vec![
        "reshard",
        "--from",
        "10",
        "--to",
        "12",
        "--generate",
        "1000",
        "--output",
        path_str(&out),
    ];
    if let Some(f) = format {
        args.extend(["--output-format", f]);
    }
    run(&args)
}

#[test]
fn reshard_takes_the_format_from_the_name() {
    let d = dir();
    for (name, starts) in [
        ("moves.parquet", &b"PAR1"[..]),
        ("MOVES.PARQUET", &b"PAR1"[..]),
        ("moves.csv", &b"key,from,to\n"[..]),
        ("moves.out", &b"key,from,to\n"[..]),
        ("moves", &b"key,from,to\n"[..]),
    ] {
        let o = reshard(d.path(), name, None);
        assert_ok_quiet(&o);
        let bytes = std::fs::read(d.path().join(name)).unwrap();
        assert!(bytes.starts_with(starts), "{name}: {:?}", &bytes[..16]);
    }
    // Binary records: 16 bytes each, no header.
    let o = reshard(d.path(), "moves.bin", None);
    assert_ok_quiet(&o);
    let bytes = std::fs::read(d.path().join("moves.bin")).unwrap();
    assert!(!bytes.is_empty() && bytes.len().is_multiple_of(16));
    assert!(!bytes.starts_with(b"key"));
    // A format given and a name that says nothing: the format.
    let o = reshard(d.path(), "moves.data", Some("parquet"));
    assert_ok_quiet(&o);
    assert!(std::fs::read(d.path().join("moves.data"))
        .unwrap()
        .starts_with(b"PAR1"));
}

#[test]
fn a_name_and_format_that_contradict_are_refused_and_nothing_is_written() {
    let d = dir();
    for (name, format, words) in [
        (
            "moves.parquet",
            Some("csv"),
            &[
                "--output",
                "moves.parquet",
                "parquet",
                "--output-format csv",
            ][..],
        ),
        (
            "moves.csv",
            Some("parquet"),
            &["csv", "--output-format parquet"][..],
        ),
        (
            "moves.bin",
            Some("csv"),
            &["binary", "--output-format csv"][..],
        ),
        ("moves.jsonl", None, &["JSON lines", ".csv", ".parquet"][..]),
        ("moves.ndjson", Some("csv"), &["JSON lines"][..]),
        ("moves.csv.gz", None, &["gzip"][..]),
        ("moves.txt", None, &["text"][..]),
    ] {
        let path = d.path().join(name);
        std::fs::write(&path, "old\n").unwrap();
        let o = reshard(d.path(), name, format);
        assert_fails(&o, words);
        assert_fails(&o, &["nothing was written"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"old\n", "{name}");
        assert!(listing(d.path()).iter().all(|n| !n.ends_with(".tmp")));
    }
}

#[test]
fn assign_takes_the_format_from_the_name() {
    let d = dir();
    let assign = |name: &str, format: Option<&str>| {
        let out = d.path().join(name);
        let mut args = vec![
            "assign",
            "--buckets",
            "10",
            "--generate",
            "100",
            "--output",
            path_str(&out),
        ];
        if let Some(f) = format {
            args.extend(["--output-format", f]);
        }
        run(&args)
    };
    assert_ok_quiet(&assign("b.bin", None));
    assert_eq!(std::fs::read(d.path().join("b.bin")).unwrap().len(), 400);
    for name in ["b.txt", "b.csv", "b.out"] {
        assert_ok_quiet(&assign(name, None));
        assert_eq!(
            std::fs::read_to_string(d.path().join(name))
                .unwrap()
                .lines()
                .count(),
            100
        );
    }
    for (name, format, word) in [
        ("c.parquet", None, "parquet"),
        ("c.bin", Some("text"), "--output-format text"),
        ("c.txt", Some("binary"), "--output-format binary"),
        ("c.jsonl", None, "JSON lines"),
    ] {
        assert_fails(&assign(name, format), &[word, "nothing was written"]);
        assert!(!d.path().join(name).exists(), "{name}");
    }
}

/// Plots are SVG and node tables text: a name saying otherwise is refused
/// before anything is read or measured.
#[test]
fn plots_and_tables_are_not_named_for_another_format() {
    let d = dir();
    let old = table(d.path(), "old", "a\nb\nc\n");
    let new = table(d.path(), "new", "a\nb\nc\nd\n");
    let cases: Vec<Vec<String>> = vec![
        vec![
            "bench", "--keys", "1000", "--repeat", "1", "--plot", "x.png",
        ],
        vec![
            "reshard",
            "--from-nodes",
            path_str(&old),
            "--to-nodes",
            path_str(&new),
            "--generate",
            "100",
            "--plot",
            "x.pdf",
        ],
        vec![
            "remove",
            "--from-nodes",
            path_str(&old),
            "--node",
            "b",
            "--generate",
            "100",
            "--write-table",
            "x.parquet",
        ],
        vec![
            "remove",
            "--from-nodes",
            path_str(&old),
            "--node",
            "b",
            "--generate",
            "100",
            "--plot",
            "x.png",
        ],
        vec![
            "restore",
            "--from-nodes",
            path_str(&old),
            "--node",
            "d",
            "--write-table",
            "x.json",
        ],
    ]
    .into_iter()
    .map(|v| {
        v.into_iter()
            .map(|a| match a {
                "x.png" | "x.pdf" | "x.parquet" | "x.json" => {
                    path_str(&d.path().join(a)).to_owned()
                }
                a => a.to_owned(),
            })
            .collect()
    })
    .collect();
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert_fails(&o, &["its name says", "nothing was written"]);
        assert_eq!(listing(d.path()), ["new", "old"], "{args:?}");
    }
}

/// Success, with whatever summary on standard output.
fn assert_ok_quiet(o: &std::process::Output) {
    assert!(o.status.success(), "failed: {}", stderr(o));
}
