//! Failure domains of a node table: each node's zone (`zone=NAME`) and,
//! inside it, its rack (`rack=NAME`). A table is zoned when any slot line
//! names a zone; then every slot line names one, and the slots of one node
//! agree on zone and rack. Zone and rack names follow the rules of node
//! names. The walk that places replica sets across them is
//! [`crate::zones`]'.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::names::{name_problem, printed};
use super::table_error::TableError;

/// The zone and rack of every node of a zoned table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Domains {
    /// The distinct zone names, in the order of their first node.
    pub(crate) zones: Vec<String>,
    /// The distinct rack names, in the order of their first node (a
    /// rack's identity is its zone and its name).
    pub(crate) racks: Vec<String>,
    /// Each node's zone, an index into `zones`.
    pub(crate) zone: Vec<u32>,
    /// Each node's rack, an index into `racks`, when its lines name one.
    pub(crate) rack: Vec<Option<u32>>,
}

/// The zone and rack one slot line names, with its line.
#[derive(Clone, Debug, Default)]
pub(super) struct LineDomain {
    pub(super) zone: Option<String>,
    pub(super) rack: Option<String>,
}

impl Domains {
    /// The domains of a table whose slot `i` is served by node
    /// `slots[i]` (of `nodes` distinct ones) and whose line `i + 1` names
    /// `lines[i]`: `None` when no line names a zone. Refused, naming the
    /// line: a line without a zone in a zoned table, a rack without a
    /// zone, an unfit zone or rack name, one that prints like another
    /// (of its zone, for a rack), and a node whose slots disagree.
    pub(super) fn read(
        nodes: usize,
        slots: &[u32],
        lines: &[LineDomain],
    ) -> Result<Option<Domains>, TableError> {
        let bad = |line: usize, why: String| TableError::BadZone { line, why };
        if let Some(i) = lines
            .iter()
            .position(|l| l.rack.is_some() && l.zone.is_none())
        {
            return Err(bad(
                i + 1,
                "rack= without zone=: a rack stands inside a zone".into(),
            ));
        }
        if lines.iter().all(|l| l.zone.is_none()) {
            return Ok(None);
        }
        let mut domains = Domains {
            zones: Vec::new(),
            racks: Vec::new(),
            zone: vec![u32::MAX; nodes],
            rack: vec![None; nodes],
        };
        let mut zone_index: HashMap<&str, u32> = HashMap::new();
        let mut rack_index: HashMap<(u32, &str), u32> = HashMap::new();
        // The printed forms of the zones, and of each zone's racks.
        let mut printed_as = PrintedAs::new();
        // The line of each node's first slot, for the message of a repeat
        // that disagrees.
        let mut first_line = vec![0usize; nodes];
        for (i, (line, &node)) in lines.iter().zip(slots).enumerate() {
            let number = i + 1;
            let zone = line.zone.as_deref().ok_or_else(|| {
                bad(
                    number,
                    "names no zone, but the table is zoned: every slot line needs zone=NAME".into(),
                )
            })?;
            for (what, name) in [("zone", Some(zone)), ("rack", line.rack.as_deref())] {
                let Some(name) = name else { continue };
                if let Some(why) = name_problem(name) {
                    return Err(bad(number, format!("{what} name {name:?} {why}")));
                }
            }
            if !zone_index.contains_key(zone) {
                unlike(&mut printed_as, "zone", None, zone, number)?;
            }
            let next = domains.zones.len() as u32;
            let z = *zone_index.entry(zone).or_insert_with(|| {
                domains.zones.push(zone.to_owned());
                next
            });
            if let Some(rack) = line.rack.as_deref() {
                if !rack_index.contains_key(&(z, rack)) {
                    unlike(&mut printed_as, "rack", Some(z), rack, number)?;
                }
            }
            let r = line.rack.as_deref().map(|rack| {
                let next = domains.racks.len() as u32;
                *rack_index.entry((z, rack)).or_insert_with(|| {
                    domains.racks.push(rack.to_owned());
                    next
                })
            });
            let node = node as usize;
            if domains.zone[node] == u32::MAX {
                domains.zone[node] = z;
                domains.rack[node] = r;
                first_line[node] = number;
            } else if (domains.zone[node], domains.rack[node]) != (z, r) {
                return Err(bad(
                    number,
                    format!(
                        "zone or rack differs from the node's slot of line {}: the slots of one \
                         node share its zone and rack",
                        first_line[node]
                    ),
                ));
            }
        }
        Ok(Some(domains))
    }

