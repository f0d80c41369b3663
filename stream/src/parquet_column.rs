//! Keys from a uint64 or int64
//! column (int64 bits read as uint64) of a Parquet file, or of every file
//! of a dataset directory (`crate::dataset`: partition subdirectories
//! too, in path order), positions running on from file to file.
//!
//! Each row group is cut into pieces of at most [`PIECE_ROWS`] rows that
//! workers read on their own, in parallel, decoding only the key column:
//! memory stays bounded by the pipeline's buffers, whatever the file's
//! size. The footers are read once, up front, which also checks the
//! column's presence and type in every file before any key is read; a
//! null is an error naming its row.
//!
//! A piece is decoded by parquet's column reader straight into the
//! worker's key buffer, which the pipeline reuses. The Arrow record batch
//! reader would decode into a new, zeroed Arrow buffer for every piece and
//! leave one more copy to make: measured on 2^28 keys, that cost a fifth of
//! the run.

use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::basic::Type as PhysicalType;
use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::Int64Type;
use parquet::file::serialized_reader::SerializedPageReader;

use crate::error::Error;
use crate::source::{Input, KeyPieces, Source, Unit};

/// The most rows read as one piece (8 MiB of keys).
const PIECE_ROWS: u64 = 1 << 20;

thread_local! {
    /// A worker's definition levels for a nullable key column (writers
    /// such as pyarrow mark columns nullable by default): one level per
    /// row, kept from piece to piece instead of allocated for each.
    static LEVELS: RefCell<Vec<i16>> = const { RefCell::new(Vec::new()) };
}

/// The keys of `column` in the Parquet file at `path`, or in every file
/// of the dataset directory at `path`.
pub(crate) fn open(path: &Path, column: &str) -> Result<Input, Error> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| Error::Open {
        name: name.clone(),
        source,
    })?;
    let files = if meta.is_dir() {
        crate::dataset::dataset_files(path)?
    } else {
        vec![path.to_path_buf()]
    };
    let mut sources = Vec::with_capacity(files.len());
    let mut groups = Vec::new();
    let mut rows = 0u64;
    let mut pieces = 0u64;
    for (f, path) in files.into_iter().enumerate() {
        let source = FileSource::open(path, column, rows)?;
        for (group, meta) in source.metadata.metadata().row_groups().iter().enumerate() {
            // Only the footer's word, checked as far as it can be: the
            // pieces are computed from it when read, never listed, so
            // that a footer claiming 2^62 rows costs no memory.
            let total = u64::try_from(meta.num_rows())
                .ok()
                .and_then(|n| rows.checked_add(n).map(|total| (n, total)));
            let Some((group_rows, total)) = total else {
                return Err(Error::BadParquet {
                    name: source.name.clone(),
                    why: format!(
                        "row group {group} claims {} rows, which cannot be",
                        meta.num_rows()
                    ),
                });
            };
            groups.push(Group {
                file: f,
                group,
                rows: group_rows,
                first: rows,
                first_piece: pieces,
            });
            pieces += group_rows.div_ceil(PIECE_ROWS);
            rows = total;
        }
        sources.push(source);
    }
    Ok(Input {
        source: Source::Pieces(Box::new(ParquetKeys {
            sources,
            groups,
            pieces,
        })),
        size: Some(rows),
        unit: Unit::Keys,
        byte_keys: false,
    })
}

/// One Parquet file, its footer read.
struct FileSource {
    path: PathBuf,
    name: String,
    column: String,
    metadata: ArrowReaderMetadata,
    /// The column's index among the file's leaf columns.
    leaf: usize,
    /// The input position of its first key.
    first: u64,
}

impl FileSource {
    /// The file at `path`, whose first key has input position `first`.
    fn open(path: PathBuf, column: &str, first: u64) -> Result<FileSource, Error> {
        let name = path.display().to_string();
        let file = File::open(&path).map_err(|source| Error::Open {
            name: name.clone(),
            source,
        })?;
        // The Arrow schema some writers embed is not decoded: the column's
        // type follows from the Parquet schema alone, and a corrupt
        // embedded schema made arrow-ipc panic.
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let loaded = contained(&name, || ArrowReaderMetadata::load(&file, options))?;
        let metadata = match loaded {
            Ok(metadata) => metadata,
            Err(e) => {
                return Err(Error::BadParquet {
                    name,
                    why: format!("not a readable Parquet file: {e}"),
                })
            }
        };
        let (_, field) = column_of(metadata.schema(), &name, column)?;
        match field.data_type() {
            DataType::UInt64 | DataType::Int64 => {}
            other => {
                return Err(Error::ColumnType {
                    name,
                    column: column.to_owned(),
                    found: other.to_string(),
                })
            }
        };
        // A top-level uint64 or int64 field is a leaf of its own name,
        // stored as INT64 (what the column reader below decodes).
        let leaf = metadata
            .parquet_schema()
            .columns()
            .iter()
            .position(|leaf| {
                leaf.path().parts() == [column] && leaf.physical_type() == PhysicalType::INT64
            })
            .ok_or_else(|| Error::BadParquet {
                name: name.clone(),
                why: format!("column {column:?} is not a plain INT64 column"),
            })?;
        Ok(FileSource {
            path,
            name,
            column: column.to_owned(),
            metadata,
            leaf,
            first,
        })
    }
}

