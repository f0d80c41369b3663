//! `jumpshard reshard`: which keys move, and where, when the bucket count
//! changes from N to M, for inputs of any size, on every core, with memory
//! bounded by a few chunks.
//!
//! The move list (`--output`) has one record per moving key, in input
//! order: its id (the key itself, or its 0-based position in the input
//! with `--positions` and always for `bytes` keys), its old bucket and its
//! new one.
//!
//! - `csv`: a header line `key,from,to` (or `position,from,to`), then one
//!   line per move, each ending in `\n`.
//! - `binary`: no header; 16 bytes per move, all little-endian: the id as
//!   a u64, then `from` and `to` as u32.
//! - `parquet`: columns `key` or `position` (uint64), `from`, `to` (uint32).
//!
//! With `--nodes OLD --to-nodes NEW` (node tables, see `crate::tables`)
//! moves name nodes instead (`crate::reshard_nodes`).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use indicatif::ProgressBar;
use jumpshard::{BucketCount, DestinationCounts, MovePlan, Resize};
use serde::{Serialize, Serializer};

use crate::stdout::ReportTo;
use crate::{input, pipeline, progress};

/// Destinations listed in the text summary; `--json` lists them all.
const LISTED: usize = 32;

pub use crate::move_output::MoveFormat;
use crate::move_output::MoveSink;

#[derive(clap::Args)]
pub struct Args {
    /// The current number of buckets, N (1 to 2147483647).
    #[arg(long, allow_negative_numbers = true, required_unless_present = "nodes")]
    from: Option<i64>,
    /// The new number of buckets, M (1 to 2147483647, not N).
    #[arg(
        long,
        allow_negative_numbers = true,
        required_unless_present = "to_nodes"
    )]
    to: Option<i64>,
    /// The current node table instead of --from: a file with one node
    /// name per line, line i+1 serving bucket i (`+NAME` repeats a node on
    /// purpose); moves then name nodes.
    #[arg(long, value_name = "OLD", requires = "to_nodes", conflicts_with_all = ["from", "to"])]
    pub(crate) nodes: Option<PathBuf>,
    /// The new node table (with --nodes).
    #[arg(long, value_name = "NEW", requires = "nodes")]
    pub(crate) to_nodes: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) input: input::InputArgs,
    /// Write the move list here (atomically: complete or not at all, and
    /// never over the input). `-` writes it to standard output, and the
    /// summary then goes to standard error; a FIFO or a character device
    /// (/dev/null) is written directly.
    #[arg(long, value_name = "FILE|-")]
    pub(crate) output: Option<PathBuf>,
    /// Format of the move list.
    #[arg(long, value_enum, default_value_t = MoveFormat::Csv, requires = "output")]
    pub(crate) output_format: MoveFormat,
    /// Identify moving keys by their 0-based position in the input rather
    /// than by value (always so for `--key-format bytes`).
    #[arg(long, requires = "output")]
    pub(crate) positions: bool,
    /// Threads to read and compute on; 0 means one per core.
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// With --nodes: draw each node's load before and after and the
    /// transfer matrix to this SVG file.
    #[arg(long, value_name = "FILE.svg", requires = "nodes")]
    pub(crate) plot: Option<PathBuf>,
}

/// A bucket count from the command line, or an error naming the option.
pub fn count(option: &str, value: i64) -> Result<BucketCount, String> {
    BucketCount::try_from(value).map_err(|e| format!("{option}: {e}"))
}

/// The number of threads `--threads` asks for, as the pool will run it.
pub fn threads(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match asked {
        0 => cores,
        t => t.min(cores),
    }
}

pub fn run(args: &Args) -> Result<(), String> {
    if let (Some(old), Some(new)) = (&args.nodes, &args.to_nodes) {
        return crate::reshard_nodes::run(args, old, new);
    }
    // Clap requires both counts without --nodes.
    let (from, to) = (args.from.unwrap_or(0), args.to.unwrap_or(0));
    let resize =
        Resize::new(count("--from", from)?, count("--to", to)?).map_err(|e| e.to_string())?;
    let input = args.input.open()?;
    let by_position = args.positions || input.byte_keys;
    let format = args.output_format;
    let mut output = args
        .output
        .as_deref()
        .map(|path| MoveSink::create(path, args.input.file_id(), format, by_position, None))
        .transpose()?;
    // Where the summary goes, known before any work, so that a closed
    // standard output stops the command first.
    let to_stdout = output.as_ref().is_some_and(MoveSink::is_stdout);
    let report = ReportTo::open(to_stdout)?;
    let bar = progress::bar(input.size, input.unit);
    let workers = threads(args.threads);
    let start = Instant::now();
    let moves = output.as_mut().map(|sink| MoveList {
        sink,
        format,
        by_position,
    });
    let (keys, total) = stream(
        resize,
        input.source,
        workers,
        args.input.chunk_keys(workers),
        &bar,
        moves,
    )?;
    bar.finish_and_clear();
    if let Some(out) = output {
        out.commit()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary {
        keys,
        moved: total.total(),
        from: resize.from_count().get(),
        to: resize.to_count().get(),
        moved_fraction: fraction(total.total(), keys),
        expected_fraction: resize.expected_moved_fraction(),
        seconds,
        keys_per_second: keys as f64 / seconds,
        threads: threads(args.threads),
        per_destination: PerDestination(&total),
        output: args.output.as_ref().map(|p| match to_stdout {
            true => "standard output".to_string(),
            false => p.display().to_string(),
        }),
    };
    let text = if args.json {
        serde_json::to_string(&summary).map_err(|e| e.to_string())? + "\n"
    } else {
        summary_text(&summary, resize)
    };
    report.emit(text.as_bytes())
}

/// Where and how the move list is written.
pub struct MoveList<'a> {
    pub sink: &'a mut MoveSink,
    pub format: MoveFormat,
    /// Identify keys by position rather than by value.
    pub by_position: bool,
}

