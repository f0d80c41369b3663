//! `jumpshard assign`: the bucket of every key among N, or its node in a
//! node table (which may carry removals or weights), or its replica set,
//! in input order, streamed like `reshard`.
//!
//! Output: `text`, one decimal bucket (or node name) per line, a replica
//! set's members joined by `,`; or `binary`, one little-endian i32 per key
//! and member (Figure 1's return type; the slot, with a table).

use std::path::{Path, PathBuf};
use std::time::Instant;

use jumpshard::{BucketCount, NodeTable};

use serde::Serialize;

use jumpshard_stream::pipeline;

use crate::args::{count, InputArgs};
use crate::limits;
use crate::node_tables;
use crate::out::destination::{committed, Output};
use crate::out::format_name::choose;
use crate::out::progress;
use crate::out::stdout::ReportTo;
use crate::stdin;

/// How the buckets are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BucketFormat {
    /// One decimal bucket per line.
    Text,
    /// One little-endian i32 per key.
    Binary,
}

impl BucketFormat {
    /// The formats, by the names of the file extensions that say them (a
    /// column of text buckets is a one-column CSV file too).
    const OFFERED: &[(&str, BucketFormat)] = &[
        ("text", BucketFormat::Text),
        ("csv", BucketFormat::Text),
        ("binary", BucketFormat::Binary),
    ];

    /// The format as `--output-format` spells it.
    fn name(self) -> &'static str {
        match self {
            BucketFormat::Text => "text",
            BucketFormat::Binary => "binary",
        }
    }

    /// The format of `args`' output: `--output-format`, or the one the
    /// file's name says, or text; an error when they disagree.
    fn of(args: &Args) -> Result<BucketFormat, String> {
        match &args.output {
            Some(path) => choose(
                "--output",
                path,
                args.output_format,
                BucketFormat::OFFERED,
                BucketFormat::Text,
                BucketFormat::name,
            ),
            None => Ok(args.output_format.unwrap_or(BucketFormat::Text)),
        }
    }
}

/// The options of `jumpshard assign`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    jumpshard assign --buckets 12 --key-format decimal keys.txt \\\n    \
    --output buckets.bin --output-format binary\n  \
    jumpshard assign --nodes nodes.txt --replicas 3 keys.u64 --output replicas.txt")]
pub struct Args {
    /// The number of buckets, N (1 to 2147483647).
    #[arg(long, allow_negative_numbers = true, required_unless_present = "nodes",
          value_parser = limits::bucket_count)]
    buckets: Option<i64>,
    /// A node table instead of --buckets: one node name per line, line i+1
    /// serving bucket i, with its removals (`removed=K`) or weights
    /// (`weight=W`); keys are then assigned node names. `-` is standard
    /// input (then not the keys').
    #[arg(long, value_name = "TABLE", conflicts_with = "buckets")]
    nodes: Option<PathBuf>,
    /// Assign each key a replica set of K distinct buckets (or nodes), the
    /// first being its own bucket; a removal replaces only the member it
    /// hits.
    #[arg(long, value_name = "K", allow_negative_numbers = true,
          value_parser = limits::replicas)]
    replicas: Option<usize>,
    #[command(flatten)]
    input: InputArgs,
    /// Write the buckets here (atomically: complete or not at all, and
    /// never over the input) and a summary to standard output; without it,
    /// the buckets go to standard output. `-` writes them to standard
    /// output and the summary to standard error; a FIFO or a character
    /// device (/dev/null) is written directly.
    #[arg(long, value_name = "FILE|-")]
    output: Option<PathBuf>,
    /// Format of the buckets; without it, the --output file's name says
    /// (`.txt` or `.csv` for text, `.bin` for binary), and text for any
    /// other name. A name that says another format than this is refused.
    #[arg(long, value_enum)]
    output_format: Option<BucketFormat>,
    /// Threads to read and compute on: 0 means one per core, and more
    /// than the cores run as many as there are cores (the summary says how
    /// many ran). At most 4096.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = limits::threads)]
    threads: usize,
    /// Print the summary (with --output) as one JSON object.
    #[arg(long, requires = "output")]
    json: bool,
}

#[derive(Serialize)]
struct Summary {
    keys: u64,
    buckets: u32,
    replicas: usize,
    /// The node table's fingerprint (with `--nodes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    table_fingerprint: Option<String>,
    seconds: f64,
    keys_per_second: f64,
    threads: usize,
    output: String,
}

/// One chunk's buckets (one column per replica), and their bytes in the
/// output.
#[derive(Default)]
struct Part {
    columns: Vec<Vec<u32>>,
    bytes: Vec<u8>,
}

/// Where keys go: buckets among N, or the slots of a table.
enum Target {
    Buckets(BucketCount),
    Table(Box<NodeTable>),
}

