//! Where a command's output file goes, as `--output` names it:
//!
//! - `-`: standard output (see `crate::out::stdout`);
//! - anything else: a file written atomically, or a FIFO or character
//!   device written directly (`crate::out::atomic`), never the input
//!   itself.

use std::io::{self, Write};
use std::path::Path;

use crate::out::atomic::AtomicFile;
use crate::out::clash::{self, InputFiles};
pub use crate::out::stdout::is_stdout;
use crate::out::stdout::Stdout;

/// Writes `bytes`, a whole output made in memory (a node table, a plot),
/// to `path`: standard output for `-`, otherwise a file written atomically
/// (or a FIFO or device written directly).
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if is_stdout(path) {
        let mut out = Stdout::open()?;
        out.write_all(bytes)?;
        return out.finish();
    }
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// How messages name the output `path`: `-` is standard output.
pub fn shown(path: &Path) -> String {
    match is_stdout(path) {
        true => "standard output".to_owned(),
        false => path.display().to_string(),
    }
}

/// What a command committed, for [`ReportTo::emit_after_commit`]: each
/// of `outputs` (what it is, "the table", and its path if given) that is a
/// file, not standard output.
///
/// [`ReportTo::emit_after_commit`]: crate::out::stdout::ReportTo::emit_after_commit
pub fn committed(outputs: &[(&str, Option<&Path>)]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|&(what, path)| {
            let path = path.filter(|p| !is_stdout(p))?;
            Some(format!("{what} was written to {}", path.display()))
        })
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
