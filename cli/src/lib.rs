//! The modules of the `jumpshard` command-line tool, one file per command
//! plus the streaming engine they share. A library only so that the
//! benches in `cli/benches` can drive the engine; not a stable API.

pub mod assign;
pub mod atomic;
pub mod bench;
pub mod bench_plot;
pub mod bench_reshard;
pub mod bench_sizes;
pub mod input;
pub mod output;
pub mod pipeline;
pub mod progress;
pub mod reshard;
pub mod sequential;
pub mod signals;
pub mod stdout;
pub mod verify;
