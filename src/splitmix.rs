//! SplitMix64, a deterministic stream of well-mixed keys: public as
//! [`crate::verify::SplitMix64`] with the `reference` feature, and the
//! random keys of the unit tests, which Miri builds without it.

/// A deterministic stream of well-mixed 64-bit keys (SplitMix64), so that a
/// failing check can be reproduced from its seed.
///
/// ```
/// let mut a = jumpshard::verify::SplitMix64::new(1);
/// let mut b = jumpshard::verify::SplitMix64::new(1);
/// assert_eq!(a.keys(4), b.keys(4));
/// ```
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

/// SplitMix64's state increment (2^64 over the golden ratio, made odd).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl SplitMix64 {
    /// A stream starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next key.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Skips the next `n` keys in constant time, so that separate threads
    /// can each produce their own part of one stream.
    ///
    /// ```
    /// use jumpshard::verify::SplitMix64;
    ///
    /// let all = SplitMix64::new(7).keys(10);
    /// let mut tail = SplitMix64::new(7);
    /// tail.skip(6);
    /// assert_eq!(tail.keys(4), all[6..]);
    /// ```
    pub fn skip(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(n.wrapping_mul(GAMMA));
    }

    /// The next `n` keys.
    pub fn keys(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next_u64()).collect()
    }
}

/// The first key of the stream from seed `i`: a well-mixed key for each
/// counter value, for tests that number their keys.
#[cfg(test)]
pub(crate) fn mix(i: u64) -> u64 {
    SplitMix64::new(i).next_u64()
}
