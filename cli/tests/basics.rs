//! `bucket`, `kernels`, `verify` and `bench`, run as a user runs them.

use crate::support;

use std::process::Output;

use support::{stderr, stdout};

fn jumpshard(args: &[&str]) -> Output {
    support::run(args)
}

#[test]
fn bucket_prints_figure_1() {
    let o = jumpshard(&["bucket", "1253737204188795044", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "86\n");
    let o = jumpshard(&["bucket", "1431648187546111166", "65536"]);
    assert_eq!(stdout(&o), "55914\n");
}

#[test]
fn bucket_rejects_bad_counts_by_value() {
    for bad in ["0", "-3", "2147483648"] {
        let o = jumpshard(&["bucket", "1", bad]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains(&format!("invalid bucket count {bad}")),
            "{}",
            stderr(&o)
        );
    }
    let o = jumpshard(&["bucket", "not-a-key", "10"]);
    assert!(!o.status.success());
}

#[test]
fn kernels_lists_the_supported_ones() {
    let o = jumpshard(&["kernels", "--supported"]);
    assert!(o.status.success());
    let names: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    let want: Vec<String> = jumpshard::Kernel::supported()
        .iter()
        .map(|k| k.name().to_owned())
        .collect();
    assert_eq!(names, want);
}

#[test]
fn verify_passes_and_reports_every_kernel() {
    let o = jumpshard(&["verify", "--keys", "4096"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    for kernel in jumpshard::Kernel::supported() {
        let line = out
            .lines()
            .find(|l| l.starts_with(kernel.name()))
            .expect("a row per kernel");
        assert!(line.ends_with("pass"), "{line}");
    }
    let o = jumpshard(&["verify", "--keys", "64", "--json"]);
    assert!(o.status.success());
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for row in rows.as_array().unwrap() {
        assert_eq!(row["mismatches"], 0);
        assert_eq!(row["pass"], true);
        assert!(row["pairs"].as_u64().unwrap() > 64);
    }
}

#[test]
fn bench_json_has_the_documented_fields() {
    let o = jumpshard(&["bench", "--keys", "2048", "--repeat", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let per_count = jumpshard::Kernel::supported().len() + 1; // and the reference
    assert_eq!(rows.len(), 4 * per_count);
    for row in rows {
        for field in ["kernel", "buckets", "mkeys_per_s", "ratio_vs_reference"] {
            assert!(!row[field].is_null(), "{field} missing in {row}");
        }
    }
    let o = jumpshard(&["bench", "--keys", "0"]);
    assert!(!o.status.success());
}

#[test]
fn bench_reshard_compares_the_file_run_with_memory() {
    let d = support::dir();
    let input = support::u64le_file(d.path(), "keys.bin", &support::keys(4, 20_000));
    let file = support::path_str(&input);
    let o = jumpshard(&[
        "bench",
        "--reshard",
        file,
        "--from",
        "12",
        "--to",
        "10",
        "--repeat",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["keys"], 20_000);
    assert_eq!(
        (report["from"].clone(), report["to"].clone()),
        (12.into(), 10.into())
    );
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[3]["file_ratio"], 1.0);
    for row in rows {
        assert!(row["mkeys_per_s"].as_f64().unwrap() > 0.0, "{row}");
    }
    let text = jumpshard(&["bench", "--reshard", file, "--repeat", "1"]);
    assert!(stdout(&text).contains("reshard stream, from the file"));

    std::fs::write(&input, [0u8; 12]).unwrap();
    let bad = jumpshard(&["bench", "--reshard", file]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("multiple of 8"), "{}", stderr(&bad));
    let both = jumpshard(&["bench", "--reshard", file, "--keys", "10"]);
    assert!(!both.status.success());
    let same = jumpshard(&["bench", "--reshard", file, "--from", "3", "--to", "3"]);
    assert!(!same.status.success());
    assert!(stderr(&same).contains("3"), "{}", stderr(&same));
}

/// The first line of `--help` names every command the help lists.
#[test]
fn help_names_every_command_on_its_first_line() {
    let o = jumpshard(&["--help"]);
    assert!(o.status.success());
    let help = String::from_utf8(o.stdout).unwrap();
    let first = help.lines().next().unwrap();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .collect();
    assert!(
        commands.contains(&"kernels") && commands.len() >= 11,
        "{help}"
    );
    for c in commands {
        assert!(first.contains(c), "{c:?} missing from {first:?}");
    }
}
