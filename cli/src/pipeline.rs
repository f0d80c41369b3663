//! The streaming engine of `reshard` and `assign`: a reader thread cuts the
//! input into chunks, the calling thread computes each chunk on every core
//! in turn, and a writer thread writes the results in input order.
//!
//! Channels between the stages hold at most [`DEPTH`] chunks, so memory is
//! bounded by a few chunks whatever the input's size, and reading, computing
//! and writing overlap. Buffers go back from the writer to the reader and
//! to the computing stage, so a long stream allocates only at its start.

use std::sync::mpsc::{channel, sync_channel};
use std::thread;

use indicatif::ProgressBar;

use crate::input::KeyReader;

/// Chunks waiting between two stages.
const DEPTH: usize = 2;

/// Consecutive keys of the input.
pub struct Chunk {
    /// The position of the first key in the input.
    pub first: u64,
    pub keys: Vec<u64>,
}

/// Streams `reader` through `compute` (on this thread, once per chunk, in
/// order) and `write` (on a writer thread, in the same order). Returns the
/// number of keys, or the first error: the reader's before the writer's.
pub fn run<R: Default + Send>(
    mut reader: Box<dyn KeyReader>,
    progress: &ProgressBar,
    mut compute: impl FnMut(&Chunk, &mut R),
    mut write: impl FnMut(&Chunk, &R) -> Result<(), String> + Send,
) -> Result<u64, String> {
    let (chunks, chunks_rx) = sync_channel::<Result<(Chunk, u64), String>>(DEPTH);
    let (done, done_rx) = sync_channel::<(Chunk, R)>(DEPTH);
    let (spare_keys, spare_keys_rx) = channel::<Vec<u64>>();
    let (spare_results, spare_results_rx) = channel::<R>();
    thread::scope(|s| {
        s.spawn(move || {
            let mut first = 0;
            loop {
                let mut keys = spare_keys_rx.try_recv().unwrap_or_default();
                let next = reader.next_chunk(&mut keys);
                let n = keys.len() as u64;
                if next.is_ok() && n == 0 {
                    return;
                }
                // A failed send means a later stage stopped: stop too.
                if chunks
                    .send(next.map(|units| (Chunk { first, keys }, units)))
                    .is_err()
                {
                    return;
                }
                first += n;
            }
        });
        let writer = s.spawn(move || -> Result<(), String> {
            for (chunk, result) in done_rx {
                write(&chunk, &result)?;
                // The other stages may be gone already; then nobody needs these.
                let _ = spare_keys.send(chunk.keys);
                let _ = spare_results.send(result);
            }
            Ok(())
        });
        let mut keys = 0;
        let mut read_error = None;
        for next in chunks_rx {
            let (chunk, units) = match next {
                Ok(c) => c,
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            };
            let mut result = spare_results_rx.try_recv().unwrap_or_default();
            compute(&chunk, &mut result);
            keys += chunk.keys.len() as u64;
            progress.inc(units);
            if done.send((chunk, result)).is_err() {
                break; // the writer failed; its error says why
            }
        }
        drop(done);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err("the writer thread panicked".into()));
        match read_error {
            Some(e) => Err(e),
            None => written.map(|()| keys),
        }
    })
}
