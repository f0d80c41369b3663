//! Standard output, checked: every command writes its results through
//! [`Stdout`], so that a failed write (a full disk, `> /dev/full`) is an
//! error naming standard output and a non-zero exit, never a panic (as
//! `println!` would) nor a success with the output lost, and so that a
//! closed standard output (`>&-`) is refused before any work is done.
//!
//! A new command opens it first (`Stdout::open()?`), writes with
//! `writeln!(out, ...)?` or [`Stdout::write_all`], and ends with
//! [`Stdout::finish`], which flushes and reports what a flush finds.
//! A reader that goes away (`| head`) still ends the command quietly by
//! SIGPIPE (see `crate::out::signals`).

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Buffered standard output whose every error is reported.
pub struct Stdout(BufWriter<io::Stdout>);

impl Stdout {
    /// Standard output, or an error if it was closed when the command
    /// started.
    pub fn open() -> Result<Stdout, String> {
        if closed() {
            return Err("standard output is closed (started with >&-?): \
                        nowhere to write the results"
                .into());
        }
        Ok(Stdout(BufWriter::with_capacity(1 << 20, io::stdout())))
    }

    /// Writes all of `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.0.write_all(bytes).map_err(error)
    }

    /// The buffered standard output, for writers that report their own
    /// errors.
    pub fn writer(&mut self) -> &mut BufWriter<io::Stdout> {
        &mut self.0
    }

    /// What `write!` and `writeln!` call: `writeln!(out, ...)?` reports a
    /// failed write as a message.
    pub fn write_fmt(&mut self, args: fmt::Arguments) -> Result<(), String> {
        self.0.write_fmt(args).map_err(error)
    }

    /// Flushes everything written. Dropping a `Stdout` without this would
    /// flush too, but lose the error.
    pub fn finish(mut self) -> Result<(), String> {
        self.0.flush().map_err(error)
    }
}

/// Where a command's summary goes: standard output, opened before any
/// work (so that a closed one stops the command first), or standard error
/// when the results themselves go to standard output (`--output -`).
pub enum ReportTo {
    /// Standard output, opened.
    Stdout(Stdout),
    /// Standard error.
    Stderr,
}

impl ReportTo {
    /// The summary's destination; `results_on_stdout` sends it to
    /// standard error (standard output must then be open, checked now,
    /// before any work).
    pub fn open(results_on_stdout: bool) -> Result<ReportTo, String> {
        if results_on_stdout {
            Stdout::open()?;
            Ok(ReportTo::Stderr)
        } else {
            Stdout::open().map(ReportTo::Stdout)
        }
    }

    /// Writes the whole summary and flushes it, reporting any failure.
    pub fn emit(self, text: &[u8]) -> Result<(), String> {
        match self {
            ReportTo::Stdout(mut out) => {
                out.write_all(text)?;
                out.finish()
            }
            ReportTo::Stderr => io::stderr()
                .write_all(text)
                .map_err(|e| format!("cannot write standard error: {e}")),
        }
    }
}

impl ReportTo {
    /// [`ReportTo::emit`] once the outputs in `written` (each "the table
    /// was written to nodes.txt", or "to standard output") are delivered: a
    /// report that cannot be written (a full standard output or standard
    /// error, or a closed pipe, then an error instead of SIGPIPE) is no
    /// reason to hide that they were. It is said on standard error, and the
    /// command ends with status 3 (outputs written, report lost) at once,
    /// nothing being left to clean up. A standard error closed at start
    /// (`2>&-`) reads as /dev/null, as `2>/dev/null` discards the report:
    /// the command succeeds.
    pub fn emit_after_commit(self, text: &[u8], written: &[String]) -> Result<(), String> {
        if written.is_empty() {
            return self.emit(text);
        }
        crate::out::signals::pipe_errors();
        if let Err(e) = self.emit(text) {
            let _ = writeln!(
                io::stderr(),
                "jumpshard: {e}; {} all the same",
                written.join(", ")
            );
            std::process::exit(REPORT_LOST);
        }
        Ok(())
    }
}

