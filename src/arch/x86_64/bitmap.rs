//! The bitmap of removed buckets read on AVX-512's lanes, a vector of 16
//! word numbers at a time: Memento's scan of a block's answers and the replica
//! classes' pass read it alike.

use core::arch::x86_64::*;

/// A bitmap's 32-bit words read by a vector of word numbers (x86 is
/// little-endian: bit `b % 32` of word `b / 32`). Bitmaps of up to 16
/// words of 64 bits (b-arrays of up to 1024 buckets) are held in two
/// registers and read with a permute; larger ones are gathered.
#[derive(Clone, Copy)]
pub(crate) enum BitmapWords<'a> {
    /// Its words 0-15 and 16-31.
    Held(__m512i, __m512i),
    /// The bitmap itself.
    Gathered(&'a [u64]),
}

impl BitmapWords<'_> {
    /// The reader of `bitmap` (not empty, at most 2^30 words).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn new(bitmap: &[u64]) -> BitmapWords<'_> {
        assert!(!bitmap.is_empty() && bitmap.len() <= 1 << 30);
        if bitmap.len() > 16 {
            return BitmapWords::Gathered(bitmap);
        }
        let mut words = [0u64; 16];
        words[..bitmap.len()].copy_from_slice(bitmap);
        // SAFETY: `words` is 16 `u64`, the 128 bytes the two loads read.
        unsafe {
            BitmapWords::Held(
                _mm512_loadu_si512(words.as_ptr().cast()),
                _mm512_loadu_si512(words[8..].as_ptr().cast()),
            )
        }
    }

    /// The words numbered `word`, in the lanes `valid` (the others hold
    /// what they read, or their number).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn read(self, word: __m512i, valid: __mmask16) -> __m512i {
        match self {
            // The permute takes the word's low 5 bits: every bucket is
            // below 1024 here.
            BitmapWords::Held(low, high) => _mm512_permutex2var_epi32(low, word, high),
            BitmapWords::Gathered(bitmap) => {
                let last = _mm512_set1_epi32((bitmap.len() * 2 - 1) as i32);
                let word = _mm512_min_epu32(word, last);
                // SAFETY: every index is at most `2 * bitmap.len() - 1`
                // (clamped), 4 bytes apart, so each lane reads 4 bytes of
                // `bitmap`.
                unsafe {
                    _mm512_mask_i32gather_epi32::<4>(word, valid, word, bitmap.as_ptr().cast())
                }
            }
        }
    }
}
