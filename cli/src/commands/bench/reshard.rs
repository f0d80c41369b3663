//! `jumpshard bench --reshard FILE`: how much reading the input costs the
//! streaming reshard. In one run, on the same keys and threads, it times
//!
//! - `batch_parallel` at the new count, with the keys in memory: the bare
//!   evaluation, the ceiling of any reshard;
//! - `plan_parallel`, in memory: the move plan, the work a reshard does;
//! - the streaming reshard over the keys in memory (chunks copied from a
//!   buffer instead of read from the file);
//! - the streaming reshard over the file, as `jumpshard reshard` runs it.
//!
//! The whole file is loaded, so it needs about 2.5 times the file's size in
//! memory, and the file runs read it from the page cache: they show what
//! the engine costs beyond the disk, not the disk's speed.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use jumpshard::{MovePlan, Resize};
use jumpshard_stream::not_keys::Looks;
use jumpshard_stream::reshard::{self, Workers};
use jumpshard_stream::{
    detect, u64le_file, Error, InMemory, KeyFormat, NoProgress, Source, SNIFF_BYTES,
};
use serde::Serialize;

use super::buffers;
use crate::args::{count, threads};
use crate::limits;
use crate::out::clash::{self, InputFiles};
use crate::out::stdout::Stdout;

/// The modes that `--reshard FILE` excludes: clap waives an option's
/// `requires = "file"` when one of them is given (the file then cannot be),
/// so each option of `--reshard` conflicts with them too, rather than
/// being ignored.
const WITHOUT_FILE: [&str; 4] = ["keys", "sizes", "placement", "plot"];

/// The options of `jumpshard bench --reshard FILE`.
#[derive(clap::Args)]
pub struct ReshardArgs {
    /// Measure the streaming reshard of this u64le file against the same
    /// keys in memory, instead of the kernels.
    #[arg(long = "reshard", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// With --reshard: the current number of buckets, N.
    #[arg(
        long,
        default_value_t = 10,
        requires = "file",
        conflicts_with_all = WITHOUT_FILE,
        allow_negative_numbers = true,
        value_parser = limits::bucket_count
    )]
    from: i64,
    /// With --reshard: the new number of buckets, M.
    #[arg(
        long,
        default_value_t = 12,
        requires = "file",
        conflicts_with_all = WITHOUT_FILE,
        allow_negative_numbers = true,
        value_parser = limits::bucket_count
    )]
    to: i64,
    /// With --reshard: threads, 0 for one per core (at most 4096).
    #[arg(long, default_value_t = 0, requires = "file", conflicts_with_all = WITHOUT_FILE,
          allow_negative_numbers = true, value_parser = limits::threads)]
    threads: usize,
}

#[derive(Serialize)]
struct Row {
    measure: &'static str,
    mkeys_per_s: f64,
    /// The file run's rate over this one's.
    file_ratio: f64,
}

#[derive(Serialize)]
struct Report {
    file: String,
    keys: u64,
    from: u32,
    to: u32,
    threads: usize,
    kernel: &'static str,
    rows: Vec<Row>,
}

/// Refuses a file that is not u64le keys as the streaming reshard tells
/// them (Parquet, CSV, text, compressed data), which would be timed as
/// keys made of its bytes.
fn u64le_only(path: &Path) -> Result<(), String> {
    use std::io::Read;
    let name = path.display().to_string();
    let mut prefix = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut prefix))
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    // What the input looks like, without the options that read it as it
    // is: bench has none of them.
    let looks = match detect(&name, Some(path), &prefix) {
        Ok(KeyFormat::U64le) => return Ok(()),
        Ok(format) => format!("is read as {} keys", format.name()),
        Err(Error::NotKeys {
            looks: Looks::Compressed(_),
            ..
        }) => "looks compressed".into(),
        Err(Error::ParquetNameOnly { .. }) => {
            "is named .parquet (but is not Parquet: rename it if it holds u64le keys)".into()
        }
        Err(Error::LooksLikeText { .. } | Error::NotKeys { .. }) => "looks like text".into(),
        Err(e) => return Err(e.to_string()),
    };
    Err(format!(
        "{name} {looks}: bench --reshard times u64le files only (8-byte little-endian \
         keys back to back)"
    ))
}

