//! What can go wrong while reading keys or writing moves, each case
//! naming the input (a file, `standard input`), and where it can, the line
//! and column, so that a front end can print the message as it is
//! (`crate::error_message` writes it).

use std::io;

use crate::decimal::BadDecimal;
use crate::not_keys::Looks;

/// An error of the streaming engine. Its `Display` is a complete message,
/// naming the file (or `standard input`) and, where there is one, the
/// line and column.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The input could not be opened.
    Open {
        /// The input's name.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// Reading the input failed.
    Read {
        /// The input's name.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// A file read with positioned reads became shorter while being read.
    Shrunk {
        /// The input's name.
        name: String,
    },
    /// The input is a directory where a file was expected.
    IsDirectory {
        /// The input's name.
        name: String,
    },
    /// The input is not a regular file, where positioned reads need one.
    NotRegularFile {
        /// The input's name.
        name: String,
    },
    /// A file whose size is not what it holds (under `/proc` or `/sys`),
    /// where positioned reads need one that is.
    SizeUntold {
        /// The input's name.
        name: String,
        /// The size it reports, in bytes.
        len: u64,
    },
    /// A u64le input whose size is not a multiple of 8.
    NotWholeKeys {
        /// The input's name.
        name: String,
        /// Its size in bytes (for a pipe: the bytes read).
        len: u64,
    },
    /// A line that is not a key.
    BadKey {
        /// The input's name.
        name: String,
        /// The line number, from 1.
        line: u64,
        /// The column (CSV inputs), as given.
        column: Option<String>,
        /// Why the text is not a key.
        why: BadDecimal,
    },
    /// A line longer than its format's bound, refused without being read
    /// whole.
    LineTooLong {
        /// The input's name.
        name: String,
        /// The line number, from 1.
        line: u64,
        /// The bound, in bytes.
        limit: usize,
        /// Whether the line is a byte key (whose bound can be raised).
        byte_key: bool,
    },
    /// A CSV record longer than its bound, refused without being read
    /// whole.
    RecordTooLong {
        /// The input's name.
        name: String,
        /// The line where the record starts, from 1.
        line: u64,
        /// The bound, in bytes.
        limit: usize,
    },
    /// A CSV record too short to have the key column.
    MissingField {
        /// The input's name.
        name: String,
        /// The record's line number, from 1.
        line: u64,
        /// The record's number of fields.
        fields: usize,
        /// The key column, as given.
        column: String,
    },
    /// A weight of a CSV file that is not a finite number of 0 or more.
    BadWeight {
        /// The input's name.
        name: String,
        /// The line, from 1.
        line: u64,
        /// The weight column, as given.
        column: String,
        /// The weight as written.
        text: String,
    },
    /// A weight of a Parquet file that is not a finite number of 0 or more.
    BadWeightRow {
        /// The input's name.
        name: String,
        /// The row, from 0.
        row: u64,
        /// The weight column, as given.
        column: String,
        /// The weight as read.
        text: String,
    },
    /// A CSV input that cannot be read as records (a quote never closed).
    Csv {
        /// The input's name.
        name: String,
        /// The line where it failed, if known.
        line: Option<u64>,
        /// Why.
        why: String,
    },
    /// The key column is not in the input.
    NoSuchColumn {
        /// The input's name.
        name: String,
        /// The column asked for.
        column: String,
        /// The input's first columns, to choose from.
        columns: Vec<String>,
        /// Whether the columns come from a CSV header line.
        header_line: bool,
    },
    /// A CSV column name that two or more columns of the header line have.
    DuplicateColumn {
        /// The input's name.
        name: String,
        /// The name asked for.
        column: String,
        /// The indexes of the columns of that name, from 0.
        indexes: Vec<usize>,
    },
    /// A CSV column index that another column of the header line has as
    /// its name.
    AmbiguousColumn {
        /// The input's name.
        name: String,
        /// The index asked for.
        index: usize,
        /// The header field of the column at that index, if it has one.
        index_name: Option<String>,
        /// The index of the column named like the index asked for.
        named: usize,
    },
    /// A CSV header line whose field in the key column is a key: most
    /// likely a file without a header line.
    HeaderIsKey {
        /// The input's name.
        name: String,
        /// The key column's index, from 0.
        index: usize,
        /// The header field.
        field: String,
    },
    /// A column name where only an index can work (CSV without header).
    ColumnNeedsIndex {
        /// The column as given.
        column: String,
    },
    /// A column format without a key column.
    ColumnMissing {
        /// The input's name.
        name: String,
        /// The format's name (`csv`, `parquet`).
        format: &'static str,
    },
    /// A key column that only the column formats take, on another format.
    ColumnUnused {
        /// The input's name.
        name: String,
        /// The format the keys are read in.
        format: &'static str,
    },
    /// The Parquet key column has the wrong type.
    ColumnType {
        /// The input's name.
        name: String,
        /// The column.
        column: String,
        /// The type found.
        found: String,
        /// The types the column may have, for the message.
        wanted: &'static str,
    },
    /// A null in the Parquet key column.
    Null {
        /// The input's name.
        name: String,
        /// The column.
        column: String,
        /// The position of the key (from 0, over the whole input).
        position: u64,
        /// Its row in the file `name` (from 0).
        row: u64,
    },
    /// A Parquet input that is not readable as one, or a directory without
    /// any.
    BadParquet {
        /// The input's name.
        name: String,
        /// Why.
        why: String,
    },
    /// Parquet from standard input, which the reader cannot seek.
    ParquetFromStdin,
    /// Parquet from a path that is not a regular file: a FIFO, a pipe
    /// (`/dev/stdin`, `<(...)`), a device.
    ParquetNotSeekable {
        /// The input's name.
        name: String,
    },
    /// A Parquet file where raw u64le keys were asked for.
    IsParquet {
        /// The input's name.
        name: String,
    },
    /// A `.parquet` file without Parquet's magic bytes.
    ParquetNameOnly {
        /// The input's name.
        name: String,
    },
    /// Text where the format is detected: which text format is meant
    /// cannot be guessed.
    LooksLikeText {
        /// The input's name.
        name: String,
    },
    /// Where the format is detected, an input that is recognisably not
    /// raw keys: compressed, or text in an encoding the text formats do
    /// not read as it is.
    NotKeys {
        /// The input's name.
        name: String,
        /// What it looks like.
        looks: Looks,
    },
    /// An option given with a format or a source that does not take it.
    Option(String),
    /// Writing an output failed.
    Write {
        /// The output's name.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// A worker thread ended before its chunk was done.
    WorkerStopped,
    /// A worker thread could not be started (a limit on processes or
    /// memory).
    Spawn {
        /// Why.
        source: io::Error,
    },
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Open { source, .. }
            | Error::Read { source, .. }
            | Error::Write { source, .. }
            | Error::Spawn { source } => Some(source),
            Error::BadKey { why, .. } => Some(why),
            _ => None,
        }
    }
}

/// Front ends that report errors as text (the CLI's commands) can use `?`
/// on the engine's results.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}
