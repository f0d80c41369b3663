//! `jumpshard bench`: single-thread throughput of every kernel against
//! the compiled Figure 1 reference (`kernels`); with `--sizes`, keys per
//! call instead (`sizes`); with `--reshard FILE`, the streaming reshard
//! against the same keys in memory (`reshard`). `--plot` draws the first
//! two (`plot`); `clock` estimates the core clock beside the tick counter.

mod clock;
pub mod kernels;
mod plot;
mod reshard;
mod sizes;

use std::path::PathBuf;

use crate::limits;
use crate::out::clash::{self, InputFiles};
use crate::out::format_name::check_fixed;

/// The options of `jumpshard bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Random keys per measurement, 1 to 268435456.
    #[arg(long, default_value_t = 1 << 22, conflicts_with = "file",
          allow_negative_numbers = true, value_parser = limits::memory_keys(1))]
    keys: usize,
    /// Repetitions, 1 to 1000; the fastest of each is reported.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true,
          value_parser = limits::repeat)]
    pub repeat: u32,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Measure every division strategy of each kernel, not only the one
    /// this CPU's table picks.
    #[arg(long)]
    pub all_divisions: bool,
    /// Sweep keys per call (1 to 65536) through `jumpshard::batch`
    /// instead, in ns per key and against Figure 1 on the same calls.
    #[arg(long, conflicts_with = "file")]
    pub sizes: bool,
    /// Also draw the results as an SVG chart into FILE (`-`: standard
    /// output, after the table or JSON).
    #[arg(long, value_name = "FILE.svg", conflicts_with = "file")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub reshard: reshard::ReshardArgs,
}

/// Runs `bench` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    // The plot's file is checked before minutes of measuring.
    if let Some(path) = &args.plot {
        check_fixed("--plot", path, "svg")?;
        clash::check(&[("--plot", Some(path))], &InputFiles::default())?;
    }
    if args.reshard.file.is_some() {
        return reshard::run(&args.reshard, args.repeat, args.json);
    }
    if args.sizes {
        let rows = sizes::run(args.repeat, args.json, args.all_divisions)?;
        if let Some(path) = &args.plot {
            plot::sizes(path, &rows)?;
        }
        return Ok(());
    }
    let rows = kernels::run(args.keys, args.repeat, args.json, args.all_divisions)?;
    if let Some(path) = &args.plot {
        plot::throughput(path, &rows)?;
    }
    Ok(())
}
