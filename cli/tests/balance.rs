//! `balance`: override tables that hold every node's weighted load within
//! c times the mean on Zipf weights, checked by routing the keys with the
//! table written; c = inf moves nothing; keys too heavy to move and bad
//! inputs exit 1 and write nothing.

use crate::support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, UInt64Array};
use parquet::arrow::ArrowWriter;
use support::*;

/// Zipf (s = 1.1) weights of 10^5 keys, the keys too heavy for any node
/// of 100 split into pieces of at most half the mean (each a key of its
/// own): (key, weight) pairs.
fn zipf_split() -> Vec<(u64, f64)> {
    let n = 100_000;
    let weights: Vec<f64> = (1..=n).map(|r| 1e6 / (r as f64).powf(1.1)).collect();
    let total: f64 = weights.iter().sum();
    let piece = total / 100.0 / 2.0;
    let split: Vec<f64> = weights
        .iter()
        .flat_map(|&w| {
            let parts = (w / piece).ceil().max(1.0);
            std::iter::repeat_n(w / parts, parts as usize)
        })
        .collect();
    keys(3, split.len()).into_iter().zip(split).collect()
}

fn csv(dir: &Path, name: &str, rows: &[(u64, f64)]) -> std::path::PathBuf {
    let mut text = String::from("user,qps\n");
    for (k, w) in rows {
        text.push_str(&format!("{k},{w}\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Each node's load when `rows` are routed with the table at `table`.
fn loads(table: &Path, rows: &[(u64, f64)]) -> HashMap<String, f64> {
    let t = jumpshard::NodeTable::parse(&std::fs::read_to_string(table).unwrap()).unwrap();
    let mut loads = HashMap::new();
    for &(k, w) in rows {
        *loads.entry(t.node(k).to_owned()).or_insert(0.0) += w;
    }
    loads
}

fn nodes(dir: &Path, n: usize) -> std::path::PathBuf {
    let text: String = (0..n).map(|i| format!("node-{i}\n")).collect();
    table(dir, "nodes.txt", &text)
}

#[test]
fn zipf_loads_stay_within_the_bound() {
    let d = dir();
    let rows = zipf_split();
    let weights = csv(d.path(), "qps.csv", &rows);
    let t = nodes(d.path(), 100);
    let total: f64 = rows.iter().map(|r| r.1).sum();
    let before = loads(&t, &rows).values().copied().fold(0.0, f64::max) / (total / 100.0);
    for factor in ["1.25", "2"] {
        let out = d.path().join(format!("balanced-{factor}.txt"));
        let o = run(&[
            "balance",
            path_str(&weights),
            "--key-column",
            "user",
            "--weight-column",
            "qps",
            "--nodes",
            path_str(&t),
            "--factor",
            factor,
            "--write-table",
            path_str(&out),
            "--json",
        ]);
        assert_ok(&o);
        let report = json(&o);
        let c: f64 = factor.parse().unwrap();
        let after = loads(&out, &rows).values().copied().fold(0.0, f64::max) / (total / 100.0);
        assert!(after <= c * (1.0 + 1e-9), "{factor}: {after}");
        assert!(before > c);
        let reported = report["max_over_mean_after"].as_f64().unwrap();
        assert!((reported - after).abs() < 1e-6, "{reported} {after}");
        assert!((report["max_over_mean_before"].as_f64().unwrap() - before).abs() < 1e-6);
        let least = report["least_moved_fraction"].as_f64().unwrap();
        let moved = report["moved_fraction"].as_f64().unwrap();
        assert!(
            least > 0.0 && least <= moved && moved < 1.0,
            "{least} {moved}"
        );
        let overrides = report["overrides"].as_u64().unwrap();
        let written = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            written
                .lines()
                .filter(|l| l.starts_with("override "))
                .count() as u64,
            overrides
        );
        assert!(overrides > 0);
        let fingerprint = jumpshard::NodeTable::parse(&written).unwrap().fingerprint();
        assert_eq!(report["to_fingerprint"], fingerprint.to_string().as_str());
    }
}

#[test]
fn an_infinite_factor_writes_no_override() {
    let d = dir();
    let rows = zipf_split();
    let weights = csv(d.path(), "qps.csv", &rows[..5000]);
    let t = table(d.path(), "t.txt", "a\nb\nc\noverride 1 a\n");
    let out = d.path().join("out.txt");
    let o = run(&[
        "balance",
        path_str(&weights),
        "--key-column",
        "0",
        "--weight-column",
        "1",
        "--nodes",
        path_str(&t),
        "--factor",
        "inf",
        "--write-table",
        path_str(&out),
    ]);
    assert_ok(&o);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "a\nb\nc\n");
    assert!(stdout(&o).contains("overrides        0;"), "{}", stdout(&o));
}

#[test]
fn keys_too_heavy_to_move_exit_1_and_write_nothing() {
    let d = dir();
    // Raw Zipf: the hottest keys alone weigh more than 1.25 times the
    // mean of 100 nodes.
    let rows: Vec<(u64, f64)> = (1..=100_000u64)
        .map(|r| (r, 1e6 / (r as f64).powf(1.1)))
        .collect();
    let weights = csv(d.path(), "qps.csv", &rows);
    let out = d.path().join("out.txt");
    std::fs::write(&out, "untouched").unwrap();
    let o = run(&[
        "balance",
        path_str(&weights),
        "--key-column",
        "user",
        "--weight-column",
        "qps",
        "--buckets",
        "100",
        "--factor",
        "1.25",
        "--write-table",
        path_str(&out),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_fails(
        &o,
        &[
            "weigh more than the largest bound",
            "splitting",
            "replication",
            "key 1 weight 1000000 (line 2)",
        ],
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "untouched");
}

#[test]
fn bad_inputs_are_refused_and_nothing_is_written() {
    let d = dir();
    let good = csv(d.path(), "good.csv", &[(1, 2.0), (2, 3.0)]);
    let write = |name: &str, text: &str| {
        let path = d.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let negative = write("neg.csv", "user,qps\n1,2\n2,-1\n");
    let nan = write("nan.csv", "user,qps\n1,NaN\n");
    let dup = write("dup.csv", "user,qps\n1,2\n7,1\n1,3\n");
    // Each weight finite, their sum not.
    let huge = write("huge.csv", "user,qps\n1,1e308\n2,1e308\n");
    let out = d.path().join("out.txt");
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec![path_str(&good), "--factor", "1"],
            vec!["--factor 1", "above 1"],
        ),
        (
            vec![path_str(&good), "--factor", "0.5"],
            vec!["--factor 0.5"],
        ),
        (
            vec![path_str(&good), "--factor", "NaN"],
            vec!["--factor NaN"],
        ),
        (
            vec![path_str(&negative), "--factor", "2"],
            vec!["line 3, column qps", "\"-1\""],
        ),
        (
            vec![path_str(&nan), "--factor", "2"],
            vec!["line 2, column qps", "\"NaN\""],
        ),
        (
            vec![path_str(&dup), "--factor", "2"],
            vec!["line 4: key 1 is also at line 2"],
        ),
        (
            vec![path_str(&huge), "--factor", "2"],
            vec!["huge.csv: the weights add up past the largest number"],
        ),
        (
            vec![path_str(&good), "--factor", "2", "--weight-column", "rps"],
            vec!["no column \"rps\""],
        ),
    ];
    for (extra, words) in cases {
        let mut args = vec!["balance", "--buckets", "4", "--key-column", "user"];
        if !extra.contains(&"--weight-column") {
            args.extend(["--weight-column", "qps"]);
        }
        args.extend(&extra);
        args.extend(["--write-table", path_str(&out)]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{extra:?}");
        assert_fails(&o, &words);
        assert!(!out.exists(), "{extra:?}");
    }
}

#[test]
fn parquet_weights_and_the_written_table_route_with_assign() {
    let d = dir();
    let rows = zipf_split();
    let path = d.path().join("qps.parquet");
    let keys: ArrayRef = Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.0)));
    let weights: ArrayRef = Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.1)));
    let batch = RecordBatch::try_from_iter([("key", keys), ("weight", weights)]).unwrap();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let out = d.path().join("balanced.txt");
    let o = run(&[
        "balance",
        path_str(&path),
        "--buckets",
        "100",
        "--factor",
        "1.25",
        "--write-table",
        path_str(&out),
    ]);
    assert_ok(&o);
    let total: f64 = rows.iter().map(|r| r.1).sum();
    let max = loads(&out, &rows).values().copied().fold(0.0, f64::max);
    assert!(max <= 1.25 * total / 100.0 * (1.0 + 1e-9));
    // `assign` routes the moved keys to their new node.
    let input = u64le_file(
        d.path(),
        "keys.u64",
        &rows.iter().map(|r| r.0).collect::<Vec<_>>(),
    );
    let o = run(&["assign", "--nodes", path_str(&out), path_str(&input)]);
    assert_ok(&o);
    let table = jumpshard::NodeTable::parse(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let want: String = rows
        .iter()
        .map(|r| format!("{}\n", table.node(r.0)))
        .collect();
    assert_eq!(stdout(&o), want);
    // A key listed twice is named by its rows, counted as Parquet's
    // other errors count them.
    let keys: ArrayRef = Arc::new(UInt64Array::from_iter_values([5, 6, 5]));
    let weights: ArrayRef = Arc::new(Float64Array::from_iter_values([1.0, 1.0, 1.0]));
    let batch = RecordBatch::try_from_iter([("key", keys), ("weight", weights)]).unwrap();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let o = run(&[
        "balance",
        path_str(&path),
        "--buckets",
        "10",
        "--factor",
        "2",
        "--write-table",
        "-",
    ]);
    let twice = "row 2 of the file, from 0: key 5 is also at row 0 of the file, from 0";
    assert_fails(&o, &[twice]);
}

