//! XXH3-64 of keys of at most 16 bytes on AVX-512's 8 lanes (see
//! `crate::kernel::xxh3::short` for the formulas and the words): the words
//! by two gathers, the products by AVX-512DQ's 64-bit multiply. Each vector computes only the length
//! classes its lanes hold, so a batch of one length pays for one formula.

use core::arch::x86_64::*;

use crate::kernel::xxh3::short::{Hash, Seeded, MAX_LEN, MX1, MX2, P64_2, P64_3};
use crate::kernel::xxh64::round::{P1, P4, P5};

const LANES: usize = 8;

/// Writes `hash` of every key of `data` cut by `offsets` into `out`
/// and lists the keys over 16 bytes in `long`, returning how many (see
/// `Kernel::xxh3_short`).
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ and AVX2; `data` holds at
/// least 8 bytes, `out` a multiple of 8 words, `offsets` `out.len() + 1`
/// words and `long` at least `out.len()`. `ahead` are the bytes of the
/// next keys, asked for from memory first.
#[target_feature(enable = "avx512f,avx512dq,avx2")]
pub(crate) unsafe fn short(
    data: &[u8],
    offsets: &[u64],
    hash: Hash<'_>,
    out: &mut [u64],
    long: &mut [u32],
    ahead: &[u8],
) -> usize {
    prefetch_lines(ahead);
    let n = out.len();
    let last = splat(data.len() as u64 - 8);
    let mut count = 0;
    let mut i = 0;
    while i < n {
        // SAFETY: `n` is a multiple of 8, so `offsets` holds `n + 1 >= i + 9`
        // words: the 64 bytes at `i` and at `i + 1` that the loads read.
        let (start, end) = unsafe {
            (
                _mm512_loadu_si512(offsets.as_ptr().add(i).cast()),
                _mm512_loadu_si512(offsets.as_ptr().add(i + 1).cast()),
            )
        };
        let len = _mm512_sub_epi64(end, start);
        let over = long_keys(len);
        // Vectors of long keys only (ids, paths) skip the lanes.
        if over != 0xFF {
            // SAFETY: the gathers read inside `data` (see `words`); `out`
            // holds `n >= i + 8` words, the 64 bytes the store writes.
            unsafe {
                let (head, tail) = words(data, start, end, last);
                let h = lanes(hash, head, tail, len);
                _mm512_storeu_si512(out.as_mut_ptr().add(i).cast(), h);
            }
        }
        // The long keys' positions packed to the front of a register (a
        // compressing store to memory is microcoded on Zen 4) and stored
        // whole: the indices past the packed ones are overwritten later or
        // never read.
        let index = _mm512_add_epi32(
            _mm512_set1_epi32(i as i32),
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        );
        let packed = _mm512_castsi512_si256(_mm512_maskz_compress_epi32(over.into(), index));
        // SAFETY: `count` is at most `i`, so the 8 indices (32 bytes) end
        // within `long`'s `n >= i + 8` entries.
        unsafe { _mm256_storeu_si256(long.as_mut_ptr().add(count).cast(), packed) };
        count += over.count_ones() as usize;
        i += LANES;
    }
    count
}

/// Asks for every cache line of `bytes`: the next block's keys, which
/// the gathers would otherwise wait for one vector at a time (the hardware
/// prefetchers follow plain loads better than gathers).
#[inline]
#[target_feature(enable = "sse")]
fn prefetch_lines(bytes: &[u8]) {
    for line in bytes.chunks(64) {
        _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast());
    }
}

/// `hash` of 8 keys from their words.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn lanes(hash: Hash<'_>, head: __m512i, tail: __m512i, len: __m512i) -> __m512i {
    match hash {
        Hash::Xxh3(seed) => xxh3(head, tail, len, seed),
        Hash::Xxh64 => xxh64(head, tail, len),
    }
}

/// The lanes whose keys are too long for the short formulas.
#[inline]
#[target_feature(enable = "avx512f")]
fn long_keys(len: __m512i) -> __mmask8 {
    _mm512_cmpgt_epu64_mask(len, splat(MAX_LEN as u64))
}

