//! The class pass of [`super::masks::classify`] on AVX2, 8 keys at a time, for
//! b-arrays of up to 1024 buckets: the bitmap of removed buckets held in
//! four registers and read with four permutes and three blends (no gather:
//! gathers are microcoded on some of the CPUs the AVX2 kernel serves), the
//! masks of removed members built in the lanes, and the keys' positions
//! packed into each class's list through a table of permutations, without
//! a branch on the keys. Larger b-arrays take the plain pass.

use core::arch::x86_64::*;
use core::ops::Range;

use super::masks::{PAST, WIDE};
use crate::arch::x86_64::memento_avx2::{SmallBitmap, PACK, SMALL_WORDS};

/// Keys per vector.
const LANES: usize = 8;

/// The most words of 64 bits a bitmap may have here: 1024 buckets.
pub(super) const WORDS: usize = SMALL_WORDS;

/// [`super::masks::classify`] with `bitmap`, the bitmap of removed buckets (bit
/// `b % 64` of word `b / 64`), at most [`WORDS`] words, which covers every
/// bucket of `columns`. Each list holds the rows' count plus [`WIDE`], so
/// that a whole vector of positions can be stored at any count.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn classify(
    columns: &[&mut [u32]],
    rows: Range<usize>,
    bitmap: &[u64],
    mask: &mut [u16],
    lists: [&mut [u16]; 3],
) -> [usize; 3] {
    let len = rows.len();
    assert!(len <= 1 << 16 && mask.len() == len);
    assert!(lists.iter().all(|list| list.len() >= len + WIDE));
    assert!(!bitmap.is_empty() && bitmap.len() <= WORDS);
    // The bitmap's 32-bit words, read by the buckets' word numbers
    // (`b / 32`, below 32 as every bucket is below 1024).
    let words = SmallBitmap::new(bitmap);
    let word = |w: __m256i| words.word(w);
    let one = _mm256_set1_epi32(1);
    let mut counts = [0; 3];
    let mut lists = lists;
    for at in (0..len).step_by(LANES) {
        let width = LANES.min(len - at);
        let from = rows.start + at..rows.start + at + width;
        let mut removed = _mm256_setzero_si256();
        for (j, column) in columns.iter().enumerate() {
            let b = load(&column[from.clone()]);
            let bit = _mm256_srlv_epi32(
                word(_mm256_srli_epi32::<5>(b)),
                _mm256_and_si256(b, _mm256_set1_epi32(31)),
            );
            let slot = _mm256_set1_epi32(PAST.min(j as u32) as i32);
            removed = _mm256_or_si256(removed, _mm256_sllv_epi32(_mm256_and_si256(bit, one), slot));
        }
        // The masks as 16-bit numbers, in order: the pack interleaves the
        // two 128-bit halves, which the permute puts back.
        let packed = _mm256_permute4x64_epi64::<0b1000>(_mm256_packus_epi32(removed, removed));
        store(&mut mask[at..at + width], _mm256_castsi256_si128(packed));
        // As the plain pass: the first alone, one other (a power of two
        // from 2 up to below the bit of slot 15 and past), the others. The
        // masks are below 2^16, so signed compares serve.
        let lanes = |v: __m256i| _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u32;
        let valid = u32::MAX >> (32 - width);
        let none = lanes(_mm256_cmpeq_epi32(removed, _mm256_setzero_si256()));
        let lone = lanes(_mm256_cmpeq_epi32(removed, one));
        let single = lanes(_mm256_cmpeq_epi32(
            _mm256_and_si256(removed, _mm256_sub_epi32(removed, one)),
            _mm256_setzero_si256(),
        ));
        let below = lanes(_mm256_cmpgt_epi32(_mm256_set1_epi32(1 << PAST), removed));
        let one_past_first = single & below & !none & !lone;
        let several = !none & !lone & !one_past_first;
        for ((list, count), class) in lists
            .iter_mut()
            .zip(&mut counts)
            .zip([lone, one_past_first, several].map(|c| c & valid))
        {
            // SAFETY: `PACK[class]` is 8 bytes, the 8 the load reads.
            let order = unsafe { _mm_loadl_epi64(PACK[class as usize].as_ptr().cast()) };
            let positions = _mm_add_epi16(_mm_set1_epi16(at as i16), _mm_cvtepu8_epi16(order));
            // `count <= at`, so the 8 positions stored from it are within
            // the list's rows plus 16.
            let to = &mut list[*count..*count + LANES];
            // SAFETY: `to` is 8 `u16`, the 16 bytes the store writes.
            unsafe { _mm_storeu_si128(to.as_mut_ptr().cast(), positions) };
            *count += class.count_ones() as usize;
        }
    }
    counts
}

/// The 8 `u32` of `from`, or as many as it holds followed by zeros.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
fn load(from: &[u32]) -> __m256i {
    if let Ok(from) = <&[u32; LANES]>::try_from(from) {
        // SAFETY: `from` is 8 `u32`, the 32 bytes the load reads.
        return unsafe { _mm256_loadu_si256(from.as_ptr().cast()) };
    }
    // A last vector's few: copied one at a time, not by a call to `memcpy`.
    let mut b = [0u32; LANES];
    for (b, &from) in b.iter_mut().zip(from) {
        *b = from;
    }
    // SAFETY: `b` is 8 `u32`, the 32 bytes the load reads.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// Stores the first `to.len()` (at most 8) `u16` of `v` into `to`.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
fn store(to: &mut [u16], v: __m128i) {
    if let Ok(to) = <&mut [u16; LANES]>::try_from(&mut *to) {
        // SAFETY: `to` is 8 `u16`, the 16 bytes the store writes.
        return unsafe { _mm_storeu_si128(to.as_mut_ptr().cast(), v) };
    }
    let mut out = [0u16; LANES];
    // SAFETY: `out` is 8 `u16`, the 16 bytes the store writes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) };
    for (to, &out) in to.iter_mut().zip(&out) {
        *to = out;
    }
}