#[test]
fn plots_show_the_loads_against_the_bound() {
    let d = dir();
    let rows = zipf_split();
    let weights = csv(d.path(), "qps.csv", &rows);
    let out = d.path().join("balanced.txt");
    let plot = d.path().join("balance.svg");
    let o = run(&[
        "balance",
        path_str(&weights),
        "--key-column",
        "user",
        "--weight-column",
        "qps",
        "--buckets",
        "100",
        "--factor",
        "1.25",
        "--write-table",
        path_str(&out),
        "--plot",
        path_str(&plot),
    ]);
    assert_ok(&o);
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains("c = 1.25"), "{svg}");
    let to = jumpshard::NodeTable::parse(&std::fs::read_to_string(&out).unwrap())
        .unwrap()
        .fingerprint();
    assert!(svg.contains(&to.to_string()), "{svg}");
    // A refusal draws nothing either.
    let raw: Vec<(u64, f64)> = (1..=1000u64)
        .map(|r| (r, 1e6 / (r as f64).powf(1.1)))
        .collect();
    let heavy = csv(d.path(), "raw.csv", &raw);
    let none = d.path().join("none.svg");
    let o = run(&[
        "balance",
        path_str(&heavy),
        "--key-column",
        "user",
        "--weight-column",
        "qps",
        "--buckets",
        "100",
        "--factor",
        "1.25",
        "--write-table",
        path_str(&d.path().join("t.txt")),
        "--plot",
        path_str(&none),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!none.exists());
}