/// The `head` and `tail` words of 8 keys from their offsets, by two gathers through windows clamped into `data`
/// (`crate::kernel::xxh3::short::words` in plain code).
///
/// # Safety
/// `last` is `data.len() - 8` in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn words(data: &[u8], start: __m512i, end: __m512i, last: __m512i) -> (__m512i, __m512i) {
    let eight = splat(8);
    let at = _mm512_min_epu64(start, last);
    let from = _mm512_min_epu64(_mm512_sub_epi64(_mm512_max_epu64(end, eight), eight), last);
    // SAFETY: every index is at most `last`, so each 8-byte read lies in
    // `data`.
    let (head, tail) = unsafe {
        (
            _mm512_i64gather_epi64::<1>(at, data.as_ptr().cast()),
            _mm512_i64gather_epi64::<1>(from, data.as_ptr().cast()),
        )
    };
    // Shifts by 64 bits or more (an empty key's) leave 0.
    let head = _mm512_srlv_epi64(head, _mm512_slli_epi64::<3>(_mm512_sub_epi64(start, at)));
    let back = _mm512_sub_epi64(_mm512_add_epi64(from, eight), end);
    let tail = _mm512_sllv_epi64(tail, _mm512_slli_epi64::<3>(back));
    (head, tail)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

/// XXH3-64 of 8 keys from their words, each lane by its length's formula.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn xxh3(head: __m512i, tail: __m512i, len: __m512i, k: &Seeded) -> __m512i {
    // Lengths 1-3 and 4-8 as one unsigned comparison each, after the shift
    // that brings the class's lowest length to 0.
    let in13 = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(len, splat(1)), splat(3));
    let in48 = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(len, splat(4)), splat(5));
    let in916 = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(len, splat(9)), splat(8));
    let mut h = splat(k.empty);
    if in13 != 0 {
        h = _mm512_mask_mov_epi64(h, in13, one_to_three(head, tail, len, k));
    }
    if in48 != 0 {
        h = _mm512_mask_mov_epi64(h, in48, four_to_eight(head, tail, len, k));
    }
    if in916 != 0 {
        h = _mm512_mask_mov_epi64(h, in916, nine_to_sixteen(head, tail, len, k));
    }
    h
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn one_to_three(head: __m512i, tail: __m512i, len: __m512i, k: &Seeded) -> __m512i {
    let byte = splat(0xFF);
    let c1 = _mm512_and_si512(head, byte);
    // The middle byte is byte len / 2 (0 or 1) of the head.
    let middle = _mm512_slli_epi64::<3>(_mm512_and_si512(_mm512_srli_epi64::<1>(len), splat(1)));
    let c2 = _mm512_and_si512(_mm512_srlv_epi64(head, middle), byte);
    let c3 = _mm512_srli_epi64::<56>(tail);
    let packed = _mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi64::<16>(c1), _mm512_slli_epi64::<24>(c2)),
        _mm512_or_si512(c3, _mm512_slli_epi64::<8>(len)),
    );
    avalanche64(_mm512_xor_si512(packed, splat(k.flip13)))
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn four_to_eight(head: __m512i, tail: __m512i, len: __m512i, k: &Seeded) -> __m512i {
    let x = _mm512_add_epi64(_mm512_srli_epi64::<32>(tail), _mm512_slli_epi64::<32>(head));
    // rrmxmx: the xor of three rotations (truth table 0x96), two products.
    let mut h = _mm512_xor_si512(x, splat(k.flip48));
    h = _mm512_ternarylogic_epi64::<0x96>(h, _mm512_rol_epi64::<49>(h), _mm512_rol_epi64::<24>(h));
    h = _mm512_mullo_epi64(h, splat(MX2));
    h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64::<35>(h), len));
    h = _mm512_mullo_epi64(h, splat(MX2));
    _mm512_xor_si512(h, _mm512_srli_epi64::<28>(h))
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn nine_to_sixteen(head: __m512i, tail: __m512i, len: __m512i, k: &Seeded) -> __m512i {
    let lo = _mm512_xor_si512(head, splat(k.flip_lo));
    let hi = _mm512_xor_si512(tail, splat(k.flip_hi));
    let acc = _mm512_add_epi64(
        _mm512_add_epi64(len, bswap(lo)),
        _mm512_add_epi64(hi, fold(lo, hi)),
    );
    let h = _mm512_xor_si512(acc, _mm512_srli_epi64::<37>(acc));
    let h = _mm512_mullo_epi64(h, splat(MX1));
    _mm512_xor_si512(h, _mm512_srli_epi64::<32>(h))
}

/// XXH64's avalanche.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn avalanche64(h: __m512i) -> __m512i {
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<33>(h));
    let h = _mm512_mullo_epi64(h, splat(P64_2));
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<29>(h));
    let h = _mm512_mullo_epi64(h, splat(P64_3));
    _mm512_xor_si512(h, _mm512_srli_epi64::<32>(h))
}

