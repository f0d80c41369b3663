//! Opening an input: the options a front end gathers, the checks of the
//! options that only some formats take, format detection, and the source
//! that reads the keys.
//!
//! Format by format:
//!
//! - `u64le`: 8-byte little-endian keys back to back; the size must be a
//!   multiple of 8. A file that starts and ends with `PAR1` is refused as
//!   Parquet even when u64le is asked for.
//! - `decimal`: one decimal u64 per line (digits only; a line longer than
//!   4096 bytes is refused without being read whole).
//! - `bytes`: each line is one byte-string key, pre-hashed with XXH3-64
//!   (`jumpshard::bytes::prehash_seeded`); a line longer than the bound
//!   (1 MiB by default) is refused without being read whole.
//! - `csv`: decimal keys in one column (a name from the header line, or an
//!   index from 0); `parquet`: a uint64 or int64 column of a file, or of
//!   every file of a dataset directory (see `crate::dataset`).
//!
//! A line is what lies between two `\n`, without the `\n` and without one
//! `\r` before it (so `\r\n` files read as `\n` files); a last line without
//! `\n` counts, whole (a final `\r` with no `\n` after it is part of it). Keys are numbered from 0 in input order (their position);
//! lines are numbered from 1 in error messages.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::detect::{detect, PARQUET_MAGIC, SNIFF_BYTES};
use crate::error::Error;
use crate::format::KeyFormat;
use crate::generated::Generated;
use crate::sequential::{Sequential, SequentialFormat, DEFAULT_MAX_LINE_BYTES};
use crate::source::{Input, Source, Unit};
use crate::u64le::{holds_its_size, positional};

/// Where an input's keys come from and how they are written.
///
/// ```
/// use jumpshard_stream::{KeyOptions, Source};
///
/// let options = KeyOptions { generate: Some(1000), ..KeyOptions::default() };
/// let input = options.open()?;
/// assert_eq!(input.size, Some(1000));
/// assert!(matches!(input.source, Source::Positional(_)));
/// # Ok::<(), jumpshard_stream::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct KeyOptions {
    /// The input file or directory; standard input when `None` or `-`.
    pub path: Option<PathBuf>,
    /// How its keys are written.
    pub format: KeyFormat,
    /// Instead of reading, generate this many SplitMix64 keys.
    pub generate: Option<u64>,
    /// The seed of the generated keys.
    pub seed: u64,
    /// The longest byte-key line (its line end left out), and the longest
    /// CSV record (its line end included), accepted, in bytes. Any value
    /// but the default is refused for keys without lines (u64le, decimal,
    /// Parquet, however their format was told).
    pub max_line_bytes: usize,
    /// The key column of a CSV (name or 0-based index) or Parquet input.
    pub column: Option<String>,
    /// Whether a CSV input starts with a header line.
    pub header: bool,
    /// The tenant seed of byte keys' pre-hash, if one was given (none is
    /// seed 0, the unseeded pre-hash); refused, whatever its value, for
    /// keys that are not hashed.
    pub hash_seed: Option<u64>,
}

impl Default for KeyOptions {
    fn default() -> KeyOptions {
        KeyOptions {
            path: None,
            format: KeyFormat::Auto,
            generate: None,
            seed: 0x6A75_6D70,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            column: None,
            header: true,
            hash_seed: None,
        }
    }
}

impl KeyOptions {
    /// Opens the input, checking what can be checked before reading.
    pub fn open(&self) -> Result<Input, Error> {
        if let Some(count) = self.generate {
            let format = match self.format {
                KeyFormat::Auto => KeyFormat::U64le,
                f => f,
            };
            self.check(format, "generated keys")?;
            if format != KeyFormat::U64le {
                return Err(Error::Option(format!(
                    "--generate makes 64-bit keys up; --key-format {} reads keys",
                    format.name()
                )));
            }
            return Ok(Input {
                source: Source::Positional(Box::new(Generated {
                    seed: self.seed,
                    count,
                })),
                size: Some(count),
                unit: Unit::Keys,
                byte_keys: false,
            });
        }
        match self.path.as_deref().filter(|p| p.as_os_str() != "-") {
            Some(path) => self.open_path(path),
            None => self.open_stdin(),
        }
    }

