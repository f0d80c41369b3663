//! The two halves of Figure 1's floating-point step that every x86 kernel
//! shares: the divisor `(state >> 33) + 1` as a double, and the quotient
//! `2^31 / divisor`, bit for bit what IEEE division gives.
//!
//! Both work on the *scaled* divisor `D = d * 2^-31` (d an integer in
//! `[1, 2^31]`, so `D` is in `[2^-31, 1]`): then `2^31 / d = 1 / D` as real
//! numbers, and since scaling by a power of two is exact (no overflow or
//! underflow in this range), `RN(2^31 / d) = RN(1 / D)`. That saves the
//! multiplication by `2^31` the quotient would otherwise need.
//!
//! The quotient is an IEEE division, `RN(1 / D)`. A reciprocal estimate
//! (`vrcp14pd`, or `vrcpps` on AVX2) refined by three FMA Newton steps also
//! gives `RN(1 / D)` for all these divisors (an exhaustive check passed),
//! but measured slower here, alone or mixed with division across vectors:
//! on AMD Zen 5 the divider keeps up with the kernels' other work, and the
//! seven extra floating-point operations do not. The exhaustive tests below
//! check the scaled divisor and the division together against Figure 1's
//! `2^31 / d` for every one of the 2^31 divisors.

use core::arch::x86_64::*;

/// `2^21` as a double: its unit in the last place is `2^-31`, so OR-ing a
/// 31-bit integer `m` into its mantissa gives the double `2^21 + m 2^-31`.
const SCALED_MAGIC: u64 = 0x4140_0000_0000_0000;
const _: () = assert!(SCALED_MAGIC == 2_097_152.0f64.to_bits());

/// Subtracting this from `2^21 + m 2^-31` leaves `(m + 1) 2^-31`, exactly:
/// that difference has at most 32 significant bits, so it is representable
/// and the subtraction does not round.
const SCALED_OFFSET: f64 = 2_097_152.0 - 1.0 / 2_147_483_648.0;

/// `D = ((state >> 33) + 1) 2^-31`, exact, for eight LCG states.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn scaled_divisor_512(state: __m512i) -> __m512d {
    let biased = _mm512_or_si512(
        _mm512_srli_epi64::<33>(state),
        _mm512_set1_epi64(SCALED_MAGIC as i64),
    );
    _mm512_sub_pd(_mm512_castsi512_pd(biased), _mm512_set1_pd(SCALED_OFFSET))
}

/// `D = ((state >> 33) + 1) 2^-31`, exact, for four LCG states.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn scaled_divisor_256(state: __m256i) -> __m256d {
    let biased = _mm256_or_si256(
        _mm256_srli_epi64::<33>(state),
        _mm256_set1_epi64x(SCALED_MAGIC as i64),
    );
    _mm256_sub_pd(_mm256_castsi256_pd(biased), _mm256_set1_pd(SCALED_OFFSET))
}

/// `RN(1 / D)` by IEEE division, for eight scaled divisors.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn divide_512(scaled: __m512d) -> __m512d {
    _mm512_div_pd(_mm512_set1_pd(1.0), scaled)
}

/// `RN(1 / D)` by IEEE division, for four scaled divisors.
#[inline]
#[target_feature(enable = "avx")]
pub(super) fn divide_256(scaled: __m256d) -> __m256d {
    _mm256_div_pd(_mm256_set1_pd(1.0), scaled)
}

#[cfg(test)]
mod tests {
    //! Exhaustive: every divisor `d` in `[1, 2^31]`, reached from the LCG
    //! state `(d - 1) << 33` exactly as the kernels reach it, against the
    //! IEEE quotient `2^31 / d` that Figure 1 computes.

    use super::*;

    /// The number of divisors checked, so that a loop bound slip cannot
    /// silently shrink the test.
    const ALL: u64 = 1 << 31;

    fn required(name: &str) -> bool {
        std::env::var("JUMPSHARD_REQUIRE_KERNELS")
            .unwrap_or_default()
            .split(',')
            .any(|r| r.trim() == name)
    }