    /// The zone and rack `to_text` writes after a slot of `node`.
    pub(crate) fn attributes(&self, node: usize) -> String {
        let mut text = format!(" zone={}", self.zones[self.zone[node] as usize]);
        if let Some(r) = self.rack[node] {
            text.push_str(&format!(" rack={}", self.racks[r as usize]));
        }
        text
    }

    /// The zone name of `node`.
    pub(crate) fn zone_name(&self, node: usize) -> &str {
        &self.zones[self.zone[node] as usize]
    }

    /// The rack name of `node`, if its lines name one.
    pub(crate) fn rack_name(&self, node: usize) -> Option<&str> {
        self.rack[node].map(|r| self.racks[r as usize].as_str())
    }

    /// The domains of a table of nodes `names` taken from a table of
    /// nodes `from_names` with these domains, each node keeping its zone
    /// and rack; a node `from_names` lacks is refused, naming its line,
    /// but for `renamed`'s `(new, old)`, which takes the old node's.
    pub(super) fn carried(
        &self,
        from_names: &HashMap<String, u32>,
        names: &[String],
        renamed: Option<(&str, &str)>,
        first_lines: impl Fn(usize) -> usize,
    ) -> Result<Domains, TableError> {
        let mut lines = Vec::with_capacity(names.len());
        for (node, name) in names.iter().enumerate() {
            let inherited = renamed
                .filter(|&(new, _)| new == name)
                .and_then(|(_, old)| from_names.get(old));
            let Some(&old) = from_names.get(name).or(inherited) else {
                return Err(TableError::BadZone {
                    line: first_lines(node),
                    why: format!(
                        "node {name:?} is new to a zoned table, so it has no zone: write the \
                         table with zone=NAME on its line"
                    ),
                });
            };
            lines.push(LineDomain {
                zone: Some(self.zone_name(old as usize).to_owned()),
                rack: self.rack_name(old as usize).map(str::to_owned),
            });
        }
        let slots: Vec<u32> = (0..names.len() as u32).collect();
        Ok(Domains::read(names.len(), &slots, &lines)?.expect("every line names a zone"))
    }
}

/// The printed form ([`printed`]) of each zone (`None`) and of each
/// zone's racks (`Some(zone)`) so far, with the name and line that gave it.
type PrintedAs<'a> = HashMap<(Option<u32>, String), (&'a str, usize)>;

