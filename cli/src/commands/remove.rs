//! `jumpshard remove --from-nodes OLD --node NAME`: the ways of taking one
//! node out of service (`jumpshard::nodes::Removal`: swap, point at a
//! survivor, and the hole for comparison), and what each costs over the
//! given keys.
//!
//! The recommendation is the option with the fewest physical moves among
//! those whose `max_over_mean` load after stays within `--max-imbalance`
//! (the hole is never recommended); `--write-table` writes the table of
//! `--choose`, or of the recommendation.
//!
//! The swap and the hole are evaluated over the keys; pointing at a
//! survivor keeps every bucket number, so its counts follow exactly from
//! the loads before.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use jumpshard::nodes::{NodeRemoval, Removal, RemovalError};
use jumpshard::{ChangeCounts, NodePlan, NodeTable, TableChange};
use jumpshard_stream::pipeline;
use serde::Serialize;

use crate::args::InputArgs;
use crate::node_tables;
use crate::out::stdout::ReportTo;
use crate::out::{clash, progress};
use crate::report::change_plot;
use crate::report::change_summary::ChangeSummary;
use crate::report::columns::name_width;
use crate::report::fraction::fraction;

/// The options of `jumpshard remove`.
#[derive(clap::Args)]
pub struct Args {
    /// The current node table: one node name per line, line i+1 serving
    /// bucket i (`+NAME` repeats a node on purpose).
    #[arg(long, visible_alias = "nodes", value_name = "OLD")]
    from_nodes: PathBuf,
    /// The node to take out of service.
    #[arg(long, value_name = "NAME")]
    node: String,
    #[command(flatten)]
    input: InputArgs,
    /// The largest max/mean node load a recommended option may leave.
    #[arg(long, default_value_t = 1.25, value_name = "BOUND")]
    max_imbalance: f64,
    /// Write the new table of the chosen option here (atomically).
    #[arg(long, value_name = "FILE")]
    write_table: Option<PathBuf>,
    /// The option whose table --write-table writes (default: the
    /// recommended one): swap, point:SURVIVOR or hole.
    #[arg(long, value_name = "OPTION", requires = "write_table")]
    choose: Option<String>,
    /// Draw the chosen (or recommended) option's loads and transfers to
    /// this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Threads to read and compute on; 0 means one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print the options as one JSON object.
    #[arg(long)]
    json: bool,
}

/// One way of removing the node.
#[derive(Serialize)]
struct Candidate {
    name: String,
    description: String,
    slots: usize,
    #[serde(flatten)]
    summary: ChangeSummary,
    #[serde(skip)]
    table: NodeTable,
}

#[derive(Serialize)]
struct Report<'a> {
    node: &'a str,
    slots_of_node: Vec<usize>,
    table_slots: usize,
    keys: u64,
    max_imbalance: f64,
    options: &'a [Candidate],
    recommended: &'a str,
    reason: &'a str,
    chosen: &'a str,
    written_table: Option<String>,
    plot: Option<String>,
    seconds: f64,
}

/// The counts of pointing `node`'s slots at `survivor`, from the loads
/// before: every key keeps its bucket, so exactly `node`'s keys move.
fn point_summary(base: &ChangeSummary, node: &str, survivor: &str) -> ChangeSummary {
    let load = |name: &str| {
        base.load_before
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |l| l.1)
    };
    let moved = load(node);
    let load_after: Vec<(String, u64)> = base
        .load_before
        .iter()
        .filter(|(n, _)| n != node)
        .map(|(n, l)| (n.clone(), if n == survivor { l + moved } else { *l }))
        .collect();
    let max = load_after.iter().map(|l| l.1).max().unwrap_or(0);
    let mut transfers = BTreeMap::new();
    if moved > 0 {
        transfers.insert(
            node.to_owned(),
            BTreeMap::from([(survivor.to_owned(), moved)]),
        );
    }
    ChangeSummary {
        keys: base.keys,
        moved,
        moved_fraction: fraction(moved, base.keys),
        bucket_changes: 0,
        transfers,
        load_before: base.load_before.clone(),
        max_over_mean_after: match base.keys {
            0 => 1.0,
            keys => max as f64 * load_after.len() as f64 / keys as f64,
        },
        load_after,
        max_over_mean_before: base.max_over_mean_before,
    }
}

