//! Keys from one column of a CSV input: decimal u64 keys, read with the
//! `csv` crate (quoted fields, doubled quotes, `\n` or `\r\n` records).
//! Spaces around a field are ignored. A NAME is looked up in the header
//! line; an INDEX counts columns from 0, with or without a header. A field
//! that is not a decimal u64, and a record too short to have the column,
//! are errors naming their line.

use std::io::Read;

use crate::decimal::parse_decimal;
use crate::error::Error;
use crate::source::{Input, OrderedKeys, Source, Unit};

/// The keys of `column` (a name from the header line, or a 0-based index)
/// of the CSV text `source`, named `name` in messages, of `size` bytes if
/// known; `header` says whether its first line names the columns.
pub(crate) fn open(
    source: Box<dyn Read + Send>,
    name: String,
    size: Option<u64>,
    column: &str,
    header: bool,
) -> Result<Input, Error> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(header)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(source);
    let index = match column.parse::<usize>() {
        Ok(index) => index,
        Err(_) if !header => {
            return Err(Error::ColumnNeedsIndex {
                column: column.to_owned(),
            })
        }
        Err(_) => {
            let headers = reader.headers().map_err(|e| error(&name, &e))?;
            match headers.iter().position(|h| h == column) {
                Some(index) => index,
                None => {
                    return Err(Error::NoSuchColumn {
                        columns: headers.iter().take(20).map(str::to_owned).collect(),
                        name,
                        column: column.to_owned(),
                        header_line: true,
                    })
                }
            }
        }
    };
    Ok(Input {
        source: Source::Ordered(Box::new(CsvKeys {
            reader,
            name,
            column: column.to_owned(),
            index,
            record: csv::ByteRecord::new(),
            keys: 0,
            bytes: 0,
        })),
        size,
        unit: Unit::Bytes,
        byte_keys: false,
    })
}

fn error(name: &str, e: &csv::Error) -> Error {
    Error::Csv {
        name: name.to_owned(),
        line: e.position().map(csv::Position::line),
        why: e.to_string(),
    }
}

struct CsvKeys {
    reader: csv::Reader<Box<dyn Read + Send>>,
    name: String,
    column: String,
    index: usize,
    record: csv::ByteRecord,
    /// Keys read so far.
    keys: u64,
    /// Bytes read so far.
    bytes: u64,
}

impl OrderedKeys for CsvKeys {
    fn position(&self) -> u64 {
        self.keys
    }

    fn next_keys(&mut self, max: usize, keys: &mut Vec<u64>) -> Result<u64, Error> {
        keys.clear();
        while keys.len() < max {
            let more = self
                .reader
                .read_byte_record(&mut self.record)
                .map_err(|e| error(&self.name, &e))?;
            if !more {
                break;
            }
            let line = self.record.position().map_or(0, |p| p.line());
            let Some(field) = self.record.get(self.index) else {
                return Err(Error::MissingField {
                    name: self.name.clone(),
                    line,
                    fields: self.record.len(),
                    column: self.column.clone(),
                });
            };
            let key = parse_decimal(field).map_err(|why| Error::BadKey {
                name: self.name.clone(),
                line,
                column: Some(self.column.clone()),
                why,
            })?;
            keys.push(key);
        }
        self.keys += keys.len() as u64;
        let read = self.reader.position().byte();
        let progress = read - self.bytes;
        self.bytes = read;
        Ok(progress)
    }
}
