//! The pre-hash of a block of byte keys on the kernel's lanes: the keys of
//! at most 16 bytes on the lanes (`Kernel::prehash_short`), for XXH64 those
//! of 17 to 128 bytes too (`Kernel::prehash_medium_xxh64`), then the
//! other keys of the block through `xxhash_rust`, in place. XXH3-64 with
//! a seed for [`crate::batch_bytes`], XXH64 with seed 0 for Memento's
//! byte keys.

use super::offsets::{sealed, slices, Offset};
#[cfg(target_arch = "x86_64")]
use crate::kernel::xxh3::short::{Hash, Seeded, MAX_LEN};
#[cfg(target_arch = "x86_64")]
use crate::kernel::xxh3::SHORT_LANES;
use crate::Kernel;

/// Keys pre-hashed per block before the kernel runs on them: small enough
/// to stay in L1 and on the stack, large enough for any SIMD kernel.
pub(crate) const BLOCK: usize = 256;

/// Calls of fewer keys than this hash them one at a time ([`few`]),
/// without a [`Prehash`]: its areas (5 KB, zeroed when it is made) and a
/// vector of the lanes for a few keys cost more than the keys. One 8-byte
/// key through `batch_bytes` took 165 ns on AVX-512 and 117 on AVX2 that
/// way, 72 alone (a Sapphire Rapids-class Xeon), and the lanes catch up
/// with one key at a time only from about 32 8-byte keys a call (AVX-512:
/// 8.1 ns a key alone at 31 keys, 8.9 on the lanes at 32; AVX2 11.8 and
/// 12.6). Keys over 16 bytes, which the lanes leave to `xxhash_rust`
/// anyway, would gain from going alone further (36 bytes: 9.8 ns a key
/// alone at 31, 11.9 at 32).
pub(crate) const ALONE: usize = 32;

/// The pre-hash of each key of a checked layout of fewer than [`ALONE`]
/// keys into `out`, one at a time: XXH64 with seed 0 when `xxh64` (what
/// [`Prehash::xxh64`] gives), else XXH3-64 with `seed` ([`Prehash::new`]).
pub(crate) fn few<O: Offset>(xxh64: bool, seed: u64, data: &[u8], offsets: &[O], out: &mut [u64]) {
    debug_assert!(out.len() < ALONE && offsets.len() == out.len() + 1);
    // One loop per hash, as `by_crate` has, and seed 0 with XXH3's
    // default secret, as `Prehash::block` does.
    let keys = out.iter_mut().zip(slices(data, offsets));
    match (xxh64, seed) {
        (true, _) => keys.for_each(|(o, key)| *o = xxhash_rust::xxh64::xxh64(key, 0)),
        (false, 0) => keys.for_each(|(o, key)| *o = xxhash_rust::xxh3::xxh3_64(key)),
        (false, _) => {
            keys.for_each(|(o, key)| *o = xxhash_rust::xxh3::xxh3_64_with_seed(key, seed))
        }
    }
}

/// A kernel and a hash, with the room for one block's offsets.
pub(crate) struct Prehash {
    #[cfg(target_arch = "x86_64")]
    kernel: Kernel,
    /// XXH64 with seed 0 rather than XXH3-64 with `seed`.
    xxh64: bool,
    seed: u64,
    #[cfg(target_arch = "x86_64")]
    seeded: Seeded,
    /// The block's offsets, widened once for the lanes.
    offsets: [u64; BLOCK + 1],
    /// The block's keys over 16 bytes, by position.
    long: [u32; BLOCK],
    /// The lanes' hashes, the block padded to whole vectors.
    #[cfg(target_arch = "x86_64")]
    hashes: [u64; BLOCK],
}

impl Prehash {
    /// XXH3-64 with `seed` on `kernel`.
    pub(crate) fn new(kernel: Kernel, seed: u64) -> Prehash {
        // Off x86-64 no kernel has the lanes: every key by `xxhash_rust`.
        #[cfg(not(target_arch = "x86_64"))]
        let _ = kernel;
        Prehash {
            #[cfg(target_arch = "x86_64")]
            kernel,
            xxh64: false,
            seed,
            #[cfg(target_arch = "x86_64")]
            seeded: Seeded::new(seed),
            offsets: [0; BLOCK + 1],
            long: [0; BLOCK],
            #[cfg(target_arch = "x86_64")]
            hashes: [0; BLOCK],
        }
    }

    /// XXH64 with seed 0 on `kernel`: Memento's byte-key pre-hash.
    pub(crate) fn xxh64(kernel: Kernel) -> Prehash {
        Prehash {
            xxh64: true,
            ..Prehash::new(kernel, 0)
        }
    }

