//! Keys from a uint64 or int64 column (int64 bits read as uint64) of a
//! Parquet file, or byte keys from a string or binary column, its values
//! of any width or of one (each value pre-hashed as `--key-format bytes`
//! hashes a line, with the tenant seed), of the file or of every file of
//! a dataset directory (`crate::dataset`: partition subdirectories too,
//! in path order, every file's column of the same kind), positions
//! running on from file to file.
//!
//! Each row group is cut into pieces of at most [`PIECE_ROWS`] rows that
//! workers read on their own, in parallel, decoding only the key column:
//! memory stays bounded by the pipeline's buffers, whatever the file's
//! size. The footers are read once, up front, which also checks the
//! column's presence and type in every file before any key is read; a
//! null is an error naming its row.
//!
//! A piece of integer keys is decoded by parquet's column reader straight
//! into the worker's key buffer, which the pipeline reuses. The Arrow
//! record batch reader would decode into a new, zeroed Arrow buffer for
//! every piece and leave one more copy to make: measured on 2^28 keys,
//! that cost a fifth of the run. Byte keys take the Arrow reader, which
//! gives a batch's values as one buffer and offsets, the layout the lanes
//! hash, where the column reader gives each value a buffer of its own, in
//! batches of [`BYTE_BATCH_ROWS`] rows, so that a worker holds the values
//! of those rows at a time, not of a piece.

use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::ByteArrayType;
use arrow_array::{Array, GenericByteArray};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use parquet::arrow::ProjectionMask;
use parquet::basic::Type as PhysicalType;
use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::Int64Type;
use parquet::file::serialized_reader::SerializedPageReader;

use crate::error::Error;
use crate::source::{Input, KeyPieces, Source, Unit};

/// The most rows read as one piece (8 MiB of keys).
const PIECE_ROWS: u64 = 1 << 20;

/// The rows of a byte-key column decoded at a time.
const BYTE_BATCH_ROWS: usize = 4096;

thread_local! {
    /// A worker's definition levels for a nullable key column (writers
    /// such as pyarrow mark columns nullable by default): one level per
    /// row, kept from piece to piece instead of allocated for each.
    static LEVELS: RefCell<Vec<i16>> = const { RefCell::new(Vec::new()) };
}

/// The keys of `column` in the Parquet file at `path`, or in every file
/// of the dataset directory at `path`; a string or binary column's values
/// pre-hashed with `hash_seed` (none: 0), which an integer column refuses.
pub(crate) fn open(path: &Path, column: &str, hash_seed: Option<u64>) -> Result<Input, Error> {
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
        if let Some(first) = sources
            .first()
            .filter(|f: &&FileSource| f.bytes != source.bytes)
        {
            return Err(Error::BadParquet {
                name: source.name.clone(),
                why: format!(
                    "its column {column:?} holds {}, where {} holds {}: a dataset's keys are of \
                     one kind",
                    kind(source.bytes),
                    first.name,
                    kind(first.bytes)
                ),
            });
        }
        if hash_seed.is_some() && !source.bytes {
            return Err(Error::Option(format!(
                "--hash-seed: {}'s column {column:?} holds integer keys, which are not hashed \
                 (it seeds the pre-hash of byte keys: string or binary columns)",
                source.name
            )));
        }
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
    let byte_keys = sources.first().is_some_and(|f| f.bytes);
    Ok(Input {
        source: Source::Pieces(Box::new(ParquetKeys {
            sources,
            groups,
            pieces,
            hash_seed: hash_seed.unwrap_or(0),
        })),
        size: Some(rows),
        unit: Unit::Keys,
        byte_keys,
    })
}

/// What a column of byte keys or not holds, for messages.
fn kind(bytes: bool) -> &'static str {
    match bytes {
        true => "byte keys (strings or binary)",
        false => "integer keys",
    }
}

