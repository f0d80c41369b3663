//! `jumpshard table add-node`, `lose-zone` and `add-zone`: the zoned table
//! after one change, written whole (or not at all), so that the change's
//! move plan is one `reshard --from-nodes OLD --to-nodes NEW --replicas K`
//! away.

use std::path::Path;

use jumpshard::NodeTable;

use crate::node_tables;
use crate::out::clash::{self, InputFiles};
use crate::out::format_name::check_fixed_outputs;

/// The change a zone subcommand makes.
pub enum Change<'a> {
    /// A node appended in a zone (and rack).
    AddNode {
        node: &'a str,
        zone: &'a str,
        rack: Option<&'a str>,
    },
    /// Every node of a zone removed.
    LoseZone { zone: &'a str },
    /// A new zone of nodes appended.
    AddZone { zone: &'a str, nodes: &'a [String] },
}

/// Reads `table`, applies `change` and writes the result to `write_table`
/// (`-`: standard output), which must not be `table`; errors name the file
/// and the value refused.
pub fn run(table: &Path, change: Change<'_>, write_table: &Path) -> Result<(), String> {
    let outputs = [("--write-table", Some(write_table))];
    check_fixed_outputs(&outputs)?;
    let old = node_tables::read_or_stdin(table)?;
    // Never over the table read: the change's move plan needs both.
    clash::check(&outputs, &InputFiles::default().with("TABLE", table))?;
    let new = changed(&old, &change).map_err(|e| match e {
        // A name given on the command line, not the file's.
        jumpshard::zones::ZoneError::BadName { .. } => e.to_string(),
        _ => format!("{}: {e}", table.display()),
    })?;
    node_tables::prepare(write_table, &new)?.commit()
}

fn changed(old: &NodeTable, change: &Change<'_>) -> Result<NodeTable, jumpshard::zones::ZoneError> {
    match *change {
        Change::AddNode { node, zone, rack } => old.with_node_added(node, zone, rack),
        Change::LoseZone { zone } => old.with_zone_lost(zone),
        Change::AddZone { zone, nodes } => {
            let nodes: Vec<&str> = nodes.iter().map(String::as_str).collect();
            old.with_zone_added(zone, &nodes)
        }
    }
}
