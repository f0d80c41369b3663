//! Memento's byte keys on removed buckets on AVX-512's 8 lanes: the rounds
//! of `memento`, whose rehash of a key is XXH64 of its bytes with the
//! removed bucket as seed. The 8 keys of a vector that rehash in a round
//! are hashed together ([`seeded`], every length up to [`MAX_LEN`] bytes in
//! one vector); a longer key, or any key of data under 8 bytes (which the
//! lanes' 8-byte reads would overrun), is hashed alone by `xxhash_rust`.

use core::arch::x86_64::*;

use super::memento::{resolve_with, Pending};
use super::xxh64_medium_avx512::{seeded, MAX_LEN};

const LANES: usize = 8;

/// Resolves every answer of `out` that is removed, as
/// [`super::memento::resolve`] does for u64 keys: `out` holds Figure 1's
/// buckets of `keys`, the first-stage keys (XXH64 with seed 0) of the byte
/// keys `data[offsets[i]..offsets[i + 1]]`.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512DQ, AVX2 and POPCNT. (Offsets out
/// of order or past `data` panic.)
#[target_feature(enable = "avx512f,avx512dq,avx2,popcnt")]
pub(crate) unsafe fn resolve_bytes(
    data: &[u8],
    offsets: &[u64],
    keys: &[u64],
    out: &mut [u32],
    removed: &[u64],
    links: &[u64],
    pending: &mut Pending,
) {
    assert_eq!(offsets.len(), out.len() + 1);
    let rehash = |_, index, seed, lanes| rehash(data, offsets, index, seed, lanes);
    resolve_with(keys, out, removed, links, pending, rehash);
}

/// XXH64 with seed `seed` (in each lane) of the keys at the positions
/// `index` of `offsets`, in the lanes `lanes` (0 in the others).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx2")]
fn rehash(data: &[u8], offsets: &[u64], index: __m512i, seed: __m512i, lanes: __mmask8) -> __m512i {
    if lanes == 0 {
        return _mm512_setzero_si512();
    }
    let (mut at, mut seeds) = ([0u64; LANES], [0u64; LANES]);
    // SAFETY: 8 `u64` each, the 64 bytes each store writes.
    unsafe {
        _mm512_storeu_si512(at.as_mut_ptr().cast(), index);
        _mm512_storeu_si512(seeds.as_mut_ptr().cast(), seed);
    }
    // The lanes' keys; the others are empty, and read nothing.
    let (mut start, mut len) = ([0u64; LANES], [0u64; LANES]);
    let mut alone = 0u8;
    for l in (0..LANES).filter(|&l| lanes >> l & 1 == 1) {
        let (from, to) = (offsets[at[l] as usize], offsets[at[l] as usize + 1]);
        // Checked rather than trusted: a key out of order or past the data
        // goes to the slicing below, which refuses it.
        let inside = from <= to && to <= data.len() as u64;
        if inside && to - from <= MAX_LEN && data.len() >= 8 {
            (start[l], len[l]) = (from, to - from);
        } else {
            alone |= 1 << l;
        }
    }
    let mut hashes = [0u64; LANES];
    if alone != lanes {
        // SAFETY: the lanes' keys lie inside `data`, checked above, of at
        // most `MAX_LEN` bytes; `data` holds 8 bytes or more.
        unsafe {
            _mm512_storeu_si512(hashes.as_mut_ptr().cast(), seeded(data, &start, &len, seed))
        };
    }
    for l in (0..LANES).filter(|&l| alone >> l & 1 == 1) {
        let key = &data[offsets[at[l] as usize] as usize..offsets[at[l] as usize + 1] as usize];
        hashes[l] = xxhash_rust::xxh64::xxh64(key, seeds[l]);
    }
    // SAFETY: 8 `u64`, the 64 bytes the load reads.
    unsafe { _mm512_loadu_si512(hashes.as_ptr().cast()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length to 300 (on the lanes to [`MAX_LEN`], alone past it),
    /// from every start modulo 8, in vectors of mixed lengths and random
    /// seeds, and in data of under 8 bytes: `xxhash_rust`'s XXH64.
    #[test]
    fn seeded_rehashes_are_xxh64() {
        if crate::Kernel::avx512().is_none() {
            return;
        }
        let mut state = 0x0DDB_1A5E_5BAD_5EEDu64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state ^ state >> 29
        };
        let lengths: Vec<u64> = (0..=300).chain((0..2000).map(|_| next() % 300)).collect();
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
                let lanes = (next() as u8) | 1;
                let mut got = [0u64; LANES];
                // SAFETY: AVX-512F and DQ were detected above; each array
                // is 8 `u64`, the 64 bytes each load and store touches.
                unsafe {
                    let h = rehash(
                        data,
                        offsets,
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
