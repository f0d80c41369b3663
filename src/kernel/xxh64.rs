//! XXH64 of 8-byte keys on the kernels' lanes: the derived keys and coins
//! of weighted tables, XXH64 of one key's 8 little-endian bytes with a
//! seed shared by the keys of a pass.
//!
//! For an 8-byte input the whole of XXH64 is one round and the avalanche,
//! every step a wrapping 64-bit operation that maps onto lanes:
//!
//! ```text
//! h  = seed + P5 + 8
//! h ^= rotl(key * P2, 31) * P1
//! h  = rotl(h, 27) * P1 + P4
//! h ^= h >> 33;  h *= P2;  h ^= h >> 29;  h *= P3;  h ^= h >> 32
//! ```
//!
//! AVX-512 has the 64-bit multiply (AVX-512DQ); AVX2 and NEON build it
//! from 32-bit multiplies. The scalar kernel writes it out ([`one`], in
//! `round.rs`),
//! which inlines where one key is hashed at a time; every kernel is held
//! against `xxhash_rust` (see the tests).

use super::{Isa, Kernel};

pub(crate) mod round;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::arch;
pub(crate) use round::one;

impl Kernel {
    /// Replaces every key with XXH64 of its 8 little-endian bytes with
    /// `seed`, on this kernel's lanes.
    pub(crate) fn xxh64(self, keys: &mut [u64], seed: u64) {
        self.hash(None, keys, seed);
    }

    /// Writes XXH64 of each key's 8 little-endian bytes with `seed` into
    /// `out` (as long as `keys`), on this kernel's lanes: a copy of the
    /// keys hashed in place, without the copy.
    pub(crate) fn xxh64_into(self, keys: &[u64], out: &mut [u64], seed: u64) {
        assert_eq!(keys.len(), out.len(), "one hash per key");
        self.hash(Some(keys), out, seed);
    }

    /// [`Kernel::xxh64_into`] from `from`, or in place: whole vectors on
    /// the x86 lanes, the last keys short of one here, one at a time. A
    /// padded copy for them (a few 8-byte stores, then one vector load of
    /// them, which the store buffer cannot forward) stalled every call:
    /// zoned sets of 4 keys over 100 zones, which hash a few keys once per
    /// zone, spent three quarters of their time there on a Sapphire
    /// Rapids-class Xeon. A masked load and store did better, but one
    /// AVX-512 vector is a chain of five `vpmullq` (15 cycles each on
    /// Intel), and a few keys in plain code finish sooner (weighted batches
    /// of 4 keys: 89 ns a key masked, 72 so; zoned sets of 9 keys over 12
    /// zones: 160 and 122). NEON takes its last key on lane 0 of a vector.
    fn hash(self, from: Option<&[u64]>, out: &mut [u64], seed: u64) {
        // The keys the lanes take: whole vectors of 4 (AVX2) or 8 (AVX-512).
        let len = out.len();
        let whole = match self.isa {
            Isa::Scalar => 0,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => len - len % 4,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => len - len % 8,
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => len,
        };
        let (vectors, rest) = out.split_at_mut(whole);
        let (from_vectors, from_rest) = match from {
            Some(keys) => (Some(&keys[..whole]), Some(&keys[whole..])),
            None => (None, None),
        };
        match self.isa {
            Isa::Scalar => {}
            // SAFETY: a `Kernel` with `Isa::Avx2` is only made by
            // `Kernel::avx2` after detecting AVX2, the feature the hash
            // enables; the areas hold the same whole vectors.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { arch::x86_64::xxh64_avx2::xxh64(from_vectors, vectors, seed) },
            // SAFETY: a `Kernel` with `Isa::Avx512` is only made by
            // `Kernel::avx512` after detecting AVX-512F and AVX-512DQ, the
            // features the hash enables; the areas hold the same whole
            // vectors.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe {
                arch::x86_64::xxh64_avx512::xxh64(from_vectors, vectors, seed)
            },
            // SAFETY: a `Kernel` with `Isa::Neon` is only made by
            // `Kernel::neon` after detecting NEON, the feature the hash
            // enables; callers pass areas of one length.
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => unsafe { arch::aarch64::xxh64_neon::xxh64(from_vectors, vectors, seed) },
        }
        match from_rest {
            Some(keys) => rest
                .iter_mut()
                .zip(keys)
                .for_each(|(o, &k)| *o = one(k, seed)),
            None => rest.iter_mut().for_each(|k| *k = one(*k, seed)),
        }
    }
}

#[cfg(test)]
mod tests;
