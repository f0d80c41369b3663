//! What can go wrong while reading keys or writing moves, each case
//! naming the input (a file, `standard input`), and where it can, the line
//! and column, so that a front end can print the message as it is.

use std::fmt;
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
    /// A weight that is not a finite number of 0 or more.
    BadWeight {
        /// The input's name.
        name: String,
        /// The line (CSV) or row (Parquet), from 1.
        line: u64,
        /// The weight column, as given.
        column: String,
        /// The weight as written.
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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Open { name, source } => write!(f, "cannot open {name}: {source}"),
            Error::Read { name, source } => write!(f, "cannot read {name}: {source}"),
            Error::Shrunk { name } => {
                write!(f, "cannot read {name}: it became shorter while being read")
            }
            Error::IsDirectory { name } => write!(f, "cannot read {name}: it is a directory"),
            Error::NotRegularFile { name } => write!(f, "{name} is not a regular file"),
            Error::NotWholeKeys { name, len } => write!(
                f,
                "{name}: size {len} bytes is not a multiple of 8, so it is not a u64le key \
                 file ({} whole key{} and {} byte{} left over)",
                len / 8,
                if len / 8 == 1 { "" } else { "s" },
                len % 8,
                if len % 8 == 1 { "" } else { "s" }
            ),
            Error::BadKey {
                name,
                line,
                column: None,
                why,
            } => write!(f, "{name} line {line}: {why}"),
            Error::BadKey {
                name,
                line,
                column: Some(column),
                why,
            } => write!(f, "{name} line {line}, column {column}: {why}"),
            Error::LineTooLong {
                name,
                line,
                limit,
                byte_key,
            } => {
                let why = match byte_key {
                    true => "the bound on byte keys (raise it with --max-line-bytes)",
                    false => "not a decimal u64 key",
                };
                write!(f, "{name} line {line}: longer than {limit} bytes, {why}")
            }
            Error::RecordTooLong { name, line, limit } => write!(
                f,
                "{name} line {line}: a CSV record longer than {limit} bytes, the bound on \
                 records (raise it with --max-line-bytes)"
            ),
            Error::MissingField {
                name,
                line,
                fields,
                column,
            } => write!(
                f,
                "{name} line {line}: the record has {fields} fields, no column {column}"
            ),
            Error::BadWeight {
                name,
                line,
                column,
                text,
            } => write!(
                f,
                "{name} line {line}, column {column}: weight {text:?} is not a finite number \
                 of 0 or more"
            ),
            Error::Csv {
                name,
                line: Some(line),
                why,
            } => write!(f, "{name} line {line}: {why}"),
            Error::Csv {
                name,
                line: None,
                why,
            } => write!(f, "cannot read {name}: {why}"),
            Error::NoSuchColumn {
                name,
                column,
                columns,
                header_line,
            } => {
                let place = if *header_line {
                    " in the header line"
                } else {
                    ""
                };
                write!(
                    f,
                    "{name}: no column {column:?}{place} (its columns: {})",
                    columns.join(", ")
                )
            }
            Error::DuplicateColumn {
                name,
                column,
                indexes,
            } => {
                let indexes: Vec<String> = indexes.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "{name}: --column {column:?} names {} columns of the header line, at \
                     indexes {}: give the index of the one meant (--column INDEX, from 0)",
                    indexes.len(),
                    indexes.join(" and ")
                )
            }
            Error::AmbiguousColumn {
                name,
                index,
                index_name,
                named,
            } => {
                write!(
                    f,
                    "{name}: --column {index} is ambiguous: column {index} by index, or \
                     column {named}, named \"{index}\" in the header line"
                )?;
                match index_name {
                    Some(other) => {
                        write!(f, "; for column {index}, give its name: --column {other:?}")
                    }
                    None => Ok(()),
                }
            }
            Error::HeaderIsKey { name, index, field } => write!(
                f,
                "{name} line 1: the header line's field in the key column {index} is {field}, \
                 a key rather than a column name; if the file has no header line, give \
                 --no-header (and --column as an index from 0), so that its first key is read"
            ),
            Error::ColumnNeedsIndex { column } => write!(
                f,
                "--column {column}: without a header line, columns are given by their \
                 0-based index"
            ),
            Error::ColumnMissing { name, format } => write!(
                f,
                "{name}: --key-format {format} needs --column, the column of the keys"
            ),
            Error::ColumnUnused { name, format } => write!(
                f,
                "--column: only with --key-format csv or parquet ({name} is read as {format})"
            ),
            Error::ColumnType {
                name,
                column,
                found,
            } => write!(
                f,
                "{name}: column {column:?} holds {found}, not uint64 or int64 keys"
            ),
            Error::Null {
                name,
                column,
                position,
                row,
            } => write!(
                f,
                "{name}: column {column:?} has a null at row {row} of the file, from 0 (key \
                 position {position} of the input)"
            ),
            Error::BadParquet { name, why } => write!(f, "{name}: {why}"),
            Error::ParquetFromStdin => write!(
                f,
                "Parquet is read from a regular file or a directory of them, not standard \
                 input (the reader seeks to the footer at the end, and a pipe cannot seek): \
                 save it to a file first"
            ),
            Error::ParquetNotSeekable { name } => write!(
                f,
                "{name} is not a regular file (a FIFO, a pipe such as /dev/stdin or <(...), or \
                 a device), and Parquet is read from a regular file or a directory of them \
                 (the reader seeks to the footer at the end, and a pipe cannot seek): save it \
                 to a file first"
            ),
            Error::IsParquet { name } => write!(
                f,
                "{name} is a Parquet file, not u64le keys: read it with --key-format parquet \
                 --column NAME (or --key-format auto --column NAME)"
            ),
            Error::ParquetNameOnly { name } => write!(
                f,
                "{name}: named .parquet but does not start with Parquet's magic bytes PAR1; \
                 give its format with --key-format u64le, decimal, bytes or csv"
            ),
            Error::LooksLikeText { name } => write!(
                f,
                "{name} looks like text, not u64le keys (8-byte binary integers); say how its \
                 keys are written: --key-format decimal (one decimal key per line), \
                 --key-format bytes (each line hashed as a byte-string key) or \
                 --key-format csv --column NAME|INDEX (a column of a CSV file); if it does \
                 hold raw keys, say so with --key-format u64le"
            ),
            Error::NotKeys { name, looks } => looks.describe(f, name),
            Error::Option(message) => f.write_str(message),
            Error::Write { name, source } => write!(f, "cannot write {name}: {source}"),
            Error::WorkerStopped => {
                write!(f, "a worker thread stopped before its chunk was done")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Open { source, .. }
            | Error::Read { source, .. }
            | Error::Write { source, .. } => Some(source),
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
