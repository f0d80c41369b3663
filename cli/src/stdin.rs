//! Standard input, as the inputs name it: `-`, or a path to the pipe,
//! FIFO, file or terminal that standard input is (`/dev/stdin`,
//! `/dev/fd/0`, `/proc/self/fd/0`, a FIFO's own name). Only one input may
//! read it: a second finds it consumed, and a command would report no keys
//! as a success.

use std::path::Path;

use crate::out::stdout::{names_stream, stream_metadata};

/// Whether the input `path` reads standard input: `-`, or a path to the
/// file standard input is, told as outputs tell standard output
/// (`crate::out::stdout::is_stdout`): the same device and inode, for a
/// regular file, a FIFO or pipe, or a terminal when standard input is
/// one (another device that standard input also is, `< /dev/null`,
/// stays an input of its own).
pub fn reads_stdin(path: &Path) -> bool {
    path.as_os_str() == "-" || is_stdin_stream(path)
}

/// Refuses to read standard input for `what` ("the keys") when it was
/// closed at start (`<&-`): Rust's runtime puts /dev/null in its place,
/// and the command would read nothing and report success.
pub fn check_open(what: &str) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    if crate::at_start::stdin_closed() {
        return Err(format!(
            "standard input is closed (started with <&-?): {what} would read nothing"
        ));
    }
    let _ = what;
    Ok(())
}

/// What standard input is (`< keys.u64` makes it a file), if it can be
/// told.
pub fn metadata() -> Option<std::fs::Metadata> {
    stream_metadata(std::io::stdin())
}

fn is_stdin_stream(path: &Path) -> bool {
    names_stream(path, std::io::stdin())
}
