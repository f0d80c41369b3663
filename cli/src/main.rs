//! `jumpshard`: the command-line tool. One module per command
//! (`commands`), the argument groups they share (`args`), what they report
//! (`report`) and where their results go (`out`); the streaming engine is
//! the `jumpshard-stream` crate.

#![deny(missing_docs)]

mod args;
#[cfg(target_os = "linux")]
mod at_start;
mod commands;
mod limits;
mod node_tables;
mod out;
mod report;
mod stdin;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use commands::{
    assign, balance, bench, bucket, kernels, lookup, remove, reshard, restore, table, verify,
};
use out::signals;

/// Jump consistent hash, bit-exact with Lamping and Veach's Figure 1, for
/// large batches of 64-bit keys.
#[derive(Parser)]
#[command(name = "jumpshard", version, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What `jumpshard --help` shows after the commands.
const EXAMPLES: &str = "\
Examples:
  jumpshard bucket 1253737204188795044 100     # 86
  jumpshard reshard --from 10 --to 12 --generate 100000000
  jumpshard verify                             # every kernel against Figure 1
Each command's --help has its own examples; the manual is docs/cli.md.";

/// The command line, its first line of help naming every command: taken
/// from the commands themselves, so that it cannot fall behind them.
fn command_line() -> clap::Command {
    let cli = Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
    let about = format!("The jumpshard command-line tool: {}", names.join(", "));
    cli.about(about)
}

#[derive(Subcommand)]
enum Command {
    /// Print the bucket of one key among N buckets.
    #[command(after_help = "Example:\n  \
        jumpshard bucket 1253737204188795044 100     # 86")]
    Bucket {
        /// The 64-bit key, in decimal.
        #[arg(allow_negative_numbers = true, value_parser = limits::any_u64)]
        key: u64,
        /// The number of buckets, 1 to 2147483647.
        #[arg(allow_negative_numbers = true, value_parser = limits::bucket_count)]
        buckets: i64,
    },
    /// Check every kernel this CPU runs against the compiled Figure 1
    /// reference; exits non-zero on any mismatch.
    Verify(verify::Args),
    /// List the kernels: which this CPU runs, and which batch calls use.
    #[command(after_help = "Examples:\n  \
        jumpshard kernels               # which kernels run here, which is active\n  \
        jumpshard kernels --supported   # only the names of the supported kernels\n  \
        jumpshard kernels --divisions   # kernel:division for every strategy")]
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
    /// from N to M (or the node table from OLD to NEW); streams inputs of
    /// any size on every core.
    Reshard(reshard::Args),
    /// Write the bucket of every key among N, in input order, streaming.
    Assign(assign::Args),
    /// Plan taking one node out of a node table: every honest option
    /// (swap with the last slot and shrink; point its slot at a survivor)
    /// and the naive hole, with moves and balance, and a recommendation.
    Remove(remove::Args),
    /// Bring back a node table's newest removal (the slot's keys, and only
    /// they, come back), or grow the table by one slot when nothing is
    /// removed.
    Restore(restore::Args),
    /// Print the slot and node of keys given on the command line: decimal
    /// u64, or hex bytes placed the Memento-compatible way.
    Lookup(lookup::Args),
    /// Write an override table that keeps every node's weighted load
    /// (requests per second, bytes) within c times the mean, moving the
    /// least weight off the keys' plain nodes.
    Balance(balance::Args),
    /// Node tables' meanings: `fingerprint` prints the value routers compare
    /// before serving, `diff` says in words how two tables differ;
    /// `add-node`, `lose-zone` and `add-zone` write a zoned table after
    /// that change.
    #[command(
        subcommand,
        after_help = "Examples:\n  \
            jumpshard table fingerprint nodes.txt        # jt1:...  nodes.txt\n  \
            jumpshard table diff expected.txt loaded.txt # what differs, by line; exit 1 if they differ\n  \
            jumpshard table lose-zone zones.txt west --write-table zones-lost.txt"
    )]
    Table(table::Command),
}

fn main() -> ExitCode {
    signals::install();
    let matches = match command_line().try_get_matches() {
        Ok(matches) => matches,
        Err(e) => return shown_by_clap(&e),
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        // Its own exit statuses: `table diff` has three, as diff(1).
        Command::Table(command) => return table::run(&command),
        Command::Bucket { key, buckets } => bucket::run(key, buckets),
        Command::Kernels {
            supported,
            divisions,
        } => kernels::run(supported, divisions),
        Command::Verify(args) => verify::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Reshard(args) => reshard::run(&args),
        Command::Assign(args) => assign::run(&args),
        Command::Remove(args) => remove::run(&args),
        Command::Restore(args) => restore::run(&args),
        Command::Lookup(args) => lookup::run(&args),
        Command::Balance(args) => balance::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            out::stderr::say(&message);
            ExitCode::FAILURE
        }
    }
}

/// What clap has to show instead of a command: usage errors go to
/// standard error (status 2), as clap prints them; `--help` and
/// `--version` to standard output, whose failed write (a full disk, a
/// closed pipe's error) is an error here, status 1, where clap would
/// report nothing and exit 0.
fn shown_by_clap(e: &clap::Error) -> ExitCode {
    use std::io::IsTerminal;
    if e.use_stderr() {
        e.exit()
    }
    let styled = e.render();
    let text = match std::io::stdout().is_terminal() {
        true => styled.ansi().to_string(),
        false => styled.to_string(),
    };
    let written = out::stdout::Stdout::open().and_then(|mut out| {
        out.write_all(text.as_bytes())?;
        out.finish()
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            out::stderr::say(&e);
            ExitCode::from(1)
        }
    }
}
