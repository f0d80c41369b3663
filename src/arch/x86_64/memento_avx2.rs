//! The scan of Memento's second pass on AVX2's lanes: the positions of a
//! block's answers that are removed buckets, 8 answers a vector, packed
//! without a branch. The rounds that resolve them are plain code
//! (`crate::placement::memento`), which the scan leaves as the only part
//! that runs over every key of the block, not only the removed ones.

use core::arch::x86_64::*;

const LANES: usize = 8;

/// For each 8-bit mask, the numbers of its set lanes in increasing order,
/// then zeros: the permutation that packs a vector's marked lanes to its
/// front.
pub(crate) const PACK: [[u8; LANES]; 256] = {
    let mut table = [[0u8; LANES]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lane, mut at) = (0, 0);
        while lane < LANES {
            if mask >> lane & 1 == 1 {
                table[mask][at] = lane as u8;
                at += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// Packs the positions of the answers in `out` that are removed buckets
/// (bit `b % 64` of word `b / 64` of `removed`, which covers every bucket
/// of the b-array) into `index`; returns how many. Bitmaps of up to 4
/// words (256 buckets) are held in one register and read with a permute,
/// up to 16 words (1024 buckets) in four, read with four permutes and
/// three blends (a gather of 8 cost more than the rest of the scan on
/// AMD Zen 4); larger ones are gathered as 32-bit words.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn scan(out: &[u32], removed: &[u64], index: &mut [u32]) -> usize {
    assert!(index.len() >= out.len() + LANES);
    assert!(!removed.is_empty() && removed.len() <= 1 << 30);
    if removed.len() <= 4 {
        let mut words = [0u64; 4];
        words[..removed.len()].copy_from_slice(removed);
        // SAFETY: `words` is 4 `u64`, the 32 bytes the load reads.
        let words = unsafe { _mm256_loadu_si256(words.as_ptr().cast()) };
        // The permute takes each index's low 3 bits: every bucket is below
        // 256 here.
        scan_with(out, index, |w| _mm256_permutevar8x32_epi32(words, w))
    } else if removed.len() <= SMALL_WORDS {
        let words = SmallBitmap::new(removed);
        scan_with(out, index, |w| words.word(w))
    } else {
        let last = _mm256_set1_epi32((removed.len() * 2 - 1) as i32);
        scan_with(out, index, |w| {
            // SAFETY: every index is at most `2 * removed.len() - 1 < 2^31`
            // (clamped), 4 bytes apart, so each lane reads 4 bytes of
            // `removed`.
            unsafe {
                _mm256_i32gather_epi32::<4>(removed.as_ptr().cast(), _mm256_min_epu32(w, last))
            }
        })
    }
}

/// The most 64-bit words a [`SmallBitmap`] holds: 1024 buckets.
pub(crate) const SMALL_WORDS: usize = 16;

/// A bitmap of up to [`SMALL_WORDS`] words held in four registers, whose
/// 32-bit words a vector of indexes reads without a gather (x86 is
/// little-endian: bit `b % 32` of word `b / 32`).
#[derive(Clone, Copy)]
pub(crate) struct SmallBitmap([__m256; 4]);

impl SmallBitmap {
    /// The registers of `bitmap` (at most [`SMALL_WORDS`] words), padded
    /// with zeros.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn new(bitmap: &[u64]) -> SmallBitmap {
        let mut words = [0u64; SMALL_WORDS];
        words[..bitmap.len()].copy_from_slice(bitmap);
        // SAFETY: `words` is 16 `u64`; each load reads the 32 bytes of 4
        // of them.
        SmallBitmap([0, 4, 8, 12].map(|i| unsafe {
            _mm256_castsi256_ps(_mm256_loadu_si256(words[i..].as_ptr().cast()))
        }))
    }

    /// The 32-bit words at the indexes `w` (each below 32): word `w` is
    /// element `w % 8` of register `w / 8`, so four permutes, then the
    /// registers chosen by bits 3 and 4 of `w`, each moved to the sign
    /// that a blend reads.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn word(self, w: __m256i) -> __m256i {
        let [w0, w1, w2, w3] = self.0;
        let pick = |r: __m256| _mm256_permutevar8x32_ps(r, w);
        let bit3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(w));
        let bit4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(w));
        let low = _mm256_blendv_ps(pick(w0), pick(w1), bit3);
        let high = _mm256_blendv_ps(pick(w2), pick(w3), bit3);
        _mm256_castps_si256(_mm256_blendv_ps(low, high, bit4))
    }
}

