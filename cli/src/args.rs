//! Argument groups that several commands share, mapped onto the streaming
//! engine's plain option structs, and the helpers that read them: bucket
//! counts and thread counts.

use std::path::PathBuf;

use jumpshard::BucketCount;
use jumpshard_stream::moves::MoveFormat;
use jumpshard_stream::reshard::Workers;
use jumpshard_stream::sequential::DEFAULT_MAX_LINE_BYTES;
use jumpshard_stream::{pipeline, Input, KeyFormat, KeyOptions};

use crate::limits;
use crate::out::clash::InputFiles;

/// How the input's keys are written (`--key-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyFormatArg {
    /// Tell from the input: a directory or a file starting with PAR1 is
    /// Parquet, a .csv file is CSV, binary data is u64le; text is refused
    /// (say decimal, bytes or csv).
    Auto,
    /// 8-byte little-endian unsigned integers, back to back.
    U64le,
    /// One decimal unsigned 64-bit integer per line.
    Decimal,
    /// One key per line, without its `\n` or `\r\n` (a last line without `\n` is whole), hashed as bytes
    /// (XXH3-64 with --hash-seed, 0 by default).
    Bytes,
    /// A column of a CSV file (--column NAME, or INDEX from 0), decimal u64.
    Csv,
    /// A column of a Parquet file or of a directory of them (--column
    /// NAME): uint64 or int64 keys, or strings or binary values hashed as
    /// byte keys (XXH3-64 with --hash-seed).
    #[cfg(feature = "parquet")]
    Parquet,
}

impl KeyFormatArg {
    /// Whether keys of this format may be byte keys, which `--hash-seed`
    /// seeds: byte lines, and a Parquet column, given or told, whose type
    /// says.
    fn may_hash(self) -> bool {
        match self {
            KeyFormatArg::Bytes | KeyFormatArg::Auto => true,
            #[cfg(feature = "parquet")]
            KeyFormatArg::Parquet => true,
            _ => false,
        }
    }
}

impl From<KeyFormatArg> for KeyFormat {
    fn from(format: KeyFormatArg) -> KeyFormat {
        match format {
            KeyFormatArg::Auto => KeyFormat::Auto,
            KeyFormatArg::U64le => KeyFormat::U64le,
            KeyFormatArg::Decimal => KeyFormat::Decimal,
            KeyFormatArg::Bytes => KeyFormat::Bytes,
            KeyFormatArg::Csv => KeyFormat::Csv,
            #[cfg(feature = "parquet")]
            KeyFormatArg::Parquet => KeyFormat::Parquet,
        }
    }
}

/// The input options of the streaming commands.
#[derive(clap::Args)]
pub struct InputArgs {
    /// Input file (or, for Parquet, a directory of them); standard input
    /// when absent or `-`.
    #[arg(conflicts_with = "generate")]
    input: Option<PathBuf>,
    /// How the input's keys are written; `auto` tells Parquet, CSV and
    /// u64le apart and refuses text, whose format it cannot guess.
    #[arg(long, value_enum, default_value_t = KeyFormatArg::Auto)]
    key_format: KeyFormatArg,
    /// Instead of reading input, generate this many SplitMix64 keys.
    #[arg(long, value_name = "COUNT", allow_negative_numbers = true,
          value_parser = limits::any_u64)]
    generate: Option<u64>,
    /// With `--key-format bytes`, the longest line accepted, in bytes (its
    /// `\n` or `\r\n` not counted); with `csv`, the longest record (its
    /// line end counted); 1 to 1073741824; a longer one is an error naming
    /// its line.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true,
          value_parser = limits::line_bytes)]
    max_line_bytes: Option<usize>,
    /// Seed of the generated keys (with --generate) [default: 1786080624].
    #[arg(long, allow_negative_numbers = true, value_parser = limits::any_u64)]
    seed: Option<u64>,
    /// With --key-format csv or parquet: the column holding the keys (a
    /// name from the header; for CSV also a 0-based index).
    #[arg(long, value_name = "NAME|INDEX")]
    column: Option<String>,
    /// With --key-format csv: the input has no header line (--column is
    /// then an index).
    #[arg(long)]
    no_header: bool,
    /// With byte keys (--key-format bytes, or a Parquet string or binary
    /// column): the tenant seed of the XXH3-64 pre-hash (0, the default, is
    /// the unseeded pre-hash). Refused with keys that are not hashed,
    /// whatever its value, 0 included.
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          value_parser = limits::any_u64)]
    hash_seed: Option<u64>,
    /// Keys per chunk instead of the automatic size (for tests, which
    /// need many chunks from small inputs).
    #[arg(long, hide = true, allow_negative_numbers = true, value_parser = limits::chunk_keys)]
    chunk_keys: Option<u32>,
}