/// Rows `skip..skip + len` of one row group.
struct Piece {
    file: usize,
    group: usize,
    skip: usize,
    len: usize,
    /// The position of its first key in the whole input.
    first: u64,
}

/// A row group, cut into pieces of [`PIECE_ROWS`] rows.
struct Group {
    file: usize,
    /// Its index in its file.
    group: usize,
    rows: u64,
    /// The position of its first key in the whole input.
    first: u64,
    /// The index of its first piece.
    first_piece: u64,
}

struct ParquetKeys {
    sources: Vec<FileSource>,
    /// The row groups, in input order.
    groups: Vec<Group>,
    /// The number of pieces.
    pieces: u64,
}

impl ParquetKeys {
    /// Piece `index` (below `self.pieces`).
    fn piece(&self, index: u64) -> Piece {
        // The last group whose first piece is at or before `index`: groups
        // without rows have no piece, and share their first piece with the
        // next group.
        let g = self.groups.partition_point(|g| g.first_piece <= index) - 1;
        let group = &self.groups[g];
        let skip = (index - group.first_piece) * PIECE_ROWS;
        Piece {
            file: group.file,
            group: group.group,
            skip: skip as usize,
            len: PIECE_ROWS.min(group.rows - skip) as usize,
            first: group.first + skip,
        }
    }
}

impl KeyPieces for ParquetKeys {
    fn count(&self) -> u64 {
        self.pieces
    }

    fn read(&self, index: u64, keys: &mut Vec<u64>) -> Result<u64, Error> {
        let piece = self.piece(index);
        let name = &self.sources[piece.file].name;
        contained(name, || self.read_piece(&piece, keys))?
    }
}

/// The index and field of the column `column` of the file `name`: refused
/// when the file has no column of that name, or several (Parquet allows
/// it; which of them holds the keys cannot be told).
pub(crate) fn column_of<'a>(
    schema: &'a arrow_schema::Schema,
    name: &str,
    column: &str,
) -> Result<(usize, &'a arrow_schema::Field), Error> {
    let mut named = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name() == column);
    let Some((index, field)) = named.next() else {
        return Err(no_such_column(schema, name.to_owned(), column));
    };
    if let Some((other, _)) = named.next() {
        let more = if named.next().is_some() { ", ..." } else { "" };
        return Err(Error::BadParquet {
            name: name.to_owned(),
            why: format!(
                "its columns {index}, {other}{more} are all named {column:?}: which one holds \
                 the keys cannot be told"
            ),
        });
    }
    Ok((index, field.as_ref()))
}

/// A column the file `name` lacks, naming the first columns it has.
fn no_such_column(schema: &arrow_schema::Schema, name: String, column: &str) -> Error {
    Error::NoSuchColumn {
        columns: schema
            .fields()
            .iter()
            .take(20)
            .map(|f| f.name().clone())
            .collect(),
        name,
        column: column.to_owned(),
        header_line: false,
    }
}

/// `f`'s result, or an error naming the input `name` if the Parquet stack
/// panics on it: a corrupt file is an error like any other, never the end
/// of the process.
fn contained<T>(name: &str, f: impl FnOnce() -> T) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Error::BadParquet {
            name: name.to_owned(),
            why: format!("not a readable Parquet file: the reader failed ({why})"),
        }
    })
}

