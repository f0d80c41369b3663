//! The options of `jumpshard reshard`.

use std::path::PathBuf;

use crate::args::{InputArgs, MoveFormatArg};
use crate::limits;
use crate::out::format_name::{check_fixed_outputs, choose};

/// What `reshard --help` shows after the options.
const EXAMPLES: &str = "\
Examples:
  jumpshard reshard --from 10 --to 12 --generate 100000000
  jumpshard reshard --from 10 --to 12 keys.u64 --output moves.csv        # key,from,to
  jumpshard reshard --from 12 --to 10 --key-format bytes ids.txt \\
    --output moves.bin --output-format binary --json
  jumpshard reshard --from-nodes nodes-v1.txt --to-nodes nodes-v2.txt \\
    keys.parquet --column user_id --output moves.csv";

/// Which keys move, and where, when the bucket count (`--from N --to M`)
/// or the node table (`--from-nodes OLD --to-nodes NEW`) changes.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The current number of buckets, N (1 to 2147483647).
    #[arg(
        long,
        allow_negative_numbers = true,
        required_unless_present_any = ["from_nodes", "to_nodes"],
        value_parser = limits::bucket_count
    )]
    pub from: Option<i64>,
    /// The new number of buckets, M (1 to 2147483647, not N).
    #[arg(
        long,
        allow_negative_numbers = true,
        required_unless_present_any = ["to_nodes", "from_nodes"],
        value_parser = limits::bucket_count
    )]
    pub to: Option<i64>,
    /// The current node table instead of --from: a file with one node
    /// name per line, line i+1 serving bucket i (`+NAME` repeats a node on
    /// purpose); moves then name nodes. `-` is standard input (then not
    /// the keys' nor the other table's).
    #[arg(
        long,
        visible_alias = "nodes",
        value_name = "OLD",
        requires = "to_nodes",
        conflicts_with_all = ["from", "to"]
    )]
    pub from_nodes: Option<PathBuf>,
    /// The new node table (with --from-nodes; `-`: standard input).
    #[arg(long, value_name = "NEW", requires = "from_nodes", conflicts_with_all = ["from", "to"])]
    pub to_nodes: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the move list here (atomically: complete or not at all, and
    /// never over the input). `-` writes it to standard output, and the
    /// summary then goes to standard error; a FIFO or a character device
    /// (/dev/null) is written directly. Columns: `key` (or `position`),
    /// then `from` and `to` (buckets) or `from_node` and `to_node`.
    #[arg(long, value_name = "FILE|-")]
    pub output: Option<PathBuf>,
    /// Format of the move list; without it, the file's name says (`.csv`,
    /// `.parquet`, `.bin` for binary), and CSV for any other name. A name
    /// that says another format than this is refused.
    #[arg(long, value_enum, requires = "output")]
    pub output_format: Option<MoveFormatArg>,
    /// Identify moving keys by their 0-based position in the input rather
    /// than by value (always so for byte keys: `--key-format bytes`, a
    /// Parquet string or binary column).
    #[arg(long, requires = "output")]
    pub positions: bool,
    /// Threads to read and compute on: 0 means one per core, and more
    /// than the cores run as many as there are cores (the summary says how
    /// many ran). At most 4096.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = limits::threads)]
    pub threads: usize,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// With --from-nodes: plan each key's replica set of K nodes; the move
    /// list then holds one row per member that leaves a set, to the member
    /// that joins it (a key once per member that moves), and the counts
    /// count replicas.
    #[arg(long, value_name = "K", requires = "from_nodes", conflicts_with_all = ["from", "to"],
          allow_negative_numbers = true, value_parser = limits::replicas)]
    pub replicas: Option<usize>,
    /// With --from-nodes: draw each node's load before and after and the
    /// transfer matrix to this SVG file (`-`: standard output).
    #[arg(long, value_name = "FILE.svg", requires = "from_nodes", conflicts_with_all = ["from", "to"])]
    pub plot: Option<PathBuf>,
}

impl Args {
    /// The move list's format: `--output-format`, or the one the file's
    /// name says, or CSV; an error when they disagree.
    pub fn move_format(&self) -> Result<MoveFormatArg, String> {
        let Some(path) = &self.output else {
            return Ok(MoveFormatArg::Csv);
        };
        choose(
            "--output",
            path,
            self.output_format,
            MoveFormatArg::OFFERED,
            MoveFormatArg::Csv,
            MoveFormatArg::name,
        )
    }

    /// Checks, before anything is read, that every output's name agrees
    /// with what it will hold.
    pub fn check_output_names(&self) -> Result<(), String> {
        self.move_format()?;
        check_fixed_outputs(&[("--plot", self.plot.as_deref())])
    }
}
