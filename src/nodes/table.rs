//! The node table itself: parsing, the slot of a key, writing it back.

use core::fmt;
use std::collections::HashMap;

use super::placement::Placement;
use crate::{BucketCount, Error, Memento};

/// The most slots a table can have: the largest bucket count.
pub const MAX_SLOTS: usize = BucketCount::MAX.get() as usize;

/// A side table: entry `i` names the node serving bucket `i`, and the
/// table says how keys are placed on its slots (Figure 1, Memento with
/// removed slots, or weights).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeTable {
    /// The distinct names, in the order of their first slot.
    names: Vec<String>,
    /// The index in `names` of each slot's node.
    slots: Vec<u32>,
    /// Each name's index in `names`.
    index: HashMap<String, u32>,
    /// The slots of node `i` are `by_node[starts[i]..starts[i + 1]]`,
    /// increasing: a node's slots in time linear in their number.
    starts: Vec<u32>,
    by_node: Vec<u32>,
    placement: Placement,
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
        } else if is_invisible(c) {
            Some(
                "contains an invisible character (a zero-width space, joiner or mark, a byte \
                 order mark, a direction control), which would make two names that print alike",
            )
        } else {
            None
        }
    })
}

/// Whether `c` prints as nothing: Unicode's format characters that
/// editors and copy-paste leave in text (soft hyphen, zero-width space,
/// joiners and marks, direction controls, word joiner, byte order mark,
/// interlinear annotation, the Mongolian vowel separator).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

