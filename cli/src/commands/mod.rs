//! One module per subcommand.

pub mod assign;
pub mod bench;
pub mod bucket;
pub mod kernels;
pub mod remove;
pub mod reshard;
pub mod verify;
