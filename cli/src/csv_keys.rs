//! `--key-format csv --column NAME|INDEX [--no-header]`: decimal u64 keys
//! from one column of a CSV file (or standard input), read with the `csv`
//! crate: quoted fields, doubled quotes, `\n` or `\r\n` records. Spaces
//! around a field are ignored. A NAME is looked up in the header line; an
//! INDEX counts columns from 0, with or without a header. A field that is
//! not a decimal u64, and a record too short to have the column, are
//! errors naming their line.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::input::{Input, OrderedKeys, Source, Unit};
use crate::sequential::parse_decimal;

pub fn open(path: Option<&Path>, column: &str, header: bool) -> Result<Input, String> {
    let (source, name, size): (Box<dyn Read + Send>, String, Option<u64>) = match path {
        Some(path) => {
            let name = path.display().to_string();
            let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
            let meta = file
                .metadata()
                .map_err(|e| format!("cannot read {name}: {e}"))?;
            if meta.is_dir() {
                return Err(format!("cannot read {name}: it is a directory"));
            }
            let size = meta.is_file().then_some(meta.len());
            (Box::new(file), name, size)
        }
        None => (Box::new(io::stdin()), "standard input".into(), None),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(header)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(source);
    let index = match column.parse::<usize>() {
        Ok(index) => index,
        Err(_) if !header => {
            return Err(format!(
                "--column {column}: without a header line, columns are given by their \
                 0-based index"
            ))
        }
        Err(_) => {
            let headers = reader.headers().map_err(|e| error(&name, &e))?;
            headers.iter().position(|h| h == column).ok_or_else(|| {
                let names: Vec<&str> = headers.iter().take(20).collect();
                format!(
                    "{name}: no column {column:?} in the header line (its columns: {})",
                    names.join(", ")
                )
            })?
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

fn error(name: &str, e: &csv::Error) -> String {
    match e.position() {
        Some(p) => format!("{name} line {}: {e}", p.line()),
        None => format!("cannot read {name}: {e}"),
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

    fn next_keys(&mut self, max: usize, keys: &mut Vec<u64>) -> Result<u64, String> {
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
                return Err(format!(
                    "{} line {line}: the record has {} fields, no column {}",
                    self.name,
                    self.record.len(),
                    self.column
                ));
            };
            let key = parse_decimal(field).map_err(|why| {
                format!("{} line {line}, column {}: {why}", self.name, self.column)
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
