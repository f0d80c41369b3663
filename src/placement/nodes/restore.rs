//! Bringing a removed slot back: Memento's restore, last removed first.
//!
//! Restoring undoes the newest removal of the table's log exactly: the
//! keys that left the slot come back to it, and no other key moves. The
//! slot may come back under another name (the host that replaces the dead
//! one). With nothing removed, a restore grows the table by one slot, as
//! jump hash grows, and the new slot needs a name.
//!
//! ```
//! use jumpshard::nodes::restore;
//! use jumpshard::NodeTable;
//!
//! let table = NodeTable::parse("a\nb removed=1\nc\n")?;
//! let (back, slot) = restore(&table, Some("b2"))?;
//! assert_eq!((back.to_text().as_str(), slot), ("a\nb2\nc\n", 1));
//! let (grown, slot) = restore(&back, Some("d"))?;
//! assert_eq!((grown.len(), slot), (4, 3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use super::table::NodeTable;
use super::table_error::TableError;
use crate::Memento;

/// Why a table cannot be restored that way.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// Nothing is removed, so the restore grows the table, and the new
    /// slot was given no name.
    NameNeeded {
        /// The new slot.
        slot: usize,
    },
    /// The table has weights, which removals do not combine with.
    Weighted,
    /// The name given cannot serve a slot, or the table is full.
    Table(TableError),
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::NameNeeded { slot } => write!(
                f,
                "nothing is removed, so restoring adds slot {slot}: name the node that serves it"
            ),
            RestoreError::Weighted => {
                f.write_str("the table has weights, and removals do not combine with them")
            }
            RestoreError::Table(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RestoreError {}

/// `table` with its newest removal restored, served by `name` (by default
/// the node that served it), and the slot restored. In a zoned table, a
/// `name` new to the table serves in the zone and rack of the node it
/// replaces (a slot added when nothing is removed replaces none, so a new
/// name there is refused: its line needs `zone=NAME`).
pub fn restore(table: &NodeTable, name: Option<&str>) -> Result<(NodeTable, usize), RestoreError> {
    if table.weights().is_some() {
        return Err(RestoreError::Weighted);
    }
    let mut memento = table
        .memento()
        .cloned()
        .unwrap_or_else(|| Memento::new(table.bucket_count()));
    let mut names: Vec<&str> = (0..table.len()).map(|i| table.slot(i)).collect();
    let slot = memento
        .restore()
        .map_err(|_| RestoreError::Table(TableError::TooManySlots))? as usize;
    // A new name for a restored slot serves in its old node's zone and
    // rack: the replacement of a dead host.
    let mut renamed = None;
    match (slot == names.len(), name) {
        (true, None) => return Err(RestoreError::NameNeeded { slot }),
        (true, Some(name)) => names.push(name),
        (false, Some(name)) => {
            renamed = Some((name, names[slot]));
            names[slot] = name;
        }
        (false, None) => {}
    }
    let restored = NodeTable::with_memento(&names, memento)
        .and_then(|t| t.keeping_domains(table, renamed))
        .map_err(RestoreError::Table)?;
    Ok((restored.keeping_overrides(table), slot))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restores_undo_removals_last_first_and_keys_come_back() {
        let table = NodeTable::parse("a\nb removed=2\nc\nd removed=1\ne\n").unwrap();
        let (once, slot) = restore(&table, None).unwrap();
        assert_eq!(slot, 1);
        assert_eq!(once.to_text(), "a\nb\nc\nd removed=1\ne\n");
        // Fewer keys under Miri, which runs them a thousand times slower.
        let keys = if cfg!(miri) { 60 } else { 20_000u64 };
        for key in 0..keys {
            let (before, after) = (table.node(key), once.node(key));
            assert!(
                before == after || after == "b",
                "{key}: {before} -> {after}"
            );
        }
        let (twice, slot) = restore(&once, Some("d2")).unwrap();
        assert_eq!((twice.to_text().as_str(), slot), ("a\nb\nc\nd2\ne\n", 3));
        assert!(twice.is_plain());
        assert_eq!(
            restore(&twice, None),
            Err(RestoreError::NameNeeded { slot: 5 })
        );
        assert!(matches!(
            restore(&twice, Some("x y")),
            Err(RestoreError::Table(TableError::BadName { line: 6, .. }))
        ));
        // A replacement in a zoned table serves in the zone (and rack) of
        // the node it replaces, and only the slot's keys come back.
        let zoned = NodeTable::parse("a zone=x\nb zone=y rack=r removed=1\nc zone=y\n").unwrap();
        let (back, slot) = restore(&zoned, Some("b2")).unwrap();
        assert_eq!(slot, 1);
        assert_eq!(back.to_text(), "a zone=x\nb2 zone=y rack=r\nc zone=y\n");
        for key in 0..keys {
            let (before, after) = (zoned.node(key), back.node(key));
            assert!(
                before == after || after == "b2",
                "{key}: {before} -> {after}"
            );
        }
        assert!(matches!(
            restore(&back, Some("d")),
            Err(RestoreError::Table(TableError::BadZone { line: 4, .. }))
        ));
        let weighted = NodeTable::parse("a weight=2\nb\n").unwrap();
        assert_eq!(restore(&weighted, Some("c")), Err(RestoreError::Weighted));
    }
}
