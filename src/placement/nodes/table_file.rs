//! Reading the table file: names checked, repeats marked, attributes
//! gathered and replayed into a placement. The result is a table's raw
//! slots; [`super::NodeTable`] indexes them.

use std::collections::{BTreeMap, HashMap};

use super::domains::{Domains, LineDomain};
use super::names::{name_problem, Forms};
use super::overrides::{self, Lines};
use super::placement::Placement;
use super::table_error::{TableError, MAX_SLOTS};
use crate::{BucketCount, Error};

/// A table's slots as read: the distinct names in the order of their
/// first slot, each name's index, each slot's node, and the placement.
pub(super) struct Slots {
    pub(super) names: Vec<String>,
    pub(super) index: HashMap<String, u32>,
    pub(super) slots: Vec<u32>,
    pub(super) placement: Placement,
    /// Each overridden key's node, an index into `names`.
    pub(super) overrides: BTreeMap<u64, u32>,
    /// Each node's zone and rack, in a zoned table.
    pub(super) domains: Option<Domains>,
}

/// The slots of a table file's text (see the module documentation of
/// [`super`]), refusing empty lines, unfit names, unmarked repeats, bad
/// attributes and removals that do not replay, with the line they are on.
pub(super) fn read(text: &str) -> Result<Slots, TableError> {
    // A byte order mark at the start is an editor's, not part of the
    // first name.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Err(TableError::Empty);
    }
    let mut builder = Builder::new(MAX_SLOTS);
    let mut attributes = Attributes::default();
    let mut pinned = Lines::default();
    for (i, line) in text.split('\n').enumerate() {
        let line = without_comment(line.strip_suffix('\r').unwrap_or(line));
        let number = i + 1;
        // The name runs to the first blank after it (so that leading
        // blanks stay in it, and are refused); attributes follow.
        let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
        let end = line[lead..]
            .find([' ', '\t'])
            .map_or(line.len(), |e| lead + e);
        let (first, rest) = line.split_at(end);
        // A line of blanks (or a comment alone) names nothing: the empty
        // line's error, not the blanks' as a name.
        let first = match line.trim_matches([' ', '\t']).is_empty() {
            true => "",
            false => first,
        };
        let fields = rest.split([' ', '\t']).filter(|f| !f.is_empty());
        // `override KEY NODE`: a node named `override` keeps its slot line
        // (`override`, `override weight=2`), since a key holds no `=`.
        if first == overrides::WORD && fields.clone().next().is_some_and(|f| !f.contains('=')) {
            pinned.read(number, fields)?;
            continue;
        }
        // (An empty line gets its own error, below.)
        if pinned.any() && !line.trim().is_empty() {
            return Err(TableError::BadOverride {
                line: number,
                why: "a slot line after an override line: override lines come after every slot \
                      (a slot's line number is its bucket)"
                    .into(),
            });
        }
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
    // Override lines alone: no slot for a key to go to.
    if n == 0 {
        return Err(TableError::Empty);
    }
    attributes.domains.resize_with(n, LineDomain::default);
    let domains = Domains::read(builder.names.len(), &builder.slots, &attributes.domains)?;
    let placement = attributes.placement(n)?;
    let pinned = pinned.resolve(&builder.index)?;
    let mut slots = builder.finish(placement)?;
    slots.overrides = pinned;
    slots.domains = domains;
    Ok(slots)
}

/// `line` without its comment: a `#` after a blank (space or tab) starts
/// one, running to the line's end. A `#` with no blank before it is text,
/// so that names holding `#` (`rack#2`, and `#2` at a line's start) read
/// as they always have.
fn without_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    match (1..bytes.len()).find(|&i| bytes[i] == b'#' && matches!(bytes[i - 1], b' ' | b'\t')) {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The slots named `names` in order (a name may serve several), keys
/// placed by `placement`.
pub(super) fn named<I, S>(names: I, placement: Placement) -> Result<Slots, TableError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut builder = Builder::new(MAX_SLOTS);
    for (i, name) in names.into_iter().enumerate() {
        builder.push(i + 1, name.as_ref())?;
    }
    builder.finish(placement)
}

/// The attributes of a table file's lines, gathered as they are read.
#[derive(Default)]
struct Attributes {
    /// (removal number K, its slot, its line).
    removed: Vec<(u64, u32, usize)>,
    /// (slot, weight, line).
    weights: Vec<(u32, f64, usize)>,
    /// The zone and rack of each slot line (lines after the last one
    /// that names either name neither).
    domains: Vec<LineDomain>,
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
            .ok_or_else(|| bad("is not an attribute: a line is NAME, then removed=K, weight=W, zone=Z or rack=R (names hold no whitespace)"))?;
        let slot = (line - 1) as u32;
        let key: &'static str = match key {
            "removed" => "removed",
            "weight" => "weight",
            "zone" => "zone",
            "rack" => "rack",
            _ => return Err(bad(
                "is not an attribute: a line is NAME, then removed=K, weight=W, zone=Z or rack=R",
            )),
        };
        let seen = match &mut self.current {
            Some((l, seen)) if *l == line => seen,
            current => &mut current.insert((line, Vec::new())).1,
        };
        if seen.contains(&key) {
            return Err(bad("is given twice on this line"));
        }
        seen.push(key);
        if key == "zone" || key == "rack" {
            if value.is_empty() {
                return Err(bad("needs a name"));
            }
            if self.domains.len() < line {
                self.domains.resize_with(line, LineDomain::default);
            }
            let domain = &mut self.domains[line - 1];
            match key {
                "zone" => domain.zone = Some(value.to_owned()),
                _ => domain.rack = Some(value.to_owned()),
            }
            return Ok(());
        }
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
            // A positive weight too small for a double reads as 0, which
            // drains the node: only a weight written as 0 may.
            let mantissa = value.split(['e', 'E']).next().unwrap_or(value);
            if w == 0.0 && mantissa.chars().any(|c| ('1'..='9').contains(&c)) {
                return Err(bad(
                    "is a positive weight below the smallest a double holds (about 5e-324), \
                     which would read as 0 and drain the node: write 0 to drain it",
                ));
            }
            self.weights.push((slot, w, line));
        }
        if let (Some(&(_, _, r)), Some(&(_, _, w))) = (self.removed.first(), self.weights.first()) {
            if r == w {
                let other = if key == "removed" {
                    "weight"
                } else {
                    "removed"
                };
                return Err(bad(&format!(
                    "cannot stand on the same line as {other}=: one line cannot carry both \
                     removed= and weight= (removals and weights do not combine)"
                )));
            }
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
    /// The names by their printed form.
    forms: Forms,
}