impl NodeTable {
    /// The table whose slot `i` is served by `slots[i]`, keys placed by
    /// Figure 1; a name may serve several slots. Fails on an empty list,
    /// an empty or unfit name (see the module documentation) and more than
    /// [`MAX_SLOTS`] slots.
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
        builder.finish(Placement::Jump)
    }

    /// The table written in the table-file syntax (see the module
    /// documentation), refusing empty lines, unfit names, unmarked
    /// repeats, bad attributes and removals that do not replay, with the
    /// line they are on.
    pub fn parse(text: &str) -> Result<NodeTable, TableError> {
        // A byte order mark at the start is an editor's, not part of the
        // first name.
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        let text = text.strip_suffix('\n').unwrap_or(text);
        if text.is_empty() {
            return Err(TableError::Empty);
        }
        let mut builder = Builder::new(MAX_SLOTS);
        let mut attributes = Attributes::default();
        for (i, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let number = i + 1;
            // The name runs to the first blank after it (so that leading
            // blanks stay in it, and are refused); attributes follow.
            let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
            let end = line[lead..]
                .find([' ', '\t'])
                .map_or(line.len(), |e| lead + e);
            let (first, rest) = line.split_at(end);
            let fields = rest.split([' ', '\t']).filter(|f| !f.is_empty());
            let (name, marked) = match first.strip_prefix('+') {
                Some(name) => (name, true),
                None => (first, false),
            };
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
            for field in fields {
                attributes.read(number, field)?;
            }
        }
        let n = builder.slots.len();
        let placement = attributes.placement(n)?;
        builder.finish(placement)
    }

    /// The table in the table-file syntax, which [`NodeTable::parse`]
    /// reads back: each name bare on its first line, `+NAME` after, then
    /// the slot's attributes.
    pub fn to_text(&self) -> String {
        let mut seen = vec![false; self.names.len()];
        let mut removal = HashMap::new();
        if let Placement::Memento(m) = &self.placement {
            removal.extend(m.removals().iter().enumerate().map(|(i, &b)| (b, i + 1)));
        }
        let mut text = String::new();
        for (slot, &node) in self.slots.iter().enumerate() {
            if std::mem::replace(&mut seen[node as usize], true) {
                text.push('+');
            }
            text.push_str(&self.names[node as usize]);
            if let Some(k) = removal.get(&(slot as u32)) {
                text.push_str(&format!(" removed={k}"));
            }
            if let Placement::Weighted { weights, .. } = &self.placement {
                if weights[slot] != 1.0 {
                    text.push_str(&format!(" weight={}", weights[slot]));
                }
            }
            text.push('\n');
        }
        text
    }

    /// The number of slots, N (removed ones included: the b-array).
    #[allow(clippy::len_without_is_empty)] // a table is never empty
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The number of slots as a bucket count.
    pub fn bucket_count(&self) -> BucketCount {
        // A table has 1..=MAX_SLOTS slots.
        BucketCount::new(self.slots.len() as u32).expect("a table's length is a bucket count")
    }

    /// The distinct node names, in the order of their first slot (the
    /// names of removed slots included).
    pub fn nodes(&self) -> &[String] {
        &self.names
    }

    /// The name serving slot `i` (or that served it, if it is removed);
    /// panics when `i >= len()`.
    pub fn slot(&self, i: usize) -> &str {
        &self.names[self.slots[i] as usize]
    }

    /// The slots, each as its node's index in [`NodeTable::nodes`].
    pub fn slot_nodes(&self) -> &[u32] {
        &self.slots
    }

    /// The index of `name` in [`NodeTable::nodes`].
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&i| i as usize)
    }

    /// The slots `name` serves, increasing (empty when it serves none),
    /// removed ones included.
    pub fn slots_of(&self, name: &str) -> Vec<usize> {
        let Some(node) = self.node_index(name) else {
            return Vec::new();
        };
        self.node_slots(node).iter().map(|&s| s as usize).collect()
    }

    /// The slots of node `i` of [`NodeTable::nodes`], increasing.
    pub(super) fn node_slots(&self, node: usize) -> &[u32] {
        &self.by_node[self.starts[node] as usize..self.starts[node + 1] as usize]
    }

    /// How keys are placed on the slots.
    pub(super) fn placement(&self) -> &Placement {
        &self.placement
    }

    /// Whether keys are placed by Figure 1 alone: no slot removed, no
    /// weight.
    pub fn is_plain(&self) -> bool {
        self.placement == Placement::Jump
    }

    /// The Memento state, when some slot is removed.
    pub fn memento(&self) -> Option<&Memento> {
        match &self.placement {
            Placement::Memento(m) => Some(m),
            _ => None,
        }
    }

    /// The removed slots, in removal order (empty when none is).
    pub fn removals(&self) -> &[u32] {
        self.memento().map_or(&[], Memento::removals)
    }

    /// Whether slot `i` is removed.
    pub fn is_removed(&self, i: usize) -> bool {
        self.memento().is_some_and(|m| m.is_removed(i as u32))
    }

    /// Each slot's weight, when some slot has one.
    pub fn weights(&self) -> Option<&[f64]> {
        match &self.placement {
            Placement::Weighted { weights, .. } => Some(weights),
            _ => None,
        }
    }

    /// Whether node `i` of [`NodeTable::nodes`] serves a slot that is not
    /// removed.
    pub fn is_live(&self, node: usize) -> bool {
        self.node_slots(node)
            .iter()
            .any(|&slot| !self.is_removed(slot as usize))
    }

    /// The slot of `key`: Figure 1 over the slots, then Memento's
    /// rehashes if it is removed, or the weights' rejection sampling.
    pub fn bucket(&self, key: u64) -> u32 {
        self.placement.bucket(key, self.bucket_count())
    }

    /// [`NodeTable::bucket`] of every key, on the kernels. Fails with
    /// [`Error::LengthMismatch`], leaving `out` untouched, when the lengths
    /// differ.
    pub fn batch(&self, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        self.placement.batch(keys, self.bucket_count(), out)
    }

    /// The name of the node serving `key`: `slot(bucket(key))`.
    pub fn node(&self, key: u64) -> &str {
        self.slot(self.bucket(key) as usize)
    }

    /// This table's slots renamed by `rename(slot, name)`, its placement
    /// kept.
    pub(super) fn renamed<'a>(
        &'a self,
        rename: impl Fn(usize, &'a str) -> &'a str,
    ) -> Result<NodeTable, TableError> {
        let mut builder = Builder::new(MAX_SLOTS);
        for i in 0..self.len() {
            builder.push(i + 1, rename(i, self.slot(i)))?;
        }
        builder.finish(self.placement.clone())
    }

    /// This table's slots named `names` (as many or fewer), keys placed by
    /// the Memento state `memento` (its b-array being their number).
    pub(super) fn with_memento<S: AsRef<str>>(
        names: &[S],
        memento: Memento,
    ) -> Result<NodeTable, TableError> {
        let mut builder = Builder::new(MAX_SLOTS);
        for (i, name) in names.iter().enumerate() {
            builder.push(i + 1, name.as_ref())?;
        }
        let placement = if memento.removals().is_empty() {
            Placement::Jump
        } else {
            Placement::Memento(memento)
        };
        builder.finish(placement)
    }
}

