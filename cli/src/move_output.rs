//! Where a move list goes: a CSV or binary file written as bytes, or a
//! Parquet file written as columns, through [`Output`]: atomically
//! (complete or not at all) for a file, directly for `-` (standard output),
//! a FIFO or a device. Moves name buckets (`reshard --from/--to`) or nodes (`reshard
//! --nodes/--to-nodes`).
//!
//! - `csv`: a header line (`key,from,to`, `position,from,to`,
//!   `key,from_node,to_node` or `position,from_node,to_node`), then one line
//!   per move ending in `\n`.
//! - `binary`: no header; 16 bytes per move, little-endian: the id as a
//!   u64, then `from` and `to` as u32 (with nodes: their index in the
//!   summary's `nodes` list).
//! - `parquet`: columns `key` or `position` (uint64), then `from` and `to`
//!   (uint32 buckets) or `from_node` and `to_node` (utf8 names); snappy.

use std::path::Path;

use crate::output::{FileId, Output};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MoveFormat {
    /// Text: a header, then `id,from,to` per line.
    Csv,
    /// 16-byte little-endian records: u64 id, u32 from, u32 to.
    Binary,
    /// A Parquet file: id, from and to columns (snappy).
    #[cfg(feature = "parquet")]
    Parquet,
}

impl MoveFormat {
    /// Whether moves are handed over as columns rather than bytes.
    pub fn columnar(self) -> bool {
        match self {
            MoveFormat::Csv | MoveFormat::Binary => false,
            #[cfg(feature = "parquet")]
            MoveFormat::Parquet => true,
        }
    }
}

/// An open move list.
pub enum MoveSink {
    Bytes(Output),
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::parquet_moves::ParquetMoves>),
}

impl MoveSink {
    /// Starts the move list at `path`, which must not be the file `input`;
    /// `names` are the nodes moves refer to by index (None: moves name
    /// buckets).
    pub fn create(
        path: &Path,
        input: Option<FileId>,
        format: MoveFormat,
        by_position: bool,
        names: Option<&[String]>,
    ) -> Result<MoveSink, String> {
        let id = if by_position { "position" } else { "key" };
        match format {
            MoveFormat::Csv | MoveFormat::Binary => {
                let mut file = Output::create(path, input)?;
                if format == MoveFormat::Csv {
                    let header = match names {
                        Some(_) => format!("{id},from_node,to_node\n"),
                        None => format!("{id},from,to\n"),
                    };
                    file.write_all(header.as_bytes())?;
                }
                Ok(MoveSink::Bytes(file))
            }
            #[cfg(feature = "parquet")]
            MoveFormat::Parquet => Ok(MoveSink::Parquet(Box::new(
                crate::parquet_moves::ParquetMoves::create(
                    Output::create(path, input)?,
                    path,
                    id,
                    names,
                )?,
            ))),
        }
    }

    /// Appends encoded records (`csv`, `binary`).
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            MoveSink::Bytes(file) => file.write_all(bytes),
            #[cfg(feature = "parquet")]
            MoveSink::Parquet(_) => unreachable!("a columnar format takes columns"),
        }
    }

    /// Appends moves as columns (`parquet`).
    pub fn write_columns(&mut self, ids: &[u64], from: &[u32], to: &[u32]) -> Result<(), String> {
        match self {
            #[cfg(feature = "parquet")]
            MoveSink::Parquet(p) => p.write(ids, from, to),
            _ => {
                let _ = (ids, from, to);
                unreachable!("a byte format takes bytes")
            }
        }
    }

    /// Whether the moves go to standard output (so a summary goes to
    /// standard error).
    pub fn is_stdout(&self) -> bool {
        match self {
            MoveSink::Bytes(out) => out.is_stdout(),
            #[cfg(feature = "parquet")]
            MoveSink::Parquet(p) => p.is_stdout(),
        }
    }

    /// Completes the output (a file is renamed into place).
    pub fn commit(self) -> Result<(), String> {
        match self {
            MoveSink::Bytes(file) => file.commit(),
            #[cfg(feature = "parquet")]
            MoveSink::Parquet(p) => p.commit(),
        }
    }
}

/// Appends one move between nodes in a byte format: CSV with the nodes'
/// names, or binary with their indices.
pub fn encode_nodes(
    buf: &mut Vec<u8>,
    format: MoveFormat,
    id: u64,
    from: (u32, &str),
    to: (u32, &str),
) {
    match format {
        MoveFormat::Binary => {
            buf.extend_from_slice(&id.to_le_bytes());
            buf.extend_from_slice(&from.0.to_le_bytes());
            buf.extend_from_slice(&to.0.to_le_bytes());
        }
        MoveFormat::Csv => {
            let mut itoa = itoa::Buffer::new();
            buf.extend_from_slice(itoa.format(id).as_bytes());
            buf.push(b',');
            buf.extend_from_slice(from.1.as_bytes());
            buf.push(b',');
            buf.extend_from_slice(to.1.as_bytes());
            buf.push(b'\n');
        }
        #[cfg(feature = "parquet")]
        MoveFormat::Parquet => unreachable!("Parquet moves are written as columns"),
    }
}
