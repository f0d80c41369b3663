//! Batches: the kernels run Figure 1 over the b-array for every key, as a
//! plain batch does; then the keys that landed on a removed bucket (about
//! the removed fraction of them) are resolved. With nothing removed the
//! second pass is skipped, so the batch costs what [`crate::batch`] costs.
//!
//! Otherwise the keys go in blocks of [`BLOCK`], each resolved right after
//! its first pass, while its keys and answers are still in the cache. For
//! b-arrays small enough for a table of links
//! ([`super::removed::LINK_LIMIT`]) the block's keys on removed buckets are
//! resolved together, in rounds: on the AVX-512 lanes
//! (`crate::arch::x86_64::memento`), and on every other kernel in plain
//! code ([`super::rounds`]) after a scan on the kernel's lanes (AVX2) or
//! in plain code; a call of fewer than [`SHORT`] keys with few on removed
//! buckets resolves those one at a time. Larger b-arrays resolve one key
//! at a time, with [`Memento::bucket`]'s chain.

use super::lookup::rehash_u64;
use super::rounds::{self, Pending};
use super::Memento;
use crate::kernel::check_lengths;
use crate::{active_kernel, Error, Kernel};

/// Keys per block of a batch with removals: large enough that the kernel
/// runs at its long-batch speed, small enough that the block's keys and
/// answers (96 KiB) and the lane pass's pending arrays stay in the L2
/// cache for the second pass.
pub(super) const BLOCK: usize = 8192;

impl Memento {
    /// [`Memento::bucket`] of every key, into `out[i]` for `keys[i]`, on the
    /// [`crate::active_kernel`]. Fails with [`Error::LengthMismatch`],
    /// leaving `out` untouched, when the lengths differ.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(1000)?);
    /// m.remove(10)?;
    /// m.remove(500)?;
    /// let keys: Vec<u64> = (0..4096).collect();
    /// let mut out = vec![0u32; keys.len()];
    /// m.batch(&keys, &mut out)?;
    /// assert!(keys.iter().zip(&out).all(|(&k, &b)| b == m.bucket(k)));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn batch(&self, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        self.batch_on(active_kernel(), keys, out)
    }

    /// [`Memento::batch`] on `kernel`, whichever the batch calls use.
    pub fn batch_on(&self, kernel: Kernel, keys: &[u64], out: &mut [u32]) -> Result<(), Error> {
        check_lengths(keys, out)?;
        let n = self.barray.get();
        if self.removed.is_empty() {
            kernel.run(keys, n, out);
            return Ok(());
        }
        let one_at_a_time = |keys: &[u64], out: &mut [u32]| {
            for (b, &key) in out.iter_mut().zip(keys) {
                if self.removed.contains(*b) {
                    *b = self.resolve(*b, |seed| rehash_u64(key, seed));
                }
            }
        };
        let Some((removed, links)) = self.removed.lane_tables() else {
            // No table of links: one key at a time.
            for (keys, out) in keys.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
                kernel.run(keys, n, out);
                one_at_a_time(keys, out);
            }
            return Ok(());
        };
        let short = keys.len() < SHORT;
        if short {
            kernel.run(keys, n, out);
            if self.few_removed(out) {
                one_at_a_time(keys, out);
                return Ok(());
            }
        }
        let block = keys.len().min(BLOCK);
        let blocks = keys.chunks(BLOCK).zip(out.chunks_mut(BLOCK));
        with_rounds(kernel, block, |mut rounds| {
            for (keys, out) in blocks {
                // A short call's only block has had its first pass.
                if !short {
                    kernel.run(keys, n, out);
                }
                match &mut rounds {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: the lanes' areas are only given for the
                    // AVX-512 kernel, which is only made after detecting
                    // AVX-512F, AVX-512DQ, AVX2 and POPCNT, the features
                    // the pass enables.
                    Rounds::Lanes(pending) => unsafe {
                        crate::arch::x86_64::memento::resolve(keys, out, removed, links, pending)
                    },
                    Rounds::Plain(pending) => {
                        let count = scan(kernel, out, removed, &mut pending.index);
                        pending.resolve(keys, out, links, count);
                    }
                }
            }
            Ok(())
        })
    }
}

