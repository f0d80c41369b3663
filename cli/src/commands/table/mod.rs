//! `jumpshard table`: what a node table means, told apart from how its
//! file is written. `fingerprint` prints each table's fingerprint (the
//! value routers compare before serving); `diff` says in words how two
//! tables' meanings differ; `add-node`, `lose-zone` and `add-zone` write
//! a zoned table after that change.

mod diff;
mod zones;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::node_tables;
use crate::out::clash::{self, InputFiles};
use crate::out::stdout::Stdout;
use crate::stdin::reads_stdin;

/// The subcommands of `jumpshard table`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Print each table's fingerprint and file name, one line per file.
    ///
    /// The fingerprint, `jt1:` and 32 hex digits, is followed by two
    /// spaces and the file name, as sha256sum prints. It
    /// names the table's meaning (slots, their nodes and order, removals
    /// and their order, weights), never its spelling (comments, blanks,
    /// line ends, the order of attributes, how a number is written), and
    /// is the value every front end computes (`NodeTable::fingerprint`,
    /// `jumpshard_table_fingerprint`, Python's `NodeTable.fingerprint`).
    /// A file that cannot be read is named on standard error and the exit
    /// status is 1.
    #[command(after_help = "Example:\n  \
        $ printf 'alpha\\nbeta\\ngamma\\n' > nodes.txt\n  \
        $ jumpshard table fingerprint nodes.txt\n  \
        jt1:d70b10eaa580f6c47d1adddea44280d3  nodes.txt\n  \
        $ cat nodes.txt | jumpshard table fingerprint -\n  \
        jt1:d70b10eaa580f6c47d1adddea44280d3  -")]
    Fingerprint {
        /// The table files; `-` reads standard input.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Say in words how two tables' meanings differ; exit 1 if they do.
    ///
    /// Slots added, dropped or renamed, removals added, undone or
    /// reordered, weights changed, each with its line. Exits 0 when they mean the same (even if their
    /// texts differ), 1 when they differ, 2 on an error, like diff(1).
    #[command(after_help = "Example:\n  \
        $ jumpshard table diff expected.txt loaded.txt\n  \
        --- expected.txt jt1:...\n  \
        +++ loaded.txt jt1:...\n  \
        line 2: slot 1 removed (removed=1), db-b\n  \
        1 difference in meaning")]
    Diff {
        /// The first table (`-`: standard input).
        #[arg(value_name = "A")]
        a: PathBuf,
        /// The second table (`-`: standard input).
        #[arg(value_name = "B")]
        b: PathBuf,
    },
    /// Write a zoned table with one node added in a zone.
    ///
    /// The node is appended as the last slot line, `NODE zone=ZONE` (and
    /// `rack=RACK`); the zone must be the table's. Zoned replica sets then
    /// move only onto the new node, save a key's primary moving inside its
    /// zone; `reshard --replicas K` lists the moves. A table with removals
    /// is refused (a slot appended beside them would move other keys):
    /// restore them first, a new node with `restore --node NAME`.
    #[command(after_help = "Example:\n  \
        $ jumpshard table add-node zones.txt d1 --zone east --write-table zones-2.txt")]
    AddNode {
        /// The zoned table (`-`: standard input).
        #[arg(value_name = "TABLE")]
        table: PathBuf,
        /// The new node's name.
        #[arg(value_name = "NODE")]
        node: String,
        /// Its zone, one the table has.
        #[arg(long, value_name = "ZONE")]
        zone: String,
        /// Its rack inside the zone.
        #[arg(long, value_name = "RACK")]
        rack: Option<String>,
        /// Where the new table goes, whole or not at all (`-`: standard output).
        #[arg(long, value_name = "FILE", required = true)]
        write_table: PathBuf,
    },
    /// Write a zoned table with every node of a zone removed.
    ///
    /// The zone's nodes are removed Memento-style (`removed=K`), in table
    /// order (a node on the last slot while nothing is removed is dropped
    /// instead: Memento's shrink, which needs no log); zoned replica sets
    /// then move only the members in that zone. A zone that holds every
    /// live node is refused.
    #[command(after_help = "Example:\n  \
        $ jumpshard table lose-zone zones.txt west --write-table zones-lost.txt")]
    LoseZone {
        /// The zoned table (`-`: standard input).
        #[arg(value_name = "TABLE")]
        table: PathBuf,
        /// The zone lost.
        #[arg(value_name = "ZONE")]
        zone: String,
        /// Where the new table goes, whole or not at all (`-`: standard output).
        #[arg(long, value_name = "FILE", required = true)]
        write_table: PathBuf,
    },
    /// Write a zoned table with a new zone of nodes appended.
    ///
    /// Each node becomes a slot line `NODE zone=ZONE`; a zone the table
    /// has already is refused, and so is a table with removals, as by
    /// `add-node`.
    #[command(after_help = "Example:\n  \
        $ jumpshard table add-zone zones.txt north n1 n2 n3 --write-table zones-4.txt")]
    AddZone {
        /// The zoned table (`-`: standard input).
        #[arg(value_name = "TABLE")]
        table: PathBuf,
        /// The new zone.
        #[arg(value_name = "ZONE")]
        zone: String,
        /// Its nodes, in slot order.
        #[arg(value_name = "NODE", required = true)]
        nodes: Vec<String>,
        /// Where the new table goes, whole or not at all (`-`: standard output).
        #[arg(long, value_name = "FILE", required = true)]
        write_table: PathBuf,
    },
}