#[test]
fn a_table_with_a_removed_node_is_balanced_over_its_live_nodes() {
    let d = dir();
    let rows: Vec<(u64, f64)> = keys(5, 2000)
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, 1000.0 / (i as f64 + 10.0)))
        .collect();
    let weights = csv(d.path(), "qps.csv", &rows);
    let t = table(d.path(), "t.txt", "a\nb removed=1\nc\nd\n");
    let out = d.path().join("out.txt");
    let o = run(&[
        "balance",
        path_str(&weights),
        "--key-column",
        "user",
        "--weight-column",
        "qps",
        "--nodes",
        path_str(&t),
        "--factor",
        "1.05",
        "--write-table",
        path_str(&out),
    ]);
    assert_ok(&o);
    let total: f64 = rows.iter().map(|r| r.1).sum();
    let loads = loads(&out, &rows);
    assert!(!loads.contains_key("b"), "{loads:?}");
    for (node, load) in &loads {
        assert!(*load <= 1.05 * total / 3.0 * (1.0 + 1e-9), "{node}: {load}");
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("a\nb removed=1\nc\nd\n"), "{text}");
}

/// `--plot` is checked as every output is, before anything is written: an
/// SVG name, no input nor the table under it, one `-` at most, and its
/// directory there.
#[test]
fn the_plot_is_checked_like_every_output() {
    let d = dir();
    let weights = csv(d.path(), "qps", &[(1, 2.0), (2, 3.0), (3, 1.0)]);
    let nodes = table(d.path(), "four", "n0\nn1\nn2\nn3\n");
    // No extension, so that the same file is told by its place.
    let out = d.path().join("out");
    let missing = d.path().join("nodir").join("p.svg");
    let cases: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            path_str(&out),
            path_str(&nodes),
            vec!["--nodes file", "replace"],
        ),
        (
            path_str(&out),
            path_str(&weights),
            vec!["WEIGHTS file", "replace"],
        ),
        (path_str(&out), path_str(&out), vec!["are the same file"]),
        (path_str(&out), "x.txt", vec!["--plot x.txt", "svg"]),
        (path_str(&out), "p.PNG", vec!["--plot p.PNG", "PNG"]),
        ("-", "-", vec!["both name standard output"]),
        (path_str(&out), path_str(&missing), vec!["does not exist"]),
    ];
    let before = listing(d.path());
    let texts = |ps: &[&std::path::PathBuf]| -> Vec<String> {
        ps.iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    };
    let inputs = texts(&[&weights, &nodes]);
    for (write_table, plot, words) in cases {
        let o = run_command(
            command().current_dir(d.path()).args([
                "balance",
                path_str(&weights),
                "--key-column",
                "user",
                "--weight-column",
                "qps",
                "--nodes",
                path_str(&nodes),
                "--factor",
                "2",
                "--write-table",
                write_table,
                "--plot",
                plot,
            ]),
            b"",
        );
        assert_eq!(o.status.code(), Some(1), "{plot}");
        assert_fails(&o, &words);
        assert!(o.stdout.is_empty(), "{plot}: {}", stdout(&o));
        assert_eq!(listing(d.path()), before, "{plot}");
        assert_eq!(texts(&[&weights, &nodes]), inputs, "{plot}");
    }
}

