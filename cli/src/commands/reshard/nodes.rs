//! `jumpshard reshard --nodes OLD --to-nodes NEW`: which keys change node,
//! and between which nodes, when the node table changes; streamed like
//! `reshard --from --to` (`crate::reshard`).
//!
//! A key lives on `OLD[jump(key, N)]` before and `NEW[jump(key, M)]`
//! after (N and M being the tables' line counts); it moves when the two
//! differ. The move list names nodes: `key,from_node,to_node` (or
//! `position,...`), see `crate::move_output`.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use indicatif::ProgressBar;
use jumpshard::{ChangeCounts, NodePlan, NodeTable, TableChange};
use serde::Serialize;

use crate::change_summary::ChangeSummary;
use crate::move_output::{encode_nodes, MoveFormat, MoveSink};
use crate::reshard::{threads, Args};
use crate::stdout::ReportTo;
use crate::{input, pipeline, progress, tables};

pub fn run(args: &Args, old_path: &Path, new_path: &Path) -> Result<(), String> {
    let old = tables::read("--nodes", old_path)?;
    let new = tables::read("--to-nodes", new_path)?;
    let change = TableChange::new(&old, &new);
    let input = args.input.open()?;
    let by_position = args.positions || input.byte_keys;
    let format = args.output_format;
    let mut output = args
        .output
        .as_deref()
        .map(|path| {
            MoveSink::create(
                path,
                args.input.file_id(),
                format,
                by_position,
                Some(change.nodes()),
            )
        })
        .transpose()?;
    let report_to = ReportTo::open(output.as_ref().is_some_and(MoveSink::is_stdout))?;
    let bar = progress::bar(input.size, input.unit);
    let workers = threads(args.threads);
    let start = Instant::now();
    let moves = output.as_mut().map(|sink| (sink, format, by_position));
    let counts = stream(
        &change,
        input.source,
        workers,
        args.input.chunk_keys(workers),
        &bar,
        moves,
    )?;
    bar.finish_and_clear();
    let summary = ChangeSummary::new(&change, &counts);
    if let Some(path) = &args.plot {
        crate::change_plot::write(path, "reshard", &summary)?;
    }
    if let Some(out) = output {
        out.commit()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        from_slots: old.len(),
        to_slots: new.len(),
        append_or_truncate: change.is_append_or_truncate(),
        change: summary,
        nodes: change.nodes(),
        seconds,
        keys_per_second: counts.keys() as f64 / seconds,
        threads: workers,
        output: args.output.as_ref().map(|p| p.display().to_string()),
        plot: args.plot.as_ref().map(|p| p.display().to_string()),
    };
    let mut text = Vec::new();
    if args.json {
        serde_json::to_writer(&mut text, &report).map_err(|e| e.to_string())?;
        text.push(b'\n');
    } else {
        write_text(&mut text, &report, &old, &new).expect("writing to memory");
    }
    report_to.emit(&text)
}

/// Plans `change` over `source` on `workers` threads, appending each
/// physical move to `moves` when given; returns the counts.
pub fn stream(
    change: &TableChange,
    source: input::Source,
    workers: usize,
    chunk_keys: usize,
    bar: &ProgressBar,
    mut moves: Option<(&mut MoveSink, MoveFormat, bool)>,
) -> Result<ChangeCounts, String> {
    let mut total = ChangeCounts::new(change);
    let encoding = moves
        .as_ref()
        .map(|&(_, format, by_position)| (format, by_position));
    let names = change.nodes();
    pipeline::run(
        source,
        chunk_keys,
        workers,
        bar,
        |chunk, part: &mut Part| {
            change.plan(&chunk.keys, chunk.first, &mut part.plan, encoding.is_some());
            part.record.clear();
            part.ids.clear();
            part.from.clear();
            part.to.clear();
            let Some((format, by_position)) = encoding else {
                return;
            };
            for m in part.plan.moves() {
                let id = if by_position {
                    m.position
                } else {
                    chunk.keys[(m.position - chunk.first) as usize]
                };
                if format.columnar() {
                    part.ids.push(id);
                    part.from.push(m.from);
                    part.to.push(m.to);
                } else {
                    let from = (m.from, names[m.from as usize].as_str());
                    let to = (m.to, names[m.to as usize].as_str());
                    encode_nodes(&mut part.record, format, id, from, to);
                }
            }
        },
        |_, part| {
            total.merge(part.plan.counts());
            match moves.as_mut() {
                Some((sink, format, _)) if format.columnar() => {
                    sink.write_columns(&part.ids, &part.from, &part.to)
                }
                Some((sink, _, _)) => sink.write_bytes(&part.record),
                None => Ok(()),
            }
        },
    )?;
    Ok(total)
}

/// One chunk's plan and its part of the move list.
#[derive(Default)]
struct Part {
    plan: NodePlan,
    record: Vec<u8>,
    ids: Vec<u64>,
    from: Vec<u32>,
    to: Vec<u32>,
}

#[derive(Serialize)]
struct Report<'a> {
    from_slots: usize,
    to_slots: usize,
    /// Whether NEW only appends to or truncates OLD.
    append_or_truncate: bool,
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
    let kind = if r.append_or_truncate {
        "append or truncate"
    } else {
        "slots change hands"
    };
    writeln!(
        out,
        "reshard {} slots ({} nodes) -> {} slots ({} nodes), {kind}",
        r.from_slots,
        old.nodes().len(),
        r.to_slots,
        new.nodes().len()
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
