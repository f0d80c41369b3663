//! Batches of byte keys: XXH64 with seed 0 of each key on the kernel's
//! lanes where the keys allow ([`crate::bytes::lanes`]), Figure 1 over
//! the b-array, then, as for u64 keys ([`super::batch`]), the keys on
//! removed buckets resolved block by block. With a table of links they
//! go in rounds, the rehash of a key being XXH64 of its bytes with the
//! removed bucket as seed: on the AVX-512 lanes, 8 keys of up to 128 bytes
//! hashed together (`crate::arch::x86_64::memento_bytes`), and on every
//! other kernel one key at a time inside the plain rounds
//! ([`super::rounds`]). The rounds carry each key's [`span`] in place of
//! its first-stage key. A short call with few keys on removed buckets
//! resolves those one at a time, as [`Memento::batch`] does. Larger
//! b-arrays resolve one key at a time, with
//! [`Memento::bucket_bytes`]'s chain.

use super::batch::{scan, with_rounds, Rounds, BLOCK, SHORT};
use super::span::{span, LONG};
use super::Memento;
use crate::bytes::lanes::{self, Prehash};
use crate::bytes::{check_offsets, slices, Offset, BLOCK as BYTES_BLOCK};
use crate::{active_kernel, Error, Kernel};

/// A block's first-stage keys, then their spans, kept per thread from call
/// to call (`crate::scratch`).
#[derive(Default)]
struct Block(Vec<u64>);

impl Memento {
    /// [`Memento::bucket_bytes`] of every byte key of an Arrow-style layout
    /// (`data[offsets[i]..offsets[i + 1]]` into `out[i]`), as
    /// [`crate::batch_bytes`] takes them. Fails as that does, leaving `out`
    /// untouched.
    ///
    /// ```
    /// use jumpshard::{BucketCount, Memento};
    ///
    /// let mut m = Memento::new(BucketCount::new(10)?);
    /// m.remove(3)?;
    /// let mut out = [0u32; 3];
    /// m.batch_bytes(b"alicebobcarol", &[0u32, 5, 8, 13], &mut out)?;
    /// assert_eq!(out[1], m.bucket_bytes(b"bob"));
    /// # Ok::<(), jumpshard::Error>(())
    /// ```
    pub fn batch_bytes<O: Offset>(
        &self,
        data: &[u8],
        offsets: &[O],
        out: &mut [u32],
    ) -> Result<(), Error> {
        self.batch_bytes_on(active_kernel(), data, offsets, out)
    }

    /// [`Memento::batch_bytes`] on `kernel`.
    pub(crate) fn batch_bytes_on<O: Offset>(
        &self,
        kernel: Kernel,
        data: &[u8],
        offsets: &[O],
        out: &mut [u32],
    ) -> Result<(), Error> {
        check_offsets(data, offsets, out.len())?;
        let n = self.barray.get();
        // The keys of `out` (whose offsets start `offsets`) on removed
        // buckets, one at a time.
        let one_at_a_time = |out: &mut [u32], offsets: &[O]| {
            for (b, s) in out.iter_mut().zip(slices(data, offsets)) {
                if self.removed.contains(*b) {
                    *b = self.resolve(*b, |seed| xxhash_rust::xxh64::xxh64(s, u64::from(seed)));
                }
            }
        };
        // A short call as in `Memento::batch`: its first pass, then its few
        // keys on removed buckets one at a time, or else the rounds. Its
        // keys are pre-hashed alone when too few for the lanes' block.
        let short = out.len() < SHORT;
        if short {
            let mut keys = [0u64; SHORT];
            let keys = &mut keys[..out.len()];
            if keys.len() < lanes::ALONE {
                lanes::few(true, 0, data, offsets, keys);
            } else {
                Prehash::xxh64(kernel).block(data, offsets, keys);
            }
            kernel.run(keys, n, out);
            if self.removed.lane_tables().is_none() || self.few_removed(out) {
                one_at_a_time(out, offsets);
                return Ok(());
            }
        }
        let mut prehash = Prehash::xxh64(kernel);
        let Some((removed, links)) = self.removed.lane_tables() else {
            // Nothing removed, or no table of links: one key at a time.
            let mut keys = [0u64; BYTES_BLOCK];
            for (i, out) in out.chunks_mut(BYTES_BLOCK).enumerate() {
                let keys = &mut keys[..out.len()];
                let offsets = &offsets[i * BYTES_BLOCK..];
                prehash.block(data, offsets, keys);
                kernel.run(keys, n, out);
                if !self.removed.is_empty() {
                    one_at_a_time(out, offsets);
                }
            }
            return Ok(());
        };
        let block = out.len().min(BLOCK);
        crate::scratch::with(|Block(keys): &mut Block| {
            if keys.len() < block {
                keys.resize(block, 0);
            }
            with_rounds(kernel, block, |mut rounds| {
                for (at, out) in out.chunks_mut(BLOCK).enumerate() {
                    // The block's offsets and those after, which the
                    // pre-hash reads ahead; then the block's alone.
                    let offsets = &offsets[at * BLOCK..];
                    let keys = &mut keys[..out.len()];
                    // A short call's only block has had its first pass.
                    if !short {
                        // The pre-hash goes in its own, shorter blocks.
                        for (i, keys) in keys.chunks_mut(BYTES_BLOCK).enumerate() {
                            prehash.block(data, &offsets[i * BYTES_BLOCK..], keys);
                        }
                        kernel.run(keys, n, out);
                    }
                    let offsets = &offsets[..=out.len()];
                    // The offsets were checked to lie in 0..=data.len().
                    for (key, o) in keys.iter_mut().zip(offsets.windows(2)) {
                        *key = span(o[0].widen() as u64, o[1].widen() as u64);
                    }
                    let spans = &*keys;
                    match &mut rounds {
                        #[cfg(target_arch = "x86_64")]
                        // SAFETY: the lanes' areas are only given for the
                        // AVX-512 kernel, which is only made after
                        // detecting AVX-512F, AVX-512DQ, AVX2 and POPCNT,
                        // the features the pass enables.
                        Rounds::Lanes(pending) => unsafe {
                            crate::arch::x86_64::memento_bytes::resolve_bytes(
                                data, offsets, spans, out, removed, links, pending,
                            )
                        },
                        Rounds::Plain(pending) => {
                            let count = scan(kernel, out, removed, &mut pending.index);
                            let rehash = |span, i: u32, seed: u32| {
                                let key = if span == LONG {
                                    let (from, to) = (offsets[i as usize], offsets[i as usize + 1]);
                                    &data[from.widen() as usize..to.widen() as usize]
                                } else {
                                    let from = (span >> 16) as usize;
                                    &data[from..from + (span & LONG) as usize]
                                };
                                xxhash_rust::xxh64::xxh64(key, u64::from(seed))
                            };
                            pending.resolve_with(spans, out, links, count, rehash);
                        }
                    }
                }
            });
        });
        Ok(())
    }
}
