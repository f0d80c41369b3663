//! Where results go: standard output checked for every error, output
//! files written atomically in the format their names say (or directly to a FIFO or device), the signal
//! dispositions that keep a stopped command from leaving temporary files,
//! messages and the progress bar on standard error.

pub mod atomic;
pub mod clash;
pub mod destination;
pub mod format_name;
pub mod progress;
pub mod signals;
pub mod stale;
pub mod stderr;
pub mod stdout;
pub mod temp_name;
#[cfg(target_os = "linux")]
pub mod unnamed;
