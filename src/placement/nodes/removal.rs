//! Taking one node out of a table: the candidate tables.
//!
//! Jump hash needs dense buckets, so a node's slot cannot simply be
//! deleted (every later slot would shift). The ways of removing it:
//!
//! - [`Removal::Swap`]: each of its slots takes the node of a slot from
//!   the end, then the table shrinks by their number. Its keys go to the
//!   moved nodes, whose other keys spread over the survivors: about 2/N of
//!   the keys move, and the balance stays.
//! - [`Removal::Point`]: the table keeps its N slots and a survivor serves
//!   the removed node's slots too. Only the removed node's keys move (about
//!   1/N), all to that survivor, which then carries about twice the mean
//!   load.
//! - [`Removal::Memento`]: its slots are removed Memento-style and the
//!   table keeps them, marked `removed=K`, as its removal log. Exactly its
//!   keys move (about 1/N), spread evenly over the survivors, so the
//!   balance stays; every router must load the table with its log (see
//!   [`crate::Memento`]). On a table that already keeps a log, this and
//!   pointing are the only options: the swap and the hole would renumber
//!   the slots the log names.
//! - [`Removal::Hole`]: its lines are deleted. Most keys in later slots
//!   move; only ever a comparison.
//!
//! ```
//! use jumpshard::nodes::{NodeRemoval, Removal};
//! use jumpshard::NodeTable;
//!
//! let table = NodeTable::parse("a\nb\nc\nd\n")?;
//! let removal = NodeRemoval::new(&table, "b")?;
//! assert_eq!(removal.slots(), [1]);
//! assert_eq!(removal.table(&Removal::Swap)?.to_text(), "a\nd\nc\n");
//! let point = Removal::Point("c".into());
//! assert_eq!(point.to_string(), "point:c");
//! assert_eq!(removal.table(&point)?.to_text(), "a\nc\n+c\nd\n");
//! assert_eq!(removal.table(&Removal::Hole)?.to_text(), "a\nc\nd\n");
//! assert_eq!("point:c".parse::<Removal>(), Ok(point));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use super::table::NodeTable;

/// A way of taking a node out of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Removal {
    /// Fill its slots from the end, then shrink (`swap`).
    Swap,
    /// Let the named survivor serve its slots, keeping N (`point:NAME`).
    Point(String),
    /// Delete its lines (`hole`), for comparison only.
    Hole,
    /// Remove its slots Memento-style, keeping them in the table's removal
    /// log (`memento`).
    Memento,
}

impl fmt::Display for Removal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Removal::Swap => f.write_str("swap"),
            Removal::Point(survivor) => write!(f, "point:{survivor}"),
            Removal::Hole => f.write_str("hole"),
            Removal::Memento => f.write_str("memento"),
        }
    }
}

/// `swap`, `hole`, `memento` or `point:NAME`; the error is the text that
/// is none.
impl FromStr for Removal {
    type Err = String;

    fn from_str(text: &str) -> Result<Removal, String> {
        match text {
            "swap" => Ok(Removal::Swap),
            "hole" => Ok(Removal::Hole),
            "memento" => Ok(Removal::Memento),
            _ => match text.strip_prefix("point:") {
                Some(survivor) if !survivor.is_empty() => Ok(Removal::Point(survivor.into())),
                _ => Err(text.into()),
            },
        }
    }
}

/// Why a node cannot be removed that way.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemovalError {
    /// No slot of the table names the node.
    UnknownNode {
        /// The node asked for.
        node: String,
    },
    /// The node is the table's only one: its keys have nowhere to go.
    OnlyNode {
        /// The node asked for.
        node: String,
    },
    /// A [`Removal::Point`] at a node that does not survive the removal.
    NotASurvivor {
        /// The node asked for.
        survivor: String,
    },
    /// Every slot of the node is removed already.
    AlreadyRemoved {
        /// The node asked for.
        node: String,
    },
    /// The table has weights: a node leaves it by weighing 0.
    Weighted {
        /// The node asked for.
        node: String,
    },
    /// A swap or hole on a table that keeps a removal log, whose slot
    /// numbers they would change.
    KeepsLog {
        /// The removal asked for.
        removal: Removal,
    },
}

impl fmt::Display for RemovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemovalError::UnknownNode { node } => write!(f, "no slot names {node:?}"),
            RemovalError::OnlyNode { node } => write!(
                f,
                "{node:?} is the only node; there is nowhere to move its keys"
            ),
            RemovalError::NotASurvivor { survivor } => {
                write!(f, "{survivor:?} is not a node that survives the removal")
            }
            RemovalError::AlreadyRemoved { node } => {
                write!(f, "every slot of {node:?} is removed already")
            }
            RemovalError::Weighted { node } => write!(
                f,
                "the table has weights: take {node:?} out by giving its slots weight=0"
            ),
            RemovalError::KeepsLog { removal } => write!(
                f,
                "{removal} would renumber the slots that the table's removal log names; \
                 use memento or point:SURVIVOR"
            ),
        }
    }
}