/// Calls shorter than this count their keys on removed buckets before
/// the rounds (a pass over at most 63 answers), and resolve them one at a
/// time when there are [`FEW`] or fewer: the rounds take pending keys a
/// vector of 8 at a time, so that a few pay the rounds' set-up and a
/// vector pass for every step of the longest chain among them (one key at
/// 99% removed: 597 ns in the rounds, 149 alone; at 10%, 103 against 52;
/// Zen 4, AVX-512).
pub(super) const SHORT: usize = 64;

/// The most keys on removed buckets that a short call resolves one at a
/// time: fewer than fill one vector of the rounds.
const FEW: usize = 7;

impl Memento {
    /// Whether `out`, a short call's first-stage buckets, holds [`FEW`] or
    /// fewer removed buckets.
    pub(super) fn few_removed(&self, out: &[u32]) -> bool {
        out.iter().filter(|&&b| self.removed.contains(b)).count() <= FEW
    }
}

/// The pending areas of a kernel's rounds.
pub(super) enum Rounds<'a> {
    /// AVX-512's (only given for that kernel).
    #[cfg(target_arch = "x86_64")]
    Lanes(&'a mut crate::arch::x86_64::memento::Pending),
    /// Every other kernel's.
    Plain(&'a mut Pending),
}

/// `f` of the pending areas of `kernel`'s rounds, with room for blocks of
/// `block` keys: the thread's from call to call (`crate::scratch`), grown
/// to the block's length when short. A short call ([`SHORT`]) takes the
/// plain rounds on every kernel: its 8 to 63 pending keys are too few for
/// AVX-512's lanes, which step a vector until its longest chain is done
/// once no pending key is left to refill a lane (99% removed, 8 keys a
/// call: 111 ns a key on the lanes, 60 in the plain rounds after the same
/// first pass, a Sapphire Rapids-class Xeon; level at about 40).
pub(super) fn with_rounds<R>(kernel: Kernel, block: usize, f: impl FnOnce(Rounds<'_>) -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if isa(kernel) == crate::kernel::Isa::Avx512 as u8 && block >= SHORT {
        use crate::arch::x86_64::memento as lanes;
        return crate::scratch::with(|kept: &mut Option<lanes::Pending>| {
            let pending = match kept {
                Some(pending) if pending.capacity() >= block => pending,
                _ => kept.insert(lanes::Pending::new(block)),
            };
            f(Rounds::Lanes(pending))
        });
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    crate::scratch::with(|kept: &mut Option<Pending>| {
        let pending = match kept {
            Some(pending) if pending.capacity() >= block => pending,
            _ => kept.insert(Pending::new(block)),
        };
        f(Rounds::Plain(pending))
    })
}

/// The instruction set of `kernel` (a kernel's id holds it in the low
/// four bits), which says whose features its passes may enable.
#[cfg(target_arch = "x86_64")]
pub(super) fn isa(kernel: Kernel) -> u8 {
    kernel.to_id() & 0xF
}

/// Packs the positions of the answers in `out` that are removed buckets
/// into `index` (see [`rounds::scan`]); on the AVX2 lanes where the
/// kernel has them.
pub(super) fn scan(kernel: Kernel, out: &[u32], removed: &[u64], index: &mut [u32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if isa(kernel) == crate::kernel::Isa::Avx2 as u8 {
        // SAFETY: the AVX2 kernel is only made after detecting AVX2 and
        // POPCNT, the features the scan enables.
        return unsafe { crate::arch::x86_64::memento_avx2::scan(out, removed, index) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    rounds::scan(out, removed, index)
}
