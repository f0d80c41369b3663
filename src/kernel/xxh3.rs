//! XXH3-64 of short byte keys on the kernels' lanes: the pre-hash of
//! [`crate::bytes`] for keys of at most 16 bytes.
//!
//! XXH3 picks its formula by the key's length (0, 1-3, 4-8, 9-16 bytes,
//! then longer), and one key at a time that branch mispredicts whenever
//! lengths mix. Here each lane reads its key's first and last 8 bytes
//! (every byte the short formulas read, [`short::words`]), computes the
//! formulas of the length classes its vector holds, and keeps its own by
//! masks ([`short`] gives them in plain code). Keys over 16 bytes get a
//! meaningless value and their positions are listed, for the caller to
//! hash them with `xxhash_rust`.
//!
//! AVX-512 runs 8 keys a vector, reading the words with two gathers and
//! multiplying with its 64-bit multiply; AVX2 runs 4, building 64-bit
//! products from 32-bit ones. The scalar and NEON kernels run the plain
//! code one key at a time.

#[cfg(target_arch = "x86_64")]
use super::Isa;
use super::Kernel;

pub(crate) mod short;
#[cfg(target_arch = "x86_64")]
use crate::arch;
use short::Seeded;

impl Kernel {
    /// Writes XXH3-64 with `seed`'s constants of every key of
    /// `data[offsets[i]..offsets[i + 1]]` of at most 16 bytes into
    /// `out[i]`, on this kernel's lanes; lists the positions of the longer
    /// keys in `long` and returns how many. `data` holds at least 8 bytes,
    /// `offsets` one more than `out`, `long` as many as `out`; offsets past
    /// the data or decreasing give wrong hashes but read nothing outside it.
    pub(crate) fn xxh3_short(
        self,
        data: &[u8],
        offsets: &[u64],
        seed: &Seeded,
        out: &mut [u64],
        long: &mut [u32],
    ) -> usize {
        let n = out.len();
        assert!(data.len() >= 8 && offsets.len() == n + 1 && long.len() >= n);
        assert!(n <= u32::MAX as usize);
        #[cfg(target_arch = "x86_64")]
        match self.isa {
            Isa::Avx2 => {
                // SAFETY: a `Kernel` with `Isa::Avx2` is only made by
                // `Kernel::avx2` after detecting AVX2, the feature the hash
                // enables; the lengths were checked above.
                return unsafe { arch::x86_64::xxh3_avx2::short(data, offsets, seed, out, long) };
            }
            Isa::Avx512 => {
                // SAFETY: a `Kernel` with `Isa::Avx512` is only made by
                // `Kernel::avx512` after detecting AVX-512F, AVX-512DQ and
                // AVX2, the features the hash enables; the lengths were
                // checked above.
                return unsafe { arch::x86_64::xxh3_avx512::short(data, offsets, seed, out, long) };
            }
            Isa::Scalar => {}
        }
        plain(data, offsets, seed, out, long)
    }
}

/// The scalar and NEON kernels' loop: one key at a time, in plain code.
fn plain(data: &[u8], offsets: &[u64], seed: &Seeded, out: &mut [u64], long: &mut [u32]) -> usize {
    let mut count = 0;
    for (i, (o, w)) in out.iter_mut().zip(offsets.windows(2)).enumerate() {
        let (head, tail) = short::words(data, w[0], w[1]);
        let len = w[1].wrapping_sub(w[0]);
        *o = short::hash(head, tail, len, seed);
        // No branch on the length: the index advances or not.
        long[count] = i as u32;
        count += usize::from(len > short::MAX_LEN as u64);
    }
    count
}

#[cfg(test)]
mod tests;
