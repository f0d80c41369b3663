//! XXH3-64 of keys of at most 16 bytes on AVX2's 4 lanes (see
//! `crate::kernel::xxh3::short` for the formulas and the words), the words
//! read by two gathers. AVX2 has
//! no 64-bit multiply: the products by constants are XXH64's lane
//! multiply (`xxh64_avx2::mul`), and the 128-bit product of 9-16 byte
//! keys is built from four 32x32-bit ones. Each vector computes only the
//! length classes its lanes hold.

use core::arch::x86_64::*;

use super::xxh64_avx2::{mul, rotl};
use crate::kernel::xxh3::short::{Seeded, MAX_LEN, MX1, MX2, P64_2, P64_3};

const LANES: usize = 4;

/// Writes the hash of every key of `data` cut by `offsets` into `out`
/// and lists the keys over 16 bytes in `long`, returning how many (see
/// `Kernel::xxh3_short`).
///
/// # Safety
/// The CPU must support AVX2; `data` holds at least 8 bytes, `offsets`
/// `out.len() + 1` words and `long` at least `out.len()`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn short(
    data: &[u8],
    offsets: &[u64],
    seed: &Seeded,
    out: &mut [u64],
    long: &mut [u32],
) -> usize {
    let n = out.len();
    let last = data.len() as u64 - 8;
    let mut count = 0;
    let mut i = 0;
    while i < n {
        // Past the last full vector, padded copies: empty keys at the end
        // offset after the last keys.
        let mut pad = [offsets[n]; LANES + 1];
        let lanes = LANES.min(n - i);
        let bounds = if lanes == LANES {
            &offsets[i..=i + LANES]
        } else {
            pad[..=lanes].copy_from_slice(&offsets[i..]);
            &pad[..]
        };
        let mut h = [0u64; LANES];
        // SAFETY: `bounds` holds 5 words: the 32 bytes at 0 and at 1 that
        // the loads read, and `h` the 32 bytes the store writes; the
        // gathers read inside `data` (see `words`).
        let over = unsafe {
            let start = _mm256_loadu_si256(bounds.as_ptr().cast());
            let end = _mm256_loadu_si256(bounds.as_ptr().add(1).cast());
            let (head, tail, len) = words(data, start, end, last);
            _mm256_storeu_si256(h.as_mut_ptr().cast(), hash(head, tail, len, seed));
            let over = _mm256_cmpgt_epi64(len, splat(MAX_LEN as u64));
            _mm256_movemask_pd(_mm256_castsi256_pd(over))
        };
        out[i..i + lanes].copy_from_slice(&h[..lanes]);
        for lane in 0..lanes {
            long[count] = (i + lane) as u32;
            count += usize::from(over >> lane & 1 == 1);
        }
        i += lanes;
    }
    count
}

/// The lane-wise unsigned minimum (AVX2 compares signed: both sides
/// with their top bit flipped order as unsigned).
#[inline]
#[target_feature(enable = "avx2")]
fn min_unsigned(a: __m256i, b: __m256i) -> __m256i {
    let top = splat(1 << 63);
    let a_above = _mm256_cmpgt_epi64(_mm256_xor_si256(a, top), _mm256_xor_si256(b, top));
    _mm256_blendv_epi8(a, b, a_above)
}

/// The `head` and `tail` words of 4 keys and their lengths, from their
/// offsets, by two gathers through windows clamped into `data`
/// (`crate::kernel::xxh3::short::words` in plain code).
///
/// # Safety
/// `last` is `data.len() - 8`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn words(
    data: &[u8],
    start: __m256i,
    end: __m256i,
    last: u64,
) -> (__m256i, __m256i, __m256i) {
    let eight = splat(8);
    let at = min_unsigned(start, splat(last));
    // `end - 8`, or 0 below 8 (and a huge value past 2^63, clamped too).
    let below = _mm256_cmpgt_epi64(eight, end);
    let from = _mm256_andnot_si256(below, _mm256_sub_epi64(end, eight));
    let from = min_unsigned(from, splat(last));
    // SAFETY: every index is at most `last`, so each 8-byte read lies in
    // `data`.
    let (head, tail) = unsafe {
        (
            _mm256_i64gather_epi64::<1>(data.as_ptr().cast(), at),
            _mm256_i64gather_epi64::<1>(data.as_ptr().cast(), from),
        )
    };
    // Shifts by 64 bits or more (an empty key's) leave 0.
    let head = _mm256_srlv_epi64(head, _mm256_slli_epi64::<3>(_mm256_sub_epi64(start, at)));
    let back = _mm256_sub_epi64(_mm256_add_epi64(from, eight), end);
    let tail = _mm256_sllv_epi64(tail, _mm256_slli_epi64::<3>(back));
    (head, tail, _mm256_sub_epi64(end, start))
}

#[inline]
#[target_feature(enable = "avx2")]
fn splat(x: u64) -> __m256i {
    _mm256_set1_epi64x(x as i64)
}

/// Whether any lane of the comparison mask `m` is set.
#[inline]
#[target_feature(enable = "avx2")]
fn any(m: __m256i) -> bool {
    _mm256_movemask_pd(_mm256_castsi256_pd(m)) != 0
}

