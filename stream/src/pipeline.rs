//! The streaming engine of `reshard` and `assign`: worker threads each take
//! the next chunk of the input, read it and compute it, and the calling
//! thread writes the results in input order. One worker is the calling
//! thread itself, taking turns at reading, computing and writing.
//!
//! Each worker reads its own chunks: a positional source (a regular `u64le`
//! file, generated keys) is read with positioned reads in parallel, so no
//! single reader thread caps the rate and no core waits for a hand-over. A
//! sequential source (a pipe, a text format) is read by one worker at a
//! time, in order, in blocks of about 8 bytes per chunk key, which each
//! worker then decodes on its own (`crate::sequential`).
//!
//! ```
//! use std::sync::Arc;
//! use jumpshard_stream::{pipeline, InMemory, NoProgress, Source};
//!
//! let source = Source::Positional(Box::new(InMemory(Arc::from(vec![1, 2, 3, 4, 5]))));
//! let mut sums = Vec::new();
//! let keys = pipeline::run(
//!     source,
//!     2,
//!     2,
//!     &NoProgress,
//!     |chunk, sum: &mut u64| *sum = chunk.keys.iter().sum(),
//!     |_, sum| {
//!         sums.push(*sum);
//!         Ok::<(), jumpshard_stream::Error>(())
//!     },
//! )?;
//! assert_eq!((keys, sums), (5, vec![3, 7, 5]));
//! # Ok::<(), jumpshard_stream::Error>(())
//! ```
//!
//! Memory is bounded by a fixed set of buffers, `SPARE` (2) more than there
//! are workers: a worker needs a free one to take a chunk, and the writer
//! frees it once the chunk is written. The buffers are reused, so a long
//! stream allocates only at its start.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Mutex, PoisonError};
use std::thread;

use crate::error::Error;
use crate::progress::Progress;
use crate::sequential::{decode, Block, Sequential, SequentialFormat};
use crate::source::{KeyPieces, KeysAt, OrderedKeys, Source};

/// Buffers beyond one per worker: chunks done and waiting to be written
/// while every worker computes the next.
const SPARE: usize = 2;

/// Keys in flight across all buffers when the chunk size is automatic.
const KEYS_IN_FLIGHT: usize = 1 << 23;

/// The automatic chunk size: 256 Ki keys (2 MiB, at home in a core's
/// caches between its read and its computation), smaller with so many
/// workers that the buffers would exceed `KEYS_IN_FLIGHT` (2^23 keys).
pub fn chunk_keys(workers: usize) -> usize {
    (KEYS_IN_FLIGHT / (workers + SPARE)).clamp(1 << 12, 1 << 18)
}

/// Consecutive keys of the input.
pub struct Chunk {
    /// The position of the first key in the input.
    pub first: u64,
    /// The keys.
    pub keys: Vec<u64>,
}

