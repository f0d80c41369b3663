//! `jumpshard restore --from-nodes OLD --write-table NEW`: bring back the
//! newest removal of a table's removal log (Memento's restore, last
//! removed first), optionally under another node's name; with nothing
//! removed, grow the table by one slot.
//!
//! Exactly the keys that left the slot come back to it; `reshard
//! --from-nodes OLD --to-nodes NEW` lists them.

use std::path::PathBuf;

use jumpshard::nodes::{restore, RestoreError, TableError};

use crate::node_tables;
use crate::out::clash::{self, InputFiles};
use crate::out::destination::{committed, is_stdout, shown};
use crate::out::format_name::check_fixed_outputs;
use crate::out::stdout::ReportTo;

/// The options of `jumpshard restore`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    jumpshard restore --from-nodes nodes-2.txt --node db-b2 --write-table nodes-3.txt\n  \
    jumpshard reshard --from-nodes nodes-2.txt --to-nodes nodes-3.txt keys.u64 \\\n    \
    --output back.csv                      # the keys that come back")]
pub struct Args {
    /// The current node table, with its removal log (`removed=K` lines;
    /// `-`: standard input).
    #[arg(long, visible_alias = "nodes", value_name = "OLD")]
    from_nodes: PathBuf,
    /// The node that serves the restored slot (default: the one that
    /// served it before its removal; in a zoned table, a new node serves in
    /// that one's zone and rack; required when nothing is removed and the
    /// table grows).
    #[arg(long, value_name = "NAME")]
    node: Option<String>,
    /// Write the new table here (atomically; `-`: to standard output, the
    /// report then going to standard error).
    #[arg(long, value_name = "FILE|-")]
    write_table: PathBuf,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `restore` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    check_fixed_outputs(&[("--write-table", Some(&args.write_table))])?;
    // The report goes to standard error when the table goes to standard
    // output.
    let report_to = ReportTo::open(is_stdout(&args.write_table))?;
    let old = node_tables::read("--from-nodes", &args.from_nodes)?;
    clash::check(
        &[("--write-table", Some(args.write_table.as_path()))],
        &InputFiles::default().with("--from-nodes", &args.from_nodes),
    )?;
    let file = args.from_nodes.display();
    let (new, slot) = restore(&old, args.node.as_deref()).map_err(|e| match e {
        RestoreError::NameNeeded { slot } => format!(
            "{file} has no removal to restore, so restoring adds slot {slot}: name its node with \
             --node NAME"
        ),
        // The name's own fault, not a line of the table it would make.
        RestoreError::Table(TableError::BadName { name, why, .. }) => {
            format!("--node: node name {name:?} {why}")
        }
        RestoreError::Table(e) => format!("--node: {e}"),
        other => format!("{file}: {other}"),
    })?;
    node_tables::prepare(&args.write_table, &new)?.commit()?;
    let grew = new.len() > old.len();
    let node = new.slot(slot);
    let written = shown(&args.write_table);
    let text = if args.json {
        serde_json::json!({
            "slot": slot,
            "node": node,
            "grew": grew,
            "removals_left": new.removals().len(),
            "written_table": written,
            "from_fingerprint": old.fingerprint().to_string(),
            "to_fingerprint": new.fingerprint().to_string(),
        })
        .to_string()
    } else {
        let tables = format!(
            "tables           {} -> {}",
            old.fingerprint(),
            new.fingerprint()
        );
        if grew {
            format!(
                "added slot {slot} ({node}), as jump hash grows; table written to {written}\n\
                 {tables}"
            )
        } else {
            format!(
                "restored slot {slot} ({node}); {} removal(s) left; table written to {written}\n\
                 {tables}\n\
                 the keys that come back: jumpshard reshard --from-nodes {file} --to-nodes \
                 {} ...",
                new.removals().len(),
                // A table written to standard output has no name to give.
                match is_stdout(&args.write_table) {
                    true => "NEW",
                    false => written.as_str(),
                }
            )
        }
    };
    let written = committed(&[("the table", Some(&args.write_table))]);
    report_to.emit_after_commit(format!("{text}\n").as_bytes(), &written)
}
