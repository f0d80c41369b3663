//! The zoned tables after the changes a plan is asked about: a node added
//! in a zone, a zone lost, a zone added (a node removed is
//! [`crate::nodes::NodeRemoval`]'s). Each is the table a
//! [`crate::TableChange::with_zoned_replicas`] plan compares against.

use super::ZoneError;
use crate::nodes::name_problem;
use crate::NodeTable;

impl NodeTable {
    /// This zoned table with node `node` appended as its last slot, in zone
    /// `zone` (which the table must have) and rack `rack`, its overrides
    /// kept. Fails with [`ZoneError::BadName`] for a name a slot line
    /// cannot hold as given (whitespace, a leading `+`, empty),
    /// [`ZoneError::UnknownZone`], [`ZoneError::Removals`] when the table
    /// has removals (a slot appended beside them would move other keys),
    /// or [`ZoneError::Table`] for a name the table refuses (one it has
    /// already).
    ///
    /// ```
    /// use jumpshard::NodeTable;
    ///
    /// let table = NodeTable::parse("a zone=x\nb zone=y\n")?;
    /// let grown = table.with_node_added("c", "x", None)?;
    /// assert_eq!(grown.to_text(), "a zone=x\nb zone=y\nc zone=x\n");
    /// assert!(table.with_node_added("c", "w", None).is_err());
    /// // Not a name: it would read as node `c` of weight 5.
    /// assert!(table.with_node_added("c weight=5", "x", None).is_err());
    /// // Beside a removal, restore it instead.
    /// let lost = NodeTable::parse("a zone=x\nb zone=y removed=1\nc zone=y\n")?;
    /// assert!(lost.with_node_added("d", "x", None).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_node_added(
        &self,
        node: &str,
        zone: &str,
        rack: Option<&str>,
    ) -> Result<NodeTable, ZoneError> {
        fit("node", node)?;
        fit("zone", zone)?;
        if let Some(rack) = rack {
            fit("rack", rack)?;
        }
        self.known_zone(zone)?;
        let mut line = format!("{node} zone={zone}");
        if let Some(rack) = rack {
            line.push_str(&format!(" rack={rack}"));
        }
        self.appended(&[line])
    }

    /// This zoned table with every node of zone `zone` removed,
    /// Memento-style, in table order. Fails with
    /// [`ZoneError::UnknownZone`], [`ZoneError::LastZone`] when the
    /// zone holds every live node, or [`ZoneError::Weighted`] on a
    /// weighted table, which holds no removals: its zone is drained by
    /// giving the zone's nodes `weight=0`.
    pub fn with_zone_lost(&self, zone: &str) -> Result<NodeTable, ZoneError> {
        self.known_zone(zone)?;
        if self.weights().is_some() {
            return Err(ZoneError::Weighted);
        }
        let live_elsewhere =
            (0..self.nodes().len()).any(|n| self.is_live(n) && self.zone_of(n) != Some(zone));
        if !live_elsewhere {
            return Err(ZoneError::LastZone { zone: zone.into() });
        }
        // Each live node of the zone, in table order, removed as
        // `NodeRemoval`'s Memento option removes one: in one pass, since a
        // table rebuilt per node cost time quadratic in the table.
        let groups: Vec<Vec<usize>> = (self.nodes().iter().enumerate())
            .filter(|&(n, _)| self.zone_of(n) == Some(zone) && self.is_live(n))
            .map(|(_, name)| {
                let mut slots = self.slots_of(name);
                slots.retain(|&s| !self.is_removed(s));
                slots
            })
            .collect();
        Ok(self.with_slots_removed(groups.iter().map(Vec::as_slice)))
    }

    /// This zoned table with a new zone `zone` of `nodes` appended (racks
    /// none). Fails with [`ZoneError::BadName`] for a name a slot line
    /// cannot hold as given, [`ZoneError::ZoneExists`] when the zone exists
    /// already or has no node, [`ZoneError::Removals`] when the table has
    /// removals, or [`ZoneError::Table`] for a node name the table
    /// refuses.
    pub fn with_zone_added(&self, zone: &str, nodes: &[&str]) -> Result<NodeTable, ZoneError> {
        fit("zone", zone)?;
        for node in nodes {
            fit("node", node)?;
        }
        if self.zones().iter().any(|z| z == zone) || nodes.is_empty() {
            return Err(ZoneError::ZoneExists { zone: zone.into() });
        }
        let lines: Vec<String> = nodes.iter().map(|n| format!("{n} zone={zone}")).collect();
        self.appended(&lines)
    }

    /// Fails unless the table is zoned and has zone `zone`.
    fn known_zone(&self, zone: &str) -> Result<(), ZoneError> {
        if !self.is_zoned() {
            return Err(ZoneError::NotZoned);
        }
        if !self.zones().iter().any(|z| z == zone) {
            return Err(ZoneError::UnknownZone { zone: zone.into() });
        }
        Ok(())
    }

    /// This table with slot `lines` appended after its slots (before its
    /// override lines), unless it has removals: a Memento grows only once
    /// they are undone, and a slot appended beside them would change where
    /// the removed slots' keys go.
    fn appended(&self, lines: &[String]) -> Result<NodeTable, ZoneError> {
        if !self.removals().is_empty() {
            return Err(ZoneError::Removals {
                removed: self.removals().len(),
            });
        }
        let text = self.to_text();
        // `to_text` writes one line per slot, then the overrides.
        let mut rows: Vec<&str> = text.lines().collect();
        let tail = rows.split_off(self.len());
        rows.extend(lines.iter().map(String::as_str));
        rows.extend(tail);
        NodeTable::parse(&(rows.join("\n") + "\n")).map_err(ZoneError::Table)
    }
}

/// Fails with [`ZoneError::BadName`] unless `name` can stand on a slot
/// line as the `what` (node, zone or rack) it names, and read back as that
/// name alone.
fn fit(what: &'static str, name: &str) -> Result<(), ZoneError> {
    let why = match name.is_empty() {
        true => Some("is empty"),
        false => name_problem(name),
    };
    why.map_or(Ok(()), |why| {
        Err(ZoneError::BadName {
            what,
            name: name.into(),
            why,
        })
    })
}