    /// Mismatches and the count of divisors seen.
    #[target_feature(enable = "avx512f")]
    fn sweep_512() -> (u64, u64) {
        let two31 = _mm512_set1_pd(2_147_483_648.0);
        let mut d = _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8);
        let step = _mm512_set1_epi64(8);
        let (mut bad, mut seen) = (0u64, 0u64);
        for _ in 0..ALL / 8 {
            let state = _mm512_slli_epi64::<33>(_mm512_sub_epi64(d, _mm512_set1_epi64(1)));
            let scaled = scaled_divisor_512(state);
            // What Figure 1 computes: 2^31 / (double)d.
            let want = _mm512_castpd_si512(_mm512_div_pd(two31, int_to_f64_512(d)));
            let got = _mm512_castpd_si512(divide_512(scaled));
            bad += u64::from(_mm512_cmpneq_epi64_mask(got, want).count_ones());
            seen += 8;
            d = _mm512_add_epi64(d, step);
        }
        (bad, seen)
    }

    /// Exact integer-to-double conversion without AVX-512DQ, the same
    /// magic-number trick at exponent 52 (d < 2^52).
    #[target_feature(enable = "avx512f")]
    fn int_to_f64_512(d: __m512i) -> __m512d {
        let magic = _mm512_set1_epi64(0x4330_0000_0000_0000);
        let biased = _mm512_castsi512_pd(_mm512_or_si512(d, magic));
        _mm512_sub_pd(biased, _mm512_set1_pd(4_503_599_627_370_496.0))
    }

    #[target_feature(enable = "avx2")]
    fn sweep_256() -> (u64, u64) {
        let two31 = _mm256_set1_pd(2_147_483_648.0);
        let magic = _mm256_set1_epi64x(0x4330_0000_0000_0000);
        let mut d = _mm256_setr_epi64x(1, 2, 3, 4);
        let step = _mm256_set1_epi64x(4);
        let (mut bad, mut seen) = (0u64, 0u64);
        for _ in 0..ALL / 4 {
            let state = _mm256_slli_epi64::<33>(_mm256_sub_epi64(d, _mm256_set1_epi64x(1)));
            let scaled = scaled_divisor_256(state);
            let exact_d = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(d, magic)),
                _mm256_set1_pd(4_503_599_627_370_496.0),
            );
            let want = _mm256_castpd_si256(_mm256_div_pd(two31, exact_d));
            let got = _mm256_castpd_si256(divide_256(scaled));
            let same = _mm256_castsi256_pd(_mm256_cmpeq_epi64(got, want));
            bad += u64::from(4 - _mm256_movemask_pd(same).count_ones());
            seen += 4;
            d = _mm256_add_epi64(d, step);
        }
        (bad, seen)
    }

    #[test]
    #[cfg_attr(miri, ignore = "exhaustive: 2^31 divisors take days under Miri")]
    fn avx512_quotient_is_exact_for_every_divisor() {
        if !is_x86_feature_detected!("avx512f") {
            assert!(!required("avx512"), "AVX-512F required but missing");
            return;
        }
        // SAFETY: AVX-512F, the only feature `sweep_512` enables, was
        // detected just above.
        let (bad, seen) = unsafe { sweep_512() };
        assert_eq!(seen, ALL);
        assert_eq!(bad, 0, "1 / D differs from 2^31 / d");
    }

    #[test]
    #[cfg_attr(miri, ignore = "exhaustive: 2^31 divisors take days under Miri")]
    fn avx2_quotient_is_exact_for_every_divisor() {
        if !is_x86_feature_detected!("avx2") {
            assert!(!required("avx2"), "AVX2 required but missing");
            return;
        }
        // SAFETY: AVX2, the only feature `sweep_256` enables, was detected
        // just above.
        let (bad, seen) = unsafe { sweep_256() };
        assert_eq!(seen, ALL);
        assert_eq!(bad, 0, "1 / D differs from 2^31 / d");
    }
}