/// Streams `source` in chunks of `chunk_keys` keys through `compute` (on
/// `workers` threads, in any order) and `write` (on this thread, in input
/// order), reporting the input read to `progress`. Returns the number of
/// keys, or the first error in input order; a failed `write` stops the
/// stream. With one worker, all of it runs on this thread; with more, a
/// thread that cannot be started is an error before any key is written.
pub fn run<R: Default + Send, E: From<Error> + Send>(
    source: Source,
    chunk_keys: usize,
    workers: usize,
    progress: &dyn Progress,
    compute: impl Fn(&Chunk, &mut R) + Sync,
    mut write: impl FnMut(&Chunk, &R) -> Result<(), E>,
) -> Result<u64, E> {
    let claims = Claims::new(source, chunk_keys, progress);
    if workers <= 1 {
        return on_this_thread(&claims, compute, write);
    }
    let (free, free_rx) = channel::<(Vec<u64>, R)>();
    for _ in 0..workers + SPARE {
        free.send(Default::default())
            .expect("the receiver is alive");
    }
    let free_rx = Mutex::new(free_rx);
    let (done, done_rx) = channel::<(u64, Result<(Chunk, R), Error>)>();
    thread::scope(|s| {
        for _ in 0..workers {
            let done = done.clone();
            let (claims, free_rx, compute) = (&claims, &free_rx, &compute);
            let started = thread::Builder::new().spawn_scoped(s, move || {
                let mut block = Block::default();
                loop {
                    let buffers = free_rx
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .recv();
                    // No buffer: the writer has stopped.
                    let Ok((keys, mut result)) = buffers else {
                        return;
                    };
                    let Some((index, chunk)) = claims.next(keys, &mut block) else {
                        return;
                    };
                    let chunk = chunk.map(|chunk| {
                        compute(&chunk, &mut result);
                        (chunk, result)
                    });
                    // A failed send means the writer has stopped: stop too.
                    if done.send((index, chunk)).is_err() {
                        return;
                    }
                }
            });
            if let Err(source) = started {
                // The workers already started find the claims stopped and
                // end; nothing has been written.
                claims.stop();
                return Err(Error::Spawn { source }.into());
            }
        }
        drop(done);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        let mut keys = 0;
        let mut outcome = Ok(());
        'receive: for (index, chunk) in &done_rx {
            waiting.insert(index, chunk);
            while let Some(chunk) = waiting.remove(&next) {
                let written = chunk.map_err(E::from).and_then(|(chunk, result)| {
                    write(&chunk, &result)?;
                    keys += chunk.keys.len() as u64;
                    // The workers may all be done; then nobody needs these.
                    let _ = free.send((chunk.keys, result));
                    Ok(())
                });
                if let Err(e) = written {
                    outcome = Err(e);
                    break 'receive;
                }
                next += 1;
            }
        }
        // Wake every worker, whether it waits for a buffer or computes a
        // chunk nobody will write, so that the scope can end.
        claims.stop();
        drop(free);
        drop(done_rx);
        if outcome.is_ok() && !waiting.is_empty() {
            outcome = Err(Error::WorkerStopped.into());
        }
        outcome.map(|()| keys)
    })
}

/// [`run`] with one worker: each chunk read, computed and written in turn
/// on the calling thread, so that `--threads 1` starts no thread at all
/// (where none can be started, under a limit on processes or memory, it
/// still runs).
fn on_this_thread<R: Default, E: From<Error>>(
    claims: &Claims<'_>,
    compute: impl Fn(&Chunk, &mut R),
    mut write: impl FnMut(&Chunk, &R) -> Result<(), E>,
) -> Result<u64, E> {
    let (mut keys, mut result, mut block) = (Vec::new(), R::default(), Block::default());
    let mut count = 0;
    while let Some((_, chunk)) = claims.next(std::mem::take(&mut keys), &mut block) {
        let chunk = chunk?;
        compute(&chunk, &mut result);
        write(&chunk, &result)?;
        count += chunk.keys.len() as u64;
        keys = chunk.keys;
    }
    Ok(count)
}

/// Hands out the input's chunks, numbered from 0 in input order.
struct Claims<'a> {
    chunk_keys: usize,
    progress: &'a dyn Progress,
    stopped: AtomicBool,
    from: Origin,
}

enum Origin {
    Sequential {
        state: Mutex<InOrder>,
        format: SequentialFormat,
        hash_seed: u64,
        name: String,
    },
    /// Keys decoded in order under the lock (CSV).
    Ordered {
        state: Mutex<(Box<dyn OrderedKeys>, u64, bool)>,
    },
    /// Pieces read independently (Parquet row groups).
    Pieces {
        pieces: Box<dyn KeyPieces>,
        next: AtomicU64,
    },
    Positional {
        keys: Box<dyn KeysAt>,
        next: AtomicU64,
    },
}

struct InOrder {
    reader: Box<Sequential>,
    next: u64,
    /// At the end, or after an error: never read again.
    ended: bool,
}

