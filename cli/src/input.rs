//! Where keys come from, as chunks: a file or standard input in one of
//! three formats, or generated keys.
//!
//! A regular `u64le` file and generated keys are [`Source::Positional`]:
//! any chunk can be produced on its own, so every worker reads its own
//! chunks with positioned reads. Other inputs are [`Source::Sequential`]:
//! read front to back, one chunk at a time.
//!
//! - `u64le`: 8-byte little-endian keys back to back; the size must be a
//!   multiple of 8.
//! - `decimal`: one decimal u64 per line (digits only; a line longer than
//!   4096 bytes is refused without being read whole).
//! - `bytes`: each line is one byte-string key, pre-hashed with XXH3-64
//!   (`jumpshard::bytes::prehash`); a line longer than `--max-line-bytes`
//!   (1 MiB by default) is refused without being read whole.
//!
//! A line is what lies between two `\n`, without the `\n` and without one
//! `\r` before it (so `\r\n` files read as `\n` files); a last line without
//! `\n` counts. Keys are numbered from 0 in input order (their position);
//! lines are numbered from 1 in error messages.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jumpshard::verify::SplitMix64;

pub use crate::sequential::Sequential;

/// How keys are written in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyFormat {
    /// 8-byte little-endian unsigned integers, back to back.
    U64le,
    /// One decimal unsigned 64-bit integer per line.
    Decimal,
    /// One key per line, without its `\n` or `\r\n`, hashed as bytes
    /// (XXH3-64 with --hash-seed, 0 by default).
    Bytes,
    /// A column of a CSV file (--column NAME, or INDEX from 0), decimal u64.
    Csv,
    /// A uint64 or int64 column of a Parquet file or of a directory of them
    /// (--column NAME).
    #[cfg(feature = "parquet")]
    Parquet,
}

/// The input options shared by the streaming commands.
#[derive(clap::Args)]
pub struct InputArgs {
    /// Input file; standard input when absent or `-`.
    #[arg(conflicts_with = "generate")]
    input: Option<PathBuf>,
    /// How the input's keys are written.
    #[arg(long, value_enum, default_value_t = KeyFormat::U64le)]
    pub key_format: KeyFormat,
    /// Instead of reading input, generate this many SplitMix64 keys.
    #[arg(long, value_name = "COUNT")]
    pub(crate) generate: Option<u64>,
    /// With `--key-format bytes`, the longest line accepted, in bytes (its
    /// `\n` or `\r\n` not counted); a longer line is an error naming it.
    #[arg(long, value_name = "BYTES", default_value_t = crate::sequential::DEFAULT_MAX_LINE_BYTES)]
    pub max_line_bytes: usize,
    /// Seed of the generated keys.
    #[arg(long, default_value_t = 0x6A75_6D70, requires = "generate")]
    seed: u64,
    /// With --key-format csv or parquet: the column holding the keys (a
    /// name from the header; for CSV also a 0-based index).
    #[arg(long, value_name = "NAME|INDEX")]
    pub column: Option<String>,
    /// With --key-format csv: the input has no header line (--column is
    /// then an index).
    #[arg(long)]
    pub no_header: bool,
    /// With --key-format bytes: the tenant seed of the XXH3-64 pre-hash
    /// (0, the default, is the unseeded pre-hash).
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub hash_seed: u64,
    /// Keys per chunk instead of the automatic size (for tests, which
    /// need many chunks from small inputs).
    #[arg(long, hide = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_keys: Option<u32>,
}

impl InputArgs {
    /// Keys per chunk for `workers` workers: `--chunk-keys`, or the
    /// pipeline's automatic size.
    pub fn chunk_keys(&self, workers: usize) -> usize {
        self.chunk_keys
            .map_or_else(|| crate::pipeline::chunk_keys(workers), |n| n as usize)
    }
}

/// What the progress bar counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Keys,
    Bytes,
}