/// The exit status of a command whose outputs were written but whose
/// report could not be.
pub const REPORT_LOST: i32 = 3;

fn error(e: io::Error) -> String {
    format!("cannot write standard output: {e}")
}

/// Whether standard output was closed at start (on Linux, as seen before
/// Rust's runtime started: it opens /dev/null on a standard descriptor it
/// finds closed, so that writes would vanish silently).
#[cfg(target_os = "linux")]
fn closed() -> bool {
    crate::at_start::stdout_closed()
}

/// Whether standard output was closed at start. Rust's runtime opens
/// /dev/null, read-write, on a standard descriptor it finds closed, so that
/// writes would vanish silently; a shell's `> /dev/null` opens it
/// write-only, which stays allowed, but /dev/null opened read-write by a
/// parent is taken for a closed descriptor (Linux checks before the
/// runtime starts instead).
#[cfg(all(unix, not(target_os = "linux")))]
fn closed() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    // SAFETY: F_GETFL on a descriptor number only reads its flags; an
    // invalid descriptor gives -1 (EBADF) and touches no memory.
    let flags = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFL) };
    if flags < 0 {
        return true;
    }
    if flags & libc::O_ACCMODE != libc::O_RDWR {
        return false;
    }
    let stdout = io::stdout();
    let Ok(fd) = stdout.as_fd().try_clone_to_owned() else {
        return true;
    };
    let (Ok(out), Ok(null)) = (
        std::fs::File::from(fd).metadata(),
        std::fs::metadata("/dev/null"),
    ) else {
        return false;
    };
    out.file_type().is_char_device() && out.rdev() == null.rdev()
}

#[cfg(not(unix))]
fn closed() -> bool {
    false
}

/// Whether the output `path` names standard output: `-`, or the file,
/// pipe or terminal that standard output is (`/dev/stdout`, `/dev/fd/1`,
/// or the file itself after `> file`), so that the output is written
/// through it (appending after `>>`, where replacing the file would lose
/// what it held) and a summary goes to standard error rather than into the
/// data or into a file replaced. Another device that standard output also
/// is (`> /dev/null`) stays an output of its own.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-" || is_stdout_stream(path)
}

/// What standard output is, if it can be told.
pub fn stdout_metadata() -> Option<std::fs::Metadata> {
    stream_metadata(io::stdout())
}

fn is_stdout_stream(path: &Path) -> bool {
    names_stream(path, io::stdout())
}

/// What the standard stream `stream` is, if it can be told: the metadata
/// of a duplicate of its descriptor.
#[cfg(unix)]
pub fn stream_metadata(stream: impl std::os::fd::AsFd) -> Option<std::fs::Metadata> {
    let ours = stream.as_fd().try_clone_to_owned().ok()?;
    std::fs::File::from(ours).metadata().ok()
}

/// What a standard stream is, if it can be told.
#[cfg(not(unix))]
pub fn stream_metadata<S>(_: S) -> Option<std::fs::Metadata> {
    None
}

/// Whether `path` names the file, pipe or terminal that the standard
/// stream `stream` is: the same device and inode, for a regular file, a
/// FIFO or pipe, or a terminal when the stream is one (another device the
/// stream also is, `/dev/null`, stays a file of its own).
#[cfg(unix)]
pub fn names_stream(path: &Path, stream: impl std::os::fd::AsFd + std::io::IsTerminal) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(named) = std::fs::metadata(path) else {
        return false;
    };
    let kind = named.file_type();
    if !(kind.is_file() || kind.is_fifo() || kind.is_char_device() && stream.is_terminal()) {
        return false;
    }
    stream_metadata(stream)
        .is_some_and(|ours| (ours.dev(), ours.ino()) == (named.dev(), named.ino()))
}

/// Whether `path` names a standard stream: not told off Unix.
#[cfg(not(unix))]
pub fn names_stream<S>(_: &Path, _: S) -> bool {
    false
}
