//! XXH3-64 of keys of at most 16 bytes, from the xxHash specification,
//! in the form the lanes compute it: each key given as two words, `head`
//! (its first bytes from bit 0, little-endian) and `tail` (its last bytes
//! ending at bit 63), which hold every byte the short formulas read. A
//! leaf of its own, so that the instruction-set files take the constants
//! without importing the dispatch that calls them.
//!
//! The words are read through two 8-byte windows that lie inside the data
//! whatever the key's length and place: the head window starts
//! at the key, or 8 bytes before the data's end when the key sits closer
//! to it than that; the tail window ends at the key's end, or at byte 8
//! when the key ends before it. Shifts then bring the key's first byte to
//! the head's low byte and its last byte to the tail's high byte. Both
//! windows are clamped into the data, so that even offsets past its end
//! (which the callers have rejected) read nothing outside it. The data is
//! at least 8 bytes long (shorter data is copied into 8 bytes first).
//!
//! With the default secret and a seed, by length (`s64(i)` and `s32(i)`
//! the secret's little-endian words at byte `i`):
//!
//! ```text
//! 0:     avalanche64(seed ^ s64(56) ^ s64(64))
//! 1-3:   avalanche64((c1 << 16 | c2 << 24 | c3 | len << 8) ^ (s32(0) ^ s32(4)) + seed)
//!        c1, c2, c3 = the first, middle (len / 2) and last bytes
//! 4-8:   rrmxmx((last4 + first4 << 32) ^ (s64(8) ^ s64(16)) - (seed ^ swap32(seed) << 32), len)
//! 9-16:  lo = first8 ^ (s64(24) ^ s64(32)) + seed;  hi = last8 ^ (s64(40) ^ s64(48)) - seed
//!        avalanche3(len + bswap64(lo) + hi + fold(lo * hi))
//! ```
//!
//! where `fold` xors the two halves of the 128-bit product. Only the
//! secret's words enter, so each seed's constants ([`Seeded`]) are worked
//! out once a call.
//!
//! The same words carry XXH64 with seed 0 of keys of at most 16 bytes
//! (Memento's byte-key pre-hash, [`Hash::Xxh64`]): `h = P5 + len`, then a
//! round of XXH64's 8-byte step for each whole 8 bytes (the head, then at
//! 16 bytes the tail), its 4-byte step if 4 of the rest remain, its 1-byte
//! step for each byte left, and XXH64's avalanche. The rest is the head
//! below 8 bytes, the tail's top bytes from 9 to 15; each lane applies
//! the steps its length takes, under masks.

/// The first 72 bytes of XXH3's default secret: all the short lengths read.
const SECRET: [u8; 72] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb,
];

/// XXH64's primes that XXH3's avalanche uses.
pub(crate) const P64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
pub(crate) const P64_3: u64 = 0x1656_67B1_9E37_79F9;
/// The multipliers of XXH3's own avalanche and of `rrmxmx`.
pub(crate) const MX1: u64 = 0x1656_6791_9E37_79F9;
pub(crate) const MX2: u64 = 0x9FB2_1C65_1E98_DF25;

/// The longest key the short formulas take.
pub(crate) const MAX_LEN: usize = 16;

const fn s64(i: usize) -> u64 {
    let mut word = 0;
    let mut b = 8;
    while b > 0 {
        b -= 1;
        word = word << 8 | SECRET[i + b] as u64;
    }
    word
}

const fn s32(i: usize) -> u64 {
    s64(i) & 0xFFFF_FFFF
}

/// The hash the lanes compute.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Hash<'a> {
    /// XXH3-64 with the seed whose constants these are.
    Xxh3(&'a Seeded),
    /// XXH64 with seed 0.
    Xxh64,
}

/// One seed's constants for every short length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seeded {
    /// The hash of the empty key.
    pub(crate) empty: u64,
    /// What the packed bytes of a 1-3 byte key are xored with.
    pub(crate) flip13: u64,
    /// What the two words of a 4-8 byte key are xored with.
    pub(crate) flip48: u64,
    /// What the first and last 8 bytes of a 9-16 byte key are xored with.
    pub(crate) flip_lo: u64,
    pub(crate) flip_hi: u64,
}

impl Seeded {
    pub(crate) fn new(seed: u64) -> Seeded {
        let swapped = u64::from((seed as u32).swap_bytes()) << 32;
        Seeded {
            empty: avalanche64(seed ^ s64(56) ^ s64(64)),
            flip13: (s32(0) ^ s32(4)).wrapping_add(seed),
            flip48: (s64(8) ^ s64(16)).wrapping_sub(seed ^ swapped),
            flip_lo: (s64(24) ^ s64(32)).wrapping_add(seed),
            flip_hi: (s64(40) ^ s64(48)).wrapping_sub(seed),
        }
    }
}

/// XXH64's avalanche, the end of lengths 0 to 3 (and of XXH64).
#[inline]
pub(crate) fn avalanche64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(P64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(P64_3);
    h ^ h >> 32
}
