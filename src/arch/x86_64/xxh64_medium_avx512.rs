//! XXH64 with seed 0 of keys of 17 to [`MAX_LEN`] bytes on AVX-512's 8
//! lanes: Memento's byte-key pre-hash past the short keys that
//! `xxh3_avx512` takes; and with a seed per lane of keys of 0 to
//! [`MAX_LEN`] bytes, Memento's rehashes of byte keys ([`seeded`]). XXH64
//! multiplies only 64-bit words by constants, which AVX-512DQ does in one
//! instruction, so the lanes beat the key-by-key loop here (XXH3 over 16
//! bytes needs 128-bit products, which the lanes build from four 32-bit
//! ones: slower than one key at a time).
//!
//! The specification's steps, each applied to the lanes whose length
//! takes it and skipped when none does: 32-byte stripes into four
//! accumulators while 32 bytes remain, merged into the state; the length
//! added; each remaining whole 8-byte word; a 4-byte word if 4 of the
//! rest remain; each byte left; the avalanche. Stripes and words come by
//! masked gathers, so a lane reads only its own key's bytes; the last
//! `len % 8` bytes come from one read of 8 bytes that ends at the key's
//! end (at byte 8 of the data for a key ending before it).

use core::arch::x86_64::*;

use crate::kernel::xxh64::round::{P1, P2, P3, P4, P5};

const LANES: usize = 8;

/// The longest key the lanes take: four stripes. Longer keys are rare
/// among ids, and one would make its whole vector walk its stripes.
pub(crate) const MAX_LEN: u64 = 128;

/// The shortest: shorter keys are `xxh3_avx512::short`'s.
const MIN_LEN: u64 = 17;

/// Writes XXH64 with seed 0 of each key that `long` lists (positions
/// into `offsets`, whose keys cut `data`) and that is 17 to [`MAX_LEN`]
/// bytes long and inside `data`, into `out` at its position, and keeps the
/// others at the front of `long`, in order, returning how many.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ and AVX2. (Positions out of
/// `offsets` or `out` panic.)
#[target_feature(enable = "avx512f,avx512dq,avx2")]
pub(crate) unsafe fn medium(
    data: &[u8],
    offsets: &[u64],
    long: &mut [u32],
    out: &mut [u64],
) -> usize {
    let mut kept = 0;
    // A vector's keys: their positions, starts and lengths.
    let mut group = [0u32; LANES];
    let mut start = [0u64; LANES];
    let mut len = [0u64; LANES];
    let mut filled = 0;
    for i in 0..long.len() {
        let at = long[i];
        let (from, to) = (offsets[at as usize], offsets[at as usize + 1]);
        // Checked here rather than trusted: a key out of order or past the
        // data stays with the caller's loop, which refuses it.
        let inside = from <= to && to <= data.len() as u64;
        if !inside || !(MIN_LEN..=MAX_LEN).contains(&(to - from)) {
            long[kept] = at;
            kept += 1;
            continue;
        }
        (group[filled], start[filled], len[filled]) = (at, from, to - from);
        filled += 1;
        if filled == LANES {
            // SAFETY: the group's keys lie inside `data`, checked above.
            unsafe { hash_group(data, &group, &start, &len, LANES, out) };
            filled = 0;
        }
    }
    if filled > 0 {
        // The last vector's free lanes repeat its first key.
        for l in filled..LANES {
            (start[l], len[l]) = (start[0], len[0]);
        }
        // SAFETY: as above.
        unsafe { hash_group(data, &group, &start, &len, filled, out) };
    }
    kept
}

/// XXH64 of the keys `data[start[l]..start[l] + len[l]]` into
/// `out[group[l]]` for the first `count` lanes.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ and AVX2; every key lies
/// inside `data` and is 17 to [`MAX_LEN`] bytes long.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2")]
unsafe fn hash_group(
    data: &[u8],
    group: &[u32; LANES],
    start: &[u64; LANES],
    len: &[u64; LANES],
    count: usize,
    out: &mut [u64],
) {
    // SAFETY: 8 `u64` each, the 64 bytes each load reads; then the
    // caller's promises, and `data` holds a key of 17 bytes.
    let h = unsafe {
        let starts = _mm512_loadu_si512(start.as_ptr().cast());
        let lens = _mm512_loadu_si512(len.as_ptr().cast());
        seeded(data, starts, lens, _mm512_setzero_si512())
    };
    let mut hashes = [0u64; LANES];
    // SAFETY: 8 `u64`, the 64 bytes the store writes.
    unsafe { _mm512_storeu_si512(hashes.as_mut_ptr().cast(), h) };
    for (&at, &hash) in group.iter().zip(&hashes).take(count) {
        out[at as usize] = hash;
    }
}