/// [`scan`] with `words`, which reads the bitmap's 32-bit words (bit `b %
/// 32` of word `b / 32`: x86 is little-endian) at the indexes of a vector.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
fn scan_with(out: &[u32], index: &mut [u32], words: impl Fn(__m256i) -> __m256i) -> usize {
    let mut count = 0;
    let mut at = 0;
    let mut vector = |b: __m256i, valid: u32, at: usize| {
        let word = words(_mm256_srli_epi32::<5>(b));
        // The bucket's bit moved to the sign, which the mask reads.
        let shift = _mm256_andnot_si256(b, _mm256_set1_epi32(31));
        let bits = _mm256_sllv_epi32(word, shift);
        let hit = _mm256_movemask_ps(_mm256_castsi256_ps(bits)) as u32 & valid;
        // SAFETY: `PACK[hit]` is 8 bytes, the 8 the load reads.
        let lanes = unsafe { _mm_loadl_epi64(PACK[hit as usize].as_ptr().cast()) };
        let positions = _mm256_add_epi32(_mm256_set1_epi32(at as i32), _mm256_cvtepu8_epi32(lanes));
        // SAFETY: `count <= at < out.len()` and `index` holds `out.len() +
        // 8` elements, so the 8 written from `count` are inside.
        unsafe { _mm256_storeu_si256(index[count..count + LANES].as_mut_ptr().cast(), positions) };
        count += hit.count_ones() as usize;
    };
    let mut chunks = out.chunks_exact(LANES);
    for b in &mut chunks {
        // SAFETY: `b` is 8 `u32`, the 32 bytes the unaligned load reads.
        vector(unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }, 0xFF, at);
        at += LANES;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u32; LANES];
        b[..rest.len()].copy_from_slice(rest);
        // SAFETY: `b` is 8 `u32`, the 32 bytes the unaligned load reads.
        let b = unsafe { _mm256_loadu_si256(b.as_ptr().cast()) };
        vector(b, (1 << rest.len()) - 1, at);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan against a plain bit test: bitmaps in a register and
    /// gathered, every length to 300 from starts off any vector boundary.
    #[test]
    fn scan_packs_the_removed_positions() {
        let Some(_) = crate::Kernel::avx2() else {
            return;
        };
        let mut random = crate::splitmix::SplitMix64::new(0x0BAD_5EED);
        let mut next = move || random.next_u64();
        let lengths = if cfg!(miri) { 0..=20 } else { 0..=300 };
        for words in [1usize, 3, 4, 5, 15, 16, 17, 100] {
            let removed: Vec<u64> = (0..words).map(|_| next() ^ next() << 40).collect();
            let buckets = words as u64 * 64;
            let all: Vec<u32> = (0..320).map(|_| (next() % buckets) as u32).collect();
            for len in lengths.clone() {
                let start = len % 7;
                let out = &all[start..start + len];
                let want: Vec<u32> = (0..len as u32)
                    .filter(|&i| {
                        let b = out[i as usize];
                        removed[b as usize / 64] >> (b % 64) & 1 == 1
                    })
                    .collect();
                let mut index = vec![u32::MAX; len + LANES];
                // SAFETY: AVX2 and POPCNT were detected above (the AVX2
                // kernel requires both).
                let count = unsafe { scan(out, &removed, &mut index) };
                assert_eq!(index[..count], want[..], "{words} words, {len} answers");
            }
        }
    }
}
