//! The modules of the `jumpshard` command-line tool, one file per command
//! plus the streaming engine they share. A library only so that the
//! benches in `cli/benches` can drive the engine; not a stable API.

pub mod assign;
pub mod atomic;
pub mod bench;
mod bench_clock;
pub mod bench_plot;
pub mod bench_reshard;
pub mod bench_sizes;
pub mod change_plot;
pub mod change_summary;
pub mod csv_keys;
pub mod input;
pub mod key_columns;
pub mod move_output;
pub mod output;
#[cfg(feature = "parquet")]
pub mod parquet_keys;
#[cfg(feature = "parquet")]
pub mod parquet_moves;
pub mod pipeline;
pub mod progress;
pub mod remove;
pub mod reshard;
pub mod reshard_nodes;
pub mod sequential;
pub mod signals;
pub mod stdout;
pub mod tables;
pub mod verify;