/// One Parquet file, its footer read.
struct FileSource {
    path: PathBuf,
    name: String,
    column: String,
    metadata: ArrowReaderMetadata,
    /// The column's index among the file's leaf columns.
    leaf: usize,
    /// Whether it holds byte keys (strings or binary), not integers.
    bytes: bool,
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
        let (bytes, physical) = match field.data_type() {
            DataType::UInt64 | DataType::Int64 => (false, PhysicalType::INT64),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
                (true, PhysicalType::BYTE_ARRAY)
            }
            // UUIDs, among others.
            DataType::FixedSizeBinary(_) => (true, PhysicalType::FIXED_LEN_BYTE_ARRAY),
            other => {
                return Err(Error::ColumnType {
                    name,
                    column: column.to_owned(),
                    found: other.to_string(),
                    wanted: "uint64 or int64 keys, or strings or binary values (byte keys)",
                })
            }
        };
        // A top-level field of these types is a leaf of its own name,
        // stored as INT64, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY (what the
        // readers below decode).
        let leaf = metadata
            .parquet_schema()
            .columns()
            .iter()
            .position(|leaf| leaf.path().parts() == [column] && leaf.physical_type() == physical)
            .ok_or_else(|| Error::BadParquet {
                name: name.clone(),
                why: format!("column {column:?} is not a plain {physical} column"),
            })?;
        Ok(FileSource {
            path,
            name,
            column: column.to_owned(),
            metadata,
            leaf,
            bytes,
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
    /// The seed of the byte keys' pre-hash.
    hash_seed: u64,
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
        let null = match source.bytes {
            true => self.read_byte_keys(source, file, piece, keys),
            false => read_integers(source, file, piece, keys),
        }
        .map_err(|e| failed(&e))?;
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

impl ParquetKeys {
    /// The pre-hashes of `piece`'s byte keys into `keys`: the row of the
    /// piece's first null, if it holds one. The values come through
    /// Arrow's reader, as one data buffer and its offsets, which
    /// `prehash_batch_seeded` hashes on the lanes where the kernel has
    /// them; parquet's column reader gives each value a reference-counted
    /// buffer of its own, whose counts took a third of the run.
    fn read_byte_keys(
        &self,
        source: &FileSource,
        file: File,
        piece: &Piece,
        keys: &mut Vec<u64>,
    ) -> Result<Option<usize>, String> {
        let schema = source.metadata.metadata().file_metadata().schema_descr();
        let selection = vec![
            RowSelector::skip(piece.skip),
            RowSelector::select(piece.len),
        ];
        let batches =
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, source.metadata.clone())
                .with_projection(ProjectionMask::leaves(schema, [source.leaf]))
                .with_row_groups(vec![piece.group])
                .with_row_selection(RowSelection::from(selection))
                .with_batch_size(BYTE_BATCH_ROWS)
                .build()
                .map_err(|e| e.to_string())?;
        keys.clear();
        for batch in batches {
            let batch = batch.map_err(|e| e.to_string())?;
            let column = batch.column(0);
            if column.null_count() > 0 {
                let row = (0..column.len()).find(|&i| column.is_null(i));
                return Ok(row.map(|row| keys.len() + row));
            }
            let at = keys.len();
            keys.resize(at + column.len(), 0);
            let out = &mut keys[at..];
            let seed = self.hash_seed;
            let hashed = match column.data_type() {
                DataType::Utf8 => prehash_values(column.as_string::<i32>(), seed, out),
                DataType::LargeUtf8 => prehash_values(column.as_string::<i64>(), seed, out),
                DataType::Binary => prehash_values(column.as_binary::<i32>(), seed, out),
                DataType::LargeBinary => prehash_values(column.as_binary::<i64>(), seed, out),
                DataType::FixedSizeBinary(_) => {
                    // Values of one width, back to back: each hashed alone
                    // (no offsets to hand the lanes), as `prehash_seeded`.
                    let a = column.as_fixed_size_binary();
                    let values = (0..a.len()).map(|i| a.value(i));
                    for (key, value) in out.iter_mut().zip(values) {
                        *key = jumpshard::bytes::prehash_seeded(value, seed);
                    }
                    Ok(())
                }
                other => return Err(format!("the column was read as {other}")),
            };
            hashed.map_err(|e| e.to_string())?;
        }
        Ok(None)
    }
}

/// The pre-hashes with `seed` of a string or binary array's values into
/// `out`: its data buffer and offsets as they are.
fn prehash_values<T: ByteArrayType>(
    array: &GenericByteArray<T>,
    seed: u64,
    out: &mut [u64],
) -> Result<(), jumpshard::Error>
where
    T::Offset: jumpshard::bytes::Offset,
{
    jumpshard::bytes::prehash_batch_seeded(array.values(), array.value_offsets(), seed, out)
}

/// The keys of `piece` of an integer column of `source` (open as `file`)
/// into `keys`: the row of the piece's first null, if it holds one. int64
/// and uint64 columns are both stored as INT64: the decoder writes the
/// bits, into the key buffer itself.
fn read_integers(
    source: &FileSource,
    file: File,
    piece: &Piece,
    keys: &mut Vec<u64>,
) -> Result<Option<usize>, String> {
    let metadata = source.metadata.metadata();
    let group = metadata.row_group(piece.group);
    let pages = SerializedPageReader::new(
        Arc::new(file),
        group.column(source.leaf),
        group.num_rows() as usize,
        None,
    )
    .map_err(|e| e.to_string())?;
    let descr = metadata.file_metadata().schema_descr().column(source.leaf);
    let max_level = descr.max_def_level();
    let mut reader = ColumnReaderImpl::<Int64Type>::new(descr, Box::new(pages));
    if piece.skip > 0 {
        let skipped = reader.skip_records(piece.skip).map_err(|e| e.to_string())?;
        if skipped != piece.skip {
            return Err(format!(
                "row group {} ended after {skipped} rows",
                piece.group
            ));
        }
    }
    let mut values: Vec<i64> = bytemuck::allocation::cast_vec(std::mem::take(keys));
    values.clear();
    let null = LEVELS.with_borrow_mut(|levels| {
        levels.clear();
        let read = reader.read_records(
            piece.len,
            (max_level > 0).then_some(&mut *levels),
            None,
            &mut values,
        );
        match read {
            // Fewer values than rows: some row holds a null.
            Ok((rows, read, _)) if read < rows => Ok(levels.iter().position(|&l| l < max_level)),
            Ok(_) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    });
    *keys = bytemuck::allocation::cast_vec(values);
    null
}

#[cfg(test)]
mod tests;
