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
//! The reciprocal is an estimate refined by Newton steps
//! `e = 1 - D y; y' = y + y e`, each computed with one rounding by FMA.
//! Each step squares the relative error until `y` is as good as a double
//! gets (about 2^-53); then `e` is exact and the last step's exact value
//! `y (1 + e)` is within relative `e^2` (below 2^-90) of `1 / D`. A rounding
//! midpoint `m` (a 54-bit odd multiple of a power of two) is never that
//! close: `1/d - m = (2^p - d (2M + 1)) / (d 2^p)` with a nonzero integer
//! numerator and `2^p <= 2^85 d`, so the relative distance is at least
//! 2^-85. The one rounding of the last FMA therefore lands on `RN(1 / D)`.
//! That argument is backed by the exhaustive tests below, which check every
//! one of the 2^31 divisors against the hardware division.

use core::arch::x86_64::*;

/// `2^21` as a double: its unit in the last place is `2^-31`, so OR-ing a
/// 31-bit integer `m` into its mantissa gives the double `2^21 + m 2^-31`.
const SCALED_MAGIC: u64 = 0x4140_0000_0000_0000;

/// Subtracting this from `2^21 + m 2^-31` leaves `(m + 1) 2^-31` exactly
/// (both operands and the result lie on the `2^-32` grid below `2^22`).
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

/// `RN(1 / D)` from `vrcp14pd` (relative error below 2^-14) and three
/// Newton steps (2^-28, then 2^-53, then the correctly rounded last step).
/// Only valid for the scaled divisors `D = d 2^-31`, `d` in `[1, 2^31]`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn newton_512(scaled: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let mut y = _mm512_rcp14_pd(scaled);
    for _ in 0..3 {
        let e = _mm512_fnmadd_pd(scaled, y, one);
        y = _mm512_fmadd_pd(y, e, y);
    }
    y
}

/// `RN(1 / D)` from `vrcpps` on the divisor rounded to single precision
/// (relative error below 1.5 2^-12 + 2^-24) and three Newton steps (about
/// 2^-22.8, then 2^-45.6, then the correctly rounded last step). Only valid
/// for the scaled divisors `D = d 2^-31`, `d` in `[1, 2^31]`.
#[inline]
#[target_feature(enable = "avx,fma")]
pub(super) fn newton_256(scaled: __m256d) -> __m256d {
    let one = _mm256_set1_pd(1.0);
    let mut y = _mm256_cvtps_pd(_mm_rcp_ps(_mm256_cvtpd_ps(scaled)));
    for _ in 0..3 {
        let e = _mm256_fnmadd_pd(scaled, y, one);
        y = _mm256_fmadd_pd(y, e, y);
    }
    y
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

    /// Mismatches of both quotients and the count of divisors seen.
    #[target_feature(enable = "avx512f")]
    fn sweep_512() -> (u64, u64, u64) {
        let two31 = _mm512_set1_pd(2_147_483_648.0);
        let mut d = _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8);
        let step = _mm512_set1_epi64(8);
        let (mut bad_newton, mut bad_divide, mut seen) = (0u64, 0u64, 0u64);
        for _ in 0..ALL / 8 {
            let state = _mm512_slli_epi64::<33>(_mm512_sub_epi64(d, _mm512_set1_epi64(1)));
            let scaled = scaled_divisor_512(state);
            // What Figure 1 computes: 2^31 / (double)d.
            let want = _mm512_castpd_si512(_mm512_div_pd(two31, int_to_f64_512(d)));
            let newton = _mm512_castpd_si512(newton_512(scaled));
            let divide = _mm512_castpd_si512(divide_512(scaled));
            bad_newton += u64::from(_mm512_cmpneq_epi64_mask(newton, want).count_ones());
            bad_divide += u64::from(_mm512_cmpneq_epi64_mask(divide, want).count_ones());
            seen += 8;
            d = _mm512_add_epi64(d, step);
        }
        (bad_newton, bad_divide, seen)
    }

    /// Exact integer-to-double conversion without AVX-512DQ, the same
    /// magic-number trick at exponent 52 (d < 2^52).
    #[target_feature(enable = "avx512f")]
    fn int_to_f64_512(d: __m512i) -> __m512d {
        let magic = _mm512_set1_epi64(0x4330_0000_0000_0000);
        let biased = _mm512_castsi512_pd(_mm512_or_si512(d, magic));
        _mm512_sub_pd(biased, _mm512_set1_pd(4_503_599_627_370_496.0))
    }

    #[target_feature(enable = "avx2,fma")]
    fn sweep_256() -> (u64, u64, u64) {
        let two31 = _mm256_set1_pd(2_147_483_648.0);
        let magic = _mm256_set1_epi64x(0x4330_0000_0000_0000);
        let mut d = _mm256_setr_epi64x(1, 2, 3, 4);
        let step = _mm256_set1_epi64x(4);
        let (mut bad_newton, mut bad_divide, mut seen) = (0u64, 0u64, 0u64);
        for _ in 0..ALL / 4 {
            let state = _mm256_slli_epi64::<33>(_mm256_sub_epi64(d, _mm256_set1_epi64x(1)));
            let scaled = scaled_divisor_256(state);
            let exact_d = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(d, magic)),
                _mm256_set1_pd(4_503_599_627_370_496.0),
            );
            let want = _mm256_castpd_si256(_mm256_div_pd(two31, exact_d));
            let newton = _mm256_castpd_si256(newton_256(scaled));
            let divide = _mm256_castpd_si256(divide_256(scaled));
            let differ = |a: __m256i| {
                let eq = _mm256_castsi256_pd(_mm256_cmpeq_epi64(a, want));
                u64::from(4 - _mm256_movemask_pd(eq).count_ones())
            };
            bad_newton += differ(newton);
            bad_divide += differ(divide);
            seen += 4;
            d = _mm256_add_epi64(d, step);
        }
        (bad_newton, bad_divide, seen)
    }

    #[test]
    fn avx512_quotient_is_exact_for_every_divisor() {
        if !(is_x86_feature_detected!("avx512f")) {
            assert!(!required("avx512"), "AVX-512F required but missing");
            return;
        }
        // SAFETY: AVX-512F, the only feature `sweep_512` enables, was
        // detected just above.
        let (bad_newton, bad_divide, seen) = unsafe { sweep_512() };
        assert_eq!(seen, ALL);
        assert_eq!(bad_newton, 0, "Newton reciprocal differs from 2^31 / d");
        assert_eq!(bad_divide, 0, "1 / D differs from 2^31 / d");
    }

    #[test]
    fn avx2_quotient_is_exact_for_every_divisor() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            assert!(!required("avx2"), "AVX2 and FMA required but missing");
            return;
        }
        // SAFETY: AVX2 and FMA, the features `sweep_256` enables, were
        // detected just above.
        let (bad_newton, bad_divide, seen) = unsafe { sweep_256() };
        assert_eq!(seen, ALL);
        assert_eq!(bad_newton, 0, "Newton reciprocal differs from 2^31 / d");
        assert_eq!(bad_divide, 0, "1 / D differs from 2^31 / d");
    }
}