/// Runs `table` as `command` asks; its own exit status, as `diff` needs
/// three.
pub fn run(command: &Command) -> ExitCode {
    let zoned = |table: &PathBuf, change, out: &PathBuf| match zones::run(table, change, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, 1),
    };
    match command {
        Command::Fingerprint { files } => fingerprint(files),
        Command::AddNode {
            table,
            node,
            zone,
            rack,
            write_table,
        } => {
            let change = zones::Change::AddNode {
                node,
                zone,
                rack: rack.as_deref(),
            };
            zoned(table, change, write_table)
        }
        Command::LoseZone {
            table,
            zone,
            write_table,
        } => zoned(table, zones::Change::LoseZone { zone }, write_table),
        Command::AddZone {
            table,
            zone,
            nodes,
            write_table,
        } => zoned(table, zones::Change::AddZone { zone, nodes }, write_table),
        // Equal meanings 0, different ones 1, errors 2.
        Command::Diff { a, b } => match diff::run(a, b) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => fail(&e, 2),
        },
    }
}

/// Prints `FINGERPRINT  FILE` for each file; 1 if any failed.
fn fingerprint(files: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    let inputs = files
        .iter()
        .fold(InputFiles::default(), |inputs, f| inputs.with("table", f));
    if let Err(e) = clash::stdout_not_input(None, &inputs) {
        return fail(&e, 1);
    }
    let mut out = match Stdout::open() {
        Ok(out) => out,
        Err(e) => return fail(&e, 1),
    };
    let mut stdin_read = false;
    for file in files {
        let text = if reads_stdin(file) && std::mem::replace(&mut stdin_read, true) {
            Err(format!(
                "{}: standard input is read once; name it once",
                file.display()
            ))
        } else {
            node_tables::read_or_stdin(file)
                .map(|t| format!("{}  {}\n", t.fingerprint(), file.display()))
        };
        match text.and_then(|line| out.write_all(line.as_bytes())) {
            Ok(()) => {}
            Err(e) => {
                crate::out::stderr::say(&e);
                failed = true;
            }
        }
    }
    match out.finish() {
        Ok(()) if !failed => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(1),
        Err(e) => fail(&e, 1),
    }
}

/// Reports `message` and returns `status`.
fn fail(message: &str, status: u8) -> ExitCode {
    crate::out::stderr::say(message);
    ExitCode::from(status)
}