/// Weights on standard input, as `-` or as a path to it: every byte read
/// once (a sniff of the first four bytes then a second open lost them on a
/// pipe), and the same table as from the file; Parquet there is refused.
#[test]
fn weights_from_standard_input() {
    let d = dir();
    let rows = zipf_split();
    let weights = csv(d.path(), "qps.csv", &rows[..2000]);
    let text = std::fs::read(&weights).unwrap();
    let t = nodes(d.path(), 10);
    let balance = |input: &str, out: &Path, stdin: &[u8]| {
        let args = [
            "balance",
            input,
            "--key-column",
            "0",
            "--weight-column",
            "1",
            "--nodes",
            path_str(&t),
            "--factor",
            "1.25",
            "--write-table",
            path_str(out),
        ];
        run_with_stdin(&args, stdin)
    };
    let want = d.path().join("want.txt");
    assert_ok(&balance(path_str(&weights), &want, &[]));
    for input in ["-", "/dev/stdin"] {
        let got = d.path().join("got.txt");
        assert_ok(&balance(input, &got, &text));
        assert_eq!(std::fs::read(&got).unwrap(), std::fs::read(&want).unwrap());
    }
    let o = balance("-", &d.path().join("p.txt"), b"PAR1 and more");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not standard input"), "{}", stderr(&o));
}