/// Records `name`, a `what` (zone, or rack of zone `within`) new to the
/// table on line `line`; refused when one read before prints alike (`z1`
/// and `ｚ1`): two domains that every report would call one.
fn unlike<'a>(
    printed_as: &mut PrintedAs<'a>,
    what: &str,
    within: Option<u32>,
    name: &'a str,
    line: usize,
) -> Result<(), TableError> {
    match printed_as.entry((within, printed(name).into_owned())) {
        Entry::Occupied(seen) => {
            let (other, other_line) = *seen.get();
            Err(TableError::BadZone {
                line,
                why: format!(
                    "{what} name {name:?} prints like {other:?} of line {other_line} (both are \
                     the same text once Unicode-normalised, NFKC), so reports could not tell \
                     the two apart: spell one {what} one way"
                ),
            })
        }
        Entry::Vacant(new) => {
            new.insert((name, line));
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::NodeTable;

    /// Zone names, and rack names within a zone, that print alike are
    /// refused as node names are; one rack name in two zones is two racks.
    #[cfg(feature = "unicode-names")]
    #[test]
    fn zones_and_racks_that_print_alike_are_refused() {
        let zones = NodeTable::parse("a zone=z1\nb zone=\u{ff5a}1\nc zone=z2\n");
        let want = "line 2: zone name \"\u{ff5a}1\" prints like \"z1\" of line 1";
        assert!(zones.unwrap_err().to_string().starts_with(want));
        let racks =
            NodeTable::parse("a zone=z rack=caf\u{e9}\nb zone=z rack=cafe\u{301}\nc zone=y\n");
        let want = "line 2: rack name \"cafe\\u{301}\" prints like \"caf\u{e9}\" of line 1";
        let got = racks.unwrap_err().to_string();
        assert!(got.starts_with(want), "{got}");
        let apart = NodeTable::parse("a zone=x rack=r1\nb zone=y rack=r1\nc zone=x rack=r1\n");
        assert_eq!(apart.unwrap().zones(), ["x", "y"]);
        let grown = NodeTable::parse("a zone=z1\nb zone=z2\n").unwrap();
        assert!(grown.with_zone_added("\u{ff5a}1", &["c"]).is_err());
    }

    #[test]
    fn zones_and_racks_read_back_and_unzoned_tables_stay_as_they_were() {
        let text = "a zone=east rack=r1\nb zone=west\n+a zone=east rack=r1\nc zone=west rack=r1 removed=1\nd zone=east\n";
        let table = NodeTable::parse(text).unwrap();
        assert!(table.is_zoned());
        assert_eq!(table.zones(), ["east", "west"]);
        assert_eq!(table.zone_of(2), Some("west"));
        assert_eq!((table.rack_of(0), table.rack_of(1)), (Some("r1"), None));
        assert_eq!(table.to_text(), text);
        assert_eq!(NodeTable::parse(&table.to_text()).unwrap(), table);
        // Attributes in any order, comments, blanks: the same table.
        let respelled = NodeTable::parse(
            "a rack=r1  zone=east # first\nb\tzone=west\n+a zone=east rack=r1\nc removed=1 rack=r1 zone=west\nd zone=east",
        )
        .unwrap();
        assert_eq!(respelled, table);
        assert_eq!(respelled.fingerprint(), table.fingerprint());
        let plain = NodeTable::parse("a\nb\nc\n").unwrap();
        assert!(!plain.is_zoned() && plain.zones().is_empty() && plain.zone_of(0).is_none());
        assert_eq!(plain.to_text(), "a\nb\nc\n");
        assert!(plain.zoned_replicas().is_err());
    }

    #[test]
    fn bad_domains_are_refused_naming_the_line() {
        let cases = [
            (
                "a zone=x\nb\n",
                "line 2: names no zone, but the table is zoned",
            ),
            ("a\nb zone=x\n", "line 1: names no zone"),
            ("a zone=x\nb rack=r\n", "line 2: rack= without zone="),
            (
                "a zone=x\n+a zone=y\n",
                "line 2: zone or rack differs from the node's slot of line 1",
            ),
            (
                "a zone=x rack=1\nb zone=x\n+a zone=x\n",
                "line 3: zone or rack differs",
            ),
            ("a zone=x\nb zone=\n", "line 2: \"zone=\" needs a name"),
            ("a zone=x zone=y\n", "line 1: \"zone=y\" is given twice"),
            (
                "a zone=x\nb zone=+y\n",
                "line 2: zone name \"+y\" starts with '+'",
            ),
            (
                "a zone=x\nb zone=y rack=r,s\n",
                "line 2: rack name \"r,s\" contains ','",
            ),
            (
                "a zone=x\nb zone=\u{200B}y\n",
                "line 2: zone name \"\\u{200b}y\" contains an invisible",
            ),
        ];
        for (text, want) in cases {
            let got = NodeTable::parse(text).expect_err(text).to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
    }

    #[test]
    fn removals_and_restores_keep_each_node_in_its_zone() {
        use crate::nodes::{restore, NodeRemoval, Removal};
        let table = NodeTable::parse("a zone=x\nb zone=y rack=r\nc zone=x\nd zone=y\n").unwrap();
        let removed = NodeRemoval::new(&table, "b")
            .unwrap()
            .table(&Removal::Memento)
            .unwrap();
        assert_eq!(
            removed.to_text(),
            "a zone=x\nb zone=y rack=r removed=1\nc zone=x\nd zone=y\n"
        );
        let (back, slot) = restore(&removed, None).unwrap();
        assert_eq!((back, slot), (table.clone(), 1));
        // A new node restored into a zoned table has no zone: refused.
        let err = restore(&table, Some("e")).unwrap_err().to_string();
        assert!(err.contains("node \"e\" is new to a zoned table"), "{err}");
    }
}
