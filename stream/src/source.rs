//! Where keys come from, as the pipeline reads them: the four shapes of
//! source, and an opened input.
//!
//! A regular `u64le` file and generated keys are [`Source::Positional`]:
//! any chunk can be produced on its own, so every worker reads its own
//! chunks with positioned reads. Text and pipes are [`Source::Sequential`]:
//! read front to back in blocks that workers decode on their own. CSV is
//! [`Source::Ordered`]: decoded in order, one chunk at a time. Parquet is
//! [`Source::Pieces`]: row-group pieces of known positions, read in any
//! order.

use crate::error::Error;
use crate::sequential::Sequential;

/// What the progress of an input counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Keys.
    Keys,
    /// Bytes of the input (text, whose keys are not known in advance).
    Bytes,
}

/// A source of known length whose parts can be read in any order, from
/// several threads at once.
pub trait KeysAt: Send + Sync {
    /// The number of keys.
    fn key_count(&self) -> u64;
    /// Replaces `keys` with the `count` keys from position `first` on.
    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), Error>;
}

/// A source read in order, one chunk at a time, by one thread at a time.
pub trait OrderedKeys: Send {
    /// The position of the next key.
    fn position(&self) -> u64;
    /// Replaces `keys` with up to `max` next keys (none at the end);
    /// returns the progress made, in the input's unit.
    fn next_keys(&mut self, max: usize, keys: &mut Vec<u64>) -> Result<u64, Error>;
}

/// A source of known pieces (of known positions) that can be read in any
/// order, from several threads at once.
pub trait KeyPieces: Send + Sync {
    /// The number of pieces.
    fn count(&self) -> u64;
    /// Replaces `keys` with piece `index`'s keys; returns the position of
    /// its first key.
    fn read(&self, index: u64, keys: &mut Vec<u64>) -> Result<u64, Error>;
}

/// Where an input's keys come from.
pub enum Source {
    /// Read front to back in blocks, decoded by the workers.
    Sequential(Box<Sequential>),
    /// Read anywhere, in parallel.
    Positional(Box<dyn KeysAt>),
    /// Decoded in order, one chunk at a time.
    Ordered(Box<dyn OrderedKeys>),
    /// Pieces read in any order.
    Pieces(Box<dyn KeyPieces>),
}

/// An opened input.
pub struct Input {
    /// Its keys.
    pub source: Source,
    /// Its size in `unit`s, when known in advance.
    pub size: Option<u64>,
    /// What its progress counts.
    pub unit: Unit,
    /// Whether keys are byte strings (so a move list names positions).
    pub byte_keys: bool,
}
