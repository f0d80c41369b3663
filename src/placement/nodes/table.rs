//! The node table itself: its slots indexed by node, the slot of a key,
//! writing it back. Reading the file is [`super::table_file`]'s.

use std::collections::{BTreeMap, HashMap};

use super::domains::Domains;
use super::fingerprint::{Hasher, TableFingerprint};
use super::overrides::Overrides;
use super::placement::Placement;
use super::table_error::TableError;
use super::table_file::{self, Slots};
use crate::{BucketCount, Error, Memento};

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
    /// Keys pinned to a node, consulted after the placement.
    overrides: Overrides,
    /// Each node's zone and rack, when the table is zoned.
    domains: Option<Domains>,
}

impl NodeTable {
    /// The table whose slot `i` is served by `slots[i]`, keys placed by
    /// Figure 1; a name may serve several slots. Fails on an empty list,
    /// an empty or unfit name (see the module documentation) and more than
    /// [`MAX_SLOTS`](super::MAX_SLOTS) slots.
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
        table_file::named(slots, Placement::Jump).map(NodeTable::indexed)
    }

    /// The table written in the table-file syntax (see the module
    /// documentation), refusing empty lines, unfit names, unmarked
    /// repeats, bad attributes and removals that do not replay, with the
    /// line they are on.
    pub fn parse(text: &str) -> Result<NodeTable, TableError> {
        table_file::read(text).map(NodeTable::indexed)
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
            if let Some(domains) = &self.domains {
                text.push_str(&domains.attributes(node as usize));
            }
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
        for (key, node) in self.overrides() {
            text.push_str(&format!("override {key} {node}\n"));
        }
        text
    }

    /// The fingerprint of what this table means: its slots' names in
    /// order, its removals in their order and its weights, and nothing of
    /// how its file is written (comments, spacing, the order of a line's
    /// attributes, the spelling of numbers). Two routers whose tables have
    /// the same fingerprint place every key alike; the encoding is
    /// [`crate::nodes::fingerprint`]'s.
    ///
    /// ```
    /// use jumpshard::NodeTable;
    ///
    /// let a = NodeTable::parse("db-a\ndb-b removed=1\ndb-c\n")?;
    /// let b = NodeTable::parse("db-a   # primary rack\ndb-b\tremoved=1\r\ndb-c")?;
    /// assert_eq!(a.fingerprint(), b.fingerprint());
    /// assert!(a.fingerprint().to_string().starts_with("jt1:"));
    /// # Ok::<(), jumpshard::TableError>(())
    /// ```
    pub fn fingerprint(&self) -> TableFingerprint {
        // Only a table with removals pays for their index.
        let removed = if self.removals().is_empty() {
            0
        } else {
            self.len()
        };
        let mut removal = vec![None; removed];
        for (k, &slot) in self.removals().iter().enumerate() {
            // At most MAX_SLOTS removals: K fits.
            removal[slot as usize] = Some(k as u32 + 1);
        }
        let mut hasher = Hasher::new(self.len());
        for slot in 0..self.len() {
            let weight = self.weights().map(|w| w[slot]);
            let node = self.slots[slot] as usize;
            let domain = self
                .domains
                .as_ref()
                .map(|d| (d.zone_name(node), d.rack_name(node)));
            hasher.slot(
                self.slot(slot),
                removal.get(slot).copied().flatten(),
                weight,
                domain,
            );
        }
        for (key, node) in self.overrides() {
            hasher.pin(key, node);
        }
        hasher.finish()
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

    /// The table's overrides.
    pub(super) fn pins(&self) -> &Overrides {
        &self.overrides
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

    /// Whether slot `i` is removed (false past the table's slots).
    pub fn is_removed(&self, i: usize) -> bool {
        let slot = u32::try_from(i);
        self.memento()
            .is_some_and(|m| slot.is_ok_and(|slot| m.is_removed(slot)))
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
        let slot = self.placement.bucket(key, self.bucket_count());
        self.overrides.slot(key, slot)
    }

    /// [`NodeTable::bucket`] of every key, on the kernels. Fails with
    /// [`Error::LengthMismatch`], leaving `out` untouched, when the lengths
    /// differ.
    pub fn batch(&self, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        self.batch_on(crate::active_kernel(), keys, out)
    }

    /// The overridden keys and their nodes, in increasing key order (the
    /// file's `override KEY NODE` lines), those whose node serves no
    /// working slot included.
    pub fn overrides(&self) -> impl Iterator<Item = (u64, &str)> + '_ {
        self.overrides
            .nodes
            .iter()
            .map(|(&key, &node)| (key, self.names[node as usize].as_str()))
    }

    /// The slot `key` is pinned to, when an override names it and its
    /// node has a working slot: what a byte key's lookup consults with its
    /// prehash ([`crate::bytes::prehash`]).
    pub fn pinned(&self, key: u64) -> Option<u32> {
        self.overrides.slots.get(&key).copied()
    }

    /// The number of overridden keys.
    pub fn override_count(&self) -> usize {
        self.overrides.nodes.len()
    }

    /// This table with its overrides replaced by `pins` (key, node),
    /// sorted or not; an empty list gives the table without overrides.
    /// Fails when a key is given twice or a node is not in the table.
    ///
    /// ```
    /// use jumpshard::NodeTable;
    ///
    /// let table = NodeTable::parse("a\nb\nc\n")?;
    /// let pinned = table.with_overrides([(7, "c"), (8, "a")])?;
    /// assert_eq!(pinned.node(7), "c");
    /// assert_eq!(pinned.to_text(), "a\nb\nc\noverride 7 c\noverride 8 a\n");
    /// assert!(table.with_overrides([(7, "z")]).is_err());
    /// # Ok::<(), jumpshard::TableError>(())
    /// ```
    pub fn with_overrides<I, S>(&self, pins: I) -> Result<NodeTable, TableError>
    where
        I: IntoIterator<Item = (u64, S)>,
        S: AsRef<str>,
    {
        let mut nodes = BTreeMap::new();
        for (i, (key, node)) in pins.into_iter().enumerate() {
            // Numbered as if written after the slots.
            let line = self.len() + i + 1;
            let node = node.as_ref();
            let index = self
                .index
                .get(node)
                .ok_or_else(|| TableError::BadOverride {
                    line,
                    why: format!("node {node:?} is not in the table"),
                })?;
            if nodes.insert(key, *index).is_some() {
                return Err(TableError::BadOverride {
                    line,
                    why: format!("key {key} is overridden twice"),
                });
            }
        }
        let mut table = self.clone();
        table.overrides = Overrides::new(nodes, |node| table.live_slot(node));
        Ok(table)
    }

    /// Whether the table's lines name failure domains (`zone=NAME`).
    pub fn is_zoned(&self) -> bool {
        self.domains.is_some()
    }

    /// The zone of node `i` of [`NodeTable::nodes`], in a zoned table;
    /// panics when `i` is not a node's index.
    pub fn zone_of(&self, node: usize) -> Option<&str> {
        assert!(
            node < self.names.len(),
            "node {node} of {}",
            self.names.len()
        );
        self.domains.as_ref().map(|d| d.zone_name(node))
    }

    /// The rack of node `i` of [`NodeTable::nodes`], when its lines name
    /// one; panics when `i` is not a node's index.
    pub fn rack_of(&self, node: usize) -> Option<&str> {
        assert!(
            node < self.names.len(),
            "node {node} of {}",
            self.names.len()
        );
        self.domains.as_ref().and_then(|d| d.rack_name(node))
    }

    /// The distinct zone names, in the order of their first node (empty
    /// when the table is not zoned).
    pub fn zones(&self) -> &[String] {
        self.domains.as_ref().map_or(&[], |d| &d.zones[..])
    }

    /// The failure domains, when the table is zoned.
    pub(crate) fn domains(&self) -> Option<&Domains> {
        self.domains.as_ref()
    }

    /// This table with the zones and racks of `from`'s nodes, each node
    /// keeping its own; a node `from` lacks is refused, naming its line,
    /// but for `renamed`'s `(new, old)`: the new node takes the old one's.
    pub(super) fn keeping_domains(
        mut self,
        from: &NodeTable,
        renamed: Option<(&str, &str)>,
    ) -> Result<NodeTable, TableError> {
        let Some(domains) = &from.domains else {
            return Ok(self);
        };
        let first_line = |node: usize| self.node_slots(node)[0] as usize + 1;
        let carried = domains.carried(&from.index, &self.names, renamed, first_line)?;
        self.domains = Some(carried);
        Ok(self)
    }

    /// This table with the overrides of `from` whose node it still names
    /// (a node gone from the table takes its keys' overrides with it).
    pub(super) fn keeping_overrides(self, from: &NodeTable) -> NodeTable {
        if from.overrides.is_empty() {
            return self;
        }
        let pins: Vec<(u64, &str)> = from
            .overrides()
            .filter(|(_, node)| self.index.contains_key(*node))
            .collect();
        self.with_overrides(pins)
            .expect("distinct keys naming nodes of the table")
    }

    /// `columns` (replica sets of `keys`, column 0 the first members)
    /// with each pinned key's slot first ([`Overrides::pin_sets`]).
    pub(super) fn pin_replicas(&self, keys: &[u64], columns: &mut [&mut [u32]]) {
        self.overrides.pin_sets(keys, columns);
    }

    /// The first working slot of node `node`.
    pub(super) fn live_slot(&self, node: u32) -> Option<u32> {
        self.node_slots(node as usize)
            .iter()
            .copied()
            .find(|&slot| !self.is_removed(slot as usize))
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
        let names = (0..self.len()).map(|i| rename(i, self.slot(i)));
        table_file::named(names, self.placement.clone()).map(NodeTable::indexed)
    }

    /// This table's slots named `names` (as many or fewer), keys placed by
    /// the Memento state `memento` (its b-array being their number).
    pub(super) fn with_memento<S: AsRef<str>>(
        names: &[S],
        memento: Memento,
    ) -> Result<NodeTable, TableError> {
        let placement = if memento.removals().is_empty() {
            Placement::Jump
        } else {
            Placement::Memento(memento)
        };
        table_file::named(names, placement).map(NodeTable::indexed)
    }

    /// The table of `slots`, each node's slots indexed.
    fn indexed(slots: Slots) -> NodeTable {
        let Slots {
            names,
            index,
            slots,
            placement,
            overrides,
            domains,
        } = slots;
        // A counting sort of the slots by node.
        let mut starts = vec![0u32; names.len() + 1];
        for &node in &slots {
            starts[node as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut by_node = vec![0u32; slots.len()];
        for (slot, &node) in slots.iter().enumerate() {
            by_node[next[node as usize] as usize] = slot as u32;
            next[node as usize] += 1;
        }
        let mut table = NodeTable {
            names,
            slots,
            index,
            starts,
            by_node,
            placement,
            overrides: Overrides::default(),
            domains,
        };
        if !overrides.is_empty() {
            table.overrides = Overrides::new(overrides, |node| table.live_slot(node));
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removals_and_weights_read_back() {
        let text = "a\nb removed=2\nc\nd removed=1\ne\n";
        let table = NodeTable::parse(text).unwrap();
        assert_eq!(table.removals(), [3, 1]);
        assert!(table.is_removed(1) && !table.is_removed(0));
        // Past the table, even at an index that is 1 modulo 2^32.
        assert!(!table.is_removed(5) && !table.is_removed((1usize << 32) | 1));
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
}
