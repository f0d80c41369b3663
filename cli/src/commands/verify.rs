//! `jumpshard verify`: every kernel this CPU runs against the compiled
//! Figure 1 reference, on random and adversarial keys at every edge bucket
//! count. The check to run on a new platform or compiler before trusting
//! the engine in production.

use jumpshard::reference;
use jumpshard::verify::{adversarial_keys, compare_with, edge_bucket_counts, Report, SplitMix64};
use serde::Serialize;

use crate::commands::bench::kernels::measured_kernels;
use crate::limits;
use crate::out::stdout::Stdout;

/// The options of `jumpshard verify`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    jumpshard verify                        # 2^20 random keys per bucket count\n  \
    jumpshard verify --keys 262144 --json   # fewer keys, a JSON array of checks")]
pub struct Args {
    /// Random keys per bucket count (the adversarial keys come on top), 0
    /// to 268435456.
    #[arg(long, default_value_t = 1 << 20, allow_negative_numbers = true,
          value_parser = limits::memory_keys(0))]
    keys: usize,
    /// Seed of the random keys, to reproduce a run.
    #[arg(long, default_value_t = 0x6A75_6D70, allow_negative_numbers = true,
          value_parser = limits::any_u64)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row {
    kernel: &'static str,
    division: &'static str,
    pairs: u64,
    mismatches: u64,
    pass: bool,
    first_mismatch: Option<Mismatch>,
}

#[derive(Serialize)]
struct Mismatch {
    key: u64,
    buckets: u32,
    kernel: u32,
    reference: i32,
}

/// Runs `verify` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    let mut out = Stdout::open()?;
    let mut keys = SplitMix64::new(args.seed).keys(args.keys);
    keys.extend(adversarial_keys());
    // Every division strategy too: each is a different computation.
    let kernels = measured_kernels(true);
    let mut reports = vec![Report::default(); kernels.len()];
    let mut want = vec![0i32; keys.len()];
    for n in edge_bucket_counts() {
        reference::batch(&keys, n.get() as i32, &mut want);
        for (kernel, report) in kernels.iter().zip(&mut reports) {
            report.merge(compare_with(*kernel, &keys, n, &want));
        }
    }
    let rows: Vec<Row> = kernels
        .iter()
        .zip(reports)
        .map(|(kernel, r)| Row {
            kernel: kernel.name(),
            division: kernel.division().name(),
            pairs: r.pairs,
            mismatches: r.mismatches,
            pass: r.mismatches == 0,
            first_mismatch: r
                .first_mismatch
                .map(|(key, buckets, kernel, reference)| Mismatch {
                    key,
                    buckets,
                    kernel,
                    reference,
                }),
        })
        .collect();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        )?;
    } else {
        print_table(&mut out, &rows, edge_bucket_counts().len(), keys.len())?;
    }
    out.finish()?;
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| !r.pass)
        .map(|r| format!("{} ({})", r.kernel, r.division))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "kernels differ from Figure 1: {}",
            failed.join(", ")
        ))
    }
}

fn print_table(out: &mut Stdout, rows: &[Row], counts: usize, keys: usize) -> Result<(), String> {
    let target = std::env::consts::ARCH;
    writeln!(
        out,
        "jumpshard verify: {keys} keys x {counts} bucket counts against Figure 1 (C++), {target}"
    )?;
    writeln!(
        out,
        "{:<8} {:<8} {:>14} {:>11}  result",
        "kernel", "division", "pairs", "mismatches"
    )?;
    for r in rows {
        let result = if r.pass { "pass" } else { "FAIL" };
        writeln!(
            out,
            "{:<8} {:<8} {:>14} {:>11}  {result}",
            r.kernel, r.division, r.pairs, r.mismatches
        )?;
        if let Some(m) = &r.first_mismatch {
            writeln!(
                out,
                "         first mismatch: key {} N={} gives {}, Figure 1 gives {}",
                m.key, m.buckets, m.kernel, m.reference
            )?;
        }
    }
    Ok(())
}