/// Plans `resize` over `source` on `workers` threads in chunks of
/// `chunk_keys`, appending each move to `moves` when given; returns the
/// number of keys and the moves per destination.
pub fn stream(
    resize: Resize,
    source: input::Source,
    workers: usize,
    chunk_keys: usize,
    bar: &ProgressBar,
    mut moves: Option<MoveList>,
) -> Result<(u64, DestinationCounts), String> {
    let mut total = DestinationCounts::new(resize);
    let encoding = moves.as_ref().map(|m| (m.format, m.by_position));
    let keys = pipeline::run(
        source,
        chunk_keys,
        workers,
        bar,
        |chunk, part: &mut Part| {
            resize.plan(&chunk.keys, chunk.first, &mut part.plan);
            part.record.clear();
            part.ids.clear();
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
                } else {
                    encode(&mut part.record, format, id, m.from, m.to);
                }
            }
        },
        |_, part| {
            total.merge(part.plan.per_destination());
            match moves.as_mut() {
                Some(m) if m.format.columnar() => {
                    m.sink
                        .write_columns(&part.ids, part.plan.from(), part.plan.to())
                }
                Some(m) => m.sink.write_bytes(&part.record),
                None => Ok(()),
            }
        },
    )?;
    Ok((keys, total))
}

/// One chunk's plan and its records in the move list.
#[derive(Default)]
struct Part {
    plan: MovePlan,
    record: Vec<u8>,
    /// The moving keys' ids, for a columnar move list.
    ids: Vec<u64>,
}

/// Appends one move record.
fn encode(buf: &mut Vec<u8>, format: MoveFormat, id: u64, from: u32, to: u32) {
    match format {
        MoveFormat::Binary => {
            buf.extend_from_slice(&id.to_le_bytes());
            buf.extend_from_slice(&from.to_le_bytes());
            buf.extend_from_slice(&to.to_le_bytes());
        }
        MoveFormat::Csv => {
            let mut itoa = itoa::Buffer::new();
            buf.extend_from_slice(itoa.format(id).as_bytes());
            buf.push(b',');
            buf.extend_from_slice(itoa.format(from).as_bytes());
            buf.push(b',');
            buf.extend_from_slice(itoa.format(to).as_bytes());
            buf.push(b'\n');
        }
        #[cfg(feature = "parquet")]
        MoveFormat::Parquet => unreachable!("Parquet moves are written as columns"),
    }
}

pub fn fraction(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[derive(Serialize)]
struct Summary<'a> {
    keys: u64,
    moved: u64,
    from: u32,
    to: u32,
    moved_fraction: f64,
    expected_fraction: f64,
    seconds: f64,
    keys_per_second: f64,
    threads: usize,
    per_destination: PerDestination<'a>,
    output: Option<String>,
}

/// Bucket number (as a string, JSON's only key type) to count, by
/// increasing bucket.
struct PerDestination<'a>(&'a DestinationCounts);

impl Serialize for PerDestination<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(bucket, n)| (bucket.to_string(), n)))
    }
}

/// The summary as text.
fn summary_text(s: &Summary, resize: Resize) -> String {
    let (kind, formula) = if resize.shrinks() {
        ("shrink", format!("({} - {}) / {}", s.from, s.to, s.from))
    } else {
        ("growth", format!("1 - {} / {}", s.from, s.to))
    };
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = (|| -> std::fmt::Result {
        writeln!(out, "reshard {} -> {} buckets ({kind})", s.from, s.to)?;
        writeln!(out, "keys read      {}", s.keys)?;
        writeln!(
            out,
            "keys moved     {} ({:.4}%; expected {formula} = {:.4}%)",
            s.moved,
            100.0 * s.moved_fraction,
            100.0 * s.expected_fraction
        )?;
        writeln!(out, "per destination bucket:")?;
        let mut listed = 0;
        for (bucket, n) in s.per_destination.0.iter().take(LISTED) {
            writeln!(out, "  {bucket:>10}  {n}")?;
            listed += 1;
        }
        let all = s.per_destination.0.iter().count();
        if all > listed {
            writeln!(out, "  ... and {} more buckets (see --json)", all - listed)?;
        }
        writeln!(
            out,
            "time           {:.3} s ({:.1} M keys/s on {} threads)",
            s.seconds,
            s.keys_per_second / 1e6,
            s.threads
        )?;
        if let Some(path) = &s.output {
            writeln!(out, "move list      {path}")?;
        }
        Ok(())
    })();
    out
}
