//! The pipeline's order, errors and threads.

use super::*;

/// Keys `0..len`, failing at position `fail_at` when set.
struct Counting {
    len: u64,
    fail_at: Option<u64>,
}

impl KeysAt for Counting {
    fn key_count(&self) -> u64 {
        self.len
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), Error> {
        let end = first + count as u64;
        if let Some(at) = self.fail_at.filter(|at| (first..end).contains(at)) {
            return Err(Error::Shrunk {
                name: format!("key {at}"),
            });
        }
        keys.clear();
        keys.extend(first..end);
        Ok(())
    }
}

/// Runs `len` keys in chunks of `chunk` on 3 workers; the computation
/// of early chunks is slowest, so they finish out of order. Returns
/// the outcome and what was written, in order.
fn stream(
    len: u64,
    chunk: usize,
    fail_at: Option<u64>,
    write_fails_at: Option<u64>,
) -> (Result<u64, String>, Vec<u64>) {
    let mut written = Vec::new();
    let outcome = run(
        Source::Positional(Box::new(Counting { len, fail_at })),
        chunk,
        3,
        &crate::progress::NoProgress,
        |chunk: &Chunk, doubled: &mut Vec<u64>| {
            if chunk.first < 3 * chunk.keys.len() as u64 {
                thread::sleep(std::time::Duration::from_millis(20));
            }
            doubled.clear();
            doubled.extend(chunk.keys.iter().map(|k| 2 * k));
        },
        |chunk, doubled| {
            if write_fails_at.is_some_and(|at| chunk.first >= at) {
                return Err("disk full".into());
            }
            written.extend_from_slice(doubled);
            Ok(())
        },
    );
    (outcome, written)
}

#[test]
fn results_are_written_in_input_order() {
    for (len, chunk) in [(0, 4), (1, 4), (100, 1), (100, 7), (100, 100), (100, 1000)] {
        let (outcome, written) = stream(len, chunk, None, None);
        assert_eq!(outcome, Ok(len));
        assert!(
            written.iter().copied().eq((0..len).map(|k| 2 * k)),
            "{len} in {chunk}"
        );
    }
}

#[test]
fn a_read_error_comes_after_every_earlier_chunk() {
    let (outcome, written) = stream(100, 7, Some(50), None);
    assert_eq!(
        outcome,
        Err("cannot read key 50: it became shorter while being read".into())
    );
    // Chunk 7 (keys 49..56) failed: the 7 chunks before it were written.
    assert!(written.iter().copied().eq((0..49).map(|k| 2 * k)));
}

#[test]
fn a_write_error_stops_the_stream() {
    let (outcome, written) = stream(1000, 10, None, Some(300));
    assert_eq!(outcome, Err("disk full".into()));
    assert_eq!(written.len(), 300);
}

/// One worker: every chunk read, computed and written in order on the
/// calling thread, up to the first error.
#[test]
fn one_worker_is_the_calling_thread() {
    let caller = thread::current().id();
    for (fail_at, outcome, chunks) in [
        (None, Ok(10), vec![0, 3, 6, 9]),
        (
            Some(4),
            Err("cannot read key 4: it became shorter while being read".to_owned()),
            vec![0],
        ),
    ] {
        let mut written = Vec::new();
        let got = run(
            Source::Positional(Box::new(Counting { len: 10, fail_at })),
            3,
            1,
            &crate::progress::NoProgress,
            |_: &Chunk, on: &mut Option<thread::ThreadId>| *on = Some(thread::current().id()),
            |chunk, on| {
                assert_eq!(*on, Some(caller));
                written.push(chunk.first);
                Ok::<(), String>(())
            },
        );
        assert_eq!((got, written), (outcome, chunks));
    }
}

#[test]
fn a_thread_that_cannot_start_says_so() {
    let e = Error::Spawn {
        source: std::io::Error::from_raw_os_error(11),
    };
    let text = e.to_string();
    assert!(text.starts_with("cannot start a thread: "), "{text}");
    assert!(text.contains("--threads 1"), "{text}");
}

#[test]
fn chunk_sizes_bound_the_keys_in_flight() {
    assert_eq!(chunk_keys(1), 1 << 18);
    assert_eq!(chunk_keys(2), 1 << 18);
    for workers in [1, 2, 8, 64, 256, 100_000] {
        let size = chunk_keys(workers);
        assert!(size >= 1 << 12);
        assert!((workers + SPARE) * size <= KEYS_IN_FLIGHT || size == 1 << 12);
    }
}
