//! `jumpshard`: the command-line tool. One file per command.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use jumpshard_cli::stdout::Stdout;
use jumpshard_cli::{assign, bench, remove, reshard, signals, verify};

/// Jump consistent hash, bit-exact with Lamping and Veach's Figure 1, for
/// large batches of 64-bit keys.
#[derive(Parser)]
#[command(name = "jumpshard", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the bucket of one key among N buckets.
    Bucket {
        /// The 64-bit key, in decimal.
        key: u64,
        /// The number of buckets, 1 to 2147483647.
        #[arg(allow_negative_numbers = true)]
        buckets: i64,
    },
    /// Check every kernel this CPU runs against the compiled Figure 1
    /// reference; exits non-zero on any mismatch.
    Verify(verify::Args),
    /// List the kernels: which this CPU runs, and which batch calls use.
    Kernels {
        /// Print only the names of the supported kernels, one per line.
        #[arg(long)]
        supported: bool,
        /// Print only `kernel:division` for every division strategy of
        /// every supported kernel, one per line.
        #[arg(long, conflicts_with = "supported")]
        divisions: bool,
    },
    /// Measure each kernel's single-thread throughput against the Figure 1
    /// reference in the same run.
    Bench(bench::Args),
    /// List the keys that move, and where, when the bucket count changes
    /// from N to M; streams inputs of any size on every core.
    Reshard(reshard::Args),
    /// Write the bucket of every key among N, in input order, streaming.
    Assign(assign::Args),
    /// Plan taking one node out of a node table: every honest option
    /// (swap with the last slot and shrink; point its slot at a survivor)
    /// and the naive hole, with moves and balance, and a recommendation.
    Remove(remove::Args),
}

fn main() -> ExitCode {
    signals::install();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bucket { key, buckets } => bucket(key, buckets),
        Command::Kernels {
            supported,
            divisions,
        } => kernels(supported, divisions),
        Command::Verify(args) => verify::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Reshard(args) => reshard::run(&args),
        Command::Assign(args) => assign::run(&args),
        Command::Remove(args) => remove::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("jumpshard: {message}");
            ExitCode::FAILURE
        }
    }
}

fn bucket(key: u64, buckets: i64) -> Result<(), String> {
    let n = jumpshard::BucketCount::try_from(buckets).map_err(|e| e.to_string())?;
    let mut out = Stdout::open()?;
    writeln!(out, "{}", jumpshard::bucket(key, n))?;
    out.finish()
}

fn kernels(only_supported: bool, only_divisions: bool) -> Result<(), String> {
    let mut out = Stdout::open()?;
    let supported = jumpshard::Kernel::supported();
    if only_supported {
        for k in supported {
            writeln!(out, "{k}")?;
        }
        return out.finish();
    }
    if only_divisions {
        for k in &supported {
            for d in k.divisions() {
                writeln!(out, "{k}:{d}")?;
            }
        }
        return out.finish();
    }
    let selection = jumpshard::kernel_selection();
    let active = jumpshard::active_kernel();
    for name in jumpshard::Kernel::NAMES {
        let state = match jumpshard::Kernel::by_name(name) {
            Ok(k) if k.name() == active.name() => {
                format!("supported, active, {} division", active.division())
            }
            Ok(k) => format!("supported, {} division", k.division()),
            Err(_) => "not supported here".to_owned(),
        };
        writeln!(out, "{name:<8} {state}")?;
    }
    if let (Some(requested), Some(why)) = (&selection.requested, &selection.refused) {
        writeln!(
            out,
            "{} = {requested:?} was refused: {why}",
            jumpshard::KERNEL_ENV
        )?;
    }
    if let (Some(requested), Some(why)) =
        (&selection.division_requested, &selection.division_refused)
    {
        writeln!(
            out,
            "{} = {requested:?} was refused: {why}",
            jumpshard::DIVISION_ENV
        )?;
    }
    writeln!(out, "CPU: {}", jumpshard::Cpu::this())?;
    out.finish()
}
