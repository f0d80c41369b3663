//! Memento's second pass on AVX-512's 8 lanes: the keys of a block whose
//! Figure 1 bucket is removed, resolved together (see
//! `crate::placement::memento` for the computation, and docs/kernels.md).
//!
//! The removed buckets come twice: as the bitmap of removed buckets, and as
//! a table of links indexed by bucket, one word each: the working count
//! after the bucket's removal in the low half (0 for a working bucket), its
//! resolved replacer in the high half. A pass:
//!
//! 1. the scan tests the block's answers 16 at a time against the bitmap
//!    (one gather) and packs the positions of those on removed buckets,
//!    without a branch, into the pending arrays, which then take each
//!    key, its bucket and that bucket's link;
//! 2. rounds over the pending keys, 8 at a time, each key one step a
//!    round: with `r` the working count it is being resolved into (at
//!    first none), a bucket removed no later than that (`working >= r`)
//!    stands for its replacer; any other removed bucket `b` sends the key
//!    to `XXH64(key, seed b) mod working`, which becomes `r`. The new
//!    bucket's link is gathered: keys on a working bucket scatter their
//!    answer, the others are packed back, in place, for the next round,
//!    until none is left. Every lane computes both moves and keeps one, so
//!    that no branch waits on a gather: the chains' lengths vary from key
//!    to key, and a loop per vector until its last lane is done spends its
//!    time in mispredicted exits.
//!
//! The remainder of a 64-bit hash `h` by `r < 2^31`, which has no lane
//! instruction, is taken in two steps through doubles: `t = hi mod r` for
//! the high half, then `(t * 2^32 + lo) mod r`, whose dividend is below
//! `r * 2^32 <= 2^63`. Each quotient, from a product by `1 / r` (the
//! hardware's 14-bit estimate and two Newton steps, no division), is below
//! 2^32 with a relative error under 2^-50, so it is off by at most one,
//! which one compare and a masked add or subtract put right.

use core::arch::x86_64::*;

use super::bitmap::BitmapWords;
use super::xxh64_avx512::hash;
use crate::kernel::xxh64::round::start;

const LANES: usize = 8;

/// Replacers followed in a round after the rehash, at the cost of a masked
/// gather each, before the keys still on a removed bucket go round again.
const HOPS: usize = 2;

/// The scan's width: 16 buckets of 32 bits in one vector.
const WIDE: usize = 16;

/// The keys of a block still to be resolved, packed: each array holds the
/// block's length and a wide vector, where packing stores whole vectors.
pub(crate) struct Pending {
    /// The key's position in the block.
    index: Vec<u32>,
    key: Vec<u64>,
    /// The bucket the key is on, removed.
    bucket: Vec<u32>,
    /// The working count the key is being resolved into (`u32::MAX`
    /// before its first rehash).
    limit: Vec<u32>,
    /// The link of `bucket`.
    link: Vec<u64>,
    /// The keys resolved: position << 32 | bucket.
    answer: Vec<u64>,
}

impl Pending {
    /// Room for blocks of up to `block` keys.
    pub(crate) fn new(block: usize) -> Pending {
        let len = block + WIDE;
        Pending {
            index: vec![0; len],
            key: vec![0; len],
            bucket: vec![0; len],
            limit: vec![0; len],
            link: vec![0; len],
            answer: vec![0; len],
        }
    }

    /// The longest block it has room for.
    pub(crate) fn capacity(&self) -> usize {
        self.index.len() - WIDE
    }
}

/// Resolves every answer of `out` (Figure 1's buckets of `keys`) that is
/// removed: `removed` is the bitmap (bit `b % 64` of word `b / 64` set when
/// bucket `b` is removed) and `links` the table above, both covering every
/// bucket of the b-array.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ, AVX2 and POPCNT.
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
pub(crate) unsafe fn resolve(
    keys: &[u64],
    out: &mut [u32],
    removed: &[u64],
    links: &[u64],
    pending: &mut Pending,
) {
    let offset = _mm512_set1_epi64(start(0) as i64);
    let rehash = |key, _, bucket, _| hash(key, _mm512_add_epi64(bucket, offset));
    resolve_with(keys, out, removed, links, pending, rehash);
}