impl Target {
    fn read(args: &Args) -> Result<Target, String> {
        let target = match (&args.nodes, args.buckets) {
            (Some(path), _) => {
                node_tables::one_on_stdin(&[
                    ("--nodes", stdin::reads_stdin(path)),
                    ("the keys", args.input.reads_stdin()),
                ])?;
                Target::Table(Box::new(node_tables::read("--nodes", path)?))
            }
            (None, Some(n)) => Target::Buckets(count("--buckets", n)?),
            (None, None) => unreachable!("clap requires --buckets or --nodes"),
        };
        let Some(k) = args.replicas else {
            return Ok(target);
        };
        match &target {
            // The library checks k against N too, but only once keys come.
            Target::Buckets(n) if k == 0 || k > n.get() as usize => Err(format!(
                "--replicas {k}: a set holds 1 to {n} distinct buckets here"
            ))?,
            Target::Buckets(_) => {}
            Target::Table(t) => t
                .check_replicas(k)
                .map_err(|e| format!("--replicas {k}: {e}"))?,
        }
        Ok(target)
    }

    /// The buckets of `keys` into `columns` (one per replica).
    fn assign(&self, keys: &[u64], columns: &mut [Vec<u32>]) {
        for column in columns.iter_mut() {
            column.resize(keys.len(), 0);
        }
        let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
        let done = match (self, refs.len()) {
            (Target::Buckets(n), 1) => jumpshard::batch(keys, *n, refs[0]).is_ok(),
            (Target::Table(t), 1) => t.batch(keys, refs[0]).is_ok(),
            (Target::Buckets(n), _) => jumpshard::replicas::batch(keys, *n, &mut refs).is_ok(),
            (Target::Table(t), _) => t.replicas_batch(keys, &mut refs).is_ok(),
        };
        assert!(done, "columns as long as the keys, and k checked");
    }
}

/// Runs `assign` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    let format = BucketFormat::of(args)?;
    let target = Target::read(args)?;
    let k = args.replicas.unwrap_or(1);
    let input = args.input.open()?;
    let mut inputs = args.input.input_files();
    if let Some(table) = &args.nodes {
        inputs = inputs.with("--nodes", table);
    }
    let mut sink = Output::create(args.output.as_deref().unwrap_or(Path::new("-")), inputs)?;
    // The summary's standard output, opened before any work so that a
    // closed one stops the command early.
    let report = ReportTo::open(sink.is_stdout())?;
    let bar = progress::bar(input.size, input.unit);
    let workers = args.input.workers(args.threads);
    let start = Instant::now();
    let keys = pipeline::run(
        input.source,
        workers.chunk_keys,
        workers.threads,
        &|n| bar.inc(n),
        |chunk, part: &mut Part| {
            part.columns.resize_with(k, Vec::new);
            target.assign(&chunk.keys, &mut part.columns);
            let bytes = &mut part.bytes;
            bytes.clear();
            let mut itoa = itoa::Buffer::new();
            for i in 0..chunk.keys.len() {
                for (j, column) in part.columns.iter().enumerate() {
                    let b = column[i];
                    match (format, &target) {
                        // Buckets are below 2^31, so as i32 they keep their
                        // bits.
                        (BucketFormat::Binary, _) => bytes.extend(b.to_le_bytes()),
                        (BucketFormat::Text, Target::Buckets(_)) => {
                            bytes.extend_from_slice(itoa.format(b).as_bytes())
                        }
                        (BucketFormat::Text, Target::Table(t)) => {
                            bytes.extend_from_slice(t.slot(b as usize).as_bytes())
                        }
                    }
                    if format == BucketFormat::Text {
                        bytes.push(if j + 1 == k { b'\n' } else { b',' });
                    }
                }
            }
        },
        |_, part| sink.write_all(&part.bytes),
    )?;
    bar.finish_and_clear();
    sink.commit()?;
    let Some(path) = &args.output else {
        return Ok(());
    };
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary {
        keys,
        buckets: match &target {
            Target::Buckets(n) => n.get(),
            Target::Table(t) => t.len() as u32,
        },
        replicas: k,
        table_fingerprint: match &target {
            Target::Buckets(_) => None,
            Target::Table(t) => Some(t.fingerprint().to_string()),
        },
        seconds,
        keys_per_second: keys as f64 / seconds,
        threads: workers.threads,
        output: match report {
            ReportTo::Stdout(_) => path.display().to_string(),
            ReportTo::Stderr => "standard output".to_string(),
        },
    };
    let text = if args.json {
        serde_json::to_string(&summary).map_err(|e| e.to_string())?
    } else {
        format!(
            "assigned {} keys to {} buckets in {:.3} s ({:.1} M keys/s on {} threads): {}",
            summary.keys,
            summary.buckets,
            summary.seconds,
            summary.keys_per_second / 1e6,
            summary.threads,
            summary.output
        ) + &summary
            .table_fingerprint
            .as_ref()
            .map_or(String::new(), |f| format!("\ntable            {f}"))
    };
    let written = committed(&[("the bucket list", Some(path))]);
    report.emit_after_commit(format!("{text}\n").as_bytes(), &written)
}
