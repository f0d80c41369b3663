//! Why a node table was refused.

use core::fmt;

use crate::BucketCount;

/// The most slots a table can have: the largest bucket count.
pub const MAX_SLOTS: usize = BucketCount::MAX.get() as usize;

/// Why a table was refused; `line` is the 1-based line of the table file
/// (slot + 1).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableError {
    /// No slot at all.
    Empty,
    /// An empty line.
    EmptyName {
        /// Its line.
        line: usize,
    },
    /// A name with a character names cannot hold.
    BadName {
        /// Its line.
        line: usize,
        /// The name as written.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A name that prints like another name of the table: the same text
    /// in Unicode's NFKC form (`café` in NFC and in NFD).
    LookAlike {
        /// Its line.
        line: usize,
        /// The name as written.
        name: String,
        /// The other name, as written.
        other: String,
        /// The line of the other name's first slot.
        other_line: usize,
    },
    /// A name listed again without `+`.
    UnmarkedRepeat {
        /// The line of the repeat.
        line: usize,
        /// The name.
        name: String,
        /// The line where it was first listed.
        first_line: usize,
    },
    /// `+NAME` for a name not listed above.
    MarkedFirst {
        /// Its line.
        line: usize,
        /// The name, without `+`.
        name: String,
    },
    /// More than [`MAX_SLOTS`] slots.
    TooManySlots,
    /// An attribute after the name that is unknown, malformed, repeated or
    /// not allowed beside the table's other attributes.
    BadAttribute {
        /// Its line.
        line: usize,
        /// The attribute as written.
        attribute: String,
        /// What is wrong with it.
        why: String,
    },
    /// Removals (`removed=K`) that do not replay: a number missing or
    /// repeated, a first removal that is the last slot, every slot removed.
    BadRemovals {
        /// The line at fault, when one is.
        line: Option<usize>,
        /// What is wrong.
        why: String,
    },
    /// An override line (`override KEY NODE`) with a bad key, a key given
    /// twice, a node not in the table, or a slot line after it.
    BadOverride {
        /// Its line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A failure domain (`zone=NAME`, `rack=NAME`) that is missing on a
    /// line of a zoned table, a rack without a zone, an unfit zone or
    /// rack name, or a node whose slots name different domains.
    BadZone {
        /// Its line.
        line: usize,
        /// What is wrong.
        why: String,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Empty => write!(f, "the table has no node"),
            TableError::EmptyName { line } => write!(
                f,
                "line {line}: empty line, or blanks or a comment alone (every line names the \
                 node of one bucket)"
            ),
            TableError::BadName { line, name, why } => {
                write!(f, "line {line}: node name {name:?} {why}")
            }
            TableError::LookAlike {
                line,
                name,
                other,
                other_line,
            } => write!(
                f,
                "line {line}: node name {name:?} prints like {other:?} of line {other_line} \
                 (both are the same text once Unicode-normalised, NFKC), so reports could \
                 not tell the two nodes apart: spell one node one way"
            ),
            TableError::UnmarkedRepeat {
                line,
                name,
                first_line,
            } => write!(
                f,
                "line {line}: {name:?} already serves the slot of line {first_line}; \
                 write \"+{name}\" if it is meant to serve another slot (a heavier node)"
            ),
            TableError::MarkedFirst { line, name } => write!(
                f,
                "line {line}: \"+{name}\" repeats a node that no line above names"
            ),
            TableError::TooManySlots => write!(
                f,
                "the table has more than {MAX_SLOTS} lines, the largest bucket count"
            ),
            TableError::BadAttribute {
                line,
                attribute,
                why,
            } => write!(f, "line {line}: {attribute:?} {why}"),
            TableError::BadRemovals {
                line: Some(line),
                why,
            } => write!(f, "line {line}: {why}"),
            TableError::BadRemovals { line: None, why } => f.write_str(why),
            TableError::BadOverride { line, why } => write!(f, "line {line}: {why}"),
            TableError::BadZone { line, why } => write!(f, "line {line}: {why}"),
        }
    }
}

impl std::error::Error for TableError {}