    /// The checks of options that only some formats take, once the format
    /// of the input `name` is known.
    fn check(&self, format: KeyFormat, name: &str) -> Result<(), Error> {
        // A Parquet column's kind is known once it is opened.
        if self.hash_seed.is_some() && !matches!(format, KeyFormat::Bytes | KeyFormat::Parquet) {
            return Err(Error::Option(
                "--hash-seed: only with byte keys, --key-format bytes or a Parquet string \
                 or binary column (it seeds the pre-hash of byte keys; --seed is the seed \
                 of --generate)"
                    .into(),
            ));
        }
        if !self.header && format != KeyFormat::Csv {
            return Err(Error::Option(
                "--no-header: only with --key-format csv".into(),
            ));
        }
        // A bound other than the default was asked for; an auto-detected
        // u64le or Parquet input (or decimal keys) has no lines to bound.
        if self.max_line_bytes != DEFAULT_MAX_LINE_BYTES
            && !matches!(format, KeyFormat::Bytes | KeyFormat::Csv)
        {
            return Err(Error::Option(format!(
                "--max-line-bytes: only with --key-format bytes or csv (the longest line or \
                 record); {name} is read as {}, which has no lines to bound",
                format.name()
            )));
        }
        match (format.is_columnar(), &self.column) {
            (true, None) => Err(Error::ColumnMissing {
                name: name.to_owned(),
                format: format.name(),
            }),
            (false, Some(_)) => Err(Error::ColumnUnused {
                name: name.to_owned(),
                format: format.name(),
            }),
            _ => Ok(()),
        }
    }

    fn open_path(&self, path: &Path) -> Result<Input, Error> {
        let name = path.display().to_string();
        let meta = std::fs::metadata(path).map_err(|source| Error::Open {
            name: name.clone(),
            source,
        })?;
        let mut format = self.format;
        // Parquet's footer is at the end: a pipe, a FIFO or a device would
        // be opened again, and read from where the first reader left it.
        let not_seekable = || Error::ParquetNotSeekable { name: name.clone() };
        if format == KeyFormat::Parquet && !meta.is_dir() && !meta.is_file() {
            return Err(not_seekable());
        }
        if format == KeyFormat::Parquet || format == KeyFormat::Auto && meta.is_dir() {
            let what = match format {
                KeyFormat::Auto => format!("{name} (a directory, read as a Parquet dataset)"),
                _ => name,
            };
            self.check(KeyFormat::Parquet, &what)?;
            let column = self.column.as_deref().unwrap_or_default();
            return parquet(path, column, self.hash_seed);
        }
        let read = |source| Error::Read {
            name: name.clone(),
            source,
        };
        let mut file = File::open(path).map_err(|source| Error::Open {
            name: name.clone(),
            source,
        })?;
        let meta = file.metadata().map_err(read)?;
        if meta.is_dir() {
            return Err(Error::IsDirectory { name });
        }
        let size = meta.is_file().then_some(meta.len());
        // What was read to tell the format: a regular file is rewound, a
        // pipe or device gets its first bytes back in front of the rest.
        let mut prefix = Vec::new();
        if format == KeyFormat::Auto {
            prefix = sniff(&mut file).map_err(read)?;
            format = detect(&name, Some(path), &prefix)?;
            if size.is_some() {
                file.seek(SeekFrom::Start(0)).map_err(read)?;
                prefix.clear();
            }
        }
        if format == KeyFormat::Parquet && size.is_none() {
            return Err(not_seekable());
        }
        // A file told Parquet by its first bytes (`PAR1`) may be u64le keys
        // that happen to start so: each refusal says how to read it as such.
        let told = self.format == KeyFormat::Auto && format == KeyFormat::Parquet;
        let or_u64le = |e: Error| match told {
            true => Error::Option(format!(
                "{e} ({name} starts with PAR1, Parquet's mark; if it holds u64le keys, give \
                 --key-format u64le)"
            )),
            false => e,
        };
        self.check(format, &name).map_err(or_u64le)?;
        if format == KeyFormat::Parquet {
            let column = self.column.as_deref().unwrap_or_default();
            return parquet(path, column, self.hash_seed).map_err(|e| match e {
                Error::BadParquet { .. } => or_u64le(e),
                e => e,
            });
        }
        // A size the file does not hold (0 for the files under /proc) is
        // no size: the file is read to its end, like a pipe.
        let size = match size {
            Some(len) if !holds_its_size(&file, len).map_err(read)? => None,
            size => size,
        };
        if let (KeyFormat::U64le, Some(len)) = (format, size) {
            if is_parquet(&mut file, len).map_err(read)? {
                return Err(Error::IsParquet { name });
            }
            if len % 8 != 0 {
                return Err(Error::NotWholeKeys { name, len });
            }
            if let Some(file) = positional(Some(&file), &name, len) {
                return Ok(Input {
                    source: Source::Positional(file),
                    size: Some(len / 8),
                    unit: Unit::Keys,
                    byte_keys: false,
                });
            }
        }
        let reader: Box<dyn Read + Send> = match prefix.is_empty() {
            true => Box::new(file),
            false => Box::new(io::Cursor::new(prefix).chain(file)),
        };
        self.read(format, reader, name, size)
    }

    fn open_stdin(&self) -> Result<Input, Error> {
        let name = "standard input".to_owned();
        let mut stdin = io::stdin();
        let (format, reader): (KeyFormat, Box<dyn Read + Send>) = match self.format {
            KeyFormat::Auto => {
                let prefix = sniff(&mut stdin).map_err(|source| Error::Read {
                    name: name.clone(),
                    source,
                })?;
                let format = detect(&name, None, &prefix)?;
                (format, Box::new(io::Cursor::new(prefix).chain(stdin)))
            }
            format => (format, Box::new(stdin)),
        };
        self.check(format, &name)?;
        if format == KeyFormat::Parquet {
            return Err(Error::ParquetFromStdin);
        }
        self.read(format, reader, name, None)
    }

