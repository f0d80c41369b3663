//! How the pipeline reports the input it has read: a front end shows it
//! (the CLI draws a bar), a library user may ignore it.

/// Receives the progress of a stream, in the input's unit (see
/// [`crate::Unit`]), from any worker thread.
///
/// Any `Fn(u64) + Sync` closure is one:
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use jumpshard_stream::Progress;
///
/// let read = AtomicU64::new(0);
/// let progress = |units| {
///     read.fetch_add(units, Ordering::Relaxed);
/// };
/// progress.advance(8);
/// assert_eq!(read.load(Ordering::Relaxed), 8);
/// ```
pub trait Progress: Sync {
    /// `units` more of the input have been read.
    fn advance(&self, units: u64);
}

impl<F: Fn(u64) + Sync> Progress for F {
    fn advance(&self, units: u64) {
        self(units)
    }
}

/// Progress that nobody watches.
pub struct NoProgress;

impl Progress for NoProgress {
    fn advance(&self, _units: u64) {}
}
