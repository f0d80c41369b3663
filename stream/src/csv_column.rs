//! Keys from one column of a CSV input: decimal u64 keys, read by
//! [`crate::csv_records`] (quoted fields, doubled quotes, `\n`, `\r\n` or
//! `\r` records). Spaces around a field are ignored. A field that is not a
//! decimal u64, a record too short to have the column and a quote never
//! closed are errors naming their line.
//!
//! How `--column` picks the column, so that no key is dropped and no
//! column picked by a guess:
//!
//! - Without a header line, it is an INDEX, counting from 0.
//! - With one, digits below the header line's width are an INDEX and
//!   anything else a NAME (a year, `2024`, is a name), which must name
//!   exactly one column of the header line (two columns of that name is an
//!   error naming both indexes, none an error listing the columns).
//! - An INDEX that another column of the header line has as its name is
//!   an error (which of the two was meant cannot be told).
//! - With a header line, a column chosen by INDEX must not have digits for
//!   its header field: that is a key, and the file most likely has no
//!   header line (its first key would be dropped as one), so the error
//!   says `--no-header`.
//!
//! A record, from its first byte to its line end, is at most `max_record`
//! bytes (the byte keys' `--max-line-bytes`): a longer one is an error
//! naming its line, and a field without an end (a quote never closed, a
//! file without line ends) is refused once that many bytes of it have been
//! read, instead of filling memory.

use std::io::Read;

use crate::csv_records::Records;
use crate::decimal::parse_decimal;
use crate::error::Error;
use crate::source::{Input, OrderedKeys, Source, Unit};

/// The keys of `column` (a name from the header line, or a 0-based index)
/// of the CSV text `source`, named `name` in messages, of `size` bytes if
/// known; `header` says whether its first line names the columns; a record
/// is at most `max_record` bytes.
pub(crate) fn open(
    source: Box<dyn Read + Send>,
    name: String,
    size: Option<u64>,
    column: &str,
    header: bool,
    max_record: usize,
) -> Result<Input, Error> {
    let mut records = Records::new(source, name, max_record);
    let index = match header {
        true => in_header(&records.header()?, column, records.name())?,
        false => column
            .parse::<usize>()
            .map_err(|_| Error::ColumnNeedsIndex {
                column: column.to_owned(),
            })?,
    };
    Ok(Input {
        source: Source::Ordered(Box::new(CsvKeys {
            records,
            column: column.to_owned(),
            index,
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
pub(crate) fn in_header(headers: &[Vec<u8>], column: &str, name: &str) -> Result<usize, Error> {
    let named: Vec<usize> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == column.as_bytes())
        .map(|(i, _)| i)
        .collect();
    let text = |i: usize| String::from_utf8_lossy(&headers[i]).into_owned();
    let index = match column.parse::<usize>() {
        // An index the header line has; past it, digits can only be a name
        // (`2024`), and a name picks its field whatever that field holds.
        Ok(index) if index < headers.len() => {
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
        _ => match named[..] {
            [index] => return Ok(index),
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

struct CsvKeys {
    records: Records<Box<dyn Read + Send>>,
    column: String,
    index: usize,
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
        while keys.len() < max && self.records.next()? {
            let line = self.records.line();
            let Some(field) = self.records.get(self.index) else {
                return Err(Error::MissingField {
                    name: self.records.name().to_owned(),
                    line,
                    fields: self.records.len(),
                    column: self.column.clone(),
                });
            };
            let key = parse_decimal(field).map_err(|why| Error::BadKey {
                name: self.records.name().to_owned(),
                line,
                column: Some(self.column.clone()),
                why,
            })?;
            keys.push(key);
        }
        self.keys += keys.len() as u64;
        let read = self.records.parsed();
        let progress = read - self.bytes;
        self.bytes = read;
        Ok(progress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    /// The keys of column `k` of `text`, records capped at 100 bytes.
    fn keys(text: impl Read + Send + 'static) -> Result<Vec<u64>, String> {
        let input = open(Box::new(text), "in".into(), None, "k", true, 100)?;
        let Source::Ordered(mut source) = input.source else {
            panic!("CSV is read in order");
        };
        let (mut all, mut keys) = (Vec::new(), Vec::new());
        loop {
            source.next_keys(1000, &mut keys)?;
            if keys.is_empty() {
                return Ok(all);
            }
            all.extend(&keys);
        }
    }

    #[test]
    fn records_longer_than_the_bound_are_refused_with_their_line() {
        let pad = "x".repeat(80);
        assert_eq!(
            keys(io::Cursor::new(format!("k,pad\n1,{pad}\n2,{pad}\n"))),
            Ok(vec![1, 2])
        );
        let long = format!("k,pad\n1,{pad}\n2,{pad}{pad}\n3,x\n");
        let err = keys(io::Cursor::new(long)).unwrap_err();
        assert!(
            err.starts_with("in line 3: a CSV record longer than 100 bytes"),
            "{err}"
        );
        assert!(err.contains("--max-line-bytes"), "{err}");
        let err = keys(io::Cursor::new(format!("k,{pad}{pad}\n1,2\n"))).unwrap_err();
        assert!(err.starts_with("in line 1: a CSV record longer"), "{err}");
        // A field without an end is refused after a bounded read: this
        // input never ends.
        let endless = io::Cursor::new("k,pad\n1,x\n2,\"").chain(io::repeat(b'x'));
        let err = keys(endless).unwrap_err();
        assert!(err.starts_with("in line 3: a CSV record longer"), "{err}");
        let endless = io::Cursor::new("k,").chain(io::repeat(b'x'));
        let err = keys(endless).unwrap_err();
        assert!(err.starts_with("in line 1: a CSV record longer"), "{err}");
    }
}
