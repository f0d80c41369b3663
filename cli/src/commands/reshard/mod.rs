//! `jumpshard reshard`: which keys move, and where, when the bucket count
//! changes from N to M (`buckets`) or the node table changes (`nodes`),
//! for inputs of any size, on every core, with memory bounded by a few
//! chunks.
//!
//! The move list (`--output`) has one record per moving key, in input
//! order: its id (the key itself, or its 0-based position in the input
//! with `--positions` and always for `bytes` keys), where it was and where
//! it goes (see `jumpshard_stream::moves` for the formats).

mod args;
mod buckets;
mod move_list;
mod nodes;

pub use args::Args;

/// Runs `reshard` as `args` ask.
pub fn run(args: &Args) -> Result<(), String> {
    args.check_output_names()?;
    match (&args.from_nodes, &args.to_nodes) {
        (Some(old), Some(new)) => nodes::run(args, old, new),
        _ => buckets::run(args),
    }
}