/// XXH64 with seed `seed` of each lane's key, `data[start..start + len]`
/// for its `starts` and `lens`, 0 to [`MAX_LEN`] bytes long (a lane of
/// length 0 reads nothing): Memento's rehashes of byte keys, and the
/// pre-hash.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ and AVX2; every key lies
/// inside `data`, which holds at least 8 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2")]
pub(crate) unsafe fn seeded(data: &[u8], starts: __m512i, lens: __m512i, seed: __m512i) -> __m512i {
    debug_assert!(data.len() >= 8);
    let base = data.as_ptr();
    // Each lane's word at byte `at`, or 0 where `lanes` is clear.
    let word = |lanes: __mmask8, at: __m512i| {
        // SAFETY: the callers below ask, in the lanes they set, only for
        // words inside `data`; the other lanes read nothing.
        unsafe { _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), lanes, at, base.cast()) }
    };
    let mut h = _mm512_add_epi64(seed, splat(P5));
    // The longest key is only asked for when some key has a stripe.
    if _mm512_cmpge_epu64_mask(lens, splat(32)) != 0 {
        let longest = _mm512_reduce_max_epu64(lens);
        // The stripes' rows are picked lane by lane.
        let (mut start, mut len) = ([0u64; LANES], [0u64; LANES]);
        // SAFETY: 8 `u64` each, the 64 bytes each store writes.
        unsafe {
            _mm512_storeu_si512(start.as_mut_ptr().cast(), starts);
            _mm512_storeu_si512(len.as_mut_ptr().cast(), lens);
        }
        let stripes = _mm512_srli_epi64::<5>(lens);
        let mut acc = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)]
            .map(|a| _mm512_add_epi64(seed, splat(a)));
        for stripe in 0..longest / 32 {
            let lanes = _mm512_cmpgt_epu64_mask(stripes, splat(stripe));
            // Each lane's stripe, or 32 zero bytes where it has none.
            let rows: [*const u8; LANES] = core::array::from_fn(|l| {
                if len[l] >= 32 * (stripe + 1) {
                    // SAFETY: within the key, which lies in `data`.
                    unsafe { base.add((start[l] + 32 * stripe) as usize) }
                } else {
                    NO_STRIPE.as_ptr()
                }
            });
            // SAFETY: each row points at 32 readable bytes: a stripe of its
            // key, or `NO_STRIPE`.
            let words = unsafe { transpose(&rows) };
            for (acc, w) in acc.iter_mut().zip(words) {
                *acc = _mm512_mask_mov_epi64(*acc, lanes, round(*acc, w));
            }
        }
        let [v1, v2, v3, v4] = acc;
        let mut merged = _mm512_add_epi64(
            _mm512_add_epi64(_mm512_rol_epi64::<1>(v1), _mm512_rol_epi64::<7>(v2)),
            _mm512_add_epi64(_mm512_rol_epi64::<12>(v3), _mm512_rol_epi64::<18>(v4)),
        );
        for v in acc {
            merged = _mm512_add_epi64(
                mul(
                    _mm512_xor_si512(merged, round(_mm512_setzero_si512(), v)),
                    P1,
                ),
                splat(P4),
            );
        }
        h = _mm512_mask_mov_epi64(h, _mm512_cmpge_epu64_mask(lens, splat(32)), merged);
    }
    h = _mm512_add_epi64(h, lens);
    // The whole words after the stripes, from the first stripe boundary
    // at or below the length.
    let words = _mm512_srli_epi64::<3>(_mm512_and_si512(lens, splat(31)));
    let after = _mm512_add_epi64(starts, _mm512_andnot_si512(splat(31), lens));
    for w in 0..3 {
        let lanes = _mm512_cmpgt_epu64_mask(words, splat(w));
        if lanes == 0 {
            break;
        }
        let x = word(lanes, _mm512_add_epi64(after, splat(8 * w)));
        let stepped = _mm512_add_epi64(
            mul(
                _mm512_rol_epi64::<27>(_mm512_xor_si512(h, round(_mm512_setzero_si512(), x))),
                P1,
            ),
            splat(P4),
        );
        h = _mm512_mask_mov_epi64(h, lanes, stepped);
    }
    // The last `len % 8` bytes, from the 8 bytes that end at the key's end
    // (or the data's first 8, for a key ending before byte 8), brought to
    // the low end: a shift of 64 bits, at `len % 8 = 0`, leaves none. No
    // gather at all when no lane has such bytes (a gather of no lanes
    // still costs one of all).
    let odd = _mm512_test_epi64_mask(lens, splat(7));
    let ends = _mm512_add_epi64(starts, lens);
    let window = _mm512_sub_epi64(_mm512_max_epu64(ends, splat(8)), splat(8));
    let last = if odd == 0 {
        _mm512_setzero_si512()
    } else {
        word(odd, window)
    };
    let tail = _mm512_sub_epi64(ends, _mm512_and_si512(lens, splat(7)));
    let shift = _mm512_slli_epi64::<3>(_mm512_sub_epi64(tail, window));
    let mut rest = _mm512_srlv_epi64(last, shift);
    let four = _mm512_test_epi64_mask(lens, splat(4));
    if four != 0 {
        let x = _mm512_and_si512(rest, splat(0xFFFF_FFFF));
        let stepped = _mm512_add_epi64(
            mul(_mm512_rol_epi64::<23>(_mm512_xor_si512(h, mul(x, P1))), P2),
            splat(P3),
        );
        h = _mm512_mask_mov_epi64(h, four, stepped);
        rest = _mm512_mask_mov_epi64(rest, four, _mm512_srli_epi64::<32>(rest));
    }
    let bytes = _mm512_and_si512(lens, splat(3));
    for at_least in 1..=3 {
        let lanes = _mm512_cmpge_epu64_mask(bytes, splat(at_least));
        if lanes == 0 {
            break;
        }
        let x = _mm512_and_si512(rest, splat(0xFF));
        let stepped = mul(_mm512_rol_epi64::<11>(_mm512_xor_si512(h, mul(x, P5))), P1);
        h = _mm512_mask_mov_epi64(h, lanes, stepped);
        rest = _mm512_srli_epi64::<8>(rest);
    }
    // The avalanche.
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<33>(h));
    let h = mul(h, P2);
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<29>(h));
    let h = mul(h, P3);
    _mm512_xor_si512(h, _mm512_srli_epi64::<32>(h))
}

