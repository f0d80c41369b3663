//! XXH64's primes and the state before an 8-byte key's round: what every
//! lane kernel shares. A leaf of its own, so that the instruction-set
//! files take it without importing the dispatch that calls them.

/// XXH64's primes, as the specification names them.
pub(crate) const P1: u64 = 0x9E37_79B1_85EB_CA87;
pub(crate) const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
pub(crate) const P3: u64 = 0x1656_67B1_9E37_79F9;
pub(crate) const P4: u64 = 0x85EB_CA77_C2B2_AE63;
pub(crate) const P5: u64 = 0x27D4_EB2F_1656_67C5;

/// The hash state before the key's round, from the seed: `seed + P5 + 8`
/// (8 being the input's length in bytes).
#[inline]
pub(crate) fn start(seed: u64) -> u64 {
    seed.wrapping_add(P5).wrapping_add(8)
}
