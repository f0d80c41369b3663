//! `jumpshard remove --from-nodes OLD --node NAME`: the ways of taking one
//! node out of service (`jumpshard::nodes::Removal`: swap, point at a
//! survivor, Memento, and the hole for comparison), and what each costs
//! over the given keys.
//!
//! The recommendation is the option with the fewest physical moves among
//! those whose `max_over_mean` load after stays within `--max-imbalance`
//! (the hole is never recommended, and Memento only where the routers keep
//! the removal log: the table has one already, or `--memento` says so);
//! `--write-table` writes the table of `--choose`, or of the
//! recommendation.
//!
//! With no keys (an empty input), the options are weighed by their
//! expected moves and loads instead (`recommend`).
//!
//! The swap, Memento and the hole are evaluated over the keys; pointing at
//! a survivor keeps every slot's placement, so its counts follow exactly
//! from the loads before.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use jumpshard::nodes::{NodeRemoval, Removal, RemovalError};
use jumpshard::{ChangeCounts, NodePlan, NodeTable, TableChange};
use jumpshard_stream::pipeline;
use serde::Serialize;

mod candidate;
mod points;
mod recommend;

use candidate::Candidate;
use points::{point_summary, PointCosts};
use recommend::{expected_counts, recommend, Basis, SAMPLE_KEYS};

use crate::args::InputArgs;
use crate::node_tables;
use crate::out::destination::{self, committed, is_stdout, shown};
use crate::out::format_name::check_fixed_outputs;
use crate::out::stdout::ReportTo;
use crate::out::{clash, progress};
use crate::report::change_plot;
use crate::report::change_summary::ChangeSummary;
use crate::report::columns::name_width;
use crate::report::fraction::fraction;
use crate::stdin;

/// The options of `jumpshard remove`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    jumpshard remove --from-nodes nodes.txt --node db-b --generate 1000000 \\\n    \
    --write-table nodes-new.txt              # the recommended option's table\n  \
    jumpshard remove --from-nodes nodes.txt --node db-b keys.u64 --choose swap \\\n    \
    --write-table nodes-new.txt --json")]
pub struct Args {
    /// The current node table: one node name per line, line i+1 serving
    /// bucket i (`+NAME` repeats a node on purpose). `-` is standard input
    /// (then not the keys').
    #[arg(long, visible_alias = "nodes", value_name = "OLD")]
    from_nodes: PathBuf,
    /// The node to take out of service.
    #[arg(long, value_name = "NAME")]
    node: String,
    #[command(flatten)]
    input: InputArgs,
    /// The largest max/mean node load a recommended option may leave.
    #[arg(
        long,
        default_value_t = 1.25,
        value_name = "BOUND",
        allow_negative_numbers = true
    )]
    max_imbalance: f64,
    /// Write the new table of the chosen option here (atomically; `-`:
    /// to standard output, the report then going to standard error).
    #[arg(long, value_name = "FILE")]
    write_table: Option<PathBuf>,
    /// The routers load the table's removal log (`removed=K` lines), so
    /// the memento option may be recommended; implied when the table
    /// already has removals.
    #[arg(long)]
    memento: bool,
    /// The option whose table --write-table writes and whose loads
    /// --plot draws (default: the recommended one): swap, point:SURVIVOR,
    /// memento or hole. Needs one of the two.
    #[arg(long, value_name = "OPTION")]
    choose: Option<String>,
    /// Draw the chosen (or recommended) option's loads and transfers to
    /// this SVG file (`-`: standard output).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Threads to read and compute on: 0 means one per core, and more
    /// than the cores run as many as there are cores (the summary says how
    /// many ran). At most 4096.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = crate::limits::threads)]
    threads: usize,
    /// Print the options as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Points listed in the text report: the best balanced.
const LISTED_POINTS: usize = 8;

