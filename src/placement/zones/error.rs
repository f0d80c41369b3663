//! Why zoned replica sets or their plans were refused.

use core::fmt;

use crate::nodes::TableError;

/// Why a table cannot give zoned replica sets, or a plan of their change
/// was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZoneError {
    /// The table names no zone (`zone=NAME` on its slot lines).
    NotZoned,
    /// The table has weights, which zoned sets are not drawn with, and
    /// which a lost zone's removals would drop.
    Weighted,
    /// `k` is 0 or above the table's live nodes.
    TooManyReplicas {
        /// The replicas asked for.
        replicas: usize,
        /// The table's live nodes.
        live: usize,
    },
    /// A column's length differs from the keys'.
    LengthMismatch {
        /// The number of keys.
        keys: usize,
        /// The length of the column.
        out: usize,
    },
    /// A zone named in a plan's arguments that the table does not have.
    UnknownZone {
        /// The name given.
        zone: String,
    },
    /// A zone to lose that holds every live node.
    LastZone {
        /// The zone.
        zone: String,
    },
    /// A zone to add that the table has already, or with no node.
    ZoneExists {
        /// The zone.
        zone: String,
    },
    /// A node, zone or rack name given to a change that a slot line
    /// cannot hold as that name alone: it would read as another name, or
    /// as more attributes (`"d1 weight=5"`, a leading `+`).
    BadName {
        /// What it names: `"node"`, `"zone"` or `"rack"`.
        what: &'static str,
        /// The name given.
        name: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// A slot to append to a table that has removals: Memento's removals
    /// hold last in, first out, so a slot appended beside them would move
    /// keys between the other nodes. Restore them first (under new names,
    /// if need be).
    Removals {
        /// The table's removals.
        removed: usize,
    },
    /// The changed table was refused (a node name taken or unfit).
    Table(TableError),
}

impl fmt::Display for ZoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZoneError::NotZoned => f.write_str(
                "the table names no zone: zoned replica sets need zone=NAME on every slot line",
            ),
            ZoneError::Weighted => f.write_str(
                "the table has weights: zoned replica sets are drawn without them, and a zone \
                 is lost from a weighted table by giving its nodes weight=0",
            ),
            ZoneError::TooManyReplicas { replicas, live } => write!(
                f,
                "{replicas} replicas: a zoned set holds 1 to {} distinct live nodes here",
                (*live).min(crate::replicas::MAX_REPLICAS)
            ),
            ZoneError::LengthMismatch { keys, out } => {
                write!(f, "{keys} keys but a replica column of {out}")
            }
            ZoneError::UnknownZone { zone } => write!(f, "zone {zone:?} is not in the table"),
            ZoneError::LastZone { zone } => write!(
                f,
                "zone {zone:?} holds every live node: a table keeps a live node"
            ),
            ZoneError::ZoneExists { zone } => write!(
                f,
                "zone {zone:?} is in the table already, or is given no node"
            ),
            ZoneError::BadName { what, name, why } => write!(f, "{what} name {name:?} {why}"),
            ZoneError::Removals { removed } => write!(
                f,
                "the table has {removed} removal{} (removed=K): a slot appended beside them \
                 would move keys between the other nodes, since removals are undone last in, \
                 first out; restore them first, under new names if the nodes are gone",
                if *removed == 1 { "" } else { "s" }
            ),
            ZoneError::Table(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ZoneError {}
