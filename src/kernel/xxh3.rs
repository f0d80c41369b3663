//! XXH3-64 of short byte keys on the kernels' lanes: the pre-hash of
//! [`crate::bytes`] for keys of at most 16 bytes, and XXH64 with seed 0 of
//! the same keys, Memento's byte-key pre-hash ([`short::Hash`]).
//!
//! XXH3 picks its formula by the key's length (0, 1-3, 4-8, 9-16 bytes,
//! then longer), and one key at a time that branch mispredicts whenever
//! lengths mix; XXH64 takes one step per 8, 4 or 1 bytes, as many as the
//! length says. Here each lane reads its key's first and last 8 bytes
//! (every byte the short formulas read, see [`short`]), computes the
//! formulas of the length classes (or the steps) its vector holds, and
//! keeps its own by masks. Keys over 16 bytes get a meaningless value and
//! their positions are listed, for the caller to hash them with
//! `xxhash_rust`, but for XXH64, whose keys of 17 to 128 bytes the lanes
//! take next (`Kernel::prehash_medium_xxh64`): XXH64 only multiplies
//! 64-bit words by constants, one instruction on AVX-512DQ, where XXH3 past
//! 16 bytes needs 128-bit products, built on the lanes from four 32-bit
//! ones, which made them slower than `xxhash_rust` (docs/kernels.md).
//!
//! AVX-512 runs 8 keys a vector, reading the words with two gathers and
//! multiplying with its 64-bit multiply. The other kernels leave every
//! key to `xxhash_rust`: an AVX2 version (4 keys, products from 32-bit
//! ones) and a plain branch-free one were slower than it on Zen 4 for keys
//! of one length (docs/kernels.md).

#[cfg(target_arch = "x86_64")]
pub(crate) mod short;

/// The keys `Kernel::prehash_short` takes come in multiples of this
/// many, the widest lanes': one loop with no tail, whose hashes inline.
#[cfg(target_arch = "x86_64")]
pub(crate) const SHORT_LANES: usize = 8;

#[cfg(target_arch = "x86_64")]
impl super::Kernel {
    /// Writes `hash` (XXH3-64 with a seed's constants, or XXH64) of every
    /// key `data[offsets[i]..offsets[i + 1]]` of at most 16 bytes into
    /// `out[i]`, on this kernel's lanes; lists the positions of the longer
    /// keys in `long` and returns how many. `data` holds at least 8 bytes,
    /// `out` a multiple of [`SHORT_LANES`] keys (the caller pads with empty
    /// keys), `offsets` one more, `long` as many as `out`; offsets past
    /// the data or decreasing give wrong hashes but read nothing outside it.
    /// `ahead` are the next keys' bytes, which the lanes ask for from
    /// memory first. `None`, with `out` untouched, from a kernel without
    /// the lanes.
    pub(crate) fn prehash_short(
        self,
        data: &[u8],
        offsets: &[u64],
        hash: short::Hash<'_>,
        out: &mut [u64],
        long: &mut [u32],
        ahead: &[u8],
    ) -> Option<usize> {
        let n = out.len();
        assert!(data.len() >= 8 && offsets.len() == n + 1 && long.len() >= n);
        assert!(n.is_multiple_of(SHORT_LANES) && n <= u32::MAX as usize);
        if self.isa == super::Isa::Avx512 {
            // SAFETY: a `Kernel` with `Isa::Avx512` is only made by
            // `Kernel::avx512` after detecting AVX-512F, AVX-512DQ and AVX2,
            // the features the hash enables; the lengths were checked above.
            return Some(unsafe {
                crate::arch::x86_64::xxh3_avx512::short(data, offsets, hash, out, long, ahead)
            });
        }
        None
    }

    /// Writes XXH64 with seed 0 of each key that `long` lists (positions
    /// of keys of `data` cut by `offsets`) and that is 17 to 128 bytes
    /// long into `out` at its position, on this kernel's lanes, and keeps
    /// the other positions at the front of `long`, in order, returning how
    /// many: every one from a kernel without these lanes. A key outside
    /// `data` is kept, not read.
    pub(crate) fn prehash_medium_xxh64(
        self,
        data: &[u8],
        offsets: &[u64],
        long: &mut [u32],
        out: &mut [u64],
    ) -> usize {
        if self.isa == super::Isa::Avx512 {
            // SAFETY: a `Kernel` with `Isa::Avx512` is only made by
            // `Kernel::avx512` after detecting AVX-512F, AVX-512DQ and AVX2,
            // the features the hash enables.
            return unsafe {
                crate::arch::x86_64::xxh64_medium_avx512::medium(data, offsets, long, out)
            };
        }
        long.len()
    }
}

#[cfg(test)]
mod tests;
