//! `jumpshard balance WEIGHTS --nodes T --factor C --write-table OUT`: an
//! override table that brings every node's weighted load within C times
//! its fair share (the mean, for equal nodes), moving as little weight off
//! the keys' plain nodes as the greedy of [`plan`] finds.
//!
//! The weights file holds a key and a weight per line (CSV, header line
//! naming `--key-column` and `--weight-column`) or row (Parquet). Each
//! key's plain node is the table's answer without overrides (those of
//! the input table are replaced). The table written is the input table
//! plus one `override KEY NODE` line per moved key. Keys heavier than
//! every node's bound cannot be routed away: they are listed, nothing is
//! written and the command exits 1.

mod plan;

use std::collections::HashMap;
use std::path::PathBuf;

use jumpshard::NodeTable;
use jumpshard_stream::{read_weighted, WeightColumns};

use crate::node_tables;
use crate::out::clash::{self, InputFiles};
use crate::out::destination::{self, committed, is_stdout, shown};
use crate::out::format_name::check_fixed_outputs;
use crate::out::stdout::ReportTo;
use crate::report::balance_plot::{self, BalancePicture};
use crate::stdin::reads_stdin;
use plan::{peak, Problem, Refusal};

/// The most keys a refusal lists.
const LISTED: usize = 20;

/// The options of `jumpshard balance`.
#[derive(clap::Args)]
#[command(after_help = "Example:\n  \
    jumpshard balance qps.csv --key-column user --weight-column qps \\\n    \
    --nodes nodes.txt --factor 1.25 --write-table balanced.txt\n\
    then route with balanced.txt: `jumpshard assign --nodes balanced.txt ...` and \
    `jumpshard lookup --nodes balanced.txt KEY` answer the moved keys with their new node.")]