impl Builder {
    fn new(limit: usize) -> Builder {
        Builder {
            limit,
            names: Vec::new(),
            index: HashMap::new(),
            slots: Vec::new(),
            forms: Forms::default(),
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
        if !self.index.contains_key(name) {
            if let Some(other) = self.forms.look_alike(&self.names, name) {
                let other = &self.names[other as usize];
                return Err(TableError::LookAlike {
                    line,
                    name: name.to_owned(),
                    other: other.clone(),
                    other_line: self.index[other].1,
                });
            }
        }
        let next = self.names.len() as u32;
        let &mut (node, _) = self.index.entry(name.to_owned()).or_insert_with(|| {
            self.names.push(name.to_owned());
            (next, line)
        });
        self.slots.push(node);
        Ok(())
    }

    fn finish(self, placement: Placement) -> Result<Slots, TableError> {
        if self.slots.is_empty() {
            return Err(TableError::Empty);
        }
        Ok(Slots {
            index: self.index.into_iter().map(|(k, (i, _))| (k, i)).collect(),
            names: self.names,
            slots: self.slots,
            placement,
            overrides: BTreeMap::new(),
            domains: None,
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

    #[cfg(feature = "unicode-names")]
    #[test]
    fn names_that_print_alike_are_refused_with_both_lines() {
        let cases = [
            // NFC, then NFD.
            ("caf\u{e9}\nb\ncafe\u{301}\n", 3, "caf\u{e9}", 1),
            ("a\ncafe\u{301}\ncaf\u{e9}\n", 3, "cafe\u{301}", 2),
            // Fullwidth letters and a ligature against ASCII, either first.
            ("db\n\u{ff44}\u{ff42}\n", 2, "db", 1),
            ("\u{ff44}\u{ff42}\ndb\n", 2, "\u{ff44}\u{ff42}", 1),
            ("x\n\u{fb01}le\nfile\n", 3, "\u{fb01}le", 2),
            // The Angstrom sign and the letter.
            ("\u{212b}\n\u{c5}\n", 2, "\u{212b}", 1),
        ];
        for (text, line, other, other_line) in cases {
            match read(text) {
                Err(TableError::LookAlike {
                    line: l,
                    other: o,
                    other_line: ol,
                    ..
                }) => assert_eq!((l, o.as_str(), ol), (line, other, other_line), "{text:?}"),
                other => panic!("{text:?}: {:?}", other.err()),
            }
        }
        let err = read("caf\u{e9}\ncafe\u{301}\n").err().unwrap().to_string();
        // The message shows the combining accent escaped: the difference.
        let want = "line 2: node name \"cafe\\u{301}\" prints like \"caf\u{e9}\" of line 1";
        assert!(err.starts_with(want), "{err}");
        // One name repeated on purpose, and names that only look near.
        assert!(read("caf\u{e9}\n+caf\u{e9}\ncafe\nCAF\u{c9}\n").is_ok());
        assert!(named(["caf\u{e9}", "cafe\u{301}"], Placement::Jump).is_err());
    }

    #[test]
    fn a_hash_after_a_blank_starts_a_comment() {
        let names = |text: &str| {
            let slots = read(text).unwrap();
            let names: Vec<&str> = slots
                .slots
                .iter()
                .map(|&s| slots.names[s as usize].as_str())
                .collect();
            names.join(" ")
        };
        assert_eq!(
            names("db-a\ndb-b\n+db-a     # a second slot for the larger db-a\n"),
            "db-a db-b db-a"
        );
        assert_eq!(names("a\t#x\r\nb #\nc ## #\n"), "a b c");
        // A `#` without a blank before it belongs to the name.
        assert_eq!(names("rack#1\n#2\nc#  # three\n"), "rack#1 #2 c#");
        let slots = read("a weight=2 # heavier\nb\n").unwrap();
        assert_eq!(slots.slots.len(), 2);
        // The comment hides what follows it, attributes too.
        let slots = read("a\nb # removed=1\n").unwrap();
        assert_eq!(slots.slots.len(), 2);
        // An attribute glued to a `#` is still refused.
        assert!(read("a weight=2#x\nb\n").is_err());
        // A line that is only a comment has no name, blanks before it or
        // not.
        for text in ["a\n # b\n", "a\n   # b\n", "a\n \t \nb\n"] {
            let e = read(text).err().expect("refused").to_string();
            assert!(e.starts_with("line 2: empty line"), "{text:?}: {e}");
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
                "a weight=1e-400\nb\n",
                "line 1: \"weight=1e-400\" is a positive weight below the smallest",
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
            let got = read(text).err().expect("refused").to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
    }
}
