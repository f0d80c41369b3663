//! `jumpshard bench`: single-thread throughput of every kernel this CPU runs
//! and of the compiled Figure 1 reference, measured in the same run so that
//! the ratio means something on any machine. (With `--reshard FILE`, the
//! streaming reshard instead: see `bench_reshard`.)
//!
//! Each repetition times the reference and every kernel back to back on the
//! same keys; the best repetition of each counts, which filters out
//! interruptions by other processes.

use std::hint::black_box;
use std::time::Instant;

use jumpshard::verify::SplitMix64;
use jumpshard::{reference, BucketCount, Kernel};
use serde::Serialize;

use crate::stdout::Stdout;

const COUNTS: [u32; 4] = [10, 1000, 1_000_000, (1 << 31) - 1];

#[derive(clap::Args)]
pub struct Args {
    /// Random keys per measurement.
    #[arg(long, default_value_t = 1 << 22, conflicts_with = "file")]
    keys: usize,
    /// Repetitions; the fastest of each is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub reshard: crate::bench_reshard::ReshardArgs,
}

#[derive(Serialize)]
struct Row {
    kernel: &'static str,
    buckets: u32,
    threads: u32,
    keys: usize,
    mkeys_per_s: f64,
    ratio_vs_reference: f64,
}

pub fn run(args: &Args) -> Result<(), String> {
    if args.reshard.file.is_some() {
        return crate::bench_reshard::run(&args.reshard, args.repeat, args.json);
    }
    if args.keys == 0 {
        return Err("--keys must be at least 1".into());
    }
    let mut out = Stdout::open()?;
    let keys = SplitMix64::new(0xBE7C4).keys(args.keys);
    let kernels = Kernel::supported();
    let mut rows = Vec::new();
    for n in COUNTS {
        let count = BucketCount::new(n).expect("valid count");
        let mut out_ref = vec![0i32; keys.len()];
        let mut out = vec![0u32; keys.len()];
        let mut best_ref = f64::INFINITY;
        let mut best = vec![f64::INFINITY; kernels.len()];
        for _ in 0..args.repeat {
            best_ref = best_ref.min(seconds(|| {
                reference::batch(black_box(&keys), n as i32, &mut out_ref);
                black_box(&mut out_ref);
            }));
            for (kernel, best) in kernels.iter().zip(&mut best) {
                let t = seconds(|| {
                    kernel
                        .batch(black_box(&keys), count, &mut out)
                        .expect("lengths match");
                    black_box(&mut out);
                });
                *best = best.min(t);
            }
        }
        let rate = |secs: f64| keys.len() as f64 / secs / 1e6;
        let reference_rate = rate(best_ref);
        rows.push(Row {
            kernel: "reference",
            buckets: n,
            threads: 1,
            keys: keys.len(),
            mkeys_per_s: reference_rate,
            ratio_vs_reference: 1.0,
        });
        for (kernel, secs) in kernels.iter().zip(best) {
            rows.push(Row {
                kernel: kernel.name(),
                buckets: n,
                threads: 1,
                keys: keys.len(),
                mkeys_per_s: rate(secs),
                ratio_vs_reference: rate(secs) / reference_rate,
            });
        }
    }
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        )?;
    } else {
        print_table(&mut out, &rows, args)?;
    }
    out.finish()
}

fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn print_table(out: &mut Stdout, rows: &[Row], args: &Args) -> Result<(), String> {
    writeln!(
        out,
        "jumpshard bench: {} random keys, 1 thread, best of {}, {}",
        args.keys,
        args.repeat,
        std::env::consts::ARCH
    )?;
    writeln!(
        out,
        "{:<10} {:>12} {:>12} {:>10}",
        "kernel", "N", "Mkeys/s", "vs Fig. 1"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<10} {:>12} {:>12.1} {:>9.2}x",
            r.kernel, r.buckets, r.mkeys_per_s, r.ratio_vs_reference
        )?;
    }
    Ok(())
}