/// Runs `remove` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    // The report always goes to standard output: opened first, so that a
    // closed one stops the command before any work.
    let report_to = ReportTo::open(false)?;
    let old = node_tables::read("--from-nodes", &args.from_nodes)?;
    let node = args.node.as_str();
    let file = args.from_nodes.display();
    let removal = NodeRemoval::new(&old, node).map_err(|e| match e {
        RemovalError::OnlyNode { .. } => format!(
            "--node {node}: it is the only node of {file}; there is nowhere to move its keys"
        ),
        _ => {
            let listed: Vec<&str> = old.nodes().iter().take(20).map(String::as_str).collect();
            format!(
                "--node {node}: no line of {file} names it (its nodes: {}{})",
                listed.join(", "),
                if old.nodes().len() > 20 { ", ..." } else { "" }
            )
        }
    })?;
    let slots = removal.slots().to_vec();
    if args.max_imbalance.is_nan() || args.max_imbalance < 1.0 {
        return Err(format!(
            "--max-imbalance {}: it must be at least 1 (perfect balance)",
            args.max_imbalance
        ));
    }
    let survivors: Vec<&str> = removal.survivors().collect();
    if let Some(choice) = &args.choose {
        let known = match choice.parse::<Removal>() {
            Ok(Removal::Point(survivor)) => survivors.contains(&survivor.as_str()),
            Ok(_) => true,
            Err(_) => false,
        };
        if !known {
            return Err(format!(
                "--choose {choice}: not an option; choose swap, hole or point:SURVIVOR with a \
                 survivor of {file} (e.g. point:{})",
                survivors[0]
            ));
        }
    }
    let table = |r: &Removal| removal.table(r).map_err(|e| e.to_string());
    let swap = table(&Removal::Swap)?;
    let hole = table(&Removal::Hole)?;
    let changes = [TableChange::new(&old, &swap), TableChange::new(&old, &hole)];

    let input = args.input.options().open()?;
    let outputs = [
        ("--write-table", args.write_table.as_deref()),
        ("--plot", args.plot.as_deref()),
    ];
    clash::check(
        &outputs,
        &args.input.file_id().with("--from-nodes", &args.from_nodes),
    )?;
    let bar = progress::bar(input.size, input.unit);
    let workers = args.input.workers(args.threads);
    let start = Instant::now();
    let mut totals = changes.each_ref().map(ChangeCounts::new);
    pipeline::run::<_, String>(
        input.source,
        workers.chunk_keys,
        workers.threads,
        &|n| bar.inc(n),
        |chunk, plans: &mut [NodePlan; 2]| {
            for (change, plan) in changes.iter().zip(plans.iter_mut()) {
                change.plan(&chunk.keys, chunk.first, plan, false);
            }
        },
        |_, plans| {
            for (total, plan) in totals.iter_mut().zip(plans) {
                total.merge(plan.counts());
            }
            Ok(())
        },
    )?;
    bar.finish_and_clear();

    let swap_summary = ChangeSummary::new(&changes[0], &totals[0]);
    let hole_summary = ChangeSummary::new(&changes[1], &totals[1]);
    let keys = swap_summary.keys;
    let mut options = vec![Candidate {
        name: Removal::Swap.to_string(),
        description: if slots == [old.len() - 1] {
            "shrink by its slot, the last".into()
        } else {
            "swap its slot with the last, then shrink".into()
        },
        slots: swap.len(),
        summary: swap_summary.clone(),
        table: swap,
    }];
    for survivor in &survivors {
        let point = Removal::Point((*survivor).to_owned());
        options.push(Candidate {
            name: point.to_string(),
            description: format!("point its slot at {survivor}, keeping N"),
            slots: old.len(),
            summary: point_summary(&swap_summary, node, survivor),
            table: table(&point)?,
        });
    }
    options.push(Candidate {
        name: Removal::Hole.to_string(),
        description: "delete its line (the hole; for comparison)".into(),
        slots: hole.len(),
        summary: hole_summary,
        table: hole,
    });

    let (recommended, reason) = recommend(&options, args.max_imbalance);
    let chosen = args.choose.as_deref().unwrap_or(&options[recommended].name);
    let chosen_option = options
        .iter()
        .find(|o| o.name == chosen)
        .expect("the choice was checked");
    if let Some(path) = &args.plot {
        let title = format!("remove {node}, {}", chosen_option.name);
        change_plot::write(path, &title, &chosen_option.summary)?;
    }
    if let Some(path) = &args.write_table {
        node_tables::write(path, &chosen_option.table)?;
    }
    let report = Report {
        node,
        slots_of_node: slots,
        table_slots: old.len(),
        keys,
        max_imbalance: args.max_imbalance,
        options: &options,
        recommended: &options[recommended].name,
        reason: &reason,
        chosen,
        written_table: args.write_table.as_ref().map(|p| p.display().to_string()),
        plot: args.plot.as_ref().map(|p| p.display().to_string()),
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut text = Vec::new();
    if args.json {
        serde_json::to_writer(&mut text, &report).map_err(|e| e.to_string())?;
        text.push(b'\n');
    } else {
        write_text(&mut text, &report).expect("writing to memory");
    }
    report_to.emit(&text)
}

