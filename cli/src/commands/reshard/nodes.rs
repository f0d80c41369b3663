//! `jumpshard reshard --from-nodes OLD --to-nodes NEW`: which keys change
//! node, and between which nodes, when the node table changes.
//!
//! A key lives on `OLD[jump(key, N)]` before and `NEW[jump(key, M)]`
//! after (N and M being the tables' line counts), or where the tables'
//! removals (`removed=K`) or weights (`weight=W`) place it; it moves when
//! the two differ. So the move list of a Memento removal, a restore or a
//! weight change is the plan of the two tables. The move list names nodes: `key,from_node,to_node` (or
//! `position,...`).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use jumpshard::{NodeTable, TableChange};
use jumpshard_stream::reshard;
use serde::Serialize;

use super::args::Args;
use super::move_list;
use crate::node_tables;
use crate::out::destination::{self, committed, is_stdout, shown};
use crate::out::stdout::ReportTo;
use crate::out::{clash, progress};
use crate::report::{change_plot, change_summary::ChangeSummary};
use crate::stdin;

/// Runs `reshard --from-nodes OLD --to-nodes NEW`.
pub fn run(args: &Args, old_path: &Path, new_path: &Path) -> Result<(), String> {
    node_tables::one_on_stdin(&[
        ("--from-nodes", stdin::reads_stdin(old_path)),
        ("--to-nodes", stdin::reads_stdin(new_path)),
        ("the keys", args.input.reads_stdin()),
    ])?;
    let old = node_tables::read("--from-nodes", old_path)?;
    let new = node_tables::read("--to-nodes", new_path)?;
    let change = match args.replicas {
        Some(k) => {
            TableChange::with_replicas(&old, &new, k).map_err(|e| format!("--replicas {k}: {e}"))?
        }
        None => TableChange::new(&old, &new),
    };
    let input = args.input.open()?;
    let inputs = args.input.input_files().with("--from-nodes", old_path);
    let inputs = inputs.with("--to-nodes", new_path);
    clash::check(
        &[
            ("--output", args.output.as_deref()),
            ("--plot", args.plot.as_deref()),
        ],
        &inputs,
    )?;
    let mut output = move_list::open(args, input.byte_keys, Some(change.nodes()))?;
    let report_to = ReportTo::open(
        output.as_ref().is_some_and(|o| o.get_ref().is_stdout())
            || args.plot.as_deref().is_some_and(is_stdout),
    )?;
    let bar = progress::bar(input.size, input.unit);
    let workers = args.input.workers(args.threads);
    let start = Instant::now();
    let counts = reshard::table_change(
        &change,
        input.source,
        workers,
        &|n| bar.inc(n),
        output.as_mut(),
    )?;
    bar.finish_and_clear();
    let summary = ChangeSummary::new(&change, &counts);
    // Both outputs written before either is in place: a full disk under
    // one leaves the other untouched too.
    let list = output.map(|out| out.finish()?.prepare()).transpose()?;
    let plot = (args.plot.as_deref())
        .map(|path| {
            let tables = format!("{} -> {}", old.fingerprint(), new.fingerprint());
            change_plot::prepare(path, "reshard", &tables, &summary)
        })
        .transpose()?;
    destination::commit_all([list, plot])?;
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        from_slots: old.len(),
        to_slots: new.len(),
        from_fingerprint: old.fingerprint().to_string(),
        to_fingerprint: new.fingerprint().to_string(),
        // The tables' relation, whatever --replicas makes the change
        // evaluate.
        append_or_truncate: TableChange::new(&old, &new).is_append_or_truncate(),
        removals_or_weights: !old.is_plain() || !new.is_plain(),
        both: change.evaluates_both(),
        change: summary,
        nodes: change.nodes(),
        seconds,
        keys_per_second: counts.keys() as f64 / seconds,
        threads: workers.threads,
        output: args.output.as_deref().map(shown),
        plot: args.plot.as_deref().map(shown),
    };
    let mut text = Vec::new();
    if args.json {
        serde_json::to_writer(&mut text, &report).map_err(|e| e.to_string())?;
        text.push(b'\n');
    } else {
        write_text(&mut text, &report, &old, &new).expect("writing to memory");
    }
    let written = committed(&[
        ("the move list", args.output.as_deref()),
        ("the plot", args.plot.as_deref()),
    ]);
    report_to.emit_after_commit(&text, &written)
}

#[derive(Serialize)]
struct Report<'a> {
    from_slots: usize,
    to_slots: usize,
    /// The tables' fingerprints, which routers compare before serving.
    from_fingerprint: String,
    to_fingerprint: String,
    /// Whether NEW only appends to or truncates OLD.
    append_or_truncate: bool,
    /// Whether either table has removals or weights.
    removals_or_weights: bool,
    /// Whether each key is placed in both tables (removals, weights,
    /// overrides or replica sets), for the text's headline.
    #[serde(skip)]
    both: bool,
    /// With `replicas`, the members per key's set (1 without --replicas;
    /// with more, the counts count replicas).
    #[serde(flatten)]
    change: ChangeSummary,
    /// Every node of either table; binary move lists name nodes by their
    /// index here.
    nodes: &'a [String],
    seconds: f64,
    keys_per_second: f64,
    threads: usize,
    output: Option<String>,
    plot: Option<String>,
}

/// The text summary.
fn write_text(
    out: &mut Vec<u8>,
    r: &Report,
    old: &NodeTable,
    new: &NodeTable,
) -> std::io::Result<()> {
    let replicas = r.change.replicas;
    let kind = if replicas > 1 {
        "replica sets: moves and loads count replicas"
    } else if r.append_or_truncate && !r.both {
        "append or truncate"
    } else if r.both {
        "removals or weights: each key placed in both tables"
    } else {
        "slots change hands"
    };
    writeln!(
        out,
        "reshard {} slots ({} nodes) -> {} slots ({} nodes), {kind}{}",
        r.from_slots,
        old.nodes().len(),
        r.to_slots,
        new.nodes().len(),
        if replicas > 1 {
            format!(" (k = {replicas})")
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "tables           {} -> {}",
        r.from_fingerprint, r.to_fingerprint
    )?;
    r.change.write_text(out)?;
    writeln!(
        out,
        "time             {:.3} s ({:.1} M keys/s on {} threads)",
        r.seconds,
        r.keys_per_second / 1e6,
        r.threads
    )?;
    if let Some(path) = &r.output {
        writeln!(out, "move list        {path}")?;
    }
    if let Some(path) = &r.plot {
        writeln!(out, "plot             {path}")?;
    }
    Ok(())
}
