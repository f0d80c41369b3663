//! Where a command's output file goes, as `--output` names it:
//!
//! - `-`: standard output (see `crate::out::stdout`);
//! - anything else: a file written atomically, or a FIFO or character
//!   device written directly (`crate::out::atomic`), never the input
//!   itself.

use std::io::{self, Write};
use std::path::Path;

use crate::out::atomic::{AtomicFile, Ready};
use crate::out::clash::{self, InputFiles};
pub use crate::out::stdout::is_stdout;
use crate::out::stdout::Stdout;

/// Writes `bytes`, a whole output made in memory (a node table, a plot),
/// to `path`: standard output for `-`, otherwise a file written atomically
/// (or a FIFO or device written directly).
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    prepare_whole(path, bytes)?.commit()
}

/// [`write_whole`] but for the commit: `bytes` written and synced where
/// they go, for [`commit_all`] to put in place with a command's other
/// outputs.
pub fn prepare_whole(path: &Path, bytes: &[u8]) -> Result<Pending, String> {
    if is_stdout(path) {
        return Ok(Pending::Stdout(bytes.to_vec()));
    }
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.prepare().map(Pending::File)
}

/// An output written whole, waiting to be put in place: a command with
/// several outputs prepares each (where a full disk or a failing device
/// shows), then commits them all, so that one that fails leaves the
/// others untouched. Dropped, it leaves its destination untouched.
pub enum Pending {
    /// Bytes for standard output, printed at the commit.
    Stdout(Vec<u8>),
    /// A file synced (or a FIFO or device written), renamed at the commit.
    File(Ready),
    /// Standard output, streamed already.
    Streamed,
}

impl Pending {
    /// Puts the output in place.
    pub fn commit(self) -> Result<(), String> {
        match self {
            Pending::Stdout(bytes) => {
                let mut out = Stdout::open()?;
                out.write_all(&bytes)?;
                out.finish()
            }
            Pending::File(ready) => ready.commit(),
            Pending::Streamed => Ok(()),
        }
    }
}

/// Commits each of `outputs` that a command made, in order, once all of
/// them are prepared.
pub fn commit_all<const N: usize>(outputs: [Option<Pending>; N]) -> Result<(), String> {
    outputs.into_iter().flatten().try_for_each(Pending::commit)
}

/// How messages name the output `path`: `-` is standard output.
pub fn shown(path: &Path) -> String {
    match is_stdout(path) {
        true => "standard output".to_owned(),
        false => path.display().to_string(),
    }
}

/// What a command delivered, for [`ReportTo::emit_after_commit`]: each
/// of `outputs` (what it is, "the table", and its path if given), a file
/// committed or standard output written in full. A report that then
/// cannot be written (on standard error, when the results went to
/// standard output) is lost, but the outputs are not.
///
/// [`ReportTo::emit_after_commit`]: crate::out::stdout::ReportTo::emit_after_commit
pub fn committed(outputs: &[(&str, Option<&Path>)]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|&(what, path)| Some(format!("{what} was written to {}", shown(path?))))
        .collect()
}

/// An output in the making.
pub enum Output {
    /// Standard output.
    Stdout(Stdout),
    /// A file, renamed into place once complete (or a FIFO or device).
    Atomic(AtomicFile),
}

impl Output {
    /// Starts writing to `path` (`-` for standard output), which must not
    /// be one of `inputs` (see `crate::out::clash`).
    pub fn create(path: &Path, inputs: InputFiles) -> Result<Output, String> {
        clash::check(&[("--output", Some(path))], &inputs)?;
        if is_stdout(path) {
            return Stdout::open().map(Output::Stdout);
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
        self.prepare()?.commit()
    }

    /// Finishes the output but for the rename into place (see
    /// [`Pending`]): standard output is flushed, a file synced.
    pub fn prepare(self) -> Result<Pending, String> {
        match self {
            Output::Stdout(out) => out.finish().map(|()| Pending::Streamed),
            Output::Atomic(file) => file.prepare().map(Pending::File),
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
