//! A key with its weight, where it was read, and the check every weight
//! passes, shared by the CSV and Parquet readers of `crate::weighted`.

use crate::error::Error;

/// A key, its weight and where it was read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightedKey {
    /// The key.
    pub key: u64,
    /// Its weight, finite and 0 or more.
    pub weight: f64,
    /// Where it was read.
    pub place: Place,
}

/// Where a weighted key was read, as messages name it: a CSV line, from
/// 1, the header line counted ("line 3"), or a Parquet row, from 0, as
/// Parquet's other errors count ("row 2 of the file, from 0").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A CSV line, from 1.
    Line(u64),
    /// A Parquet row, from 0.
    Row(u64),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Line(line) => write!(f, "line {line}"),
            Place::Row(row) => write!(f, "row {row} of the file, from 0"),
        }
    }
}

/// Where a weights file's columns are.
#[derive(Clone, Debug)]
pub struct WeightColumns<'a> {
    /// The key column: a header name, or a 0-based index.
    pub key: &'a str,
    /// The weight column: a header name, or a 0-based index.
    pub weight: &'a str,
    /// Whether a CSV input's first line names the columns.
    pub header: bool,
}

/// `weight` when it is a finite number of 0 or more, else the error `bad`
/// makes (naming a CSV line or a Parquet row).
pub(crate) fn checked(weight: Option<f64>, bad: impl FnOnce() -> Error) -> Result<f64, Error> {
    match weight {
        Some(w) if w.is_finite() && w >= 0.0 => Ok(w),
        _ => Err(bad()),
    }
}
