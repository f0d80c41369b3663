//! The node table itself: parsing, the slot of a key, writing it back.

use core::fmt;
use std::collections::HashMap;

use crate::BucketCount;

/// The most slots a table can have: the largest bucket count.
pub const MAX_SLOTS: usize = BucketCount::MAX.get() as usize;

/// A side table: entry `i` names the node serving bucket `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeTable {
    /// The distinct names, in the order of their first slot.
    names: Vec<String>,
    /// The index in `names` of each slot's node.
    slots: Vec<u32>,
}

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
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Empty => write!(f, "the table has no node"),
            TableError::EmptyName { line } => write!(
                f,
                "line {line}: empty line (every line names the node of one bucket)"
            ),
            TableError::BadName { line, name, why } => {
                write!(f, "line {line}: node name {name:?} {why}")
            }
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
        }
    }
}

impl std::error::Error for TableError {}

/// Why `name` cannot be a node name, if it cannot.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.starts_with('+') {
        return Some("starts with '+', which marks a repeated node");
    }
    name.chars().find_map(|c| {
        if c.is_whitespace() {
            Some("contains whitespace")
        } else if c.is_control() {
            Some("contains a control character")
        } else if c == ',' || c == '"' {
            Some("contains ',' or '\"', which CSV move lists would have to quote")
        } else {
            None
        }
    })
}

impl NodeTable {
    /// The table whose slot `i` is served by `slots[i]`; a name may serve
    /// several slots. Fails on an empty list, an empty or unfit name
    /// (see the module documentation) and more than [`MAX_SLOTS`] slots.
    ///
    /// ```
    /// use jumpshard::{NodeTable, TableError};
    ///
    /// let heavy = NodeTable::new(["a", "b", "a"])?;
    /// assert_eq!(heavy.slots_of("a"), [0, 2]);
    /// assert_eq!(NodeTable::new(Vec::<String>::new()), Err(TableError::Empty));
    /// assert_eq!(NodeTable::new(["a", ""]), Err(TableError::EmptyName { line: 2 }));
    /// # Ok::<(), TableError>(())
    /// ```
    pub fn new<I, S>(slots: I) -> Result<NodeTable, TableError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut builder = Builder::new(MAX_SLOTS);
        for (i, name) in slots.into_iter().enumerate() {
            builder.push(i + 1, name.as_ref())?;
        }
        builder.finish()
    }

    /// The table written in the table-file syntax (see the module
    /// documentation), refusing empty lines, unfit names and unmarked
    /// repeats with the line they are on.
    pub fn parse(text: &str) -> Result<NodeTable, TableError> {
        let text = text.strip_suffix('\n').unwrap_or(text);
        if text.is_empty() {
            return Err(TableError::Empty);
        }
        let mut builder = Builder::new(MAX_SLOTS);
        for (i, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let (name, marked) = match line.strip_prefix('+') {
                Some(name) => (name, true),
                None => (line, false),
            };
            let number = i + 1;
            match (builder.first_line(name), marked) {
                (Some(first_line), false) => {
                    return Err(TableError::UnmarkedRepeat {
                        line: number,
                        name: name.to_owned(),
                        first_line,
                    })
                }
                (None, true) if !name.is_empty() && name_problem(name).is_none() => {
                    return Err(TableError::MarkedFirst {
                        line: number,
                        name: name.to_owned(),
                    })
                }
                _ => builder.push(number, name)?,
            }
        }
        builder.finish()
    }

    /// The table in the table-file syntax, which [`NodeTable::parse`]
    /// reads back: each name bare on its first line, `+NAME` after.
    pub fn to_text(&self) -> String {
        let mut seen = vec![false; self.names.len()];
        let mut text = String::new();
        for &node in &self.slots {
            if std::mem::replace(&mut seen[node as usize], true) {
                text.push('+');
            }
            text.push_str(&self.names[node as usize]);
            text.push('\n');
        }
        text
    }

    /// The number of slots, N.
    #[allow(clippy::len_without_is_empty)] // a table is never empty
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The number of slots as a bucket count.
    pub fn bucket_count(&self) -> BucketCount {
        // A table has 1..=MAX_SLOTS slots.
        BucketCount::new(self.slots.len() as u32).expect("a table's length is a bucket count")
    }

    /// The distinct node names, in the order of their first slot.
    pub fn nodes(&self) -> &[String] {
        &self.names
    }

    /// The name serving slot `i`; panics when `i >= len()`.
    pub fn slot(&self, i: usize) -> &str {
        &self.names[self.slots[i] as usize]
    }

    /// The slots, each as its node's index in [`NodeTable::nodes`].
    pub fn slot_nodes(&self) -> &[u32] {
        &self.slots
    }

    /// The index of `name` in [`NodeTable::nodes`].
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The slots `name` serves, increasing (empty when it serves none).
    pub fn slots_of(&self, name: &str) -> Vec<usize> {
        let Some(node) = self.node_index(name) else {
            return Vec::new();
        };
        (0..self.slots.len())
            .filter(|&i| self.slots[i] as usize == node)
            .collect()
    }

    /// The name of the node serving `key`: `slot(jump(key, len()))`.
    pub fn node(&self, key: u64) -> &str {
        self.slot(crate::bucket(key, self.bucket_count()) as usize)
    }
}

/// A table under construction.
struct Builder {
    /// The most slots allowed.
    limit: usize,
    names: Vec<String>,
    /// Name to (index in `names`, line of its first slot).
    index: HashMap<String, (u32, usize)>,
    slots: Vec<u32>,
}

impl Builder {
    fn new(limit: usize) -> Builder {
        Builder {
            limit,
            names: Vec::new(),
            index: HashMap::new(),
            slots: Vec::new(),
        }
    }

    fn first_line(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&(_, line)| line)
    }

    fn push(&mut self, line: usize, name: &str) -> Result<(), TableError> {
        if self.slots.len() == self.limit {
            return Err(TableError::TooManySlots);
        }
        if name.is_empty() {
            return Err(TableError::EmptyName { line });
        }
        if let Some(why) = name_problem(name) {
            return Err(TableError::BadName {
                line,
                name: name.to_owned(),
                why,
            });
        }
        let next = self.names.len() as u32;
        let &mut (node, _) = self.index.entry(name.to_owned()).or_insert_with(|| {
            self.names.push(name.to_owned());
            (next, line)
        });
        self.slots.push(node);
        Ok(())
    }

    fn finish(self) -> Result<NodeTable, TableError> {
        if self.slots.is_empty() {
            return Err(TableError::Empty);
        }
        Ok(NodeTable {
            names: self.names,
            slots: self.slots,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_slots_than_the_limit_are_refused() {
        // MAX_SLOTS real slots would take gigabytes: the same check with a
        // limit of 2.
        let mut builder = Builder::new(2);
        builder.push(1, "a").unwrap();
        builder.push(2, "a").unwrap();
        assert_eq!(builder.push(3, "b"), Err(TableError::TooManySlots));
    }
}
