//! The class pass of [`super::masks::classify`] on AVX-512, 16 keys at a time:
//! every member of the 16 sets tested against the bitmap of removed
//! buckets at once (held in two registers and read with a permute for
//! b-arrays of up to 1024 buckets, gathered for larger ones), the masks of
//! removed members built in the lanes, and the keys' positions packed
//! into each class's list by a compress, without a branch on the keys.

use core::arch::x86_64::*;
use core::ops::Range;

use super::masks::{PAST, WIDE};
use crate::arch::x86_64::bitmap::BitmapWords;

/// [`super::masks::classify`] with `bitmap`, the bitmap of removed buckets (bit
/// `b % 64` of word `b / 64`), which covers every bucket of `columns`.
/// Each list holds the rows' count plus [`WIDE`], so that a whole vector
/// of positions can be stored at any count.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ, AVX2 and POPCNT.
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
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
    let words = BitmapWords::new(bitmap);
    classify_with(columns, rows, mask, lists, |word, valid| {
        words.read(word, valid)
    })
}

/// [`classify`] with `words`, which reads the bitmap's 32-bit words at the
/// indexes of a vector (in the lanes of a mask).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn classify_with(
    columns: &[&mut [u32]],
    rows: Range<usize>,
    mask: &mut [u16],
    lists: [&mut [u16]; 3],
    words: impl Fn(__m512i, __mmask16) -> __m512i,
) -> [usize; 3] {
    let one = _mm512_set1_epi32(1);
    let iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let mut counts = [0; 3];
    let mut lists = lists;
    for at in (0..rows.len()).step_by(WIDE) {
        let width = WIDE.min(rows.len() - at);
        let valid = (u32::MAX >> (32 - width)) as __mmask16;
        let from = rows.start + at..rows.start + at + width;
        let mut removed = _mm512_setzero_si512();
        for (j, column) in columns.iter().enumerate() {
            let b = load(&column[from.clone()]);
            let word = words(_mm512_srli_epi32::<5>(b), valid);
            let bit = _mm512_srlv_epi32(word, _mm512_and_si512(b, _mm512_set1_epi32(31)));
            let bit = _mm512_and_si512(bit, one);
            let slot = _mm512_set1_epi32(PAST.min(j as u32) as i32);
            removed = _mm512_or_si512(removed, _mm512_sllv_epi32(bit, slot));
        }
        // Lanes past the rows (a last vector's) have no removed member.
        let removed = _mm512_maskz_mov_epi32(valid, removed);
        store(&mut mask[at..at + width], _mm512_cvtepi32_epi16(removed));
        // As the plain pass: the first alone, one other (a power of two
        // from 2 up to below the bit of slot 15 and past), the others.
        let lone = _mm512_cmpeq_epi32_mask(removed, one);
        let single = _mm512_testn_epi32_mask(removed, _mm512_sub_epi32(removed, one));
        let past = _mm512_sub_epi32(removed, _mm512_set1_epi32(2));
        let below = _mm512_cmplt_epu32_mask(past, _mm512_set1_epi32((1 << PAST) - 2));
        let one_past_first = single & below;
        let any = _mm512_test_epi32_mask(removed, removed);
        let several = any & !lone & !one_past_first;
        let position = _mm512_add_epi32(_mm512_set1_epi32(at as i32), iota);
        for ((list, count), class) in
            lists
                .iter_mut()
                .zip(&mut counts)
                .zip([lone, one_past_first, several])
        {
            let packed = _mm512_cvtepi32_epi16(_mm512_maskz_compress_epi32(class, position));
            // `count <= at`, so the 16 positions stored from it are within
            // the list's rows plus 16.
            let to = &mut list[*count..*count + WIDE];
            // SAFETY: `to` is 16 `u16`, the 32 bytes the store writes.
            unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), packed) };
            *count += class.count_ones() as usize;
        }
    }
    counts
}

/// The 16 `u32` of `from`, or as many as it holds followed by zeros.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn load(from: &[u32]) -> __m512i {
    if let Ok(from) = <&[u32; WIDE]>::try_from(from) {
        // SAFETY: `from` is 16 `u32`, the 64 bytes the load reads.
        return unsafe { _mm512_loadu_si512(from.as_ptr().cast()) };
    }
    // A last vector's few: copied one at a time, not by a call to `memcpy`.
    let mut b = [0u32; WIDE];
    for (b, &from) in b.iter_mut().zip(from) {
        *b = from;
    }
    // SAFETY: `b` is 16 `u32`, the 64 bytes the load reads.
    unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
}

/// Stores the first `to.len()` (at most 16) `u16` of `v` into `to`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn store(to: &mut [u16], v: __m256i) {
    if let Ok(to) = <&mut [u16; WIDE]>::try_from(&mut *to) {
        // SAFETY: `to` is 16 `u16`, the 32 bytes the store writes.
        return unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), v) };
    }
    let mut out = [0u16; WIDE];
    // SAFETY: `out` is 16 `u16`, the 32 bytes the store writes.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
    for (to, &out) in to.iter_mut().zip(&out) {
        *to = out;
    }
}
