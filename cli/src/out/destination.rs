//! Where a command's output file goes, as `--output` names it:
//!
//! - `-`: standard output (see `crate::out::stdout`);
//! - anything else: a file written atomically, or a FIFO or character
//!   device written directly (`crate::out::atomic`), never the input
//!   itself.

use std::io::{self, Write};
use std::path::Path;

use crate::out::atomic::{is_direct, AtomicFile};
use crate::out::stdout::Stdout;

/// A file's identity: its device and inode, the same through every link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file `meta` describes (None off Unix).
    pub fn of(meta: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// An output in the making.
pub enum Output {
    /// Standard output.
    Stdout(Stdout),
    /// A file, renamed into place once complete (or a FIFO or device).
    Atomic(AtomicFile),
}

impl Output {
    /// Starts writing to `path` (`-` for standard output). `input` is the
    /// identity of the input file, if any, which the output must not be.
    pub fn create(path: &Path, input: Option<FileId>) -> Result<Output, String> {
        if path.as_os_str() == "-" {
            return Stdout::open().map(Output::Stdout);
        }
        let name = path.display().to_string();
        if let Ok(meta) = std::fs::metadata(path) {
            if input.is_some() && !is_direct(&meta) && FileId::of(&meta) == input {
                return Err(format!(
                    "cannot write {name}: it is the input file, which the output would replace"
                ));
            }
        }
        AtomicFile::create(path).map(Output::Atomic)
    }

    /// The destination's name, for messages.
    pub fn name(&self) -> &str {
        match self {
            Output::Stdout(_) => "standard output",
            Output::Atomic(file) => file.name(),
        }
    }

    /// Whether this is standard output (so a summary goes elsewhere).
    pub fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout(_))
    }

    /// Writes all of `bytes`, naming the destination on failure.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Output::Stdout(out) => out.write_all(bytes),
            Output::Atomic(file) => file.write_all(bytes),
        }
    }

    /// Finishes the output: flushed, and for a regular file renamed into
    /// place.
    pub fn commit(self) -> Result<(), String> {
        match self {
            Output::Stdout(out) => out.finish(),
            Output::Atomic(file) => file.commit(),
        }
    }
}

/// The bytes of a move list, written through the engine's writers, which
/// name the destination in their errors.
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.writer().write(buf),
            Output::Atomic(file) => file.writer().write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.writer().flush(),
            Output::Atomic(file) => file.writer().flush(),
        }
    }
}
