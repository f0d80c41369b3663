//! XXH64's primes, the state before an 8-byte key's round and the whole
//! hash of one key: what every lane kernel shares. A leaf of its own, so
//! that the instruction-set files take it without importing the dispatch
//! that calls them.

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

/// XXH64 of one key's 8 little-endian bytes with `seed`: one round and
/// the avalanche, written out so that it inlines into its callers' loops
/// (a call into `xxhash_rust`'s byte-slice hash took about a sixth of a
/// zoned batch's time).
#[inline]
pub(crate) fn one(key: u64, seed: u64) -> u64 {
    let mut h = start(seed) ^ key.wrapping_mul(P2).rotate_left(31).wrapping_mul(P1);
    h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ h >> 32
}
