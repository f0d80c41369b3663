//! `jumpshard table diff A B`: how two tables' meanings differ, in words,
//! with their lines. Slots are compared by position, since a key's slot is
//! its bucket number: a slot inserted in the middle renames every later
//! slot, and the report says so.

use std::path::Path;

use jumpshard::NodeTable;

use crate::node_tables;
use crate::out::clash::{self, InputFiles};
use crate::out::stdout::Stdout;
use crate::stdin::reads_stdin;

/// Runs `diff`, printing what differs: whether the tables mean the same.
pub(super) fn run(a: &Path, b: &Path) -> Result<bool, String> {
    if reads_stdin(a) && reads_stdin(b) {
        return Err(format!(
            "{} and {} both read standard input, which can be only one of the two tables",
            a.display(),
            b.display()
        ));
    }
    clash::stdout_not_input(
        None,
        &InputFiles::default().with("table", a).with("table", b),
    )?;
    let ta = node_tables::read_or_stdin(a)?;
    let tb = node_tables::read_or_stdin(b)?;
    let lines = differences(&ta, &tb);
    debug_assert_eq!(lines.is_empty(), ta == tb, "every difference has words");
    let mut text = format!(
        "--- {} {}\n+++ {} {}\n",
        a.display(),
        ta.fingerprint(),
        b.display(),
        tb.fingerprint()
    );
    if lines.is_empty() {
        text.push_str("the same meaning: every key is placed alike\n");
    } else {
        for line in &lines {
            text.push_str(line);
            text.push('\n');
        }
        let s = if lines.len() == 1 { "" } else { "s" };
        text.push_str(&format!("{} difference{s} in meaning\n", lines.len()));
    }
    let mut out = Stdout::open()?;
    out.write_all(text.as_bytes())?;
    out.finish()?;
    Ok(lines.is_empty())
}

/// Each slot's place in the removal order (1 for the first), if removed.
fn removal_numbers(table: &NodeTable) -> Vec<Option<usize>> {
    let mut numbers = vec![None; table.len()];
    for (k, &slot) in table.removals().iter().enumerate() {
        numbers[slot as usize] = Some(k + 1);
    }
    numbers
}

/// The weight of slot `i` (1 in a table without weights).
fn weight(table: &NodeTable, i: usize) -> f64 {
    table.weights().map_or(1.0, |w| w[i])
}

/// A slot's attributes as the file writes them (` removed=K`, ` weight=W`).
fn attributes(table: &NodeTable, removal: Option<usize>, i: usize) -> String {
    let mut text = String::new();
    if let Some(k) = removal {
        text.push_str(&format!(" removed={k}"));
    }
    if weight(table, i) != 1.0 {
        text.push_str(&format!(" weight={}", weight(table, i)));
    }
    text
}

/// What differs between `a` and `b`, one sentence per difference, in line
/// order (slots, then removals, then weights within a line), then the
/// overrides in key order. Empty exactly when the tables mean the same.
pub(super) fn differences(a: &NodeTable, b: &NodeTable) -> Vec<String> {
    let mut lines = Vec::new();
    slot_differences(a, b, &mut lines);
    let common = a.len().min(b.len());
    let (ka, kb) = (removal_numbers(a), removal_numbers(b));
    for i in 0..common {
        let name = b.slot(i);
        let said = match (ka[i], kb[i]) {
            (None, Some(k)) => format!("slot {i} removed (removed={k}), {name}"),
            (Some(k), None) => format!("slot {i}'s removal undone (was removed={k}), {name}"),
            (Some(k), Some(l)) if k != l => {
                format!("slot {i}'s removal reordered, removed={k} -> removed={l}, {name}")
            }
            _ => continue,
        };
        lines.push((i, format!("line {}: {said}", i + 1)));
    }
    for i in 0..common {
        let (wa, wb) = (weight(a, i), weight(b, i));
        if wa != wb {
            let name = b.slot(i);
            let said = format!("slot {i}'s weight changed, {wa} -> {wb}, {name}");
            lines.push((i, format!("line {}: {said}", i + 1)));
        }
    }
    // A stable sort: within a line, the order above.
    lines.sort_by_key(|&(slot, _)| slot);
    let mut lines: Vec<String> = lines.into_iter().map(|(_, line)| line).collect();
    domain_differences(a, b, &mut lines);
    override_differences(a, b, &mut lines);
    lines
}

/// The zones and racks changed of the nodes both tables name, in the
/// order of the first table's nodes, and zones given or taken away.
fn domain_differences(a: &NodeTable, b: &NodeTable, lines: &mut Vec<String>) {
    if a.is_zoned() != b.is_zoned() {
        let said = if a.is_zoned() { "dropped" } else { "added" };
        lines.push(format!("zones {said} (zone= on every slot line)"));
        return;
    }
    for (i, name) in a.nodes().iter().enumerate() {
        let Some(j) = b.node_index(name) else {
            continue;
        };
        // The line of the node's first slot in the second table, where
        // its zone and rack are read.
        let line = b.slots_of(name)[0] + 1;
        let (za, zb) = (a.zone_of(i), b.zone_of(j));
        if za != zb {
            let (za, zb) = (za.unwrap_or("-"), zb.unwrap_or("-"));
            lines.push(format!(
                "line {line}: node {name}'s zone changed, {za} -> {zb}"
            ));
        }
        let (ra, rb) = (a.rack_of(i), b.rack_of(j));
        if ra != rb {
            let (ra, rb) = (ra.unwrap_or("-"), rb.unwrap_or("-"));
            lines.push(format!(
                "line {line}: node {name}'s rack changed, {ra} -> {rb}"
            ));
        }
    }
}

