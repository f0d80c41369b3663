//! Keys from one column of a CSV input: decimal u64 keys, read with the
//! `csv` crate (quoted fields, doubled quotes, `\n` or `\r\n` records).
//! Spaces around a field are ignored. A field that is not a decimal u64,
//! and a record too short to have the column, are errors naming their
//! line.
//!
//! How `--column` picks the column, so that no key is dropped and no
//! column picked by a guess:
//!
//! - Without a header line, it is an INDEX, counting from 0.
//! - With one, digits are an INDEX and anything else a NAME, which must
//!   name exactly one column of the header line (two columns of that name
//!   is an error naming both indexes).
//! - An INDEX that another column of the header line has as its name is
//!   an error (which of the two was meant cannot be told).
//! - With a header line, the chosen column's header field must not be
//!   digits: that is a key, and the file most likely has no header line
//!   (its first key would be dropped as one), so the error says
//!   `--no-header`.

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
    let index = match header {
        true => {
            let headers = reader.byte_headers().map_err(|e| error(&name, &e))?;
            in_header(headers, column, &name)?
        }
        false => column
            .parse::<usize>()
            .map_err(|_| Error::ColumnNeedsIndex {
                column: column.to_owned(),
            })?,
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

/// The index of `column` (a NAME or an INDEX) in the header line
/// `headers` of the input `name`, by the rules above.
fn in_header(headers: &csv::ByteRecord, column: &str, name: &str) -> Result<usize, Error> {
    let named: Vec<usize> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == column.as_bytes())
        .map(|(i, _)| i)
        .collect();
    let text = |i: usize| String::from_utf8_lossy(&headers[i]).into_owned();
    let index = match column.parse::<usize>() {
        Ok(index) => {
            if let Some(&other) = named.iter().find(|&&i| i != index) {
                return Err(Error::AmbiguousColumn {
                    name: name.to_owned(),
                    index,
                    // Its name, if that picks it: unique, and not digits.
                    index_name: (index < headers.len())
                        .then(|| text(index))
                        .filter(|n| n.parse::<usize>().is_err())
                        .filter(|n| headers.iter().filter(|h| *h == n.as_bytes()).count() == 1),
                    named: other,
                });
            }
            index
        }
        Err(_) => match named[..] {
            [index] => index,
            [] => {
                return Err(Error::NoSuchColumn {
                    columns: (0..headers.len().min(20)).map(text).collect(),
                    name: name.to_owned(),
                    column: column.to_owned(),
                    header_line: true,
                })
            }
            _ => {
                return Err(Error::DuplicateColumn {
                    name: name.to_owned(),
                    column: column.to_owned(),
                    indexes: named,
                })
            }
        },
    };
    match headers.get(index) {
        Some(field) if !field.is_empty() && field.iter().all(u8::is_ascii_digit) => {
            Err(Error::HeaderIsKey {
                name: name.to_owned(),
                index,
                field: String::from_utf8_lossy(field).into_owned(),
            })
        }
        _ => Ok(index),
    }
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
