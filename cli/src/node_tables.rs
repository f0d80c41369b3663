//! Node-table files for `reshard --from-nodes/--to-nodes`, `remove` and the
//! others: read with the file and option named in every error (`-`:
//! standard input), written atomically (or to standard output).
//!
//! The syntax is `jumpshard::nodes`': one node name per line, line `i + 1`
//! serving bucket `i`; `+NAME` repeats a node on purpose (a heavier node),
//! and an unmarked repeat is refused as an accident.

use std::io::Read;
use std::path::Path;

use jumpshard::NodeTable;

use crate::out::destination;

/// The table in the file at `path` (`-`: standard input), given with
/// `option`. A command that may read standard input for something else
/// first asks [`one_on_stdin`].
pub fn read(option: &str, path: &Path) -> Result<NodeTable, String> {
    read_or_stdin(path).map_err(|e| format!("{option} {e}"))
}

/// Refuses more than one of `readers` (what reads, and whether it reads
/// standard input: a table given as `-`, or keys from it) on standard
/// input, which only one can read.
pub fn one_on_stdin(readers: &[(&str, bool)]) -> Result<(), String> {
    let mut on_stdin = readers.iter().filter(|r| r.1).map(|r| r.0);
    match (on_stdin.next(), on_stdin.next()) {
        (Some(first), Some(second)) => Err(format!(
            "{first} and {second} both read standard input; give one of them as a file"
        )),
        _ => Ok(()),
    }
}

/// Whether `path` is `-`, which tables read as standard input. A path to
/// standard input's file (`/dev/stdin`) is read as a file, yet reads it
/// too: [`one_on_stdin`] is told by `crate::stdin::reads_stdin`, which
/// knows both.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The table in the file at `path`, errors starting with its name.
pub fn read_file(path: &Path) -> Result<NodeTable, String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: cannot read it: {e}"))?;
    parse_bytes(&name.to_string(), bytes)
}

/// The table in the file at `path`, `-` being standard input.
pub fn read_or_stdin(path: &Path) -> Result<NodeTable, String> {
    if !is_stdin(path) {
        return read_file(path);
    }
    crate::stdin::check_open("the table").map_err(|e| format!("-: {e}"))?;
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("-: cannot read standard input: {e}"))?;
    parse_bytes("-", bytes)
}

/// The table in `bytes`, read from `name`, errors starting with it.
pub fn parse_bytes(name: &str, bytes: Vec<u8>) -> Result<NodeTable, String> {
    let text = String::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8 text ({e})"))?;
    NodeTable::parse(&text).map_err(|e| format!("{name}: {e}"))
}

/// `table` written to `path`, complete, ready to be put in place with
/// the command's other outputs (`-`: to standard output).
pub fn prepare(path: &Path, table: &NodeTable) -> Result<destination::Pending, String> {
    destination::prepare_whole(path, table.to_text().as_bytes())
}