impl<'a> Claims<'a> {
    fn new(source: Source, chunk_keys: usize, progress: &'a dyn Progress) -> Claims<'a> {
        let from = match source {
            Source::Ordered(keys) => Origin::Ordered {
                state: Mutex::new((keys, 0, false)),
            },
            Source::Pieces(pieces) => Origin::Pieces {
                pieces,
                next: AtomicU64::new(0),
            },
            Source::Sequential(reader) => Origin::Sequential {
                format: reader.format(),
                hash_seed: reader.hash_seed(),
                name: reader.name().to_owned(),
                state: Mutex::new(InOrder {
                    reader,
                    next: 0,
                    ended: false,
                }),
            },
            Source::Positional(keys) => Origin::Positional {
                keys,
                next: AtomicU64::new(0),
            },
        };
        Claims {
            chunk_keys: chunk_keys.max(1),
            progress,
            stopped: AtomicBool::new(false),
            from,
        }
    }

    /// The next chunk and its number, read into `keys` (through `block`
    /// for a sequential source); `None` at the end or once stopped.
    fn next(&self, mut keys: Vec<u64>, block: &mut Block) -> Option<(u64, Result<Chunk, Error>)> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        match &self.from {
            Origin::Ordered { state } => {
                let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                let (reader, next, ended) = &mut *state;
                if *ended {
                    return None;
                }
                let first = reader.position();
                match reader.next_keys(self.chunk_keys, &mut keys) {
                    Ok(_) if keys.is_empty() => {
                        *ended = true;
                        None
                    }
                    Ok(units) => {
                        self.progress.advance(units);
                        *next += 1;
                        Some((*next - 1, Ok(Chunk { first, keys })))
                    }
                    Err(e) => {
                        *ended = true;
                        self.stop();
                        Some((*next, Err(e)))
                    }
                }
            }
            Origin::Pieces { pieces, next } => {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= pieces.count() {
                    return None;
                }
                match pieces.read(index, &mut keys) {
                    Ok(first) => {
                        self.progress.advance(keys.len() as u64);
                        Some((index, Ok(Chunk { first, keys })))
                    }
                    Err(e) => {
                        self.stop();
                        Some((index, Err(e)))
                    }
                }
            }
            Origin::Sequential {
                state,
                format,
                hash_seed,
                name,
            } => {
                let index = {
                    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    if state.ended {
                        return None;
                    }
                    let index = state.next;
                    // About 8 bytes per key: exact for `u64le`, and a block
                    // of text lines stays near a chunk's size in bytes.
                    let max = self.chunk_keys.saturating_mul(8);
                    match state.reader.next_block(block, max) {
                        Ok((_, 0)) => {
                            state.ended = true;
                            return None;
                        }
                        Ok((units, _)) => {
                            state.next += 1;
                            self.progress.advance(units);
                            index
                        }
                        Err(e) => {
                            state.ended = true;
                            self.stop();
                            return Some((index, Err(e)));
                        }
                    }
                };
                // Decoding (parsing, hashing) runs outside the lock.
                match decode(*format, *hash_seed, name, block, &mut keys) {
                    Ok(()) => Some((
                        index,
                        Ok(Chunk {
                            first: block.first,
                            keys,
                        }),
                    )),
                    Err(e) => {
                        // Later chunks would not be written: read no more.
                        self.stop();
                        Some((index, Err(e)))
                    }
                }
            }
            Origin::Positional { keys: source, next } => {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let first = index.checked_mul(self.chunk_keys as u64)?;
                let count = source.key_count().checked_sub(first).filter(|&n| n > 0)?;
                let count = count.min(self.chunk_keys as u64) as usize;
                match source.read_at(first, count, &mut keys) {
                    Ok(()) => {
                        self.progress.advance(count as u64);
                        Some((index, Ok(Chunk { first, keys })))
                    }
                    Err(e) => {
                        // Later chunks would not be written: read no more.
                        self.stop();
                        Some((index, Err(e)))
                    }
                }
            }
        }
    }

    /// Hands out nothing more.
    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests;