/// [`resolve`] with `rehash(key, position, seed, lanes)`: the rehashes
/// with seeds `seed` of the keys at the positions `position` of the block,
/// whose first-stage keys are `key`, in the lanes `lanes` (the others are
/// not used).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
pub(crate) fn resolve_with(
    keys: &[u64],
    out: &mut [u32],
    removed: &[u64],
    links: &[u64],
    pending: &mut Pending,
    rehash: impl Fn(__m512i, __m512i, __m512i, __mmask8) -> __m512i,
) {
    assert!(keys.len() == out.len() && out.len() <= pending.capacity());
    assert!(!links.is_empty() && links.len() <= 1 << 31);
    assert!(!removed.is_empty() && removed.len() <= 1 << 30);
    let mut count = scan(out, removed, pending);
    fill(keys, out, links, pending, count);
    let mut answered = 0;
    while count > 0 {
        count = round(links, pending, count, &mut answered, &rehash);
    }
    // The answers reach `out` in one pass at the end (a scatter in the
    // rounds is slow, and holds back the gathers after it).
    for &answer in &pending.answer[..answered] {
        out[(answer >> 32) as usize] = answer as u32;
    }
}

/// Packs the positions of the answers in `out` that are removed buckets
/// into `pending.index`; returns how many.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn scan(out: &[u32], removed: &[u64], pending: &mut Pending) -> usize {
    let words = BitmapWords::new(removed);
    scan_with(out, pending, |word, valid| words.read(word, valid))
}

/// [`scan`] with `words`, which reads the bitmap's 32-bit words at the
/// indexes of a vector (in the lanes of a mask).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn scan_with(
    out: &[u32],
    pending: &mut Pending,
    words: impl Fn(__m512i, __mmask16) -> __m512i,
) -> usize {
    let mut count = 0;
    let mut chunks = out.chunks_exact(WIDE);
    let mut at = 0;
    let mut vector = |b: __m512i, valid: __mmask16, at: usize| {
        let word = words(_mm512_srli_epi32::<5>(b), valid);
        let bit = _mm512_srlv_epi32(word, _mm512_and_si512(b, _mm512_set1_epi32(31)));
        let hit = _mm512_mask_test_epi32_mask(valid, bit, _mm512_set1_epi32(1));
        let index = _mm512_add_epi32(
            _mm512_set1_epi32(at as i32),
            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        );
        // SAFETY: `count <= at <= capacity`, and `index` holds `capacity +
        // 16` elements, so the 16 written from `count` are inside.
        unsafe {
            _mm512_storeu_si512(
                pending.index[count..count + WIDE].as_mut_ptr().cast(),
                _mm512_maskz_compress_epi32(hit, index),
            )
        };
        count += hit.count_ones() as usize;
    };
    for b in &mut chunks {
        // SAFETY: `b` is 16 `u32`, the 64 bytes the unaligned load reads.
        vector(unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }, 0xFFFF, at);
        at += WIDE;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u32; WIDE];
        b[..rest.len()].copy_from_slice(rest);
        // SAFETY: `b` is 16 `u32`, the 64 bytes the unaligned load reads.
        let b = unsafe { _mm512_loadu_si512(b.as_ptr().cast()) };
        vector(b, (1u16 << rest.len()) - 1, at);
    }
    count
}

