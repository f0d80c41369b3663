//! `--key-format parquet --column NAME`: keys from a uint64 or int64
//! column (int64 bits read as uint64) of a Parquet file, or of every
//! `*.parquet` file of a directory in name order, positions running on
//! from file to file.
//!
//! Each row group is cut into pieces of at most [`PIECE_ROWS`] rows that
//! workers read on their own, in parallel, decoding only the key column:
//! memory stays bounded by the pipeline's buffers, whatever the file's
//! size. The footers are read once, up front, which also checks the
//! column's presence and type in every file before any key is read; a
//! null is an error naming its row.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::{Array, Int64Array, UInt64Array};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use parquet::arrow::ProjectionMask;

use crate::input::{Input, KeyPieces, Source, Unit};

/// The most rows read as one piece (8 MiB of keys).
const PIECE_ROWS: u64 = 1 << 20;

/// Rows decoded per batch within a piece.
const BATCH_ROWS: usize = 1 << 16;

pub fn open(path: &Path, column: &str) -> Result<Input, String> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot open {name}: {e}"))?;
    let files = if meta.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read {name}: {e}"))?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("cannot read {name}: {e}"))?;
        files.retain(|f| f.extension().is_some_and(|e| e == "parquet") && f.is_file());
        files.sort();
        if files.is_empty() {
            return Err(format!("{name}: a directory without any .parquet file"));
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut sources = Vec::with_capacity(files.len());
    let mut pieces = Vec::new();
    let mut rows = 0u64;
    for (f, path) in files.into_iter().enumerate() {
        let source = FileSource::open(path, column)?;
        for (group, meta) in source.metadata.metadata().row_groups().iter().enumerate() {
            let group_rows = meta.num_rows() as u64;
            let mut start = 0;
            while start < group_rows {
                let len = PIECE_ROWS.min(group_rows - start);
                pieces.push(Piece {
                    file: f,
                    group,
                    skip: start as usize,
                    len: len as usize,
                    first: rows + start,
                    whole: len == group_rows,
                });
                start += len;
            }
            rows += group_rows;
        }
        sources.push(source);
    }
    Ok(Input {
        source: Source::Pieces(Box::new(ParquetKeys { sources, pieces })),
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
    /// The column's index among the top-level fields.
    mask: ProjectionMask,
    signed: bool,
}

impl FileSource {
    fn open(path: PathBuf, column: &str) -> Result<FileSource, String> {
        let name = path.display().to_string();
        let file = File::open(&path).map_err(|e| format!("cannot open {name}: {e}"))?;
        let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
            .map_err(|e| format!("{name}: not a readable Parquet file: {e}"))?;
        let schema = metadata.schema();
        let Some((index, field)) = schema.column_with_name(column) else {
            let names: Vec<&str> = schema
                .fields()
                .iter()
                .take(20)
                .map(|f| f.name().as_str())
                .collect();
            return Err(format!(
                "{name}: no column {column:?} (its columns: {})",
                names.join(", ")
            ));
        };
        let signed = match field.data_type() {
            DataType::UInt64 => false,
            DataType::Int64 => true,
            other => {
                return Err(format!(
                    "{name}: column {column:?} holds {other}, not uint64 or int64 keys"
                ))
            }
        };
        let mask = ProjectionMask::roots(metadata.parquet_schema(), [index]);
        Ok(FileSource {
            path,
            name,
            column: column.to_owned(),
            metadata,
            mask,
            signed,
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
    /// Whether it is the whole row group.
    whole: bool,
}

struct ParquetKeys {
    sources: Vec<FileSource>,
    pieces: Vec<Piece>,
}

impl KeyPieces for ParquetKeys {
    fn count(&self) -> u64 {
        self.pieces.len() as u64
    }

    fn read(&self, index: u64, keys: &mut Vec<u64>) -> Result<u64, String> {
        let piece = &self.pieces[index as usize];
        let source = &self.sources[piece.file];
        let name = &source.name;
        let failed = |e: &dyn std::fmt::Display| format!("cannot read {name}: {e}");
        let file = File::open(&source.path).map_err(|e| failed(&e))?;
        let mut builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, source.metadata.clone())
                .with_projection(source.mask.clone())
                .with_row_groups(vec![piece.group])
                .with_batch_size(BATCH_ROWS);
        if !piece.whole {
            builder = builder.with_row_selection(RowSelection::from(vec![
                RowSelector::skip(piece.skip),
                RowSelector::select(piece.len),
            ]));
        }
        let reader = builder.build().map_err(|e| failed(&e))?;
        keys.clear();
        for batch in reader {
            let batch = batch.map_err(|e| failed(&e))?;
            let values = batch.column(0);
            if values.null_count() > 0 {
                let row = (0..values.len()).find(|&i| values.is_null(i)).unwrap_or(0);
                return Err(format!(
                    "{name}: column {:?} has a null at key position {}",
                    source.column,
                    piece.first + (keys.len() + row) as u64
                ));
            }
            if source.signed {
                let ints = values
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .ok_or_else(|| failed(&"the int64 column did not decode as int64"))?;
                keys.extend(ints.values().iter().map(|&k| k as u64));
            } else {
                let ints = values
                    .as_any()
                    .downcast_ref::<UInt64Array>()
                    .ok_or_else(|| failed(&"the uint64 column did not decode as uint64"))?;
                keys.extend_from_slice(ints.values());
            }
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