/// A source of known length whose parts can be read in any order, from
/// several threads at once.
pub trait KeysAt: Send + Sync {
    /// The number of keys.
    fn key_count(&self) -> u64;
    /// Replaces `keys` with the `count` keys from position `first` on.
    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), String>;
}

/// A source read in order, one chunk at a time, by one thread at a time.
pub trait OrderedKeys: Send {
    /// The position of the next key.
    fn position(&self) -> u64;
    /// Replaces `keys` with up to `max` next keys (none at the end);
    /// returns the progress made, in the input's unit.
    fn next_keys(&mut self, max: usize, keys: &mut Vec<u64>) -> Result<u64, String>;
}

/// A source of known pieces (of known positions) that can be read in any
/// order, from several threads at once.
pub trait KeyPieces: Send + Sync {
    /// The number of pieces.
    fn count(&self) -> u64;
    /// Replaces `keys` with piece `index`'s keys; returns the position of
    /// its first key.
    fn read(&self, index: u64, keys: &mut Vec<u64>) -> Result<u64, String>;
}

/// Where an input's keys come from.
pub enum Source {
    Sequential(Box<Sequential>),
    Positional(Box<dyn KeysAt>),
    Ordered(Box<dyn OrderedKeys>),
    Pieces(Box<dyn KeyPieces>),
}

/// An opened input.
pub struct Input {
    pub source: Source,
    /// Its size in `unit`s, when known in advance.
    pub size: Option<u64>,
    pub unit: Unit,
    /// Whether keys are byte strings (so the move list names positions).
    pub byte_keys: bool,
}

impl InputArgs {
    /// The identity of the input file (a named file, or a file on standard
    /// input), which no output may replace; `None` for generated keys.
    pub fn file_id(&self) -> Option<crate::output::FileId> {
        if self.generate.is_some() {
            return None;
        }
        let meta = match self.input.as_deref() {
            Some(path) if path.as_os_str() != "-" => std::fs::metadata(path).ok()?,
            _ => stdin_metadata()?,
        };
        crate::output::FileId::of(&meta)
    }

    /// Opens the input, checking what can be checked before reading.
    pub fn open(&self) -> Result<Input, String> {
        if let Some(input) = crate::key_columns::open(self, self.input.as_deref())? {
            return Ok(input);
        }
        if let Some(count) = self.generate {
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
        let (file, name, size) = match self.input.as_deref() {
            Some(path) if path.as_os_str() != "-" => {
                let name = path.display().to_string();
                let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
                let meta = file
                    .metadata()
                    .map_err(|e| format!("cannot read {name}: {e}"))?;
                if meta.is_dir() {
                    return Err(format!("cannot read {name}: it is a directory"));
                }
                let size = meta.is_file().then_some(meta.len());
                (Some(file), name, size)
            }
            _ => (None, "standard input".into(), None),
        };
        if let (Some(len), KeyFormat::U64le) = (size, self.key_format) {
            if len % 8 != 0 {
                return Err(not_whole_keys(&name, len));
            }
            if let Some(file) = positional(file.as_ref(), &name, len) {
                return Ok(Input {
                    source: Source::Positional(file),
                    size: Some(len / 8),
                    unit: Unit::Keys,
                    byte_keys: false,
                });
            }
        }
        let source: Box<dyn Read + Send> = match file {
            Some(file) => Box::new(file),
            None => Box::new(io::stdin()),
        };
        let unit = match self.key_format {
            KeyFormat::U64le => Unit::Keys,
            _ => Unit::Bytes,
        };
        let reader = Sequential::new(source, name, self.key_format)
            .with_max_line_bytes(self.max_line_bytes)
            .with_hash_seed(self.hash_seed);
        Ok(Input {
            source: Source::Sequential(Box::new(reader)),
            size: size.map(|s| if unit == Unit::Keys { s / 8 } else { s }),
            unit,
            byte_keys: self.key_format == KeyFormat::Bytes,
        })
    }
}

/// What standard input is (`< keys.u64` makes it a file).
fn stdin_metadata() -> Option<std::fs::Metadata> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        File::from(fd).metadata().ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

pub(crate) fn not_whole_keys(name: &str, len: u64) -> String {
    format!(
        "{name}: size {len} bytes is not a multiple of 8, so it is not a u64le key file \
         ({} whole keys and {} bytes left over)",
        len / 8,
        len % 8
    )
}

/// The regular `u64le` file at `path`, for positioned reads.
pub fn u64le_file(path: &Path) -> Result<Box<dyn KeysAt>, String> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{name} is not a regular file"));
    }
    if meta.len() % 8 != 0 {
        return Err(not_whole_keys(&name, meta.len()));
    }
    positional(Some(&file), &name, meta.len())
        .ok_or_else(|| format!("cannot read {name} with positioned reads"))
}

