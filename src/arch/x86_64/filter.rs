//! The AVX-512 selection of moving keys (see `crate::kernel::filter`): 16 buckets
//! compared at once, and the moving ones' buckets, keys and positions
//! compressed to the front of a register and stored whole at the fill
//! level. Compression into a register, then a plain store, because the
//! compressing store to memory is microcoded and slow on some cores.

use core::arch::x86_64::*;

use crate::kernel::filter::{filter_from, Staged};

/// The filter of `crate::kernel::filter`, 16 keys per step; the last fewer than
/// 16 keys go through the portable loop.
///
/// # Safety
/// The CPU must support AVX-512F and POPCNT.
#[target_feature(enable = "avx512f,popcnt")]
pub(crate) unsafe fn movers(
    keys: &[u64],
    buckets: &[u32],
    threshold: u32,
    base: u64,
    staged: &mut Staged,
) -> usize {
    let limit = _mm512_set1_epi32(threshold as i32);
    let step = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let mut n = 0;
    let mut i = 0;
    while i + 16 <= buckets.len() {
        // Every store below covers `n..n + 16` at most, and `n <= i`, so
        // the bounds-checked subslices stay within the block's length.
        let b = &buckets[i..i + 16];
        let (k0, k1) = (&keys[i..i + 8], &keys[i + 8..i + 16]);
        // SAFETY: `b` is 16 `u32` and `k0`, `k1` 8 `u64` each: the 64
        // bytes each unaligned load reads.
        let (b, k0, k1) = unsafe {
            (
                _mm512_loadu_si512(b.as_ptr().cast()),
                _mm512_loadu_si512(k0.as_ptr().cast()),
                _mm512_loadu_si512(k1.as_ptr().cast()),
            )
        };
        let moving = _mm512_cmpge_epu32_mask(b, limit);
        let (low, high) = (moving as __mmask8, (moving >> 8) as __mmask8);
        let split = n + low.count_ones() as usize;
        let p0 = _mm512_add_epi64(_mm512_set1_epi64((base + i as u64) as i64), step);
        let p1 = _mm512_add_epi64(p0, _mm512_set1_epi64(8));
        let to_buckets = &mut staged.buckets[n..n + 16];
        let (to_k0, to_p0) = (&mut staged.keys[n..n + 8], &mut staged.positions[n..n + 8]);
        // SAFETY: the destination is 16 `u32` or 8 `u64`: the 64 bytes
        // each unaligned store writes.
        unsafe {
            _mm512_storeu_si512(
                to_buckets.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi32(moving, b),
            );
            _mm512_storeu_si512(
                to_k0.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi64(low, k0),
            );
            _mm512_storeu_si512(
                to_p0.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi64(low, p0),
            );
        }
        let (to_k1, to_p1) = (
            &mut staged.keys[split..split + 8],
            &mut staged.positions[split..split + 8],
        );
        // SAFETY: as above, 8 `u64` each.
        unsafe {
            _mm512_storeu_si512(
                to_k1.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi64(high, k1),
            );
            _mm512_storeu_si512(
                to_p1.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi64(high, p1),
            );
        }
        n = split + high.count_ones() as usize;
        i += 16;
    }
    filter_from(keys, buckets, threshold, base, staged, i, n)
}
