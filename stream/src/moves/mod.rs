//! Move lists: the keys that move, and where, written as they stream by.
//! Moves name buckets (a resize) or nodes (a change of node table).
//!
//! - `csv`: a header line (`key,from,to`, `position,from,to`,
//!   `key,from_node,to_node` or `position,from_node,to_node`), then one line
//!   per move ending in `\n`.
//! - `binary`: no header; 16 bytes per move, little-endian: the id as a
//!   u64, then `from` and `to` as u32 (with nodes: their index in the
//!   list of node names).
//! - `parquet`: columns `key` or `position` (uint64), then `from` and `to`
//!   (uint32 buckets) or `from_node` and `to_node` (utf8 names); snappy.
//!
//! A [`MoveWriter`] writes into any [`Write`]: the front end decides where
//! the bytes go (an atomic file, standard output) and completes it once
//! [`MoveWriter::finish`] hands it back.

mod encode;
#[cfg(feature = "parquet")]
mod parquet;

use std::io::Write;

pub use encode::{encode_buckets, encode_nodes};

use crate::error::Error;

/// How a move list is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveFormat {
    /// Text: a header, then `id,from,to` per line.
    Csv,
    /// 16-byte little-endian records: u64 id, u32 from, u32 to.
    Binary,
    /// A Parquet file: id, from and to columns (snappy; needs the
    /// `parquet` feature).
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

/// What identifies a moving key in the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveId {
    /// The key itself (column `key`).
    Key,
    /// Its 0-based position in the input (column `position`); always so
    /// for byte keys, whose 64-bit pre-hash means nothing to the user.
    Position,
}

impl MoveId {
    /// The id of the moving key at `position` of a chunk whose first key,
    /// `keys[0]`, is at `first`.
    pub fn of(self, position: u64, first: u64, keys: &[u64]) -> u64 {
        match self {
            MoveId::Position => position,
            MoveId::Key => keys[(position - first) as usize],
        }
    }

    /// The id column's name.
    pub fn column(self) -> &'static str {
        match self {
            MoveId::Key => "key",
            MoveId::Position => "position",
        }
    }
}

/// A move list being written into `W`.
///
/// ```
/// use jumpshard_stream::moves::{encode_buckets, MoveFormat, MoveId, MoveWriter};
///
/// let mut list = MoveWriter::new(Vec::new(), "moves", MoveFormat::Csv, MoveId::Key, None)?;
/// let mut record = Vec::new();
/// encode_buckets(&mut record, MoveFormat::Csv, 42, 3, 11);
/// list.write_bytes(&record)?;
/// assert_eq!(list.finish()?, b"key,from,to\n42,3,11\n");
/// # Ok::<(), jumpshard_stream::Error>(())
/// ```
pub struct MoveWriter<W: Write + Send> {
    format: MoveFormat,
    id: MoveId,
    sink: Sink<W>,
    name: String,
}

enum Sink<W: Write + Send> {
    Bytes(W),
    #[cfg(feature = "parquet")]
    Parquet(Box<parquet::ParquetMoves<W>>),
}

impl<W: Write + Send> MoveWriter<W> {
    /// Starts a move list in `format` on `out`, named `name` in messages;
    /// `nodes` are the names moves refer to by index (`None`: moves name
    /// buckets).
    pub fn new(
        mut out: W,
        name: impl Into<String>,
        format: MoveFormat,
        id: MoveId,
        nodes: Option<&[String]>,
    ) -> Result<MoveWriter<W>, Error> {
        let name = name.into();
        let sink = match format {
            MoveFormat::Csv | MoveFormat::Binary => {
                if format == MoveFormat::Csv {
                    let id = id.column();
                    let header = match nodes {
                        Some(_) => format!("{id},from_node,to_node\n"),
                        None => format!("{id},from,to\n"),
                    };
                    out.write_all(header.as_bytes())
                        .map_err(|source| Error::Write {
                            name: name.clone(),
                            source,
                        })?;
                }
                Sink::Bytes(out)
            }
            #[cfg(feature = "parquet")]
            MoveFormat::Parquet => Sink::Parquet(Box::new(parquet::ParquetMoves::create(
                out,
                &name,
                id.column(),
                nodes,
            )?)),
        };
        Ok(MoveWriter {
            format,
            id,
            sink,
            name,
        })
    }

    /// The list's format.
    pub fn format(&self) -> MoveFormat {
        self.format
    }

    /// What identifies a moving key.
    pub fn id(&self) -> MoveId {
        self.id
    }

    /// Appends records encoded by [`encode_buckets`] or [`encode_nodes`]
    /// (`csv`, `binary`).
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        match &mut self.sink {
            Sink::Bytes(out) => out.write_all(bytes).map_err(|source| Error::Write {
                name: self.name.clone(),
                source,
            }),
            #[cfg(feature = "parquet")]
            Sink::Parquet(_) => unreachable!("a columnar format takes columns"),
        }
    }

    /// Appends moves as columns (`parquet`): ids, and `from`/`to` as
    /// buckets or node indices.
    pub fn write_columns(&mut self, ids: &[u64], from: &[u32], to: &[u32]) -> Result<(), Error> {
        match &mut self.sink {
            #[cfg(feature = "parquet")]
            Sink::Parquet(p) => p.write(ids, from, to),
            Sink::Bytes(_) => {
                let _ = (ids, from, to);
                unreachable!("a byte format takes bytes")
            }
        }
    }

    /// Where the list goes.
    pub fn get_ref(&self) -> &W {
        match &self.sink {
            Sink::Bytes(out) => out,
            #[cfg(feature = "parquet")]
            Sink::Parquet(p) => p.get_ref(),
        }
    }

    /// Ends the list (a Parquet file gets its footer) and hands back the
    /// output, for the caller to complete.
    pub fn finish(self) -> Result<W, Error> {
        match self.sink {
            Sink::Bytes(out) => Ok(out),
            #[cfg(feature = "parquet")]
            Sink::Parquet(p) => p.finish(),
        }
    }
}
