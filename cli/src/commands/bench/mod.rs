//! `jumpshard bench`: single-thread throughput of every kernel against
//! the compiled Figure 1 reference (`kernels`); with `--sizes`, keys per
//! call instead (`sizes`, its cliffs found by `cliff`); with
//! `--placement`, the calls built on Figure 1 (`placement`); with
//! `--reshard FILE`, the streaming reshard against the same keys in memory
//! (`reshard`). `--plot` draws the first three (`plot`); `clock` estimates
//! the core clock beside the tick counter.

mod buffers;
mod cliff;
mod clock;
pub mod kernels;
mod placement;
mod plot;
mod reshard;
mod sizes;

use std::path::PathBuf;

use crate::limits;
use crate::out::clash::{self, InputFiles};
use crate::out::format_name::check_fixed_outputs;

/// The options of `jumpshard bench`.
#[derive(clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Random keys per measurement, 1 to 268435456 [default: 4194304;
    /// 1048576 with --placement].
    #[arg(long, conflicts_with_all = ["file", "sizes"],
          allow_negative_numbers = true, value_parser = limits::memory_keys(1))]
    keys: Option<usize>,
    /// Repetitions, 1 to 1000 [default: 5; 15 with --sizes; 7 with
    /// --placement]. Plain `bench` reports the fastest; --sizes and
    /// --placement the median.
    #[arg(long, allow_negative_numbers = true, value_parser = limits::repeat)]
    pub repeat: Option<u32>,
    /// Print JSON instead of a table: an array of rows, or with
    /// --placement and --reshard an object holding them.
    #[arg(long)]
    pub json: bool,
    /// Measure every division strategy of each kernel, not only the one
    /// this CPU's table picks.
    #[arg(long, conflicts_with = "file")]
    pub all_divisions: bool,
    /// Sweep keys per call (1 to 65536, finely from 8 to 1024) through
    /// `jumpshard::batch` instead, in ns per key and against Figure 1 on
    /// the same calls; warns (on stderr, and as `cliff` in the JSON) where
    /// a kernel's ratio falls more than 10% below its best at a smaller
    /// call.
    #[arg(long, conflicts_with = "file")]
    pub sizes: bool,
    /// Measure the calls built on Figure 1 instead, at N = 1000: the
    /// plain batch, Memento after 0-99% removed, replica sets of 3 (plain,
    /// after removals, across 3, 5 and 12 zones), weighted tables and the
    /// bounded-load router, each against Figure 1 on the same keys.
    #[arg(long, conflicts_with_all = ["file", "sizes", "all_divisions"])]
    pub placement: bool,
    /// Also draw the results as an SVG chart into FILE (`-`: standard
    /// output, after the table or JSON).
    #[arg(long, value_name = "FILE.svg", conflicts_with = "file")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub reshard: reshard::ReshardArgs,
}

/// What `bench --help` shows after the options: what each mode answers.
const EXAMPLES: &str = "\
Every figure is a ratio to Figure 1 (the paper's C++, compiled in) timed in
the same run on the same keys, so it compares across machines; absolute
rates move with the host and its load. Benchmark on real hardware, with the
machine otherwise idle.

Examples:
  jumpshard bench                      each kernel at N = 10 .. 2^31-1
  JUMPSHARD_DIVISION=newton jumpshard bench
                                       the kernels with that division
  jumpshard bench --sizes              keys per call 1 .. 65536; warns of
                                       any size slower than a smaller one
  jumpshard bench --placement          Memento, replica sets, weights,
                                       bounded loads
  jumpshard bench --placement --keys 65536 --json --plot placement.svg";

/// Runs `bench` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    // The plot's file is checked before minutes of measuring.
    if args.plot.is_some() {
        let plot = [("--plot", args.plot.as_deref())];
        check_fixed_outputs(&plot)?;
        clash::check(&plot, &InputFiles::default())?;
    }
    let repeat = args.repeat.unwrap_or(5);
    if args.reshard.file.is_some() {
        return reshard::run(&args.reshard, repeat, args.json);
    }
    if args.sizes {
        let repeat = args.repeat.unwrap_or(sizes::REPEAT);
        let rows = sizes::run(repeat, args.json, args.all_divisions)?;
        if let Some(path) = &args.plot {
            plot::sizes(path, &rows)?;
        }
        return Ok(());
    }
    if args.placement {
        let keys = args.keys.unwrap_or(1 << 20);
        let report = placement::run(keys, args.repeat.unwrap_or(7), args.json)?;
        if let Some(path) = &args.plot {
            plot::placement(path, &report)?;
        }
        return Ok(());
    }
    let keys = args.keys.unwrap_or(1 << 22);
    let rows = kernels::run(keys, repeat, args.json, args.all_divisions)?;
    if let Some(path) = &args.plot {
        plot::throughput(path, &rows)?;
    }
    Ok(())
}
