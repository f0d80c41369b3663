//! Node-table files (`jumpshard::NodeTable::parse`) against a naive
//! reading of the syntax: one name per line, `+NAME` for a node repeated on
//! purpose, then blank-separated `removed=K` or `weight=W` attributes (and
//! `zone=NAME`, `rack=NAME`), and
//! a comment from a `#` after a blank; names that print alike (the same
//! NFKC form) are refused. The same table or the same refused line.
//! Whether removals replay is left to the library (its own tests replay
//! them against Memento), so a table with removals or weights may still be
//! refused as a whole. An accepted table writes back (`to_text`) to text
//! that parses to itself, with the same fingerprint, and never places a
//! key on a removed slot; its replica sets, zoned or not, are refused with
//! an error that leaves the columns untouched, or are distinct live nodes
//! led by the table's own.

#![no_main]
#![deny(missing_docs)]

use jumpshard::{NodeTable, TableError};
use libfuzzer_sys::fuzz_target;
use unicode_normalization::UnicodeNormalization;

/// Whether `name` can name a node: not empty, no leading `+`, no
/// whitespace, control character, `,`, `"`, or format character that
/// prints as nothing.
fn fit(name: &str) -> bool {
    let invisible = |c: char| {
        matches!(
            c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
        ) || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}')
            || matches!(c, '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
    };
    !name.is_empty()
        && !name.starts_with('+')
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ',' || c == '"' || invisible(c))
}

/// Whether one attribute is well formed: `removed=K` with K >= 1,
/// `weight=W` finite and not negative, or `zone=NAME` and `rack=NAME` with
/// a name; its kind.
fn attribute(field: &str) -> Option<&'static str> {
    let (key, value) = field.split_once('=')?;
    match key {
        "zone" | "rack" if value.is_empty() => None,
        "zone" => Some("zone"),
        "rack" => Some("rack"),
        "removed" => value
            .parse::<u64>()
            .ok()
            .filter(|&k| k >= 1)
            .map(|_| "removed"),
        "weight" => value
            .parse::<f64>()
            .ok()
            .filter(|w| w.is_finite() && *w >= 0.0)
            .map(|_| "weight"),
        _ => None,
    }
}

/// What the naive reading makes of a table.
struct Naive {
    slots: Vec<String>,
    removed: usize,
    /// Removals or weights, which a table may have but not both.
    attributes: bool,
    /// Zones or racks, whose agreement from line to line (every slot line
    /// zoned, or none) is left to the library.
    domains: bool,
}

/// The table, or the 1-based line refused (0: no line, an empty table).
fn naive(text: &str) -> Result<Naive, usize> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Err(0);
    }
    let mut table = Naive {
        slots: Vec::new(),
        removed: 0,
        attributes: false,
        domains: false,
    };
    let mut kinds: Vec<&str> = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        // A comment starts at a `#` after a space or a tab.
        let line = match line
            .match_indices(" #")
            .chain(line.match_indices("\t#"))
            .map(|(i, _)| i)
            .min()
        {
            Some(i) => &line[..=i],
            None => line,
        };
        // The name runs from the line's start, past leading blanks, to the
        // next blank.
        let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
        let end = line[lead..]
            .find([' ', '\t'])
            .map_or(line.len(), |e| lead + e);
        let (first, rest) = line.split_at(end);
        let (name, marked) = match first.strip_prefix('+') {
            Some(name) => (name, true),
            None => (first, false),
        };
        let seen = table.slots.iter().any(|s| s == name);
        if !fit(name) || seen != marked {
            return Err(i + 1);
        }
        // A new name that prints like another: the same NFKC form.
        let form = |n: &str| n.nfkc().collect::<String>();
        if !seen && table.slots.iter().any(|s| form(s) == form(name)) {
            return Err(i + 1);
        }
        table.slots.push(name.to_owned());
        let mut on_line: Vec<&str> = Vec::new();
        for field in rest.split([' ', '\t']).filter(|f| !f.is_empty()) {
            let kind = attribute(field).ok_or(i + 1)?;
            if on_line.contains(&kind) {
                return Err(i + 1);
            }
            on_line.push(kind);
            if kind == "zone" || kind == "rack" {
                table.domains = true;
                continue;
            }
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
            if kinds.len() == 2 {
                return Err(i + 1);
            }
            table.attributes = true;
            table.removed += usize::from(kind == "removed");
        }
    }
    Ok(table)
}

