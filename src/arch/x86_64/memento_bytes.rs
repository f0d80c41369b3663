//! Memento's byte keys on removed buckets on AVX-512's 8 lanes: the rounds
//! of `memento`, whose rehash of a key is XXH64 of its bytes with the
//! removed bucket as seed. The 8 keys of a vector that rehash in a round
//! are hashed together ([`seeded`], every length up to [`MAX_LEN`] bytes in
//! one vector); a longer key, or any key of data under 8 bytes (which the
//! lanes' 8-byte reads would overrun), is hashed alone by `xxhash_rust`.

use core::arch::x86_64::*;

use super::memento::{resolve_with, Pending};
use super::xxh64_medium_avx512::{seeded, MAX_LEN};
use crate::bytes::Offset;
use crate::placement::memento::span::LONG;

const LANES: usize = 8;

/// Resolves every answer of `out` that is removed, as
/// [`super::memento::resolve`] does for u64 keys: `out` holds Figure 1's
/// buckets of the byte keys `data[offsets[i]..offsets[i + 1]]`, and
/// `spans` those keys' spans (see `crate::placement::memento::span`).
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ, AVX2 and POPCNT. (Offsets out
/// of order or past `data` panic; a span outside `data` is not read.)
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
pub(crate) unsafe fn resolve_bytes<O: Offset>(
    data: &[u8],
    offsets: &[O],
    spans: &[u64],
    out: &mut [u32],
    removed: &[u64],
    links: &[u64],
    pending: &mut Pending,
) {
    assert_eq!(offsets.len(), out.len() + 1);
    let rehash = |span, index, seed, lanes| rehash(data, offsets, span, index, seed, lanes);
    resolve_with(spans, out, removed, links, pending, rehash);
}

/// XXH64 with seed `seed` (in each lane) of the keys of spans `span`, at
/// the positions `index` of `offsets`, in the lanes `lanes` (0 in the
/// others).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2")]
fn rehash<O: Offset>(
    data: &[u8],
    offsets: &[O],
    span: __m512i,
    index: __m512i,
    seed: __m512i,
    lanes: __mmask8,
) -> __m512i {
    if lanes == 0 {
        return _mm512_setzero_si512();
    }
    let from = _mm512_srli_epi64::<16>(span);
    let lens = _mm512_and_si512(span, _mm512_set1_epi64(LONG as i64));
    // Checked rather than trusted: a span past the data is not read (the
    // sum of a start under 2^48 and a length under 2^16 does not wrap).
    let end = _mm512_set1_epi64(data.len() as i64);
    let inside = _mm512_cmple_epu64_mask(_mm512_add_epi64(from, lens), end);
    // `LONG` is over `MAX_LEN`: a key without a span is never short.
    let short = _mm512_cmple_epu64_mask(lens, _mm512_set1_epi64(MAX_LEN as i64));
    let fit = if data.len() >= 8 {
        lanes & inside & short
    } else {
        0
    };
    // The other lanes' keys are empty, and read nothing.
    let mut hashes = if fit == 0 {
        _mm512_setzero_si512()
    } else {
        // SAFETY: the lanes `fit` hold keys inside `data`, checked above,
        // of at most `MAX_LEN` bytes; `data` holds 8 bytes or more.
        unsafe {
            seeded(
                data,
                _mm512_maskz_mov_epi64(fit, from),
                _mm512_maskz_mov_epi64(fit, lens),
                seed,
            )
        }
    };
    let alone = lanes & !fit;
    if alone != 0 {
        let (mut at, mut seeds, mut h) = ([0u64; LANES], [0u64; LANES], [0u64; LANES]);
        // SAFETY: 8 `u64` each, the 64 bytes each store writes.
        unsafe {
            _mm512_storeu_si512(at.as_mut_ptr().cast(), index);
            _mm512_storeu_si512(seeds.as_mut_ptr().cast(), seed);
            _mm512_storeu_si512(h.as_mut_ptr().cast(), hashes);
        }
        for l in (0..LANES).filter(|&l| alone >> l & 1 == 1) {
            let (from, to) = (offsets[at[l] as usize], offsets[at[l] as usize + 1]);
            let key = &data[from.widen() as usize..to.widen() as usize];
            h[l] = xxhash_rust::xxh64::xxh64(key, seeds[l]);
        }
        // SAFETY: 8 `u64`, the 64 bytes the load reads.
        hashes = unsafe { _mm512_loadu_si512(h.as_ptr().cast()) };
    }
    hashes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::memento::span::span;

    /// Every length to 300 (on the lanes to [`MAX_LEN`], alone past it)
    /// and keys too long for a span, from every start modulo 8, in vectors
    /// of mixed lengths and random seeds, and in data of under 8 bytes:
    /// `xxhash_rust`'s XXH64.
    #[test]
    fn seeded_rehashes_are_xxh64() {
        if crate::Kernel::avx512().is_none() {
            return;
        }
        let mut random = crate::splitmix::SplitMix64::new(0x0DDB_1A5E_5BAD_5EED);
        let mut next = move || random.next_u64();
        // Past 300, two keys too long for a span, which go by their offsets.
        let lengths: Vec<u64> = (0..=300)
            .chain((0..2000).map(|_| next() % 300))
            .chain([65_535, 70_000, 3])
            .collect();
        let mut offsets = vec![next() % 8];
        for &len in &lengths {
            let at = offsets.last().unwrap() + len;
            offsets.push(at);
            // A key of 0 or 1 byte between, so that starts vary.
            offsets.push(at + next() % 2);
        }
        let data: Vec<u8> = (0..*offsets.last().unwrap())
            .map(|_| next() as u8)
            .collect();
        let tiny = [7u8, 1, 2, 3, 4, 5, 6];
        let tiny_offsets = [0u64, 0, 1, 3, 3, 6, 7];
        for (data, offsets) in [(&data[..], &offsets[..]), (&tiny[..], &tiny_offsets[..])] {
            let keys = offsets.len() - 1;
            for first in (0..keys).step_by(LANES) {
                let (mut at, mut seeds) = ([0u64; LANES], [0u64; LANES]);
                for l in 0..LANES {
                    at[l] = ((first + l) % keys) as u64;
                    seeds[l] = match next() % 3 {
                        0 => next() % 1000,
                        1 => u64::from(next() as u32 >> 1),
                        _ => next(),
                    };
                }
                // Every lane, then some.
                for lanes in [0xFF, next() as u8 | 1] {
                    let mut got = [0u64; LANES];
                    let span: [u64; LANES] = core::array::from_fn(|l| {
                        let i = at[l] as usize;
                        span(offsets[i], offsets[i + 1])
                    });
                    // SAFETY: AVX-512F and DQ were detected above; each array
                    // is 8 `u64`, the 64 bytes each load and store touches.
                    unsafe {
                        let h = rehash(
                            data,
                            offsets,
                            _mm512_loadu_si512(span.as_ptr().cast()),
                            _mm512_loadu_si512(at.as_ptr().cast()),
                            _mm512_loadu_si512(seeds.as_ptr().cast()),
                            lanes,
                        );
                        _mm512_storeu_si512(got.as_mut_ptr().cast(), h);
                    }
                    for l in (0..LANES).filter(|&l| lanes >> l & 1 == 1) {
                        let from = offsets[at[l] as usize] as usize;
                        let to = offsets[at[l] as usize + 1] as usize;
                        let want = xxhash_rust::xxh64::xxh64(&data[from..to], seeds[l]);
                        assert_eq!(
                            got[l],
                            want,
                            "{} bytes from {from}, seed {}",
                            to - from,
                            seeds[l]
                        );
                    }
                }
            }
        }
    }
}