impl InputArgs {
    /// The engine's options for this input.
    pub fn options(&self) -> KeyOptions {
        KeyOptions {
            path: self.input.clone(),
            format: self.key_format.into(),
            generate: self.generate,
            seed: self.seed.unwrap_or(KeyOptions::default().seed),
            max_line_bytes: self.max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES),
            column: self.column.clone(),
            header: !self.no_header,
            hash_seed: self.hash_seed,
        }
    }

    /// Opens the input, after refusing a `--seed` without `--generate`, a
    /// `--hash-seed` (any value) with keys of a format never hashed (the
    /// engine refuses it for a Parquet integer column), and a
    /// `--max-line-bytes` that the keys' format (as given) has no use
    /// for: u64le, decimal and Parquet keys have no lines to bound, nor has
    /// `--generate`.
    pub fn open(&self) -> Result<Input, String> {
        // (clap's `requires` lets these through when the other argument is
        // absent, so they are checked here.)
        if self.seed.is_some() && self.generate.is_none() {
            return Err(
                "--seed: only with --generate (it seeds the generated keys; \
                        --hash-seed seeds the pre-hash of byte keys)"
                    .into(),
            );
        }
        // Given, not only non-zero: 0 is a seed asked for too. Auto
        // detection never picks bytes, but may pick Parquet, whose column
        // says; --generate makes u64 keys.
        if self.hash_seed.is_some() && (!self.key_format.may_hash() || self.generate.is_some()) {
            return Err(
                "--hash-seed: only with byte keys, --key-format bytes or a Parquet string or \
                 binary column (it seeds the pre-hash of byte keys; --seed is the seed of \
                 --generate)"
                    .into(),
            );
        }
        if self.max_line_bytes.is_some() {
            let unused = match self.key_format {
                _ if self.generate.is_some() => Some("--generate"),
                KeyFormatArg::U64le => Some("--key-format u64le"),
                KeyFormatArg::Decimal => Some("--key-format decimal"),
                #[cfg(feature = "parquet")]
                KeyFormatArg::Parquet => Some("--key-format parquet"),
                _ => None,
            };
            if let Some(unused) = unused {
                return Err(format!(
                    "--max-line-bytes: only with --key-format bytes or csv (the longest line or \
                     record); {unused} has no lines to bound"
                ));
            }
        }
        if self.reads_stdin() {
            crate::stdin::check_open("the keys")?;
        }
        Ok(self.options().open()?)
    }

    /// `--threads asked` workers with `--chunk-keys`, or the pipeline's
    /// automatic chunk size.
    pub fn workers(&self, asked: usize) -> Workers {
        let threads = threads(asked);
        Workers {
            threads,
            chunk_keys: self
                .chunk_keys
                .map_or_else(|| pipeline::chunk_keys(threads), |n| n as usize),
        }
    }

    /// Whether the keys come from standard input (no file, `-` or a path
    /// to standard input's file, and not generated).
    pub fn reads_stdin(&self) -> bool {
        self.generate.is_none() && self.input.as_deref().is_none_or(crate::stdin::reads_stdin)
    }

    /// The files the input reads, which no output may replace: the key
    /// file (also a file on standard input), or a Parquet dataset
    /// directory and each of its files; none for generated keys.
    pub fn input_files(&self) -> InputFiles {
        let mut files = InputFiles::default();
        if self.generate.is_some() {
            return files;
        }
        match self
            .input
            .as_deref()
            .filter(|p| !crate::node_tables::is_stdin(p))
        {
            Some(path) => match std::fs::metadata(path) {
                Ok(meta) if meta.is_dir() => files.add_dataset(path),
                Ok(meta) => files.add(format!("the input file {}", path.display()), &meta),
                Err(_) => {}
            },
            None => {
                if let Some(meta) = crate::stdin::metadata() {
                    files.add("the input file (on standard input)".into(), &meta);
                }
            }
        }
        files
    }
}

/// How a move list is written (`--output-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MoveFormatArg {
    /// Text: a header, then `id,from,to` per line.
    Csv,
    /// 16-byte little-endian records: u64 id, u32 from, u32 to.
    Binary,
    /// A Parquet file: id, from and to columns (snappy).
    #[cfg(feature = "parquet")]
    Parquet,
}

impl MoveFormatArg {
    /// The formats, by the names of the file extensions that say them.
    pub const OFFERED: &[(&str, MoveFormatArg)] = &[
        ("csv", MoveFormatArg::Csv),
        ("binary", MoveFormatArg::Binary),
        #[cfg(feature = "parquet")]
        ("parquet", MoveFormatArg::Parquet),
    ];

    /// The format as `--output-format` spells it.
    pub fn name(self) -> &'static str {
        match self {
            MoveFormatArg::Csv => "csv",
            MoveFormatArg::Binary => "binary",
            #[cfg(feature = "parquet")]
            MoveFormatArg::Parquet => "parquet",
        }
    }
}

impl From<MoveFormatArg> for MoveFormat {
    fn from(format: MoveFormatArg) -> MoveFormat {
        match format {
            MoveFormatArg::Csv => MoveFormat::Csv,
            MoveFormatArg::Binary => MoveFormat::Binary,
            #[cfg(feature = "parquet")]
            MoveFormatArg::Parquet => MoveFormat::Parquet,
        }
    }
}

/// A bucket count from the command line, or an error naming the option.
pub fn count(option: &str, value: i64) -> Result<BucketCount, String> {
    BucketCount::try_from(value).map_err(|e| format!("{option}: {e}"))
}

/// The number of threads `--threads` asks for, as the pool will run it.
pub fn threads(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match asked {
        0 => cores,
        t => t.min(cores),
    }
}
