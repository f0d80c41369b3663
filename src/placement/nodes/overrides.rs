//! Override lines of a table file (`override KEY NODE`): keys pinned to a
//! node, consulted before the table's placement. A table without them
//! keeps an empty map and pays one emptiness check per lookup.

use std::collections::{BTreeMap, HashMap};

use super::table_error::TableError;

/// The word that starts an override line.
pub(super) const WORD: &str = "override";

/// A table's overrides: each key's node (an index into the table's
/// names), in key order for writing and fingerprints, and each key's slot
/// for lookups: the node's first slot that is not removed. A key whose
/// node has no working slot is left out of `slots`, so it takes its
/// normal slot.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Overrides {
    pub(super) nodes: BTreeMap<u64, u32>,
    pub(super) slots: HashMap<u64, u32>,
}

impl Overrides {
    /// The overrides `nodes`, each key sent to `live_slot(node)` when that
    /// node has a working slot.
    pub(super) fn new(nodes: BTreeMap<u64, u32>, live_slot: impl Fn(u32) -> Option<u32>) -> Self {
        let slots = nodes
            .iter()
            .filter_map(|(&key, &node)| live_slot(node).map(|slot| (key, slot)))
            .collect();
        Overrides { nodes, slots }
    }

    /// Whether the table has no override.
    pub(super) fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// `slot`, or the slot `key` is pinned to.
    #[inline]
    pub(super) fn slot(&self, key: u64, slot: u32) -> u32 {
        if self.slots.is_empty() {
            return slot;
        }
        self.slots.get(&key).copied().unwrap_or(slot)
    }

    /// Each of `keys`' slots in `out` replaced by its override.
    pub(super) fn apply(&self, keys: &[u64], out: &mut [u32]) {
        if self.slots.is_empty() {
            return;
        }
        for (key, slot) in keys.iter().zip(out) {
            if let Some(&pinned) = self.slots.get(key) {
                *slot = pinned;
            }
        }
    }

    /// Replica sets of `keys` (`columns[j][i]` member `j` of key `i`'s,
    /// column 0 the first members) with each pinned key's slot first:
    /// swapped with its place in the set, or replacing the first member.
    pub(super) fn pin_sets<C: AsMut<[u32]>>(&self, keys: &[u64], columns: &mut [C]) {
        if self.slots.is_empty() {
            return;
        }
        for (i, key) in keys.iter().enumerate() {
            let Some(&pinned) = self.slots.get(key) else {
                continue;
            };
            let first = columns[0].as_mut()[i];
            if let Some(j) = (1..columns.len()).find(|&j| columns[j].as_mut()[i] == pinned) {
                columns[j].as_mut()[i] = first;
            }
            columns[0].as_mut()[i] = pinned;
        }
    }
}

/// The override lines of a table file as read: (key, node name, line).
#[derive(Default)]
pub(super) struct Lines {
    read: Vec<(u64, String, usize)>,
    /// Each key's line, to name both lines of a repeat.
    lines: HashMap<u64, usize>,
}

impl Lines {
    /// Whether any override line was read.
    pub(super) fn any(&self) -> bool {
        !self.read.is_empty()
    }

    /// Reads the words after `override` on line `line`: KEY and NODE.
    pub(super) fn read<'a>(
        &mut self,
        line: usize,
        mut words: impl Iterator<Item = &'a str>,
    ) -> Result<(), TableError> {
        let bad = |why: String| TableError::BadOverride { line, why };
        let (Some(key), Some(node), None) = (words.next(), words.next(), words.next()) else {
            return Err(bad(
                "an override line is `override KEY NODE`: a key, then a node of the table".into(),
            ));
        };
        let key = parse_key(key).ok_or_else(|| {
            bad(format!(
                "{key:?} is not a key: a decimal u64 (0 to 18446744073709551615) or 0x and 1 \
                 to 16 hexadecimal digits"
            ))
        })?;
        if let Some(first) = self.lines.insert(key, line) {
            return Err(bad(format!(
                "key {key} is already overridden on line {first}"
            )));
        }
        self.read.push((key, node.to_owned(), line));
        Ok(())
    }

    /// The overrides as node indices, refusing a node not in the table.
    pub(super) fn resolve(
        self,
        index: &HashMap<String, (u32, usize)>,
    ) -> Result<BTreeMap<u64, u32>, TableError> {
        self.read
            .into_iter()
            .map(|(key, node, line)| match index.get(&node) {
                Some(&(i, _)) => Ok((key, i)),
                None => Err(TableError::BadOverride {
                    line,
                    why: format!("node {node:?} is not in the table"),
                }),
            })
            .collect()
    }
}