/// Keys already in memory.
pub struct InMemory(pub Arc<[u64]>);

impl KeysAt for InMemory {
    fn key_count(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), String> {
        let first = first as usize;
        keys.clear();
        keys.extend_from_slice(&self.0[first..first + count]);
        Ok(())
    }
}

/// A regular `u64le` file of `len` bytes, read with positioned reads (on
/// Unix; elsewhere, front to back).
fn positional(file: Option<&File>, name: &str, len: u64) -> Option<Box<dyn KeysAt>> {
    #[cfg(unix)]
    {
        let file = file?.try_clone().ok()?;
        Some(Box::new(U64LeAt {
            file,
            name: name.to_owned(),
            keys: len / 8,
        }))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, name, len);
        None
    }
}

#[cfg(unix)]
struct U64LeAt {
    file: File,
    name: String,
    keys: u64,
}

#[cfg(unix)]
impl KeysAt for U64LeAt {
    fn key_count(&self) -> u64 {
        self.keys
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), String> {
        use std::os::unix::fs::FileExt;

        // A recycled chunk is already full length: no zeroing but the first.
        keys.resize(count, 0);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(keys.as_mut_slice());
        // `read_exact_at` retries interrupted reads; it fails at an early
        // end, which only a file shrinking under us can cause.
        self.file
            .read_exact_at(buf, first * 8)
            .map_err(|e| match e.kind() {
                io::ErrorKind::UnexpectedEof => {
                    format!(
                        "cannot read {}: it became shorter while being read",
                        self.name
                    )
                }
                _ => format!("cannot read {}: {e}", self.name),
            })?;
        for key in keys.iter_mut() {
            *key = u64::from_le(*key);
        }
        Ok(())
    }
}

/// `count` SplitMix64 keys from `seed`; a chunk starts its own stream
/// where the whole stream would be.
struct Generated {
    seed: u64,
    count: u64,
}

impl KeysAt for Generated {
    fn key_count(&self) -> u64 {
        self.count
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), String> {
        let mut rng = SplitMix64::new(self.seed);
        rng.skip(first);
        keys.clear();
        keys.extend((0..count).map(|_| rng.next_u64()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_file_that_shrinks_while_read_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.bin");
        let keys: Vec<u8> = (0u64..100).flat_map(u64::to_le_bytes).collect();
        std::fs::write(&path, &keys).unwrap();
        let file = File::open(&path).unwrap();
        let source = positional(Some(&file), "keys.bin", 8 * 100).unwrap();
        let mut read = Vec::new();
        source.read_at(90, 10, &mut read).unwrap();
        assert_eq!(read, (90..100).collect::<Vec<u64>>());
        std::fs::write(&path, &keys[..8 * 95]).unwrap();
        let err = source.read_at(90, 10, &mut read).unwrap_err();
        assert!(err.contains("keys.bin") && err.contains("shorter"), "{err}");
    }

    #[test]
    fn generated_chunks_continue_one_stream() {
        let whole = SplitMix64::new(3).keys(50);
        let source = Generated { seed: 3, count: 50 };
        let mut part = Vec::new();
        source.read_at(17, 33, &mut part).unwrap();
        assert_eq!(part, whole[17..]);
    }
}
