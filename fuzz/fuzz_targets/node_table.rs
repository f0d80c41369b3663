//! Node-table files (`jumpshard::NodeTable::parse`) against a naive
//! reading of the syntax: one name per line, `+NAME` for a node repeated on
//! purpose, and the same table or the same refused line; an accepted table
//! writes back (`to_text`) to text that parses to itself.

#![no_main]

use jumpshard::{NodeTable, TableError};
use libfuzzer_sys::fuzz_target;

/// Whether `name` can name a node: not empty, no leading `+`, no
/// whitespace, control character, `,` or `"`.
fn fit(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('+')
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ',' || c == '"')
}

/// The name of each slot, or the 1-based line refused (0: no line, an
/// empty table).
fn naive(text: &str) -> Result<Vec<String>, usize> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Err(0);
    }
    let mut slots: Vec<String> = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (name, marked) = match line.strip_prefix('+') {
            Some(name) => (name, true),
            None => (line, false),
        };
        let seen = slots.iter().any(|s| s == name);
        if !fit(name) || seen != marked {
            return Err(i + 1);
        }
        slots.push(name.to_owned());
    }
    Ok(slots)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match (naive(text), NodeTable::parse(text)) {
        (Ok(want), Ok(table)) => {
            let got: Vec<&str> = (0..table.len()).map(|i| table.slot(i)).collect();
            assert_eq!(want, got);
            assert_eq!(NodeTable::parse(&table.to_text()).as_ref(), Ok(&table));
            for key in [0, 1, u64::MAX, data.len() as u64] {
                assert!(table.nodes().iter().any(|n| n == table.node(key)));
            }
        }
        (Err(line), Err(e)) => {
            let got = match e {
                TableError::Empty => 0,
                TableError::EmptyName { line }
                | TableError::BadName { line, .. }
                | TableError::UnmarkedRepeat { line, .. }
                | TableError::MarkedFirst { line, .. } => line,
                other => panic!("{other:?}"),
            };
            assert_eq!(line, got, "{e}");
        }
        (want, got) => panic!("naive {want:?}, parse {got:?}"),
    }
});