pub struct Args {
    /// The keys and their weights (requests per second, bytes): CSV with
    /// a header line, or Parquet (told apart by its first bytes; a regular
    /// file). `-` is standard input.
    #[arg(value_name = "WEIGHTS")]
    weights: PathBuf,
    /// The column of the keys (decimal u64 in CSV; uint64 or int64 in
    /// Parquet): a header name, or a 0-based index.
    #[arg(long, default_value = "key", value_name = "COLUMN")]
    key_column: String,
    /// The column of the weights: finite numbers of 0 or more.
    #[arg(long, default_value = "weight", value_name = "COLUMN")]
    weight_column: String,
    /// The CSV input has no header line (the columns are then indexes).
    #[arg(long)]
    no_header: bool,
    /// The node table whose nodes carry the load (its overrides are
    /// replaced by the plan's; `-`: standard input).
    #[arg(long, value_name = "TABLE", required_unless_present = "buckets")]
    nodes: Option<PathBuf>,
    /// N buckets instead of a table: the table written names slot i `i`.
    #[arg(long, value_name = "N", conflicts_with = "nodes",
          value_parser = clap::value_parser!(u32).range(1..=i32::MAX as i64))]
    buckets: Option<u32>,
    /// The bound, as a multiple of a node's fair share of the total weight
    /// (the mean load, for equal nodes): a number above 1 (`inf`: no
    /// bound, no override).
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    factor: f64,
    /// Write the table with its overrides here (atomically; `-`: to
    /// standard output, the report then going to standard error).
    #[arg(long, value_name = "FILE|-")]
    write_table: PathBuf,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Draw each node's load before and after, against the bound, to this
    /// SVG file (`-`: standard output).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// Runs `balance` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    // The report goes to standard output, or to standard error when the
    // table or plot does (`-`).
    let outputs = [
        ("--write-table", Some(args.write_table.as_path())),
        ("--plot", args.plot.as_deref()),
    ];
    check_fixed_outputs(&outputs)?;
    if args.factor.is_nan() || args.factor <= 1.0 {
        return Err(format!(
            "--factor {}: the bound is c times the mean load, with c above 1 (1.25 lets a \
             node carry a quarter more than the mean)",
            args.factor
        ));
    }
    let report_to = ReportTo::open(outputs.iter().any(|(_, p)| p.is_some_and(is_stdout)))?;
    let mut inputs = InputFiles::default().with("WEIGHTS", &args.weights);
    if let Some(nodes) = &args.nodes {
        node_tables::one_on_stdin(&[
            ("--nodes", reads_stdin(nodes)),
            ("WEIGHTS", reads_stdin(&args.weights)),
        ])?;
        inputs = inputs.with("--nodes", nodes);
    }
    clash::check(&outputs, &inputs)?;
    let table = match (&args.nodes, args.buckets) {
        (Some(path), _) => node_tables::read("--nodes", path)?,
        (None, Some(n)) => {
            NodeTable::new((0..n).map(|i| i.to_string())).map_err(|e| e.to_string())?
        }
        (None, None) => unreachable!("clap requires one"),
    };
    let plain = table
        .with_overrides(Vec::<(u64, &str)>::new())
        .expect("no override");
    let columns = WeightColumns {
        key: &args.key_column,
        weight: &args.weight_column,
        header: !args.no_header,
    };
    if reads_stdin(&args.weights) {
        crate::stdin::check_open("the weights")?;
    }
    let read = read_weighted(&args.weights, &columns).map_err(|e| e.to_string())?;
    let name = args.weights.display();
    let mut places = HashMap::with_capacity(read.len());
    for k in &read {
        if let Some(first) = places.insert(k.key, k.place) {
            return Err(format!(
                "{name} {}: key {} is also at {first}; a weights file lists each key once (add \
                 the weights up)",
                k.place, k.key
            ));
        }
    }
    let keys: Vec<u64> = read.iter().map(|k| k.key).collect();
    let weights: Vec<f64> = read.iter().map(|k| k.weight).collect();
    // From +0: a sum of no weights (Rust's starts at -0) prints as 0. Each
    // weight is finite; their sum must be too, or every share of it is 0
    // and any table looks balanced.
    let total: f64 = weights.iter().fold(0.0, |sum, w| sum + w);
    if !total.is_finite() {
        return Err(format!(
            "{name}: the weights add up past the largest number ({:e}): scale them down \
             (only their ratios matter)",
            f64::MAX
        ));
    }
    let mut slots = vec![0u32; keys.len()];
    plain
        .batch(&keys, &mut slots)
        .expect("as many slots as keys");
    let nodes: Vec<u32> = slots
        .iter()
        .map(|&s| plain.slot_nodes()[s as usize])
        .collect();
    let mut capacity = vec![0.0; plain.nodes().len()];
    for slot in (0..plain.len()).filter(|&s| !plain.is_removed(s)) {
        let weight = plain.weights().map_or(1.0, |w| w[slot]);
        capacity[plain.slot_nodes()[slot] as usize] += weight;
    }
    let problem = Problem {
        weights: &weights,
        nodes: &nodes,
        capacity: &capacity,
        factor: args.factor,
    };
    let plan = problem.solve().map_err(|refusal| match refusal {
        Refusal::TooHeavy(heavy) => {
            let bound = problem.bounds().into_iter().fold(0.0, f64::max);
            let listed: Vec<String> = heavy
                .iter()
                .take(LISTED)
                .map(|&k| {
                    format!(
                        "  key {} weight {} ({})",
                        keys[k], weights[k], read[k].place
                    )
                })
                .collect();
            format!(
                "{} key(s) weigh more than the largest bound, {bound:.3} (c = {} times a node's \
                 share): no node can take one alone, so they need splitting (several keys) or \
                 replication (reads spread over replicas); nothing written\n{}{}",
                heavy.len(),
                args.factor,
                listed.join("\n"),
                if heavy.len() > LISTED { "\n  ..." } else { "" }
            )
        }
        Refusal::Stuck(stuck) => {
            let names: Vec<&str> = stuck
                .iter()
                .map(|&n| plain.nodes()[n as usize].as_str())
                .collect();
            format!(
                "no plan keeps {} under c = {} times its share: its keys do not fit the room \
                 left on the other nodes; a larger --factor, or splitting its heaviest keys, \
                 would; nothing written",
                names.join(", "),
                args.factor
            )
        }
    })?;
    let pins = plan
        .moves
        .iter()
        .map(|&(k, node)| (keys[k], plain.nodes()[node as usize].as_str()));
    let balanced = plain.with_overrides(pins).map_err(|e| e.to_string())?;
    // The table and the plot written before either is in place: a full
    // disk under one leaves the other untouched too.
    let written_table = node_tables::prepare(&args.write_table, &balanced)?;
    let tables = format!("{} -> {}", table.fingerprint(), balanced.fingerprint());
    let fraction = if total > 0.0 { plan.moved / total } else { 0.0 };
    let mut plot = None;
    if let Some(path) = &args.plot {
        let share = |n: usize, load: f64| {
            let fair = total * capacity[n] / capacity.iter().sum::<f64>();
            if fair > 0.0 {
                load / fair
            } else {
                0.0
            }
        };
        let picture = BalancePicture {
            tables: tables.clone(),
            nodes: (0..capacity.len())
                .map(|n| {
                    let name = plain.nodes()[n].as_str();
                    (name, share(n, plan.before[n]), share(n, plan.after[n]))
                })
                .collect(),
            factor: args.factor,
            moved: fraction,
            peaks: (peak(&plan.before, &capacity), peak(&plan.after, &capacity)),
        };
        plot = Some(balance_plot::prepare(path, &picture)?);
    }
    destination::commit_all([Some(written_table), plot])?;
    // What must leave the nodes over their bounds: no plan moves less.
    let excess: f64 = plan
        .before
        .iter()
        .zip(problem.bounds())
        .map(|(&load, bound)| (load - bound).max(0.0))
        .sum();
    let least = if total > 0.0 { excess / total } else { 0.0 };
    let (before, after) = (peak(&plan.before, &capacity), peak(&plan.after, &capacity));
    let written = shown(&args.write_table);
    let text = if args.json {
        serde_json::json!({
            "keys": keys.len(),
            "factor": args.factor,
            "total_weight": total,
            "max_over_mean_before": before,
            "max_over_mean_after": after,
            "moved_weight": plan.moved,
            "moved_fraction": fraction,
            "least_moved_fraction": least,
            "overrides": plan.moves.len(),
            "written_table": written,
            "from_fingerprint": table.fingerprint().to_string(),
            "to_fingerprint": balanced.fingerprint().to_string(),
        })
        .to_string()
    } else {
        format!(
            "tables           {tables}\n\
             keys             {} (total weight {total:.3})\n\
             max/mean         {before:.4} -> {after:.4} (bound: c = {})\n\
             weight moved     {:.3} ({:.4}% of the total; no plan moves less than {:.4}%)\n\
             overrides        {}; table written to {written}",
            keys.len(),
            args.factor,
            plan.moved,
            100.0 * fraction,
            100.0 * least,
            plan.moves.len(),
        )
    };
    let written = committed(&[
        ("the table", Some(&args.write_table)),
        ("the plot", args.plot.as_deref()),
    ]);
    report_to.emit_after_commit(format!("{text}\n").as_bytes(), &written)
}
