//! Standard input, as the inputs name it: `-`, or a path to the pipe,
//! FIFO, file or terminal that standard input is (`/dev/stdin`,
//! `/dev/fd/0`, `/proc/self/fd/0`, a FIFO's own name). Only one input may
//! read it: a second finds it consumed, and a command would report no keys
//! as a success.

use std::path::Path;

/// Whether the input `path` reads standard input: `-`, or a path to the
/// file standard input is, told as outputs tell standard output
/// (`crate::out::stdout::is_stdout`): the same device and inode, for a
/// regular file, a FIFO or pipe, or a terminal when standard input is
/// one (another device that standard input also is, `< /dev/null`,
/// stays an input of its own).
pub fn reads_stdin(path: &Path) -> bool {
    path.as_os_str() == "-" || is_stdin_stream(path)
}

/// What standard input is (`< keys.u64` makes it a file), if it can be
/// told.
#[cfg(unix)]
pub fn metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    // A duplicate of standard input's descriptor, for its identity.
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    std::fs::File::from(fd).metadata().ok()
}

/// What standard input is, if it can be told.
#[cfg(not(unix))]
pub fn metadata() -> Option<std::fs::Metadata> {
    None
}

#[cfg(unix)]
fn is_stdin_stream(path: &Path) -> bool {
    use std::io::IsTerminal;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(named) = std::fs::metadata(path) else {
        return false;
    };
    let kind = named.file_type();
    if !(kind.is_file()
        || kind.is_fifo()
        || kind.is_char_device() && std::io::stdin().is_terminal())
    {
        return false;
    }
    metadata().is_some_and(|ours| (ours.dev(), ours.ino()) == (named.dev(), named.ino()))
}

#[cfg(not(unix))]
fn is_stdin_stream(_: &Path) -> bool {
    false
}
