//! Node tables at scale, not timed: 2^20 names load, diff and plan with
//! memory linear in the table (a bound on the peak resident set, read from
//! Linux's /proc).

use jumpshard::nodes::{NodeRemoval, Removal};
use jumpshard::{NodePlan, NodeTable, TableChange};

/// The peak resident set of this process, in bytes (Linux only).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[test]
#[cfg_attr(miri, ignore = "a million names take hours under Miri")]
fn a_million_nodes_load_diff_and_plan_in_linear_memory() {
    let n = 1usize << 20;
    let text: String = (0..n).map(|i| format!("host-{i:07}.example\n")).collect();
    let old = NodeTable::parse(&text).unwrap();
    let grown = NodeTable::parse(&format!("{text}host-new.example\n")).unwrap();
    let change = TableChange::new(&old, &grown);
    assert!(change.is_append_or_truncate());
    let keys: Vec<u64> = (0..200_000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let mut plan = NodePlan::new();
    change.plan(&keys, 0, &mut plan, true);
    assert!(
        plan.len() < 10,
        "growing 2^20 by one moves about 1 key in 2^20"
    );
    // A Memento removal in the middle, and the plan between the two.
    let removal = NodeRemoval::new(&old, "host-0500000.example").unwrap();
    let removed = removal.table(&Removal::Memento).unwrap();
    let change = TableChange::new(&old, &removed);
    change.plan(&keys, 0, &mut plan, true);
    for m in plan.moves() {
        assert_eq!(change.nodes()[m.from as usize], "host-0500000.example");
    }
    // The text is about 22 MiB and each table holds the names twice (list
    // and index) plus a slot array; 1 GiB leaves room for the allocator
    // but not for anything quadratic.
    if let Some(peak) = peak_rss() {
        assert!(peak < 1 << 30, "peak resident set {} MiB", peak >> 20);
    }
}