/// The recommended option's index and why: the fewest moves among the
/// options (the hole excepted) whose balance after stays within `bound`;
/// when none does, the best balanced.
fn recommend(options: &[Candidate], bound: f64) -> (usize, String) {
    let honest = || options.iter().enumerate().filter(|(_, o)| o.name != "hole");
    let within = honest()
        .filter(|(_, o)| o.summary.max_over_mean_after <= bound)
        .min_by_key(|(_, o)| o.summary.moved);
    if let Some((i, best)) = within {
        let mut reason = format!(
            "{}: the fewest moves ({}) among the options whose max/mean load after stays \
             within {bound}",
            best.name, best.summary.moved
        );
        let fewer = honest()
            .filter(|(_, o)| o.summary.moved < best.summary.moved)
            .min_by(|a, b| {
                a.1.summary
                    .max_over_mean_after
                    .total_cmp(&b.1.summary.max_over_mean_after)
            });
        if let Some((_, o)) = fewer {
            reason += &format!(
                "; {} moves fewer keys ({}) but leaves max/mean {:.3}",
                o.name, o.summary.moved, o.summary.max_over_mean_after
            );
        }
        return (i, reason);
    }
    let (i, best) = honest()
        .min_by(|a, b| {
            a.1.summary
                .max_over_mean_after
                .total_cmp(&b.1.summary.max_over_mean_after)
        })
        .expect("there is always the swap");
    let reason = format!(
        "{}: no option stays within max/mean {bound}, and this one is the best balanced ({:.3})",
        best.name, best.summary.max_over_mean_after
    );
    (i, reason)
}

/// The text summary.
fn write_text(out: &mut Vec<u8>, r: &Report) -> std::io::Result<()> {
    let slots: Vec<String> = r.slots_of_node.iter().map(usize::to_string).collect();
    writeln!(
        out,
        "remove {} (slot {} of {}) over {} keys",
        r.node,
        slots.join(", "),
        r.table_slots,
        r.keys
    )?;
    let width = name_width(r.options.iter().map(|o| o.name.as_str()), 6);
    writeln!(
        out,
        "  {:<width$}  {:>6}  {:>12}  {:>8}  {:>8}  what",
        "option", "slots", "moved", "moved%", "max/mean"
    )?;
    for o in r.options {
        let mark = if o.name == r.recommended { "*" } else { " " };
        writeln!(
            out,
            "{mark} {:<width$}  {:>6}  {:>12}  {:>7.3}%  {:>8.4}  {}",
            o.name,
            o.slots,
            o.summary.moved,
            100.0 * o.summary.moved_fraction,
            o.summary.max_over_mean_after,
            o.description
        )?;
    }
    writeln!(out, "recommended {}", r.reason)?;
    if let Some(chosen) = r.options.iter().find(|o| o.name == r.chosen) {
        writeln!(out, "transfers of {} (from -> to: keys):", chosen.name)?;
        for (from, to, n) in chosen.summary.transfer_list().iter().take(16) {
            writeln!(out, "  {from} -> {to}: {n}")?;
        }
    }
    if let Some(path) = &r.written_table {
        writeln!(out, "table of {} written to {path}", r.chosen)?;
    }
    if let Some(path) = &r.plot {
        writeln!(out, "plot of {} written to {path}", r.chosen)?;
    }
    Ok(())
}