/// Gives each of the `count` pending positions its key, bucket, link and
/// no limit yet.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn fill(keys: &[u64], out: &[u32], links: &[u64], pending: &mut Pending, count: usize) {
    let mut at = 0;
    while at < count {
        let valid = valid_lanes(count - at);
        // SAFETY: `at < count <= capacity` and the arrays hold `capacity +
        // 16` elements, so the 8 read and written from `at` are inside;
        // the positions in the lanes `valid` are below `out.len() =
        // keys.len()` (the scan took them there), 8 and 4 bytes apart.
        unsafe {
            let index = load_u32(&pending.index[at..at + LANES]);
            let key = _mm512_mask_i64gather_epi64::<8>(
                _mm512_setzero_si512(),
                valid,
                index,
                keys.as_ptr().cast(),
            );
            let bucket = _mm512_cvtepu32_epi64(_mm512_mask_i64gather_epi32::<4>(
                _mm256_setzero_si256(),
                valid,
                index,
                out.as_ptr().cast(),
            ));
            let link = gather(_mm512_setzero_si512(), valid, bucket, links);
            _mm512_storeu_si512(pending.key[at..at + LANES].as_mut_ptr().cast(), key);
            _mm512_storeu_si512(pending.link[at..at + LANES].as_mut_ptr().cast(), link);
            _mm256_storeu_si256(
                pending.bucket[at..at + LANES].as_mut_ptr().cast(),
                _mm512_cvtepi64_epi32(bucket),
            );
            _mm256_storeu_si256(
                pending.limit[at..at + LANES].as_mut_ptr().cast(),
                _mm256_set1_epi32(-1),
            );
        }
        at += LANES;
    }
}

/// The lanes of the last `left` pending keys (all 8 when there are more).
#[inline]
fn valid_lanes(left: usize) -> __mmask8 {
    if left >= LANES {
        0xFF
    } else {
        (1u8 << left) - 1
    }
}

/// One round over the `count` pending keys: each takes one step, and is
/// answered (into `pending.answer` from `answered` on) or packed for the
/// next round; returns how many are packed.
///
/// In two loops, every key's first step (hash, remainder) then the
/// replacer steps (gathers): shorter chains, which overlap more (99%
/// removed 13-20% faster, 50% 8-14%, than one loop on AMD Zen 4).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn round(
    links: &[u64],
    pending: &mut Pending,
    count: usize,
    answered: &mut usize,
    rehash: impl Fn(__m512i, __m512i, __m512i, __mmask8) -> __m512i,
) -> usize {
    let mut at = 0;
    while at < count {
        let valid = valid_lanes(count - at);
        // SAFETY: `at < count <= capacity`, and each array holds
        // `capacity + 16` elements, so the 8 read from `at` are inside.
        let (index, key, bucket, limit, link) = unsafe {
            (
                load_u32(&pending.index[at..at + LANES]),
                _mm512_loadu_si512(pending.key[at..at + LANES].as_ptr().cast()),
                load_u32(&pending.bucket[at..at + LANES]),
                load_u32(&pending.limit[at..at + LANES]),
                _mm512_loadu_si512(pending.link[at..at + LANES].as_ptr().cast()),
            )
        };
        let working = working_of(link);
        // A bucket removed no later than the one being resolved stands for
        // its replacer; any other sends the key on by a rehash into its
        // working count. Lanes past the pending keys divide by 1.
        let hop = _mm512_mask_cmpge_epu64_mask(valid, working, limit);
        let limit = _mm512_mask_mov_epi64(limit, valid & !hop, working);
        let limit = _mm512_mask_mov_epi64(_mm512_set1_epi64(1), valid, limit);
        let rehashed = remainder(rehash(key, index, bucket, valid & !hop), limit);
        let b = _mm512_mask_mov_epi64(rehashed, hop, _mm512_srli_epi64::<32>(link));
        // SAFETY: as for the loads: 8 `u32` each, the 32 bytes stored.
        unsafe {
            _mm256_storeu_si256(
                pending.bucket[at..at + LANES].as_mut_ptr().cast(),
                _mm512_cvtepi64_epi32(b),
            );
            _mm256_storeu_si256(
                pending.limit[at..at + LANES].as_mut_ptr().cast(),
                _mm512_cvtepi64_epi32(limit),
            );
        }
        at += LANES;
    }
    let mut kept = 0;
    let mut at = 0;
    while at < count {
        let valid = valid_lanes(count - at);
        // SAFETY: `at < count <= capacity`, and each array holds
        // `capacity + 16` elements, so the 8 read from `at` are inside.
        let (index, key, mut b, limit) = unsafe {
            (
                load_u32(&pending.index[at..at + LANES]),
                _mm512_loadu_si512(pending.key[at..at + LANES].as_ptr().cast()),
                load_u32(&pending.bucket[at..at + LANES]),
                load_u32(&pending.limit[at..at + LANES]),
            )
        };
        let mut link = gather(_mm512_setzero_si512(), valid, b, links);
        for _ in 0..HOPS {
            let hop = _mm512_mask_cmpge_epu64_mask(valid, working_of(link), limit);
            b = _mm512_mask_mov_epi64(b, hop, _mm512_srli_epi64::<32>(link));
            link = gather(link, hop, b, links);
        }
        let removed = valid & _mm512_test_epi64_mask(link, low_half());
        let done = valid & !removed;
        // SAFETY: each key is answered once, so `answered + 8 <= capacity +
        // 16` elements.
        unsafe {
            _mm512_storeu_si512(
                pending.answer[*answered..*answered + LANES]
                    .as_mut_ptr()
                    .cast(),
                _mm512_maskz_compress_epi64(
                    done,
                    _mm512_or_si512(_mm512_slli_epi64::<32>(index), b),
                ),
            )
        };
        *answered += done.count_ones() as usize;
        // `kept <= at`: the stores reach no further than the vector just
        // loaded.
        pack(pending, kept, removed, [key, link], [index, b, limit]);
        kept += removed.count_ones() as usize;
        at += LANES;
    }
    kept
}