    /// The hash of every key of a checked layout into `out`: `offsets`
    /// holds the block's `out.len() + 1` offsets within `data`, never
    /// decreasing, then those of the keys after it, if any (whose bytes the
    /// lanes ask for from memory while hashing the block), and `out` holds
    /// at most [`BLOCK`] keys.
    pub(crate) fn block<O: Offset>(&mut self, data: &[u8], offsets: &[O], out: &mut [u64]) {
        let n = out.len();
        assert!(offsets.len() > n && n <= BLOCK);
        // The offsets were checked to lie in 0..=data.len().
        for (wide, &o) in self.offsets.iter_mut().zip(&offsets[..=n]) {
            *wide = sealed::Sealed::to_u64(o);
        }
        // Where the next block's keys end, up to as many as this one's.
        let after = sealed::Sealed::to_u64(offsets[(2 * n).min(offsets.len() - 1)]);
        let hashed = self.on_lanes(data, after as usize, out);
        // The keys the lanes left, or all of them, by `xxhash_rust`: one
        // loop per hash, so that each inlines its own.
        let keys = hashed.map(|long| &self.long[..long]);
        let offsets = &self.offsets[..=n];
        let seed = self.seed;
        if self.xxh64 {
            by_crate(
                |key| xxhash_rust::xxh64::xxh64(key, 0),
                data,
                offsets,
                keys,
                out,
            );
        } else if seed == 0 {
            // Seed 0 keeps the default secret, with no per-key derivation.
            by_crate(xxhash_rust::xxh3::xxh3_64, data, offsets, keys, out);
        } else {
            let hash = |key: &[u8]| xxhash_rust::xxh3::xxh3_64_with_seed(key, seed);
            by_crate(hash, data, offsets, keys, out);
        }
    }

    /// The keys of at most 16 bytes of the block whose offsets `offsets`
    /// holds hashed on the kernel's lanes, and how many longer keys
    /// `long` lists; `None` from a kernel without the lanes. The next
    /// block's keys end at `after`.
    #[cfg(target_arch = "x86_64")]
    fn on_lanes(&mut self, data: &[u8], after: usize, out: &mut [u64]) -> Option<usize> {
        let n = out.len();
        // The next block's bytes are asked for when this block's keys
        // average 16 bytes or less: longer keys mostly go to `xxhash_rust`,
        // whose plain loads the hardware prefetchers follow, and asking for
        // kilobytes ahead then only stalls on the memory system's queue.
        let span = self.offsets[n] - self.offsets[0];
        let ahead = if span <= (MAX_LEN * n) as u64 {
            &data[self.offsets[n] as usize..after]
        } else {
            &[]
        };
        // Whole vectors: empty keys at the block's end after its keys.
        let whole = n.next_multiple_of(SHORT_LANES);
        let end = self.offsets[n];
        self.offsets[n + 1..=whole].fill(end);
        // The lanes read 8-byte windows: shorter data is padded.
        let mut padded = [0u8; 8];
        let windows = if data.len() < 8 {
            padded[..data.len()].copy_from_slice(data);
            &padded[..]
        } else {
            data
        };
        let hash = if self.xxh64 {
            Hash::Xxh64
        } else {
            Hash::Xxh3(&self.seeded)
        };
        let mut long = self.kernel.prehash_short(
            windows,
            &self.offsets[..=whole],
            hash,
            &mut self.hashes[..whole],
            &mut self.long[..whole],
            ahead,
        )?;
        if self.xxh64 && long > 0 {
            long = self.kernel.prehash_medium_xxh64(
                data,
                &self.offsets[..=n],
                &mut self.long[..long],
                &mut self.hashes[..n],
            );
        }
        out.copy_from_slice(&self.hashes[..n]);
        Some(long)
    }

    /// Off x86-64 no kernel has the lanes.
    #[cfg(not(target_arch = "x86_64"))]
    fn on_lanes(&mut self, _: &[u8], _: usize, _: &mut [u64]) -> Option<usize> {
        None
    }
}

/// `hash` of the keys at the positions `keys` lists (every key when
/// `None`) of `data` cut by `offsets`, into `out`. A function of its own
/// for each hash, so that the hash inlines into its loop (inlined into the
/// block's code, the loop called the hash: 30% slower on 40-byte keys).
#[inline(never)]
fn by_crate(
    hash: impl Fn(&[u8]) -> u64,
    data: &[u8],
    offsets: &[u64],
    keys: Option<&[u32]>,
    out: &mut [u64],
) {
    let key = |i: usize| &data[offsets[i] as usize..offsets[i + 1] as usize];
    match keys {
        Some(keys) => {
            for &i in keys {
                out[i as usize] = hash(key(i as usize));
            }
        }
        None => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = hash(key(i));
            }
        }
    }
}
