//! How an input's keys are written.

/// How an input's keys are written, or [`KeyFormat::Auto`] to tell from
/// the input itself (see [`crate::detect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyFormat {
    /// Told from the input: a directory or a file starting with `PAR1` is
    /// Parquet, a `.csv` file is CSV, binary data is u64le; text is refused
    /// (whether it holds decimal keys or byte keys cannot be told), and so
    /// is compressed data (see [`crate::not_keys`]).
    Auto,
    /// 8-byte little-endian unsigned integers, back to back.
    U64le,
    /// One decimal unsigned 64-bit integer per line.
    Decimal,
    /// One key per line, without its `\n` or `\r\n` (a last line without `\n` is whole), hashed as bytes
    /// (XXH3-64, seeded with the tenant seed).
    Bytes,
    /// A column of a CSV file, decimal u64.
    Csv,
    /// A uint64 or int64 column of a Parquet file or of a directory of
    /// them (needs the `parquet` feature).
    Parquet,
}

impl KeyFormat {
    /// The format's name, as `--key-format` spells it.
    ///
    /// ```
    /// assert_eq!(jumpshard_stream::KeyFormat::U64le.name(), "u64le");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            KeyFormat::Auto => "auto",
            KeyFormat::U64le => "u64le",
            KeyFormat::Decimal => "decimal",
            KeyFormat::Bytes => "bytes",
            KeyFormat::Csv => "csv",
            KeyFormat::Parquet => "parquet",
        }
    }

    /// Whether the keys are one column of a table (CSV, Parquet).
    pub fn is_columnar(self) -> bool {
        matches!(self, KeyFormat::Csv | KeyFormat::Parquet)
    }
}
