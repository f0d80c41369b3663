//! `jumpshard assign`: the bucket of every key among N, in input order,
//! streamed like `reshard`.
//!
//! Output: `text`, one decimal bucket per line; or `binary`, one
//! little-endian i32 per key (Figure 1's return type).

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use jumpshard_stream::pipeline;

use crate::args::{count, InputArgs};
use crate::out::destination::Output;
use crate::out::progress;
use crate::out::stdout::{ReportTo, Stdout};

/// How the buckets are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BucketFormat {
    /// One decimal bucket per line.
    Text,
    /// One little-endian i32 per key.
    Binary,
}

/// The options of `jumpshard assign`.
#[derive(clap::Args)]
pub struct Args {
    /// The number of buckets, N (1 to 2147483647).
    #[arg(long, allow_negative_numbers = true)]
    buckets: i64,
    #[command(flatten)]
    input: InputArgs,
    /// Write the buckets here (atomically: complete or not at all, and
    /// never over the input) and a summary to standard output; without it,
    /// the buckets go to standard output. `-` writes them to standard
    /// output and the summary to standard error; a FIFO or a character
    /// device (/dev/null) is written directly.
    #[arg(long, value_name = "FILE|-")]
    output: Option<PathBuf>,
    /// Format of the buckets.
    #[arg(long, value_enum, default_value_t = BucketFormat::Text)]
    output_format: BucketFormat,
    /// Threads to read and compute on; 0 means one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print the summary (with --output) as one JSON object.
    #[arg(long, requires = "output")]
    json: bool,
}

#[derive(Serialize)]
struct Summary {
    keys: u64,
    buckets: u32,
    seconds: f64,
    keys_per_second: f64,
    threads: usize,
    output: String,
}

/// One chunk's buckets, and their bytes in the output.
#[derive(Default)]
struct Part {
    buckets: Vec<u32>,
    bytes: Vec<u8>,
}

/// Runs `assign` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    let n = count("--buckets", args.buckets)?;
    let input = args.input.options().open()?;
    let mut sink = match &args.output {
        Some(path) => Output::create(path, args.input.file_id())?,
        None => Output::Stdout(Stdout::open()?),
    };
    // The summary's standard output, opened before any work so that a
    // closed one stops the command early.
    let report = ReportTo::open(sink.is_stdout())?;
    let format = args.output_format;
    let bar = progress::bar(input.size, input.unit);
    let workers = args.input.workers(args.threads);
    let start = Instant::now();
    let keys = pipeline::run(
        input.source,
        workers.chunk_keys,
        workers.threads,
        &|n| bar.inc(n),
        |chunk, part: &mut Part| {
            part.buckets.resize(chunk.keys.len(), 0);
            jumpshard::batch(&chunk.keys, n, &mut part.buckets).expect("one bucket per key");
            let bytes = &mut part.bytes;
            bytes.clear();
            match format {
                BucketFormat::Binary => {
                    // Buckets are below 2^31, so as i32 they keep their bits.
                    bytes.extend(part.buckets.iter().flat_map(|b| b.to_le_bytes()));
                }
                BucketFormat::Text => {
                    let mut itoa = itoa::Buffer::new();
                    for &b in &part.buckets {
                        bytes.extend_from_slice(itoa.format(b).as_bytes());
                        bytes.push(b'\n');
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
        buckets: n.get(),
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
        )
    };
    report.emit(format!("{text}\n").as_bytes())
}