impl ParquetKeys {
    /// `piece`'s keys into `keys`; its first key's position.
    fn read_piece(&self, piece: &Piece, keys: &mut Vec<u64>) -> Result<u64, Error> {
        let source = &self.sources[piece.file];
        let name = &source.name;
        let failed = |e: &dyn std::fmt::Display| Error::Read {
            name: name.clone(),
            source: std::io::Error::other(e.to_string()),
        };
        let file = File::open(&source.path).map_err(|e| failed(&e))?;
        let metadata = source.metadata.metadata();
        let group = metadata.row_group(piece.group);
        let pages = SerializedPageReader::new(
            Arc::new(file),
            group.column(source.leaf),
            group.num_rows() as usize,
            None,
        )
        .map_err(|e| failed(&e))?;
        let descr = metadata.file_metadata().schema_descr().column(source.leaf);
        let max_level = descr.max_def_level();
        let mut reader = ColumnReaderImpl::<Int64Type>::new(descr, Box::new(pages));
        if piece.skip > 0 {
            let skipped = reader.skip_records(piece.skip).map_err(|e| failed(&e))?;
            if skipped != piece.skip {
                return Err(failed(&format!(
                    "row group {} ended after {skipped} rows",
                    piece.group
                )));
            }
        }
        // int64 and uint64 columns are both stored as INT64: the decoder
        // writes the bits, into the key buffer itself.
        let mut values: Vec<i64> = bytemuck::allocation::cast_vec(std::mem::take(keys));
        values.clear();
        let (read, null) = LEVELS.with_borrow_mut(|levels| {
            levels.clear();
            let read = reader.read_records(
                piece.len,
                (max_level > 0).then_some(&mut *levels),
                None,
                &mut values,
            );
            // Fewer values than rows: some row holds a null.
            let null = match read {
                Ok((rows, values, _)) if values < rows => {
                    levels.iter().position(|&l| l < max_level)
                }
                _ => None,
            };
            (read, null)
        });
        *keys = bytemuck::allocation::cast_vec(values);
        read.map_err(|e| failed(&e))?;
        if let Some(row) = null {
            let position = piece.first + row as u64;
            return Err(Error::Null {
                name: name.clone(),
                column: source.column.clone(),
                position,
                row: position - source.first,
            });
        }
        if keys.len() != piece.len {
            return Err(failed(&format!(
                "row group {} gave {} rows where its footer says {}",
                piece.group,
                keys.len(),
                piece.len
            )));
        }
        Ok(piece.first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    /// A page whose bytes changed after it was written fails its checksum
    /// when the writer stored one: `testdata/page-checksums.parquet` holds
    /// keys 0 to 999, one uncompressed PLAIN page written by pyarrow with
    /// `write_page_checksum=True` (parquet's own writer stores none).
    #[test]
    fn a_page_that_fails_its_checksum_is_an_error_naming_the_file() {
        let sound = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/page-checksums.parquet");
        let read = |path: &Path| -> Result<Vec<u64>, Error> {
            let Source::Pieces(pieces) = open(path, "k")?.source else {
                panic!("a Parquet input reads in pieces");
            };
            let mut keys = Vec::new();
            pieces.read(0, &mut keys)?;
            Ok(keys)
        };
        assert!(read(&sound).unwrap() == (0..1000).collect::<Vec<u64>>());
        let dir = tempfile::tempdir().unwrap();
        let corrupt = dir.path().join("corrupt.parquet");
        let mut bytes = std::fs::read(&sound).unwrap();
        let column = ArrowReaderMetadata::load(&File::open(&sound).unwrap(), Default::default())
            .unwrap()
            .metadata()
            .row_group(0)
            .column(0)
            .clone();
        // The high byte of the last key, 999: still a key, if read.
        let last = (column.data_page_offset() + column.compressed_size() - 1) as usize;
        bytes[last] ^= 1;
        std::fs::write(&corrupt, &bytes).unwrap();
        let err = read(&corrupt).unwrap_err().to_string();
        assert!(
            err.contains("corrupt.parquet") && err.contains("CRC"),
            "{err}"
        );
    }

    /// A row group longer than a piece is read in pieces, the later ones
    /// skipping the rows before them, and together they give every key
    /// once, at its position.
    #[test]
    fn a_row_group_longer_than_a_piece() {
        let rows = PIECE_ROWS as usize * 2 + 12_345;
        let keys: Vec<u64> = (0..rows as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.parquet");
        let column = Arc::new(UInt64Array::from(keys.clone())) as ArrayRef;
        let batch = RecordBatch::try_from_iter([("k", column)]).unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(rows))
            .build();
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), Some(props))
                .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();

        let Source::Pieces(pieces) = open(&path, "k").unwrap().source else {
            panic!("a Parquet input reads in pieces");
        };
        assert_eq!(pieces.count(), 3);
        let mut got = vec![0; rows];
        let mut buffer = Vec::new();
        for index in 0..pieces.count() {
            let first = pieces.read(index, &mut buffer).unwrap() as usize;
            got[first..first + buffer.len()].copy_from_slice(&buffer);
        }
        assert!(got == keys);
    }
}