/// The byte order of each lane reversed with AVX-512F alone (its byte
/// shuffle is AVX-512BW's): each 32-bit half's bytes reversed by two
/// rotations merged under a mask, then the halves swapped.
#[inline]
#[target_feature(enable = "avx512f")]
fn bswap(x: __m512i) -> __m512i {
    let left = _mm512_rol_epi32::<8>(x);
    let right = _mm512_ror_epi32::<8>(x);
    // Truth table 0xCA: the first operand picks the second where set,
    // the third elsewhere.
    let halves = _mm512_ternarylogic_epi64::<0xCA>(splat(0x00FF_00FF_00FF_00FF), left, right);
    _mm512_rol_epi64::<32>(halves)
}

/// The two halves of the 128-bit product of each lane's `a` and `b`,
/// xored: four 32x32-bit products and their carries.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold(a: __m512i, b: __m512i) -> __m512i {
    let low32 = splat(0xFFFF_FFFF);
    let a_hi = _mm512_srli_epi64::<32>(a);
    let b_hi = _mm512_srli_epi64::<32>(b);
    let ll = _mm512_mul_epu32(a, b);
    let lh = _mm512_mul_epu32(a, b_hi);
    let hl = _mm512_mul_epu32(a_hi, b);
    let hh = _mm512_mul_epu32(a_hi, b_hi);
    // Bits 32-95 of the product before the carry out of bit 63: under
    // 3 * 2^32, no overflow.
    let mid = _mm512_add_epi64(
        _mm512_add_epi64(_mm512_srli_epi64::<32>(ll), _mm512_and_si512(lh, low32)),
        _mm512_and_si512(hl, low32),
    );
    let low = _mm512_or_si512(_mm512_slli_epi64::<32>(mid), _mm512_and_si512(ll, low32));
    let high = _mm512_add_epi64(
        _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(lh)),
        _mm512_add_epi64(_mm512_srli_epi64::<32>(hl), _mm512_srli_epi64::<32>(mid)),
    );
    _mm512_xor_si512(low, high)
}

/// XXH64 with seed 0 of 8 keys from their words: each step applied to the
/// lanes whose length takes it, and skipped when none does.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn xxh64(head: __m512i, tail: __m512i, len: __m512i) -> __m512i {
    let mul = |x: __m512i, p: u64| _mm512_mullo_epi64(x, splat(p));
    // XXH64's 8-byte step: the word's round, then the state's.
    let step8 = |h: __m512i, word: __m512i| {
        let round = mul(_mm512_rol_epi64::<31>(mul(word, P64_2)), P1);
        _mm512_add_epi64(
            mul(_mm512_rol_epi64::<27>(_mm512_xor_si512(h, round)), P1),
            splat(P4),
        )
    };
    let mut h = _mm512_add_epi64(splat(P5), len);
    let whole = _mm512_cmpge_epu64_mask(len, splat(8));
    if whole != 0 {
        h = _mm512_mask_mov_epi64(h, whole, step8(h, head));
        let sixteen = _mm512_cmpeq_epu64_mask(len, splat(16));
        if sixteen != 0 {
            h = _mm512_mask_mov_epi64(h, sixteen, step8(h, tail));
        }
    }
    // The bytes after the whole words, `len % 8` of them, from the low
    // byte: the head below 8 bytes, the tail's top bytes from 9 to 15 (a
    // shift of 64 bits, at 8 bytes, leaves none).
    let from_tail = _mm512_srlv_epi64(
        tail,
        _mm512_slli_epi64::<3>(_mm512_sub_epi64(splat(16), len)),
    );
    let mut rest = _mm512_mask_mov_epi64(head, whole, from_tail);
    let four = _mm512_test_epi64_mask(len, splat(4));
    if four != 0 {
        let word = _mm512_and_si512(rest, splat(0xFFFF_FFFF));
        let stepped = _mm512_add_epi64(
            mul(
                _mm512_rol_epi64::<23>(_mm512_xor_si512(h, mul(word, P1))),
                P64_2,
            ),
            splat(P64_3),
        );
        h = _mm512_mask_mov_epi64(h, four, stepped);
        rest = _mm512_mask_mov_epi64(rest, four, _mm512_srli_epi64::<32>(rest));
    }
    // 0 to 3 single bytes.
    let bytes = _mm512_and_si512(len, splat(3));
    for at_least in 1..=3 {
        let take = _mm512_cmpge_epu64_mask(bytes, splat(at_least));
        if take == 0 {
            break;
        }
        let byte = _mm512_and_si512(rest, splat(0xFF));
        let stepped = mul(
            _mm512_rol_epi64::<11>(_mm512_xor_si512(h, mul(byte, P5))),
            P1,
        );
        h = _mm512_mask_mov_epi64(h, take, stepped);
        rest = _mm512_srli_epi64::<8>(rest);
    }
    avalanche64(h)
}
