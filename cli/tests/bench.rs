//! `bench --sizes` and `bench --plot`, run as a user runs them.

mod support;

use support::stderr;

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
    assert_eq!(rows.len(), 2 * 11 * per_size);
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
    }
    let sizes: Vec<u64> = rows
        .iter()
        .filter(|r| r["kernel"] == "reference" && r["buckets"] == 1000)
        .map(|r| r["keys_per_call"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 65536]);
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
    let o = support::run(&["bench", "--keys", "1024", "--repeat", "1"]);
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