    /// The source over `reader` in `format`, which the callers have
    /// resolved (not auto) and sent elsewhere if Parquet.
    fn read(
        &self,
        format: KeyFormat,
        reader: Box<dyn Read + Send>,
        name: String,
        size: Option<u64>,
    ) -> Result<Input, Error> {
        let sequential = match format {
            KeyFormat::Csv => {
                let column = self.column.as_deref().unwrap_or_default();
                return crate::csv_column::open(
                    reader,
                    name,
                    size,
                    column,
                    self.header,
                    self.max_line_bytes,
                );
            }
            KeyFormat::Decimal => SequentialFormat::Decimal,
            KeyFormat::Bytes => SequentialFormat::Bytes,
            KeyFormat::U64le => SequentialFormat::U64le,
            KeyFormat::Auto | KeyFormat::Parquet => unreachable!("resolved by the callers"),
        };
        let unit = match sequential {
            SequentialFormat::U64le => Unit::Keys,
            _ => Unit::Bytes,
        };
        let reader = Sequential::new(reader, name, sequential)
            .with_max_line_bytes(self.max_line_bytes)
            .with_hash_seed(self.hash_seed.unwrap_or(0));
        Ok(Input {
            source: Source::Sequential(Box::new(reader)),
            size: size.map(|s| if unit == Unit::Keys { s / 8 } else { s }),
            unit,
            byte_keys: sequential == SequentialFormat::Bytes,
        })
    }
}

/// Up to [`SNIFF_BYTES`] first bytes of `reader` (fewer only at its end).
fn sniff(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(SNIFF_BYTES);
    // `read_to_end` through `take` retries short reads (a pipe's) and
    // interrupted ones.
    reader
        .by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// Whether the regular file `file` of `len` bytes starts and ends with
/// Parquet's magic bytes; leaves it at its start.
fn is_parquet(file: &mut File, len: u64) -> io::Result<bool> {
    if len < 8 {
        return Ok(false);
    }
    let mut head = [0; 4];
    let mut tail = [0; 4];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut head)?;
    file.seek(SeekFrom::Start(len - 4))?;
    file.read_exact(&mut tail)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(&head == PARQUET_MAGIC && &tail == PARQUET_MAGIC)
}

#[cfg(feature = "parquet")]
fn parquet(path: &Path, column: &str, hash_seed: Option<u64>) -> Result<Input, Error> {
    crate::parquet_column::open(path, column, hash_seed)
}

#[cfg(not(feature = "parquet"))]
fn parquet(path: &Path, _column: &str, _hash_seed: Option<u64>) -> Result<Input, Error> {
    Err(Error::BadParquet {
        name: path.display().to_string(),
        why: "Parquet input, and this build reads no Parquet (the `parquet` feature is off)".into(),
    })
}

#[cfg(all(test, feature = "parquet"))]
mod tests {
    use super::*;

    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
    use parquet::arrow::ArrowWriter;

    fn options(path: &Path, format: KeyFormat, column: Option<&str>) -> KeyOptions {
        KeyOptions {
            path: Some(path.to_path_buf()),
            format,
            column: column.map(str::to_owned),
            ..KeyOptions::default()
        }
    }

    /// A Parquet file, whatever its size, is read as Parquet when the
    /// format is detected and refused when u64le is asked for.
    #[test]
    fn parquet_is_never_read_as_u64le() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys");
        let column = Arc::new(UInt64Array::from_iter_values(0..1000)) as ArrayRef;
        let batch = RecordBatch::try_from_iter([("k", column)]).unwrap();
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let input = options(&path, KeyFormat::Auto, Some("k")).open().unwrap();
        assert!(matches!(input.source, Source::Pieces(_)));
        assert_eq!(input.size, Some(1000));
        let refused = options(&path, KeyFormat::U64le, None).open();
        assert!(matches!(refused, Err(Error::IsParquet { .. })));
    }

    #[test]
    fn text_and_binary_files() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("keys.txt");
        std::fs::write(&text, "1\n2\n3\n4\n5\n6\n7\n8\n").unwrap();
        let refused = options(&text, KeyFormat::Auto, None).open();
        assert!(matches!(refused, Err(Error::LooksLikeText { .. })));
        let binary = dir.path().join("keys.bin");
        std::fs::write(&binary, [1u8, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        let input = options(&binary, KeyFormat::Auto, None).open().unwrap();
        assert!(matches!(input.source, Source::Positional(_)));
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        let input = options(&empty, KeyFormat::Auto, None).open().unwrap();
        assert_eq!(input.size, Some(0));
    }
}