/// Measures the streaming reshard of `args.file`, best of `repeat`, and
/// prints the table (or JSON).
pub fn run(args: &ReshardArgs, repeat: u32, json: bool) -> Result<(), String> {
    let path = args.file.as_deref().expect("--reshard is given");
    let resize = Resize::new(count("--from", args.from)?, count("--to", args.to)?)
        .map_err(|e| e.to_string())?;
    let workers = threads(args.threads);
    if crate::node_tables::is_stdin(path) {
        return Err(
            "bench --reshard needs a file of u64le keys, not standard input: it loads the \
             keys, then reads the file again on every repetition"
                .into(),
        );
    }
    clash::stdout_not_input(None, &InputFiles::default().with("--reshard", path))?;
    let mut out = Stdout::open()?;
    u64le_only(path)?;
    // With one thread, `batch_parallel` and `plan_parallel` run on this one
    // and never ask for the pool.
    if workers > 1 {
        rayon::ThreadPoolBuilder::new()
            .build_global()
            .map_err(|e| format!("cannot start a thread: {e}; --threads 1 needs none"))?;
    }
    let file = u64le_file(path)?;
    let n = file.key_count();
    let size = usize::try_from(n).map_err(|_| format!("{} is too large", path.display()))?;
    let asked = format!("--reshard {}", path.display());
    let mut loaded = buffers::room(size, &asked)?;
    file.read_at(0, size, &mut loaded)?;
    let keys: Arc<[u64]> = loaded.into();
    let streamed = Workers::new(workers);
    let mut buckets = buffers::filled(size, 0u32, &asked)?;
    let mut plan = MovePlan::new();
    let mut best = [f64::INFINITY; 4];
    for _ in 0..repeat {
        let times = [
            seconds(|| {
                jumpshard::batch_parallel(
                    black_box(&keys),
                    resize.to_count(),
                    &mut buckets,
                    workers,
                )
                .map_err(|e| e.to_string())
            })?,
            seconds(|| {
                resize.plan_parallel(black_box(&keys), 0, &mut plan, workers);
                Ok(())
            })?,
            seconds(|| {
                let memory = Source::Positional(Box::new(InMemory(keys.clone())));
                reshard::resize::<Vec<u8>>(resize, memory, streamed, &NoProgress, None)?;
                Ok(())
            })?,
            seconds(|| {
                let file = Source::Positional(u64le_file(path)?);
                reshard::resize::<Vec<u8>>(resize, file, streamed, &NoProgress, None)?;
                Ok(())
            })?,
        ];
        for (best, t) in best.iter_mut().zip(times) {
            *best = best.min(t);
        }
    }
    let rate = |secs: f64| n as f64 / secs / 1e6;
    let file_rate = rate(best[3]);
    let names = [
        "batch_parallel at M, in memory",
        "plan_parallel N -> M, in memory",
        "reshard stream, in memory",
        "reshard stream, from the file",
    ];
    let report = Report {
        file: path.display().to_string(),
        keys: n,
        from: resize.from_count().get(),
        to: resize.to_count().get(),
        threads: workers,
        kernel: jumpshard::active_kernel().name(),
        rows: names
            .iter()
            .zip(best)
            .map(|(&measure, secs)| Row {
                measure,
                mkeys_per_s: rate(secs),
                file_ratio: file_rate / rate(secs),
            })
            .collect(),
    };
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        )?;
        return out.finish();
    }
    writeln!(out,
        "jumpshard bench --reshard {}: {} keys, {} -> {} buckets, {} threads, {} kernel, best of {repeat}",
        report.file, report.keys, report.from, report.to, report.threads, report.kernel
    )?;
    writeln!(
        out,
        "{:<34} {:>10} {:>14}",
        "measure", "Mkeys/s", "file run / it"
    )?;
    for r in &report.rows {
        writeln!(
            out,
            "{:<34} {:>10.1} {:>13.2}x",
            r.measure, r.mkeys_per_s, r.file_ratio
        )?;
    }
    out.finish()
}

fn seconds(f: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed().as_secs_f64())
}
