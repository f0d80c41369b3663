//! Keys with a weight each (requests per second, bytes), from two columns
//! of a CSV or Parquet file, read whole: what an offline planner needs,
//! every key and its weight in memory at once.
//!
//! The key column is read as the key sources read it (decimal u64 in
//! CSV, uint64 or int64 in Parquet; the CSV column rules of `--column`
//! apply to both columns); the weight column holds numbers (CSV: any
//! decimal or exponent form Rust's `f64` reads; Parquet: a float, double
//! or integer column). A weight must be finite and 0 or more: a negative,
//! NaN or infinite weight is an error naming its line (CSV, counting the
//! header line) or row (Parquet, from 1).

use std::io::Read;
use std::path::Path;

use crate::csv_column::in_header;
use crate::csv_records::Records;
use crate::decimal::parse_decimal;
use crate::error::Error;
use crate::weighted_key::checked;
pub use crate::weighted_key::{Place, WeightColumns, WeightedKey};

/// Every key and weight of the file at `path` (`-`: standard input):
/// Parquet when it starts with Parquet's magic bytes, CSV otherwise. The
/// file is opened once and its first bytes are read once, so that a pipe
/// (`-`, `/dev/stdin`) loses none of them to the sniff; Parquet, whose
/// footer is read first, needs a regular file.
pub fn read_weighted(path: &Path, columns: &WeightColumns<'_>) -> Result<Vec<WeightedKey>, Error> {
    if path.as_os_str() == "-" {
        return sniffed(
            std::io::stdin().lock(),
            "standard input".into(),
            None,
            columns,
        );
    }
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| Error::Open {
        name: name.clone(),
        source,
    })?;
    let regular = file.metadata().is_ok_and(|m| m.is_file());
    sniffed(file, name, Some((path, regular)), columns)
}

/// [`read_weighted`] of `source`, named `name`, at `path` (and whether it
/// is a regular file) unless it is standard input.
fn sniffed(
    mut source: impl Read,
    name: String,
    path: Option<(&Path, bool)>,
    columns: &WeightColumns<'_>,
) -> Result<Vec<WeightedKey>, Error> {
    let mut magic = [0u8; 4];
    let mut n = 0;
    // A pipe may hand over fewer bytes than asked: read until four or the end.
    while n < magic.len() {
        match source.read(&mut magic[n..]) {
            Ok(0) => break,
            Ok(got) => n += got,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(Error::Read {
                    name: name.clone(),
                    source,
                })
            }
        }
    }
    if n == 4 && &magic == crate::detect::PARQUET_MAGIC {
        return match path {
            None => Err(Error::ParquetFromStdin),
            Some((_, false)) => Err(Error::ParquetNotSeekable { name }),
            #[cfg(feature = "parquet")]
            Some((path, true)) => crate::weighted_parquet::read(path, columns),
            #[cfg(not(feature = "parquet"))]
            Some((_, true)) => Err(Error::BadParquet {
                name,
                why: "this build reads no Parquet".into(),
            }),
        };
    }
    read_csv(
        std::io::Cursor::new(magic).take(n as u64).chain(source),
        name,
        columns,
    )
}

/// Every key and weight of the CSV text `source`, named `name`.
pub fn read_csv(
    source: impl Read,
    name: String,
    columns: &WeightColumns<'_>,
) -> Result<Vec<WeightedKey>, Error> {
    let mut records = Records::new(source, name.clone(), usize::MAX);
    let (key_index, weight_index) = if columns.header {
        let headers = records.header()?;
        (
            in_header(&headers, columns.key, &name)?,
            in_header(&headers, columns.weight, &name)?,
        )
    } else {
        let index = |column: &str| {
            column
                .parse::<usize>()
                .map_err(|_| Error::ColumnNeedsIndex {
                    column: column.to_owned(),
                })
        };
        (index(columns.key)?, index(columns.weight)?)
    };
    let mut all = Vec::new();
    while records.next()? {
        let line = records.line();
        let field = |index: usize, column: &str| {
            records.get(index).ok_or_else(|| Error::MissingField {
                name: name.clone(),
                line,
                fields: records.len(),
                column: column.to_owned(),
            })
        };
        let key = parse_decimal(field(key_index, columns.key)?).map_err(|why| Error::BadKey {
            name: name.clone(),
            line,
            column: Some(columns.key.to_owned()),
            why,
        })?;
        let text = field(weight_index, columns.weight)?;
        let weight = std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<f64>().ok());
        let weight = checked(weight, || Error::BadWeight {
            name: name.clone(),
            line,
            column: columns.weight.to_owned(),
            text: String::from_utf8_lossy(text).into_owned(),
        })?;
        all.push(WeightedKey {
            key,
            weight,
            place: Place::Line(line),
        });
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<(u64, f64, Place)>, String> {
        let columns = WeightColumns {
            key: "k",
            weight: "w",
            header: true,
        };
        Ok(read_csv(text.as_bytes(), "in".into(), &columns)?
            .into_iter()
            .map(|w| (w.key, w.weight, w.place))
            .collect())
    }

    #[test]
    fn keys_and_weights_with_their_lines() {
        assert_eq!(
            read("w,k\n1.5,7\n 2e3 , 8\n0,9\n"),
            Ok(vec![
                (7, 1.5, Place::Line(2)),
                (8, 2000.0, Place::Line(3)),
                (9, 0.0, Place::Line(4))
            ])
        );
        for (text, want) in [
            ("k,w\n1,-1\n", "in line 2, column w: weight \"-1\""),
            ("k,w\n1,2\n2,NaN\n", "in line 3, column w: weight \"NaN\""),
            ("k,w\n1,inf\n", "in line 2, column w: weight \"inf\""),
            ("k,w\n1,heavy\n", "in line 2, column w: weight \"heavy\""),
            (
                "k,w\n1\n",
                "in line 2: the record has 1 fields, no column w",
            ),
            ("k,x\n1,2\n", "in: no column \"w\""),
        ] {
            let err = read(text).unwrap_err();
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }
}