/// The attributes of a table file's lines, gathered as they are read.
#[derive(Default)]
struct Attributes {
    /// (removal number K, its slot, its line).
    removed: Vec<(u64, u32, usize)>,
    /// (slot, weight, line).
    weights: Vec<(u32, f64, usize)>,
    /// The slot of the line being read and its attribute names so far.
    current: Option<(usize, Vec<&'static str>)>,
}

impl Attributes {
    /// Reads `field`, an attribute of line `line` (slot `line - 1`).
    fn read(&mut self, line: usize, field: &str) -> Result<(), TableError> {
        let bad = |why: &str| TableError::BadAttribute {
            line,
            attribute: field.to_owned(),
            why: why.to_owned(),
        };
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| bad("is not an attribute: a line is NAME, then removed=K or weight=W (names hold no whitespace)"))?;
        let slot = (line - 1) as u32;
        let key: &'static str = match key {
            "removed" => "removed",
            "weight" => "weight",
            _ => {
                return Err(bad(
                    "is not an attribute: a line is NAME, then removed=K or weight=W",
                ))
            }
        };
        let seen = match &mut self.current {
            Some((l, seen)) if *l == line => seen,
            current => &mut current.insert((line, Vec::new())).1,
        };
        if seen.contains(&key) {
            return Err(bad("is given twice on this line"));
        }
        seen.push(key);
        if key == "removed" {
            let k: u64 = value.parse().ok().filter(|&k| k >= 1).ok_or_else(|| {
                bad("needs K, the removal's number: 1 for the first, 2 for the next, ...")
            })?;
            self.removed.push((k, slot, line));
        } else {
            let w: f64 = value
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| bad("needs a finite weight of 0 or more"))?;
            self.weights.push((slot, w, line));
        }
        if let (Some(&(_, _, r)), Some(&(_, _, w))) = (self.removed.first(), self.weights.first()) {
            return Err(TableError::BadAttribute {
                line: r.max(w),
                attribute: field.to_owned(),
                why: format!(
                    "cannot stand in the same table as the {} of line {}: removals and weights \
                     do not combine",
                    if r < w { "removal" } else { "weight" },
                    r.min(w)
                ),
            });
        }
        Ok(())
    }

    /// The placement of a table of `n` slots with these attributes.
    fn placement(mut self, n: usize) -> Result<Placement, TableError> {
        let count = BucketCount::new(n as u32).expect("the builder bounds the slots");
        if !self.weights.is_empty() {
            let mut weights = vec![1.0; n];
            for &(slot, w, _) in &self.weights {
                weights[slot as usize] = w;
            }
            return Placement::new(count, &[], Some(weights)).map_err(|_| {
                TableError::BadRemovals {
                    line: None,
                    why: "every slot weighs 0: at least one must take keys".into(),
                }
            });
        }
        self.removed.sort_unstable();
        for pair in self.removed.windows(2) {
            if pair[0].0 == pair[1].0 {
                let (first, second) = (pair[0].2.min(pair[1].2), pair[0].2.max(pair[1].2));
                return Err(TableError::BadRemovals {
                    line: Some(second),
                    why: format!("removed={} is also the removal of line {first}", pair[0].0),
                });
            }
        }
        if let Some(missing) = (1..).zip(&self.removed).find(|(want, r)| r.0 != *want) {
            return Err(TableError::BadRemovals {
                line: None,
                why: format!(
                    "no line has removed={}: removals are numbered 1, 2, ... in the order they \
                     happened, without gaps",
                    missing.0
                ),
            });
        }
        let order: Vec<u32> = self.removed.iter().map(|r| r.1).collect();
        Placement::new(count, &order, None).map_err(|e| {
            let line_of = |slot: u32| self.removed.iter().find(|r| r.1 == slot).map(|r| r.2);
            match e {
                Error::ShrinkInRemovals { bucket } => TableError::BadRemovals {
                    line: line_of(bucket),
                    why: "removed=1 is the last slot: removing it first is a shrink, which no \
                          log keeps; delete the line instead"
                        .into(),
                },
                Error::LastWorkingBucket { bucket } => TableError::BadRemovals {
                    line: line_of(bucket),
                    why: "every slot is removed: a table keeps at least one working slot".into(),
                },
                other => TableError::BadRemovals {
                    line: None,
                    why: other.to_string(),
                },
            }
        })
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

    fn finish(self, placement: Placement) -> Result<NodeTable, TableError> {
        if self.slots.is_empty() {
            return Err(TableError::Empty);
        }
        // A counting sort of the slots by node.
        let mut starts = vec![0u32; self.names.len() + 1];
        for &node in &self.slots {
            starts[node as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut by_node = vec![0u32; self.slots.len()];
        for (slot, &node) in self.slots.iter().enumerate() {
            by_node[next[node as usize] as usize] = slot as u32;
            next[node as usize] += 1;
        }
        Ok(NodeTable {
            index: self.index.into_iter().map(|(k, (i, _))| (k, i)).collect(),
            names: self.names,
            slots: self.slots,
            starts,
            by_node,
            placement,
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

    #[test]
    fn removals_and_weights_read_back() {
        let text = "a\nb removed=2\nc\nd removed=1\ne\n";
        let table = NodeTable::parse(text).unwrap();
        assert_eq!(table.removals(), [3, 1]);
        assert!(table.is_removed(1) && !table.is_removed(0));
        assert!(!table.is_live(table.node_index("b").unwrap()));
        assert_eq!(table.to_text(), text);
        let marked = NodeTable::parse(&format!("\u{FEFF}{text}")).unwrap();
        assert_eq!(marked, table, "a leading byte order mark is dropped");
        let weighted = NodeTable::parse("a weight=2.5\nb\n+a weight=0\n").unwrap();
        assert_eq!(weighted.weights(), Some(&[2.5, 1.0, 0.0][..]));
        assert_eq!(weighted.to_text(), "a weight=2.5\nb\n+a weight=0\n");
        for key in 0..if cfg!(miri) { 100 } else { 1000u64 } {
            assert_ne!(weighted.bucket(key), 2);
            assert_ne!(table.node(key), "b");
        }
    }

    #[test]
    fn attributes_that_contradict_are_refused_with_their_line() {
        let cases = [
            ("a\nb x=1\n", "line 2: \"x=1\" is not an attribute"),
            ("a\nb removed\n", "line 2: \"removed\" is not an attribute"),
            ("a\nb removed=0\n", "line 2: \"removed=0\" needs K"),
            (
                "a removed=1 removed=2\nb\n",
                "line 1: \"removed=2\" is given twice",
            ),
            (
                "a weight=-1\nb\n",
                "line 1: \"weight=-1\" needs a finite weight",
            ),
            (
                "a weight=NaN\nb\n",
                "line 1: \"weight=NaN\" needs a finite weight",
            ),
            (
                "a removed=1\nb weight=2\nc\n",
                "line 2: \"weight=2\" cannot stand",
            ),
            (
                "a removed=1\nb removed=1\nc\n",
                "line 2: removed=1 is also the removal of line 1",
            ),
            ("a removed=2\nb\nc\n", "no line has removed=1"),
            ("a\nb\nc removed=1\n", "line 3: removed=1 is the last slot"),
            (
                "a removed=1\nb removed=2\n",
                "line 2: every slot is removed",
            ),
            ("a weight=0\nb weight=0\n", "every slot weighs 0"),
            (" a\n", "line 1: node name \" a\" contains whitespace"),
            (
                "a\na\u{200B}\n",
                "line 2: node name \"a\\u{200b}\" contains an invisible",
            ),
            (
                "a\nb\u{FEFF}\n",
                "line 2: node name \"b\\u{feff}\" contains an invisible",
            ),
        ];
        for (text, want) in cases {
            let got = NodeTable::parse(text).unwrap_err().to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
    }
}
