//! `bench`, `bench --sizes`, `bench --placement` and `bench --plot`, run
//! as a user runs them.

use crate::support;

use support::{dir, keys, path_str, stderr, u64le_file};

/// The legend entries the charts must show: every kernel this CPU runs
/// and the reference.
fn kernel_names() -> Vec<&'static str> {
    let mut names: Vec<_> = jumpshard::Kernel::supported()
        .iter()
        .map(|k| k.name())
        .collect();
    names.push("Figure 1");
    names
}

/// Parses `path` as XML with an `<svg>` root and returns all its text.
fn svg_text(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sizes_json_covers_every_size_and_kernel() {
    let o = support::run(&["bench", "--sizes", "--repeat", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let per_size = jumpshard::Kernel::supported().len() + 1;
    assert_eq!(rows.len(), 2 * SIZES.len() * per_size);
    for row in rows {
        for field in [
            "kernel",
            "division",
            "buckets",
            "keys_per_call",
            "ns_per_key",
        ] {
            assert!(!row[field].is_null(), "{field} missing in {row}");
        }
        assert!(row["ratio_vs_reference"].as_f64().unwrap() > 0.0);
        // Present on every row: null, or where the ratio fell.
        let cliff = row.get("cliff").expect("a cliff field");
        if row["kernel"] == "reference" {
            assert!(cliff.is_null(), "{row}");
        } else if !cliff.is_null() {
            let best = cliff["best_keys_per_call"].as_u64().unwrap();
            assert!(best < row["keys_per_call"].as_u64().unwrap(), "{row}");
            assert!(cliff["drop"].as_f64().unwrap() > 0.1, "{row}");
        }
    }
    let sizes: Vec<u64> = rows
        .iter()
        .filter(|r| r["kernel"] == "reference" && r["buckets"] == 1000)
        .map(|r| r["keys_per_call"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, SIZES);
    // Each cliff in the JSON is warned of on standard error, naming the
    // kernel, N and the call size.
    let warnings = stderr(&o);
    for row in rows.iter().filter(|r| !r["cliff"].is_null()) {
        let expected = format!(
            "{} ({}) at N = {}: ",
            row["kernel"].as_str().unwrap(),
            row["division"].as_str().unwrap(),
            row["buckets"]
        );
        let size = format!(" at {} keys per call, ", row["keys_per_call"]);
        assert!(
            warnings
                .lines()
                .any(|l| l.contains("warning") && l.contains(&expected) && l.contains(&size)),
            "{row} not warned of in:\n{warnings}"
        );
    }
    let cliffs = rows.iter().filter(|r| !r["cliff"].is_null()).count();
    assert_eq!(warnings.matches("warning").count(), cliffs, "{warnings}");
}

/// Fine between 8 and 1024 keys per call, doubling beyond.
const SIZES: [u64; 23] = [
    1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096, 8192, 16384,
    32768, 65536,
];

/// The rows of `bench --placement`, in order.
const PLACEMENT_CALLS: [&str; 17] = [
    "batch",
    "Memento::batch, 0% removed",
    "Memento::batch, 1% removed",
    "Memento::batch, 10% removed",
    "Memento::batch, 50% removed",
    "Memento::batch, 99% removed",
    "replicas::batch, k = 3",
    "Memento::replicas_batch, k = 3, 10% removed",
    "Weights::batch, all weights equal",
    "Weights::batch, half weight 1, half weight 4",
    "Weights::batch, one node at 100x",
    "Weights::batch, half drained to 0",
    "ZonedReplicas::batch, k = 3, 3 zones",
    "ZonedReplicas::batch, k = 3, 5 zones",
    "ZonedReplicas::batch, k = 3, 12 zones",
    "BoundedLoads acquire+release, c = 1.25",
    "BoundedLoads acquire_batch+release_batch, c = 1.25",
];

#[test]
fn placement_json_names_the_cpu_and_every_call() {
    let o = support::run(&[
        "bench",
        "--placement",
        "--keys",
        "512",
        "--repeat",
        "3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cpu = report["cpu"].as_str().unwrap();
    assert!(cpu.contains("family") && cpu.contains("model"), "{cpu}");
    let active = jumpshard::active_kernel();
    assert_eq!(
        report["kernel"],
        format!("{} ({})", active.name(), active.division())
    );
    assert_eq!(report["buckets"], 1000);
    assert_eq!(report["keys"], 512);
    assert_eq!(report["repetitions"], 3);
    let rows = report["rows"].as_array().unwrap();
    let calls: Vec<&str> = rows.iter().map(|r| r["call"].as_str().unwrap()).collect();
    assert_eq!(calls, PLACEMENT_CALLS);
    for row in rows {
        for field in [
            "ns_per_key",
            "reference_ns_per_key",
            "ratio_vs_reference",
            "fraction_of_batch",
        ] {
            assert!(row[field].as_f64().unwrap() > 0.0, "{field} in {row}");
        }
    }
    assert_eq!(rows[0]["fraction_of_batch"], 1.0);
}

/// The zoned replica sets have their rows, timed like the others, and the
/// report names the division strategy `JUMPSHARD_DIVISION` forces on the
/// kernel the calls run on (one key, one pass: the rows, not the speed).
#[test]
fn placement_json_has_the_zoned_rows_and_the_forced_division() {
    let active = jumpshard::active_kernel();
    for division in active.divisions() {
        let o = support::run_command(
            support::command()
                .args([
                    "bench",
                    "--placement",
                    "--keys",
                    "1",
                    "--repeat",
                    "1",
                    "--json",
                ])
                .env("JUMPSHARD_DIVISION", division.name()),
            &[],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            report["kernel"],
            format!("{} ({})", active.name(), division),
            "{division}"
        );
        assert_eq!(report["keys"], 1);
        let rows = report["rows"].as_array().unwrap();
        for zones in [3, 5] {
            let call = format!("ZonedReplicas::batch, k = 3, {zones} zones");
            let row = rows
                .iter()
                .find(|r| r["call"] == call.as_str())
                .unwrap_or_else(|| panic!("no row {call} in {rows:?}"));
            for field in ["ns_per_key", "reference_ns_per_key", "ratio_vs_reference"] {
                assert!(row[field].as_f64().unwrap() > 0.0, "{field} in {row}");
            }
        }
    }
}

#[test]
fn placement_table_and_plot_name_every_call() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("placement.svg");
    let o = support::run(&[
        "bench",
        "--placement",
        "--keys",
        "256",
        "--repeat",
        "1",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = support::stdout(&o);
    assert!(text.contains("CPU: "), "{text}");
    assert!(text.contains("vs Fig. 1"), "{text}");
    for call in PLACEMENT_CALLS {
        assert!(text.lines().any(|l| l.starts_with(call)), "{call}: {text}");
    }
    let chart = svg_text(&svg);
    for call in PLACEMENT_CALLS {
        assert!(chart.contains(call), "the chart lacks {call}");
    }
    assert!(chart.contains("Figure 1"), "{chart}");
}

/// Options that mean nothing with --placement are refused, not ignored.
#[test]
fn placement_refuses_the_other_modes() {
    for other in [
        &["--sizes"][..],
        &["--all-divisions"],
        &["--reshard", "x.u64"],
    ] {
        let mut args = vec!["bench", "--placement"];
        args.extend_from_slice(other);
        let o = support::run(&args);
        assert_eq!(o.status.code(), Some(2), "{other:?}: {}", stderr(&o));
    }
}

/// `--reshard` times u64le files: another format's bytes are refused, not
/// timed as keys, and `--all-divisions` means nothing there.
#[test]
fn reshard_times_u64le_files_only() {
    let d = dir();
    let csv = d.path().join("keys.csv");
    std::fs::write(&csv, "key\n1\n2\n3\n4\n5\n6\n7\n").unwrap();
    let parquet = d.path().join("keys.bin");
    std::fs::write(&parquet, b"PAR1\0\0\0\0PAR1\0\0\0").unwrap();
    for (file, words) in [
        (&csv, "read as csv keys"),
        (&parquet, "read as parquet keys"),
    ] {
        let o = support::run(&["bench", "--reshard", path_str(file), "--repeat", "1"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(words), "{}", stderr(&o));
    }
    // Nor does it name the options that read other formats: bench has none.
    let text = d.path().join("keys.txt");
    std::fs::write(&text, "1\n2\n3\n").unwrap();
    let o = support::run(&["bench", "--reshard", path_str(&text), "--repeat", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("keys.txt looks like text"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("--key-format"), "{}", stderr(&o));
    // Standard input is read once; the file is read on every repetition.
    let o = support::run(&["bench", "--reshard", "-", "--repeat", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not standard input"), "{}", stderr(&o));
    let keys = u64le_file(d.path(), "keys.u64", &keys(1, 100));
    let o = support::run(&["bench", "--reshard", path_str(&keys), "--all-divisions"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The core-cycle estimate is there on x86-64, and a real chain of
/// latencies: a chain the compiler had regrouped would read several times
/// the ticks (no core runs 8 cycles a tick; an interrupted reading only
/// reads lower).
#[test]
fn throughput_json_gives_ticks_and_core_cycles() {
    let o = support::run(&["bench", "--keys", "4096", "--repeat", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for row in rows.as_array().unwrap() {
        let ticks = row["cycles_per_lane_iteration"].as_f64();
        let cycles = row["core_cycles_per_lane_iteration"].as_f64();
        if cfg!(target_arch = "x86_64") {
            let (ticks, cycles) = (ticks.unwrap(), cycles.unwrap());
            assert!(cycles > 0.0 && cycles < 8.0 * ticks, "{row}");
        } else {
            assert!(ticks.is_none() && cycles.is_none(), "{row}");
        }
    }
}

#[test]
fn plots_are_svg_naming_every_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let throughput = dir.path().join("throughput.svg");
    let sizes = dir.path().join("sizes.svg");
    let o = support::run(&[
        "bench",
        "--keys",
        "4096",
        "--repeat",
        "1",
        "--plot",
        throughput.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = support::run(&[
        "bench",
        "--sizes",
        "--repeat",
        "1",
        "--plot",
        sizes.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for path in [&throughput, &sizes] {
        let text = svg_text(path);
        for name in kernel_names() {
            assert!(text.contains(name), "{} lacks {name}", path.display());
        }
    }
}

#[test]
fn bench_names_the_cpu_and_each_strategy() {
    // The table's strategies, whatever this test's environment forces.
    let o = support::run_command(
        support::command()
            .args(["bench", "--keys", "1024", "--repeat", "1"])
            .env_remove("JUMPSHARD_DIVISION"),
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = support::stdout(&o);
    assert!(text.contains("CPU: "), "{text}");
    assert!(text.contains("ticks/lane-it"), "{text}");
    assert!(text.contains("cycles/lane-it"), "{text}");
    for k in jumpshard::Kernel::supported() {
        assert!(
            text.lines()
                .any(|l| l.starts_with(k.name()) && l.contains(k.division().name())),
            "{text}"
        );
    }
}

/// The strategy `JUMPSHARD_DIVISION` forces is the one timed and named,
/// on every kernel that has it (the scalar kernel only divides).
#[test]
fn bench_names_the_forced_division() {
    for division in jumpshard::Division::NAMES {
        let o = support::run_command(
            support::command()
                .args(["bench", "--keys", "1024", "--repeat", "1"])
                .env("JUMPSHARD_DIVISION", division),
            &[],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let text = support::stdout(&o);
        for k in jumpshard::Kernel::supported() {
            let expected = if k.divisions().iter().any(|d| d.name() == division) {
                division
            } else {
                k.division().name()
            };
            assert!(
                text.lines().any(|l| {
                    let mut words = l.split_whitespace();
                    words.next() == Some(k.name()) && words.next() == Some(expected)
                }),
                "{division}: {} should run {expected}:\n{text}",
                k.name()
            );
        }
    }
}

/// `kernels` lists each kernel with the strategy `bench` times and batch
/// calls would use on it: the forced one where it has it, even when the
/// active kernel refuses it.
#[test]
fn kernels_list_the_forced_division_as_bench_times_it() {
    let o = support::run_command(
        support::command()
            .arg("kernels")
            .env("JUMPSHARD_KERNEL", "scalar")
            .env("JUMPSHARD_DIVISION", "newton"),
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = support::stdout(&o);
    for k in jumpshard::Kernel::supported() {
        let expected = match k.divisions().iter().any(|d| d.name() == "newton") {
            true => "newton",
            false => k.division().name(),
        };
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(k.name()))
            .unwrap_or_else(|| panic!("{} not listed:\n{text}", k.name()));
        assert!(line.contains(&format!("{expected} division")), "{line}");
    }
}