impl std::error::Error for RemovalError {}

/// One node of a table, to be removed.
#[derive(Clone, Debug)]
pub struct NodeRemoval<'a> {
    old: &'a NodeTable,
    node: String,
    slots: Vec<usize>,
}

impl<'a> NodeRemoval<'a> {
    /// The removal of `node` from `old`; an error if no slot names it or if
    /// it is the only node.
    pub fn new(old: &'a NodeTable, node: &str) -> Result<NodeRemoval<'a>, RemovalError> {
        let mut slots = old.slots_of(node);
        if slots.is_empty() {
            return Err(RemovalError::UnknownNode { node: node.into() });
        }
        if old.weights().is_some() {
            return Err(RemovalError::Weighted { node: node.into() });
        }
        slots.retain(|&s| !old.is_removed(s));
        if slots.is_empty() {
            return Err(RemovalError::AlreadyRemoved { node: node.into() });
        }
        let live = (0..old.nodes().len()).filter(|&i| old.is_live(i)).count();
        if live == 1 {
            return Err(RemovalError::OnlyNode { node: node.into() });
        }
        Ok(NodeRemoval {
            old,
            node: node.into(),
            slots,
        })
    }

    /// The slots the node serves, in table order (not those already
    /// removed).
    pub fn slots(&self) -> &[usize] {
        &self.slots
    }

    /// Every other node serving a working slot, in table order.
    pub fn survivors(&self) -> impl Iterator<Item = &str> {
        self.old
            .nodes()
            .iter()
            .enumerate()
            .filter(move |&(i, n)| *n != self.node && self.old.is_live(i))
            .map(|(_, n)| n.as_str())
    }

    /// Every way of removing the node: the swap, a point at each survivor
    /// in table order, Memento and the hole; on a table that keeps a
    /// removal log, Memento and the points.
    pub fn removals(&self) -> Vec<Removal> {
        let points = self.survivors().map(|s| Removal::Point(s.into()));
        if !self.old.is_plain() {
            return std::iter::once(Removal::Memento).chain(points).collect();
        }
        let mut all = vec![Removal::Swap];
        all.extend(points);
        all.push(Removal::Memento);
        all.push(Removal::Hole);
        all
    }

    /// The table after `removal`.
    pub fn table(&self, removal: &Removal) -> Result<NodeTable, RemovalError> {
        let old = self.old;
        let slots = (0..old.len()).map(|i| old.slot(i));
        if matches!(removal, Removal::Swap | Removal::Hole) && !old.is_plain() {
            return Err(RemovalError::KeepsLog {
                removal: removal.clone(),
            });
        }
        let table = match removal {
            Removal::Swap => {
                let keep = old.len() - self.slots.len();
                let mut names: Vec<&str> = slots.collect();
                // Popped from the end: the last survivor fills the first hole.
                let mut tail: Vec<usize> = (keep..old.len())
                    .filter(|&i| names[i] != self.node)
                    .collect();
                for &slot in self.slots.iter().filter(|&&s| s < keep) {
                    let from = tail
                        .pop()
                        .expect("as many survivors at the end as holes before it");
                    names[slot] = names[from];
                }
                names.truncate(keep);
                NodeTable::new(names)
            }
            Removal::Point(survivor) => {
                if !self.survivors().any(|s| s == survivor) {
                    return Err(RemovalError::NotASurvivor {
                        survivor: survivor.clone(),
                    });
                }
                old.renamed(|slot, n| {
                    if n == self.node && !old.is_removed(slot) {
                        survivor
                    } else {
                        n
                    }
                })
            }
            Removal::Hole => NodeTable::new(slots.filter(|&n| n != self.node)),
            Removal::Memento => return Ok(old.with_slots_removed([&self.slots[..]])),
        };
        // Slots of a valid table, less a node that is not its only one.
        let table = table
            .expect("a valid table")
            .keeping_domains(old, None)
            .expect("the nodes of the old table");
        Ok(table.keeping_overrides(old))
    }
}

impl NodeTable {
    /// This table with each group of `groups` (a node's working slots, in
    /// table order) removed Memento-style, group after group, in one pass
    /// over one Memento state: what removing each node in turn gives, at
    /// the cost of one table however many nodes go. The slots must leave
    /// a working one.
    pub(crate) fn with_slots_removed<'s>(
        &self,
        groups: impl IntoIterator<Item = &'s [usize]>,
    ) -> NodeTable {
        let mut memento = self
            .memento()
            .cloned()
            .unwrap_or_else(|| crate::Memento::new(self.bucket_count()));
        for slots in groups {
            // From a node's last slot down, so that a node at the end of a
            // table with nothing removed shrinks it rather than growing
            // the log.
            for &slot in slots.iter().rev() {
                memento
                    .remove(slot as u32)
                    .expect("a working slot, and not the last one");
            }
        }
        let names: Vec<&str> = (0..memento.barray().get() as usize)
            .map(|i| self.slot(i))
            .collect();
        // Slots of a valid table, less nodes that leave a working one.
        let table = NodeTable::with_memento(&names, memento)
            .expect("a valid table")
            .keeping_domains(self, None)
            .expect("the nodes of the old table");
        table.keeping_overrides(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heavy_node_is_swapped_from_the_end() {
        let table = NodeTable::parse("a\nb\nc\n+b\nd\ne\n").unwrap();
        let removal = NodeRemoval::new(&table, "b").unwrap();
        assert_eq!(removal.slots(), [1, 3]);
        let swap = removal.table(&Removal::Swap).unwrap();
        assert_eq!(swap.to_text(), "a\ne\nc\nd\n");
        assert_eq!(
            removal.removals(),
            [
                Removal::Swap,
                Removal::Point("a".into()),
                Removal::Point("c".into()),
                Removal::Point("d".into()),
                Removal::Point("e".into()),
                Removal::Memento,
                Removal::Hole
            ]
        );
    }

    #[test]
    fn the_last_slot_shrinks_away() {
        let table = NodeTable::parse("a\nb\nc\n").unwrap();
        let removal = NodeRemoval::new(&table, "c").unwrap();
        assert_eq!(removal.table(&Removal::Swap).unwrap().to_text(), "a\nb\n");
    }

    #[test]
    fn refusals() {
        let table = NodeTable::parse("a\nb\n").unwrap();
        assert_eq!(
            NodeRemoval::new(&table, "z").unwrap_err(),
            RemovalError::UnknownNode { node: "z".into() }
        );
        let single = NodeTable::parse("a\n+a\n").unwrap();
        assert_eq!(
            NodeRemoval::new(&single, "a").unwrap_err(),
            RemovalError::OnlyNode { node: "a".into() }
        );
        let removal = NodeRemoval::new(&table, "a").unwrap();
        for survivor in ["a", "z"] {
            assert!(removal.table(&Removal::Point(survivor.into())).is_err());
        }
        assert_eq!("point:".parse::<Removal>(), Err("point:".to_string()));
        assert_eq!("swap".parse::<Removal>(), Ok(Removal::Swap));
        assert_eq!("memento".parse::<Removal>(), Ok(Removal::Memento));
    }

    #[test]
    fn memento_removal_keeps_the_log_and_moves_only_the_node_keys() {
        let table = NodeTable::parse("a\nb\nc\n+b\nd\n").unwrap();
        let removal = NodeRemoval::new(&table, "b").unwrap();
        let after = removal.table(&Removal::Memento).unwrap();
        assert_eq!(after.to_text(), "a\nb removed=2\nc\n+b removed=1\nd\n");
        // Fewer keys under Miri, which runs them a thousand times slower.
        let keys = if cfg!(miri) { 60 } else { 20_000u64 };
        for key in 0..keys {
            let (old, new) = (table.node(key), after.node(key));
            assert!(
                old == "b" && new != "b" || old == new,
                "key {key}: {old} -> {new}"
            );
        }
        // With a log, the swap and the hole are gone; removing again
        // extends the log; the same node twice is refused.
        let again = NodeRemoval::new(&after, "d").unwrap();
        assert_eq!(
            again.removals(),
            [
                Removal::Memento,
                Removal::Point("a".into()),
                Removal::Point("c".into())
            ]
        );
        assert!(matches!(
            again.table(&Removal::Swap),
            Err(RemovalError::KeepsLog { .. })
        ));
        let both = again.table(&Removal::Memento).unwrap();
        assert_eq!(both.removals(), [3, 1, 4]);
        assert_eq!(
            NodeRemoval::new(&both, "b").unwrap_err(),
            RemovalError::AlreadyRemoved { node: "b".into() }
        );
        let point = again.table(&Removal::Point("c".into())).unwrap();
        assert_eq!(point.to_text(), "a\nb removed=2\nc\n+b removed=1\n+c\n");
        // The last node of a table with nothing removed shrinks it.
        let tail = NodeRemoval::new(&table, "d").unwrap();
        assert_eq!(
            tail.table(&Removal::Memento).unwrap().to_text(),
            "a\nb\nc\n+b\n"
        );
        let weighted = NodeTable::parse("a weight=2\nb\n").unwrap();
        assert!(matches!(
            NodeRemoval::new(&weighted, "a"),
            Err(RemovalError::Weighted { .. })
        ));
        let last = NodeTable::parse("a removed=1\nb\nc\n").unwrap();
        let r = NodeRemoval::new(&last, "b").unwrap();
        assert!(r.table(&Removal::Memento).is_ok());
        let only = NodeTable::parse("a removed=1\nb\n").unwrap();
        assert_eq!(
            NodeRemoval::new(&only, "b").unwrap_err(),
            RemovalError::OnlyNode { node: "b".into() }
        );
    }
}