#[derive(Serialize)]
struct Report<'a> {
    node: &'a str,
    slots_of_node: Vec<usize>,
    table_slots: usize,
    /// The fingerprints of the table and of the chosen option's table.
    table_fingerprint: String,
    chosen_fingerprint: String,
    keys: u64,
    /// What the options' moves and loads are over: the keys given, or
    /// (none given) the sample that gives their expected values.
    basis: &'static str,
    sample_keys: Option<u64>,
    max_imbalance: f64,
    options: &'a [Candidate],
    recommended: &'a str,
    reason: &'a str,
    chosen: &'a str,
    /// The chosen option's loads and transfers.
    chosen_summary: &'a ChangeSummary,
    written_table: Option<String>,
    plot: Option<String>,
    seconds: f64,
}

/// Runs `remove` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    // The report goes to standard output, or to standard error when the
    // table or plot does (`-`): opened first, so that a closed one stops
    // the command before any work.
    let outputs = [
        ("--write-table", args.write_table.as_deref()),
        ("--plot", args.plot.as_deref()),
    ];
    if args.choose.is_some() && args.write_table.is_none() && args.plot.is_none() {
        return Err(
            "--choose picks the option that --write-table writes or --plot draws: give one of \
             them (the report weighs every option anyway)"
                .into(),
        );
    }
    check_fixed_outputs(&outputs)?;
    let report_to = ReportTo::open(outputs.iter().any(|(_, p)| p.is_some_and(is_stdout)))?;
    node_tables::one_on_stdin(&[
        ("--from-nodes", stdin::reads_stdin(&args.from_nodes)),
        ("the keys", args.input.reads_stdin()),
    ])?;
    let old = node_tables::read("--from-nodes", &args.from_nodes)?;
    let node = args.node.as_str();
    let file = args.from_nodes.display();
    let removal = NodeRemoval::new(&old, node).map_err(|e| match e {
        RemovalError::UnknownNode { .. } => {
            let listed: Vec<&str> = old.nodes().iter().take(20).map(String::as_str).collect();
            format!(
                "--node {node}: no line of {file} names it (its nodes: {}{})",
                listed.join(", "),
                if old.nodes().len() > 20 { ", ..." } else { "" }
            )
        }
        RemovalError::OnlyNode { .. } => format!(
            "--node {node}: it is the only working node of {file}; there is nowhere to move its \
             keys"
        ),
        other => format!("--node {node}: {file}: {other}"),
    })?;
    let slots = removal.slots().to_vec();
    if args.max_imbalance.is_nan() || args.max_imbalance < 1.0 {
        return Err(format!(
            "--max-imbalance {}: it must be at least 1 (perfect balance)",
            args.max_imbalance
        ));
    }
    let survivors: Vec<&str> = removal.survivors().collect();
    let removals = removal.removals();
    if let Some(choice) = &args.choose {
        if !choice
            .parse::<Removal>()
            .is_ok_and(|r| removals.contains(&r))
        {
            let names: Vec<String> = removals
                .iter()
                .filter(|r| !matches!(r, Removal::Point(_)))
                .map(Removal::to_string)
                .collect();
            return Err(format!(
                "--choose {choice}: not an option for {file}; choose {} or point:SURVIVOR with a \
                 survivor of it (e.g. point:{})",
                names.join(", "),
                survivors[0]
            ));
        }
    }
    let keeps_log = args.memento || !old.removals().is_empty();
    let table = |r: &Removal| removal.table(r).map_err(|e| e.to_string());
    // Every option but the points is evaluated over the keys.
    let evaluated: Vec<(Removal, NodeTable)> = removals
        .iter()
        .filter(|r| !matches!(r, Removal::Point(_)))
        .map(|r| Ok((r.clone(), table(r)?)))
        .collect::<Result<_, String>>()?;
    let changes: Vec<TableChange> = evaluated
        .iter()
        .map(|(_, t)| TableChange::new(&old, t))
        .collect();

    let input = args.input.open()?;
    clash::check(
        &outputs,
        &args
            .input
            .input_files()
            .with("--from-nodes", &args.from_nodes),
    )?;
    let bar = progress::bar(input.size, input.unit);
    let workers = args.input.workers(args.threads);
    let start = Instant::now();
    let mut totals: Vec<ChangeCounts> = changes.iter().map(ChangeCounts::new).collect();
    pipeline::run::<_, String>(
        input.source,
        workers.chunk_keys,
        workers.threads,
        &|n| bar.inc(n),
        |chunk, plans: &mut Vec<NodePlan>| {
            plans.resize_with(changes.len(), NodePlan::new);
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
    // No keys: the options are weighed by what they are expected to cost.
    let read = totals[0].keys();
    let basis = match read {
        0 => {
            totals = expected_counts(&changes);
            Basis::Expected
        }
        _ => Basis::Keys,
    };

    let summaries: Vec<ChangeSummary> = changes
        .iter()
        .zip(&totals)
        .map(|(change, counts)| ChangeSummary::new(change, counts))
        .collect();
    let base = summaries[0].clone();
    let keys = base.keys;
    let points = PointCosts::new(&base, node);
    let mut evaluated = evaluated.into_iter().zip(summaries);
    let mut options = Vec::new();
    for r in &removals {
        let candidate = match r {
            Removal::Point(survivor) => {
                let (moved, max_over_mean_after) = points.cost(survivor);
                Candidate {
                    name: r.to_string(),
                    description: format!("point its slot at {survivor}, keeping N"),
                    slots: old.len(),
                    moved,
                    moved_fraction: fraction(moved, keys),
                    bucket_changes: 0,
                    max_over_mean_after,
                    recommendable: true,
                    removal: r.clone(),
                    summary: None,
                }
            }
            _ => {
                let ((_, t), summary) = evaluated.next().expect("one evaluation per option");
                let (description, recommendable) = match r {
                    Removal::Swap if slots == [old.len() - 1] => {
                        ("shrink by its slot, the last".to_string(), true)
                    }
                    Removal::Swap => ("swap its slot with the last, then shrink".into(), true),
                    Removal::Hole => ("delete its line (the hole; for comparison)".into(), false),
                    _ if keeps_log => (
                        "remove its slot, kept in the table's removal log (removed=K)".into(),
                        true,
                    ),
                    _ => (
                        "remove its slot, kept in the table's removal log (removed=K); \
                         every router must load the log (--memento if they do)"
                            .into(),
                        false,
                    ),
                };
                Candidate {
                    name: r.to_string(),
                    description,
                    slots: t.len(),
                    moved: summary.moved,
                    moved_fraction: summary.moved_fraction,
                    bucket_changes: summary.bucket_changes,
                    max_over_mean_after: summary.max_over_mean_after,
                    recommendable,
                    removal: r.clone(),
                    summary: Some(summary),
                }
            }
        };
        options.push(candidate);
    }

    let (recommended, reason) = recommend(&options, args.max_imbalance, basis);
    let chosen = args.choose.as_deref().unwrap_or(&options[recommended].name);
    let chosen_option = options
        .iter()
        .find(|o| o.name == chosen)
        .expect("the choice was checked");
    let chosen_summary = match (&chosen_option.summary, &chosen_option.removal) {
        (Some(summary), _) => summary.clone(),
        (None, Removal::Point(survivor)) => point_summary(&base, node, survivor),
        (None, _) => unreachable!("only points go unevaluated"),
    };
    let chosen_table = table(&chosen_option.removal)?;
    // Both outputs written before either is in place: a full disk under
    // one leaves the other untouched too.
    let plot = (args.plot.as_deref())
        .map(|path| {
            let title = format!("remove {node}, {}", chosen_option.name);
            let tables = format!("{} -> {}", old.fingerprint(), chosen_table.fingerprint());
            change_plot::prepare(path, &title, &tables, &chosen_summary)
        })
        .transpose()?;
    let written_table = (args.write_table.as_deref())
        .map(|path| node_tables::prepare(path, &chosen_table))
        .transpose()?;
    destination::commit_all([written_table, plot])?;
    let report = Report {
        node,
        slots_of_node: slots,
        table_slots: old.len(),
        table_fingerprint: old.fingerprint().to_string(),
        chosen_fingerprint: chosen_table.fingerprint().to_string(),
        keys: read,
        basis: basis.name(),
        sample_keys: (basis == Basis::Expected).then_some(SAMPLE_KEYS as u64),
        max_imbalance: args.max_imbalance,
        options: &options,
        recommended: &options[recommended].name,
        reason: &reason,
        chosen,
        chosen_summary: &chosen_summary,
        written_table: args.write_table.as_deref().map(shown),
        plot: args.plot.as_deref().map(shown),
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut text = Vec::new();
    if args.json {
        serde_json::to_writer(&mut text, &report).map_err(|e| e.to_string())?;
        text.push(b'\n');
    } else {
        write_text(&mut text, &report).expect("writing to memory");
    }
    let written = committed(&[
        ("the table", args.write_table.as_deref()),
        ("the plot", args.plot.as_deref()),
    ]);
    report_to.emit_after_commit(&text, &written)
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
    writeln!(
        out,
        "tables           {} -> {} ({})",
        r.table_fingerprint, r.chosen_fingerprint, r.chosen
    )?;
    if let Some(sample) = r.sample_keys {
        writeln!(
            out,
            "no keys were given: the options are compared on their expected moves and loads \
             from the table alone, over {sample} evenly spread sample keys"
        )?;
    }
    let width = name_width(r.options.iter().map(|o| o.name.as_str()), 6);
    writeln!(
        out,
        "  {:<width$}  {:>6}  {:>12}  {:>8}  {:>8}  what",
        "option", "slots", "moved", "moved%", "max/mean"
    )?;
    // Every option but the points; of the points, the best balanced few
    // and the recommended or chosen one: a table of N nodes has N - 1.
    let mut points: Vec<&Candidate> = r
        .options
        .iter()
        .filter(|o| matches!(o.removal, Removal::Point(_)))
        .collect();
    points.sort_by(|a, b| a.max_over_mean_after.total_cmp(&b.max_over_mean_after));
    let shown: Vec<&str> = points
        .iter()
        .take(LISTED_POINTS)
        .map(|o| o.name.as_str())
        .collect();
    let listed = |o: &&Candidate| {
        !matches!(o.removal, Removal::Point(_))
            || shown.contains(&o.name.as_str())
            || o.name == r.recommended
            || o.name == r.chosen
    };
    let hidden = r.options.len() - r.options.iter().filter(listed).count();
    for o in r.options.iter().filter(listed) {
        let mark = if o.name == r.recommended { "*" } else { " " };
        writeln!(
            out,
            "{mark} {:<width$}  {:>6}  {:>12}  {:>7.3}%  {:>8.4}  {}",
            o.name,
            o.slots,
            o.moved,
            100.0 * o.moved_fraction,
            o.max_over_mean_after,
            o.description
        )?;
    }
    if hidden > 0 {
        writeln!(
            out,
            "  ({hidden} more point:SURVIVOR options, none better balanced; --json lists them all)"
        )?;
    }
    writeln!(out, "recommended {}", r.reason)?;
    writeln!(out, "transfers of {} (from -> to: keys):", r.chosen)?;
    for (from, to, n) in r.chosen_summary.top_transfers().top.iter().take(16) {
        writeln!(out, "  {from} -> {to}: {n}")?;
    }
    if let Some(path) = &r.written_table {
        writeln!(out, "table of {} written to {path}", r.chosen)?;
    }
    if let Some(path) = &r.plot {
        writeln!(out, "plot of {} written to {path}", r.chosen)?;
    }
    Ok(())
}