/// Stores the lanes `lanes` of a key and link (`wide`), and of a position,
/// bucket and limit (`narrow`, 32-bit values), packed from element `to` of
/// the pending arrays (a whole vector each: `to + 8 <= capacity + 16`, as
/// `to <= count <= capacity`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
fn pack(
    pending: &mut Pending,
    to: usize,
    lanes: __mmask8,
    wide: [__m512i; 2],
    narrow: [__m512i; 3],
) {
    let [key, link] = wide;
    let [index, bucket, limit] = narrow;
    let packed = |v: __m512i| _mm512_cvtepi64_epi32(_mm512_maskz_compress_epi64(lanes, v));
    // SAFETY: each slice is 8 elements, the 64 or 32 bytes each unaligned
    // store writes.
    unsafe {
        _mm512_storeu_si512(
            pending.key[to..to + LANES].as_mut_ptr().cast(),
            _mm512_maskz_compress_epi64(lanes, key),
        );
        _mm512_storeu_si512(
            pending.link[to..to + LANES].as_mut_ptr().cast(),
            _mm512_maskz_compress_epi64(lanes, link),
        );
        _mm256_storeu_si256(
            pending.index[to..to + LANES].as_mut_ptr().cast(),
            packed(index),
        );
        _mm256_storeu_si256(
            pending.bucket[to..to + LANES].as_mut_ptr().cast(),
            packed(bucket),
        );
        _mm256_storeu_si256(
            pending.limit[to..to + LANES].as_mut_ptr().cast(),
            packed(limit),
        );
    }
}

/// 8 `u32` widened to the 64-bit lanes.
///
/// # Safety
/// `v` must hold 8 elements.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
unsafe fn load_u32(v: &[u32]) -> __m512i {
    debug_assert_eq!(v.len(), LANES);
    // SAFETY: `v` is 8 `u32`, the 32 bytes the unaligned load reads.
    _mm512_cvtepu32_epi64(unsafe { _mm256_loadu_si256(v.as_ptr().cast()) })
}

#[inline]
#[target_feature(enable = "avx512f")]
fn low_half() -> __m512i {
    _mm512_set1_epi64(0xFFFF_FFFF)
}

/// The working count of links (0 for a working bucket).
#[inline]
#[target_feature(enable = "avx512f")]
fn working_of(link: __m512i) -> __m512i {
    _mm512_and_si512(link, low_half())
}

