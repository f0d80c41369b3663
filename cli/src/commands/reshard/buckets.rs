//! `jumpshard reshard --from N --to M`: the moves between buckets and a
//! summary of them per destination.

use std::fmt::Write as _;
use std::time::Instant;

use jumpshard::{DestinationCounts, Resize};
use jumpshard_stream::reshard;
use serde::{Serialize, Serializer};

use super::args::Args;
use super::move_list;
use crate::args::count;
use crate::out::destination::committed;
use crate::out::stdout::ReportTo;
use crate::out::{clash, progress};
use crate::report::fraction::fraction;

/// Destinations listed in the text summary; `--json` lists them all.
const LISTED: usize = 32;

/// Runs `reshard --from N --to M`.
pub fn run(args: &Args) -> Result<(), String> {
    // Clap requires both counts without --from-nodes.
    let (from, to) = (args.from.unwrap_or(0), args.to.unwrap_or(0));
    let resize =
        Resize::new(count("--from", from)?, count("--to", to)?).map_err(|e| e.to_string())?;
    let input = args.input.open()?;
    clash::check(
        &[("--output", args.output.as_deref())],
        &args.input.input_files(),
    )?;
    let mut output = move_list::open(args, input.byte_keys, None)?;
    // Where the summary goes, known before any work, so that a closed
    // standard output stops the command first.
    let to_stdout = output.as_ref().is_some_and(|o| o.get_ref().is_stdout());
    let report = ReportTo::open(to_stdout)?;
    let bar = progress::bar(input.size, input.unit);
    let workers = args.input.workers(args.threads);
    let start = Instant::now();
    let (keys, total) = reshard::resize(
        resize,
        input.source,
        workers,
        &|n| bar.inc(n),
        output.as_mut(),
    )?;
    bar.finish_and_clear();
    if let Some(out) = output {
        out.finish()?.commit()?;
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
        threads: workers.threads,
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
    let written = committed(&[("the move list", args.output.as_deref())]);
    report.emit_after_commit(text.as_bytes(), &written)
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