/// A key as an override line writes it: decimal, or `0x` and hex digits.
pub(super) fn parse_key(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex)
            if (1..=16).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_in_decimal_and_hex() {
        assert_eq!(parse_key("0"), Some(0));
        assert_eq!(parse_key("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_key("0xffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_key("0X1A"), Some(26));
        for bad in [
            "",
            "-1",
            "+1",
            "18446744073709551616",
            "0x",
            "0x10000000000000000",
            "1e3",
            "0xg",
        ] {
            assert_eq!(parse_key(bad), None, "{bad:?}");
        }
    }

    use crate::nodes::{restore, NodeRemoval, Removal};
    use crate::NodeTable;

    /// A key whose normal node is not `node` in `table`.
    fn key_off(table: &NodeTable, node: &str) -> u64 {
        (0..).find(|&k| table.node(k) != node).unwrap()
    }

    #[test]
    fn overrides_are_read_consulted_first_and_written_back() {
        let plain = NodeTable::parse("a\nb\nc\n").unwrap();
        let key = key_off(&plain, "c");
        let text = format!("a\nb\nc\noverride {key} c\noverride 0x10 a  # pinned\n");
        let table = NodeTable::parse(&text).unwrap();
        assert_eq!(table.node(key), "c");
        assert_eq!(table.node(16), "a");
        assert_eq!(table.override_count(), 2);
        let keys: Vec<u64> = (0..2000).chain([key, 16]).collect();
        let mut out = vec![0; keys.len()];
        table.batch(&keys, &mut out).unwrap();
        for (&k, &slot) in keys.iter().zip(&out) {
            assert_eq!(slot, table.bucket(k));
            let want = match k {
                16 => 0,
                k if k == key => 2,
                k => plain.bucket(k),
            };
            assert_eq!(slot, want, "{k}");
        }
        let mut pins: Vec<(u64, &str)> = vec![(16, "a"), (key, "c")];
        pins.sort();
        assert_eq!(table.overrides().collect::<Vec<_>>(), pins);
        let back = NodeTable::parse(&table.to_text()).unwrap();
        assert_eq!(back, table);
        assert_ne!(table.fingerprint(), plain.fingerprint());
        assert_eq!(
            table.with_overrides(Vec::<(u64, &str)>::new()).unwrap(),
            plain
        );
        // A node called `override` still names a slot.
        let named =
            NodeTable::parse("override\noverride7 weight=2\noverride 1 override\n").unwrap();
        assert_eq!((named.len(), named.node(1)), (2, "override"));
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "minutes under Miri; overrides are safe code, and the kernels' memory accesses have their own Miri tests"
    )]
    fn the_first_replica_is_the_override() {
        let table = NodeTable::parse("a\nb\nc\nd\n").unwrap();
        let keys: Vec<u64> = (0..500).collect();
        let pins: Vec<(u64, &str)> = keys.iter().map(|&k| (k, "d")).collect();
        let pinned = table.with_overrides(pins).unwrap();
        let (mut first, mut second) = (vec![0u32; 500], vec![0u32; 500]);
        let (mut f0, mut s0) = (vec![0u32; 500], vec![0u32; 500]);
        pinned
            .replicas_batch(&keys, &mut [&mut first, &mut second])
            .unwrap();
        table
            .replicas_batch(&keys, &mut [&mut f0, &mut s0])
            .unwrap();
        for i in 0..500 {
            assert_eq!(first[i], 3);
            assert_ne!(second[i], 3);
            if f0[i] != 3 && s0[i] != 3 {
                assert_eq!(second[i], s0[i], "the rest of the set stays");
            } else {
                assert!([f0[i], s0[i]].contains(&second[i]));
            }
        }
    }

    #[test]
    fn an_override_to_a_removed_node_falls_through_and_is_kept() {
        let plain = NodeTable::parse("a\nb\nc\n").unwrap();
        let key = key_off(&plain, "b");
        let text = format!("a\nb\nc\noverride {key} b\n");
        let table = NodeTable::parse(&text).unwrap();
        assert_eq!(table.node(key), "b");
        let removed = NodeRemoval::new(&table, "b")
            .unwrap()
            .table(&Removal::Memento)
            .unwrap();
        assert_eq!(removed.node(key), plain.node(key), "its normal node");
        assert_eq!(removed.override_count(), 1);
        assert!(removed.to_text().ends_with(&format!("override {key} b\n")));
        let (restored, _) = restore(&removed, None).unwrap();
        assert_eq!(restored, table);
        let gone = NodeTable::parse(&format!("a\nb removed=1\nc\noverride {key} b\n")).unwrap();
        assert_eq!(gone.node(key), removed.node(key));
    }

    #[test]
    fn bad_override_lines_are_refused_with_their_line() {
        let cases = [
            (
                "a\nb\noverride 1 c\n",
                "line 3: node \"c\" is not in the table",
            ),
            (
                "a\nb\noverride 1 a\noverride 0x1 b\n",
                "line 4: key 1 is already overridden on line 3",
            ),
            ("a\nb\noverride -1 a\n", "line 3: \"-1\" is not a key"),
            ("a\nb\noverride 1.5 a\n", "line 3: \"1.5\" is not a key"),
            (
                "a\nb\noverride 1\n",
                "line 3: an override line is `override KEY NODE`",
            ),
            ("a\nb\noverride 1 a b\n", "line 3: an override line is"),
            (
                "a\noverride 1 a\nb\n",
                "line 3: a slot line after an override line",
            ),
            // Override lines alone (found by the fuzzer: the table of no
            // slot panicked making its placement).
            ("override 77 7773\n", "the table has no node"),
            (
                "\u{FEFF}override 1 a\noverride 2 a\n",
                "the table has no node",
            ),
        ];
        for (text, want) in cases {
            let got = NodeTable::parse(text).expect_err("refused").to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
        let table = NodeTable::parse("a\nb\n").unwrap();
        assert!(table.with_overrides([(1, "a"), (1, "b")]).is_err());
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "minutes under Miri; overrides are safe code, and the kernels' memory accesses have their own Miri tests"
    )]
    fn a_change_of_table_moves_exactly_the_overridden_keys() {
        use crate::nodes::{NodePlan, TableChange};
        let plain = NodeTable::parse("a\nb\nc\n").unwrap();
        let keys: Vec<u64> = (0..3000).collect();
        // Every seventh key pinned to the node after its own.
        let names = ["a", "b", "c"];
        let pins: Vec<(u64, &str)> = keys
            .iter()
            .step_by(7)
            .map(|&k| (k, names[(plain.bucket(k) as usize + 1) % 3]))
            .collect();
        let pinned = plain.with_overrides(pins.clone()).unwrap();
        for (old, new) in [(&plain, &pinned), (&pinned, &plain)] {
            let change = TableChange::new(old, new);
            let mut plan = NodePlan::new();
            change.plan(&keys, 0, &mut plan, true);
            let moved: Vec<u64> = plan.moves().map(|m| m.position).collect();
            let want: Vec<u64> = pins.iter().map(|p| p.0).collect();
            assert_eq!(moved, want);
            for &key in &keys {
                let (from, to) = change.nodes_of(key);
                let nodes = change.nodes();
                assert_eq!(
                    (nodes[from as usize].as_str(), nodes[to as usize].as_str()),
                    (old.node(key), new.node(key))
                );
            }
        }
    }
}