/// The links of buckets `b` in the lanes `lanes`, `src`'s elsewhere. The
/// buckets are clamped to the table, so that no gather reads outside it
/// whatever the lanes hold.
#[inline]
#[target_feature(enable = "avx512f")]
fn gather(src: __m512i, lanes: __mmask8, b: __m512i, links: &[u64]) -> __m512i {
    let last = _mm512_set1_epi64(links.len() as i64 - 1);
    // SAFETY: every index is at most `links.len() - 1` (clamped), 8 bytes
    // apart, so each lane reads an element of `links`.
    unsafe {
        _mm512_mask_i64gather_epi64::<8>(
            src,
            lanes,
            _mm512_min_epu64(b, last),
            links.as_ptr().cast(),
        )
    }
}

/// `h mod r` in every lane, for `1 <= r < 2^31` (see the module
/// documentation).
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn remainder(h: __m512i, r: __m512i) -> __m512i {
    // 1 / r from the 14-bit estimate and two Newton steps (relative error
    // 2^-14, then about 2^-28, then within a few units of the last place).
    let divisor = _mm512_cvtepu64_pd(r);
    let one = _mm512_set1_pd(1.0);
    let newton = |x: __m512d| _mm512_fmadd_pd(x, _mm512_fnmadd_pd(divisor, x, one), x);
    let inverse = newton(newton(_mm512_rcp14_pd(divisor)));
    let reduce = |x: __m512i| {
        let q = _mm512_cvttpd_epu64(_mm512_mul_pd(_mm512_cvtepu64_pd(x), inverse));
        let t = _mm512_sub_epi64(x, _mm512_mullo_epi64(q, r));
        let negative = _mm512_cmplt_epi64_mask(t, _mm512_setzero_si512());
        let t = _mm512_mask_add_epi64(t, negative, t, r);
        let over = _mm512_cmpge_epi64_mask(t, r);
        _mm512_mask_sub_epi64(t, over, t, r)
    };
    let high = reduce(_mm512_srli_epi64::<32>(h));
    reduce(_mm512_or_si512(
        _mm512_slli_epi64::<32>(high),
        _mm512_and_si512(h, low_half()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane remainder against `%` over the divisors' and dividends'
    /// extremes and random pairs.
    #[test]
    fn remainder_is_the_modulo() {
        let Some(_) = crate::Kernel::avx512() else {
            return;
        };
        let mut random = crate::splitmix::SplitMix64::new(0x1234_5678_9ABC_DEF0);
        let mut next = move || random.next_u64();
        let divisors = [1u64, 2, 3, 7, 1000, (1 << 31) - 1, (1 << 31) - 2, 1 << 30];
        let dividends = [
            0u64,
            1,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 32) - 1,
            1 << 32,
        ];
        let mut pairs: Vec<(u64, u64)> = divisors
            .iter()
            .flat_map(|&r| dividends.iter().map(move |&h| (h, r)))
            .collect();
        for _ in 0..if cfg!(miri) { 64 } else { 1 << 20 } {
            let r = match next() % 3 {
                0 => next() % 16 + 1,
                1 => next() % ((1 << 31) - 1) + 1,
                _ => (1 << 31) - 1 - next() % 16,
            };
            let h = match next() % 3 {
                0 => next(),
                // Multiples of r and their neighbours, where a quotient
                // off by one shows.
                1 => (next() % (u64::MAX / r)) * r,
                _ => ((next() % (u64::MAX / r)) * r).wrapping_sub(1),
            };
            pairs.push((h, r));
        }
        for chunk in pairs.chunks(LANES) {
            let (mut h, mut r) = ([0u64; LANES], [1u64; LANES]);
            for (i, &(hi, ri)) in chunk.iter().enumerate() {
                (h[i], r[i]) = (hi, ri);
            }
            let mut got = [0u64; LANES];
            // SAFETY: AVX-512F and DQ were detected above; each array is 8
            // `u64`, the 64 bytes each load and store touches.
            unsafe {
                let v = remainder(
                    _mm512_loadu_si512(h.as_ptr().cast()),
                    _mm512_loadu_si512(r.as_ptr().cast()),
                );
                _mm512_storeu_si512(got.as_mut_ptr().cast(), v);
            }
            for i in 0..chunk.len() {
                assert_eq!(got[i], h[i] % r[i], "{} mod {}", h[i], r[i]);
            }
        }
    }
}
