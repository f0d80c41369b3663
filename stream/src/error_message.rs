//! The message of each [`Error`]: complete, naming the input and, where
//! there is one, the line and column, and saying what to do instead.

use std::fmt;

use crate::decimal::BadDecimal;
use crate::error::Error;

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
            Error::SizeUntold { name, len } => write!(
                f,
                "cannot read {name} with positioned reads: its reported size, {len} bytes, \
                 is not what it holds (a file made up as it is read, like those under /proc); \
                 copy it to a regular file first"
            ),
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
            // A CSV field: its line holds the record's other fields.
            Error::BadKey {
                name,
                line,
                column: Some(column),
                why: BadDecimal::Empty,
            } => write!(
                f,
                "{name} line {line}, column {column}: empty field where a decimal u64 key was \
                 expected"
            ),
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
            Error::BadWeightRow {
                name,
                row,
                column,
                text,
            } => write!(
                f,
                "{name}: column {column:?} has weight {text} at row {row} of the file, from 0, \
                 not a finite number of 0 or more"
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
                wanted,
            } => write!(f, "{name}: column {column:?} holds {found}, not {wanted}"),
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
            Error::Spawn { source } => write!(
                f,
                "cannot start a thread: {source}; --threads 1 reads and computes on the \
                 calling thread, and needs none"
            ),
        }
    }
}