/// The hash of 4 keys from their words, each lane by its length's formula.
#[inline]
#[target_feature(enable = "avx2")]
fn hash(head: __m256i, tail: __m256i, len: __m256i, k: &Seeded) -> __m256i {
    // Lengths are below 2^63, so signed comparisons order them.
    let below = |limit: u64| _mm256_cmpgt_epi64(splat(limit), len);
    let (b1, b4, b9, b17) = (below(1), below(4), below(9), below(17));
    let in13 = _mm256_andnot_si256(b1, b4);
    let in48 = _mm256_andnot_si256(b4, b9);
    let in916 = _mm256_andnot_si256(b9, b17);
    let mut h = splat(k.empty);
    if any(in13) {
        h = _mm256_blendv_epi8(h, one_to_three(head, tail, len, k), in13);
    }
    if any(in48) {
        h = _mm256_blendv_epi8(h, four_to_eight(head, tail, len, k), in48);
    }
    if any(in916) {
        h = _mm256_blendv_epi8(h, nine_to_sixteen(head, tail, len, k), in916);
    }
    h
}

#[inline]
#[target_feature(enable = "avx2")]
fn one_to_three(head: __m256i, tail: __m256i, len: __m256i, k: &Seeded) -> __m256i {
    let byte = splat(0xFF);
    let c1 = _mm256_and_si256(head, byte);
    // The middle byte is byte len / 2 (0 or 1) of the head.
    let middle = _mm256_slli_epi64::<3>(_mm256_and_si256(_mm256_srli_epi64::<1>(len), splat(1)));
    let c2 = _mm256_and_si256(_mm256_srlv_epi64(head, middle), byte);
    let c3 = _mm256_srli_epi64::<56>(tail);
    let packed = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi64::<16>(c1), _mm256_slli_epi64::<24>(c2)),
        _mm256_or_si256(c3, _mm256_slli_epi64::<8>(len)),
    );
    let h = _mm256_xor_si256(packed, splat(k.flip13));
    // XXH64's avalanche.
    let h = _mm256_xor_si256(h, _mm256_srli_epi64::<33>(h));
    let h = mul(h, P64_2);
    let h = _mm256_xor_si256(h, _mm256_srli_epi64::<29>(h));
    let h = mul(h, P64_3);
    _mm256_xor_si256(h, _mm256_srli_epi64::<32>(h))
}

#[inline]
#[target_feature(enable = "avx2")]
fn four_to_eight(head: __m256i, tail: __m256i, len: __m256i, k: &Seeded) -> __m256i {
    let x = _mm256_add_epi64(_mm256_srli_epi64::<32>(tail), _mm256_slli_epi64::<32>(head));
    let h = _mm256_xor_si256(x, splat(k.flip48));
    let h = _mm256_xor_si256(h, _mm256_xor_si256(rotl::<49, 15>(h), rotl::<24, 40>(h)));
    let h = mul(h, MX2);
    let h = _mm256_xor_si256(h, _mm256_add_epi64(_mm256_srli_epi64::<35>(h), len));
    let h = mul(h, MX2);
    _mm256_xor_si256(h, _mm256_srli_epi64::<28>(h))
}

#[inline]
#[target_feature(enable = "avx2")]
fn nine_to_sixteen(head: __m256i, tail: __m256i, len: __m256i, k: &Seeded) -> __m256i {
    let lo = _mm256_xor_si256(head, splat(k.flip_lo));
    let hi = _mm256_xor_si256(tail, splat(k.flip_hi));
    // Each lane's 8 bytes reversed.
    let reverse = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
        12, 11, 10, 9, 8,
    );
    let acc = _mm256_add_epi64(
        _mm256_add_epi64(len, _mm256_shuffle_epi8(lo, reverse)),
        _mm256_add_epi64(hi, fold(lo, hi)),
    );
    let h = _mm256_xor_si256(acc, _mm256_srli_epi64::<37>(acc));
    let h = mul(h, MX1);
    _mm256_xor_si256(h, _mm256_srli_epi64::<32>(h))
}

/// The two halves of the 128-bit product of each lane's `a` and `b`,
/// xored: four 32x32-bit products and their carries.
#[inline]
#[target_feature(enable = "avx2")]
fn fold(a: __m256i, b: __m256i) -> __m256i {
    let low32 = splat(0xFFFF_FFFF);
    let a_hi = _mm256_srli_epi64::<32>(a);
    let b_hi = _mm256_srli_epi64::<32>(b);
    let ll = _mm256_mul_epu32(a, b);
    let lh = _mm256_mul_epu32(a, b_hi);
    let hl = _mm256_mul_epu32(a_hi, b);
    let hh = _mm256_mul_epu32(a_hi, b_hi);
    // Bits 32-95 of the product before the carry out of bit 63: under
    // 3 * 2^32, no overflow.
    let mid = _mm256_add_epi64(
        _mm256_add_epi64(_mm256_srli_epi64::<32>(ll), _mm256_and_si256(lh, low32)),
        _mm256_and_si256(hl, low32),
    );
    let low = _mm256_or_si256(_mm256_slli_epi64::<32>(mid), _mm256_and_si256(ll, low32));
    let high = _mm256_add_epi64(
        _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(lh)),
        _mm256_add_epi64(_mm256_srli_epi64::<32>(hl), _mm256_srli_epi64::<32>(mid)),
    );
    _mm256_xor_si256(low, high)
}