/// The replica sets of `k` from 1 to 5 of a few keys on `table`: refused
/// with the columns untouched, or `k` distinct live nodes (as slots), the
/// first the table's own node for the key.
fn replica_sets(table: &NodeTable, seed: u64) {
    let keys: Vec<u64> = (0..24u64)
        .map(|i| (seed ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .chain([0, u64::MAX])
        .collect();
    for k in 1..=5 {
        let mut columns = vec![vec![u32::MAX; keys.len()]; k];
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        if table.replicas_batch(&keys, &mut refs).is_err() {
            assert!(columns.iter().flatten().all(|&m| m == u32::MAX));
            continue;
        }
        for (i, &key) in keys.iter().enumerate() {
            let names: Vec<&str> = columns.iter().map(|c| table.slot(c[i] as usize)).collect();
            assert_eq!(names[0], table.node(key));
            for (j, name) in names.iter().enumerate() {
                assert!(!names[..j].contains(name), "{names:?}");
                let node = table.node_index(name).expect("a member is a node");
                assert!(table.is_live(node), "{name} is not live");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Override lines (`override KEY NODE`, the second word without `=`)
    // are beyond the naive reading: such a table must parse or be refused
    // without a panic, and one that parses must survive its own writing.
    let is_override = |line: &str| {
        let mut words = line.split([' ', '\t', '\r']).filter(|w| !w.is_empty());
        words.next() == Some("override") && words.next().is_some_and(|w| !w.contains('='))
    };
    // The first line's byte-order mark is not part of its first word.
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    if body.split('\n').any(is_override) {
        if let Ok(table) = NodeTable::parse(text) {
            let again = NodeTable::parse(&table.to_text());
            assert_eq!(again.as_ref(), Ok(&table));
            assert_eq!(again.map(|t| t.fingerprint()), Ok(table.fingerprint()));
            for key in [0, 1, u64::MAX, data.len() as u64] {
                assert!(table.nodes().iter().any(|n| n == table.node(key)));
            }
            replica_sets(&table, data.len() as u64);
        }
        return;
    }
    match (naive(text), NodeTable::parse(text)) {
        (Ok(want), Ok(table)) => {
            let got: Vec<&str> = (0..table.len()).map(|i| table.slot(i)).collect();
            assert_eq!(want.slots, got);
            assert_eq!(want.removed, table.removals().len());
            let again = NodeTable::parse(&table.to_text());
            assert_eq!(again.as_ref(), Ok(&table));
            assert_eq!(again.map(|t| t.fingerprint()), Ok(table.fingerprint()));
            for key in [0, 1, u64::MAX, data.len() as u64] {
                assert!(!table.is_removed(table.bucket(key) as usize));
                assert!(table.nodes().iter().any(|n| n == table.node(key)));
            }
            replica_sets(&table, data.len() as u64);
        }
        // Removals that do not replay, or weights all 0: the naive
        // reading does not replay them.
        (Ok(want), Err(TableError::BadRemovals { .. })) if want.attributes => {}
        // Zones named on some slot lines and not on others, or racks
        // without zones: the naive reading does not compare lines.
        (Ok(want), Err(TableError::BadZone { .. })) if want.domains => {}
        (Err(line), Err(e)) => {
            let got = match e {
                TableError::Empty => 0,
                TableError::EmptyName { line }
                | TableError::BadName { line, .. }
                | TableError::UnmarkedRepeat { line, .. }
                | TableError::MarkedFirst { line, .. }
                | TableError::LookAlike { line, .. }
                | TableError::BadAttribute { line, .. } => line,
                other => panic!("{other:?}"),
            };
            assert_eq!(line, got, "{e}");
        }
        (want, got) => panic!("naive {:?}, parse {got:?}", want.map(|w| w.slots)),
    }
});
