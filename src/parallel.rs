//! Multi-threaded batches.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::kernel::check_lengths;
use crate::{active_kernel, BucketCount, Error};

/// Below this many keys per thread, splitting costs more than it saves.
const MIN_KEYS_PER_THREAD: usize = 1 << 14;

/// [`crate::batch`] on up to `threads` threads of rayon's global pool (0
/// means one per core). The results are identical to [`crate::batch`]'s:
/// the keys are cut into at most `threads` contiguous runs, each run through
/// the same kernel.
///
/// The pool has one thread per core, so `threads` bounds the parallelism
/// from above; it cannot raise it past the core count. Small batches run on
/// fewer threads, and a process forked after the pool started runs them on
/// the calling thread (the pool's threads did not follow it). Fails, leaving
/// `out` untouched, when the lengths differ.
///
/// ```
/// use jumpshard::BucketCount;
///
/// let keys: Vec<u64> = (0..100_000).collect();
/// let n = BucketCount::new(1000)?;
/// let mut one = vec![0u32; keys.len()];
/// let mut many = vec![0u32; keys.len()];
/// jumpshard::batch(&keys, n, &mut one)?;
/// jumpshard::batch_parallel(&keys, n, &mut many, 0)?;
/// assert_eq!(one, many);
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn batch_parallel(
    keys: &[u64],
    num_buckets: BucketCount,
    out: &mut [u32],
    threads: usize,
) -> Result<(), Error> {
    check_lengths(keys, out)?;
    run(keys, num_buckets, out, threads);
    Ok(())
}

/// [`batch_parallel`] once the lengths are known to match.
pub(crate) fn run(keys: &[u64], num_buckets: BucketCount, out: &mut [u32], threads: usize) {
    let kernel = active_kernel();
    match run_length(keys.len(), threads) {
        None => kernel.run(keys, num_buckets.get(), out),
        Some(run) => keys
            .par_chunks(run)
            .zip(out.par_chunks_mut(run))
            .for_each(|(k, o)| kernel.run(k, num_buckets.get(), o)),
    }
}

/// The process that first used rayon's pool.
static POOL_PROCESS: AtomicU32 = AtomicU32::new(0);

/// Whether this process may hand work to rayon's pool. A child made by
/// `fork()` after the pool started inherits its state but none of its
/// threads, and a job given to it would wait forever (a pre-fork server,
/// Python's multiprocessing): such a child runs every batch on its calling
/// thread. Asked only of batches long enough to split, it costs one
/// `getpid` each.
fn pool_is_ours() -> bool {
    let me = std::process::id();
    match POOL_PROCESS.compare_exchange(0, me, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => true,
        Err(first) => first == me,
    }
}

/// How `len` keys are cut for up to `threads` threads (0: one per core):
/// the length of each contiguous run but the last, or `None` when one
/// thread does it all. A batch too short to split is decided before the
/// pool is consulted: asking rayon for its size would start its threads,
/// and a short batch (the C ABI's hot path) must not pay for that.
pub(crate) fn run_length(len: usize, threads: usize) -> Option<usize> {
    if len <= MIN_KEYS_PER_THREAD || threads == 1 || !pool_is_ours() {
        return None;
    }
    let threads = match threads {
        0 => rayon::current_num_threads(),
        t => t,
    };
    let by_size = len.div_ceil(MIN_KEYS_PER_THREAD);
    let threads = threads.min(by_size).max(1);
    // Runs of whole 64-key blocks, so only the last one has a SIMD tail.
    (threads > 1).then(|| len.div_ceil(threads).next_multiple_of(64))
}