/// What a lane without a stripe reads instead.
static NO_STRIPE: [u8; 32] = [0; 32];

/// The words of 8 rows of 32 bytes: word `q` of every row in vector `q`.
/// Two rows to a vector, their words paired by unpacks, the pairs put in
/// order by permutes: 12 shuffles for 8 plain loads, where the 4 gathers
/// they replace wait on memory one word at a time.
///
/// # Safety
/// Each row points at 32 readable bytes.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn transpose(rows: &[*const u8; LANES]) -> [__m512i; 4] {
    // SAFETY: 32 bytes at each row, the caller's promise.
    let pair = |l: usize| unsafe {
        let low = _mm256_loadu_si256(rows[l].cast());
        let high = _mm256_loadu_si256(rows[l + 4].cast());
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
    };
    let (a, b, c, d) = (pair(0), pair(1), pair(2), pair(3));
    // Per 128 bits, rows (0, 1) and (2, 3), then (4, 5) and (6, 7):
    // words 0 and 2 in the low unpacks, 1 and 3 in the high ones.
    let (even01, odd01) = (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
    let (even23, odd23) = (_mm512_unpacklo_epi64(c, d), _mm512_unpackhi_epi64(c, d));
    let first = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    let second = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    [
        _mm512_permutex2var_epi64(even01, first, even23),
        _mm512_permutex2var_epi64(odd01, first, odd23),
        _mm512_permutex2var_epi64(even01, second, even23),
        _mm512_permutex2var_epi64(odd01, second, odd23),
    ]
}

/// XXH64's round: `acc + input * P2`, rotated left by 31, times `P1`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn round(acc: __m512i, input: __m512i) -> __m512i {
    mul(
        _mm512_rol_epi64::<31>(_mm512_add_epi64(acc, mul(input, P2))),
        P1,
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mul(x: __m512i, by: u64) -> __m512i {
    _mm512_mullo_epi64(x, splat(by))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}
