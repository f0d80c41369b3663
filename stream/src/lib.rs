//! jumpshard's streaming engine: key sources, format detection, the
//! ordered pipeline and move-list writers, for inputs far larger than
//! memory.
//!
//! An input is described by [`KeyOptions`] and opened into an [`Input`],
//! whose [`Source`] the [`pipeline`] reads in chunks on every core,
//! handing each chunk's result to a writer in input order. [`reshard`]
//! runs a resize or a change of node table over a source that way, writing
//! the moves with a [`moves::MoveWriter`]. Errors are [`Error`]s, whose
//! messages name the file, line and column.
//!
//! ```
//! use jumpshard::{BucketCount, Resize};
//! use jumpshard_stream::{reshard, KeyOptions, NoProgress};
//!
//! let input = KeyOptions { generate: Some(10_000), ..KeyOptions::default() }.open()?;
//! let resize = Resize::new(BucketCount::new(10)?, BucketCount::new(11)?)?;
//! let (keys, moved) = reshard::resize::<Vec<u8>>(
//!     resize,
//!     input.source,
//!     reshard::Workers::new(2),
//!     &NoProgress,
//!     None,
//! )?;
//! assert_eq!(keys, 10_000);
//! assert!(moved.total() > 0 && moved.total() < 2_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod csv_column;
mod csv_records;
mod dataset;
mod decimal;
mod detect;
mod error;
mod error_message;
mod format;
mod generated;
pub mod moves;
mod newlines;
pub mod not_keys;
mod open;
#[cfg(feature = "parquet")]
mod parquet_column;
pub mod pipeline;
mod progress;
pub mod reshard;
pub mod sequential;
mod source;
mod u64le;
mod weighted;
mod weighted_key;
#[cfg(feature = "parquet")]
mod weighted_parquet;

pub use dataset::{dataset_directories, dataset_files};
pub use decimal::{parse_decimal, BadDecimal};
pub use detect::{detect, looks_like_text, PARQUET_MAGIC, SNIFF_BYTES};
pub use error::Error;
pub use format::KeyFormat;
pub use open::KeyOptions;
pub use progress::{NoProgress, Progress};
pub use source::{Input, KeyPieces, KeysAt, OrderedKeys, Source, Unit};
pub use u64le::{u64le_file, InMemory};
pub use weighted::{read_csv, read_weighted, Place, WeightColumns, WeightedKey};
