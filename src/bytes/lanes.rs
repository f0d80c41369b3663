//! The pre-hash of a block of byte keys on the kernel's lanes: XXH3-64 of
//! the keys of at most 16 bytes on the lanes (`Kernel::xxh3_short`), then
//! the longer keys of the block through `xxhash_rust`, in place.

use super::offsets::{sealed, Offset};
use crate::kernel::xxh3::short::Seeded;
use crate::Kernel;

/// Keys pre-hashed per block before the kernel runs on them: small enough
/// to stay in L1 and on the stack, large enough for any SIMD kernel.
pub(crate) const BLOCK: usize = 256;

/// A kernel and a seed, with the room for one block's offsets.
pub(crate) struct Prehash {
    kernel: Kernel,
    seed: u64,
    seeded: Seeded,
    /// The block's offsets, widened once for the lanes.
    offsets: [u64; BLOCK + 1],
    /// The block's keys over 16 bytes, by position.
    long: [u32; BLOCK],
}

impl Prehash {
    pub(crate) fn new(kernel: Kernel, seed: u64) -> Prehash {
        Prehash {
            kernel,
            seed,
            seeded: Seeded::new(seed),
            offsets: [0; BLOCK + 1],
            long: [0; BLOCK],
        }
    }

    /// XXH3-64 with the seed of every key of a checked layout into `out`:
    /// `offsets` holds `out.len() + 1` offsets within `data`, never
    /// decreasing, and `out` at most [`BLOCK`] keys.
    pub(crate) fn block<O: Offset>(&mut self, data: &[u8], offsets: &[O], out: &mut [u64]) {
        let n = out.len();
        assert!(offsets.len() == n + 1 && n <= BLOCK);
        // The offsets were checked to lie in 0..=data.len().
        for (wide, &o) in self.offsets.iter_mut().zip(offsets) {
            *wide = sealed::Sealed::to_u64(o);
        }
        // The lanes read 8-byte windows: shorter data is padded.
        let mut padded = [0u8; 8];
        let windows = if data.len() < 8 {
            padded[..data.len()].copy_from_slice(data);
            &padded[..]
        } else {
            data
        };
        let long = self.kernel.xxh3_short(
            windows,
            &self.offsets[..=n],
            &self.seeded,
            out,
            &mut self.long[..n],
        );
        for &i in &self.long[..long] {
            let i = i as usize;
            let key = &data[self.offsets[i] as usize..self.offsets[i + 1] as usize];
            // Seed 0 keeps the default secret, with no per-key derivation.
            out[i] = if self.seed == 0 {
                xxhash_rust::xxh3::xxh3_64(key)
            } else {
                xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)
            };
        }
    }
}