/// The overrides added, dropped and changed, in key order, after the
/// slots (an override line's place in a file is not its meaning).
fn override_differences(a: &NodeTable, b: &NodeTable, lines: &mut Vec<String>) {
    use std::collections::BTreeMap;
    let mut keys: BTreeMap<u64, (Option<&str>, Option<&str>)> = BTreeMap::new();
    for (key, node) in a.overrides() {
        keys.entry(key).or_default().0 = Some(node);
    }
    for (key, node) in b.overrides() {
        keys.entry(key).or_default().1 = Some(node);
    }
    for (key, pair) in keys {
        lines.push(match pair {
            (None, Some(node)) => format!("override {key} added, {node}"),
            (Some(node), None) => format!("override {key} dropped (was {node})"),
            (Some(x), Some(y)) if x != y => format!("override {key} changed, {x} -> {y}"),
            _ => continue,
        });
    }
}

/// The slots renamed, swapped, added and dropped, each with its first
/// slot.
fn slot_differences(a: &NodeTable, b: &NodeTable, lines: &mut Vec<(usize, String)>) {
    let common = a.len().min(b.len());
    let renamed: Vec<usize> = (0..common).filter(|&i| a.slot(i) != b.slot(i)).collect();
    match renamed[..] {
        [i, j] if a.slot(i) == b.slot(j) && a.slot(j) == b.slot(i) => lines.push((
            i,
            format!(
                "lines {} and {}: slots {i} and {j} swap nodes, {} <-> {}",
                i + 1,
                j + 1,
                a.slot(i),
                a.slot(j)
            ),
        )),
        _ => lines.extend(renamed.iter().map(|&i| {
            let said = format!("slot {i} renamed, {} -> {}", a.slot(i), b.slot(i));
            (i, format!("line {}: {said}", i + 1))
        })),
    }
    let (ka, kb) = (removal_numbers(a), removal_numbers(b));
    for (i, &k) in kb.iter().enumerate().skip(common) {
        let said = format!("slot {i} added, {}{}", b.slot(i), attributes(b, k, i));
        lines.push((i, format!("line {}: {said}", i + 1)));
    }
    for (i, &k) in ka.iter().enumerate().skip(common) {
        let said = format!("slot {i} dropped, {}{}", a.slot(i), attributes(a, k, i));
        lines.push((i, format!("line {}: {said}", i + 1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(a: &str, b: &str) -> Vec<String> {
        differences(&NodeTable::parse(a).unwrap(), &NodeTable::parse(b).unwrap())
    }

    #[test]
    fn each_kind_of_difference_in_words() {
        assert!(diff("a # x\nb weight=2\n", "a\nb weight=2.0\n").is_empty());
        assert_eq!(
            diff("a\nb\nc\n", "a\nx\nc\n"),
            ["line 2: slot 1 renamed, b -> x"]
        );
        assert_eq!(
            diff("a\nb\nc\n", "c\nb\na\n"),
            ["lines 1 and 3: slots 0 and 2 swap nodes, a <-> c"]
        );
        assert_eq!(
            diff("a\nb\n", "a\nb\nc weight=3\n"),
            ["line 3: slot 2 added, c weight=3"]
        );
        assert_eq!(diff("a\nb\n+a\n", "a\nb\n"), ["line 3: slot 2 dropped, a"]);
        assert_eq!(
            diff("a\nb\nc\n", "a\nb removed=1\nc\n"),
            ["line 2: slot 1 removed (removed=1), b"]
        );
        assert_eq!(
            diff("a\nb removed=1\nc\n", "a\nb\nc\n"),
            ["line 2: slot 1's removal undone (was removed=1), b"]
        );
        assert_eq!(
            diff(
                "a\nb removed=1\nc removed=2\nd\n",
                "a\nb removed=2\nc removed=1\nd\n"
            ),
            [
                "line 2: slot 1's removal reordered, removed=1 -> removed=2, b",
                "line 3: slot 2's removal reordered, removed=2 -> removed=1, c"
            ]
        );
        assert_eq!(
            diff("a weight=2\nb\n", "a weight=2.5\nb\n"),
            ["line 1: slot 0's weight changed, 2 -> 2.5, a"]
        );
        assert_eq!(
            diff(
                "a\nb\noverride 1 a\noverride 2 a\n",
                "a\nb\noverride 0x2 b\noverride 3 b\n"
            ),
            [
                "override 1 dropped (was a)",
                "override 2 changed, a -> b",
                "override 3 added, b"
            ]
        );
        assert!(diff(
            "a\nb\noverride 1 a\noverride 2 b\n",
            "a\nb\noverride 2 b\noverride 0x1 a\n"
        )
        .is_empty());
        assert_eq!(
            diff("a zone=x\nb zone=y\n", "b zone=y rack=r\na zone=y\n"),
            [
                "lines 1 and 2: slots 0 and 1 swap nodes, a <-> b",
                "line 2: node a's zone changed, x -> y",
                "line 1: node b's rack changed, - -> r"
            ]
        );
        assert_eq!(
            diff("a\nb\n", "a zone=x\nb zone=x\n"),
            ["zones added (zone= on every slot line)"]
        );
        assert!(diff("a rack=r zone=x\n", "a zone=x rack=r # same\n").is_empty());
    }
}
