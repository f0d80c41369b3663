//! One module per subcommand.

pub mod assign;
pub mod balance;
pub mod bench;
pub mod bucket;
pub mod kernels;
pub mod lookup;
pub mod remove;
pub mod reshard;
pub mod restore;
pub mod table;
pub mod verify;
