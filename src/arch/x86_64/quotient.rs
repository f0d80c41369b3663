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
//! The quotient `RN(1 / D)` comes from one of two exact forms, chosen per
//! vector at compile time (the kernels' `NEWTON` parameter, set by the
//! [`crate::Division`] strategy):
//!
//! - IEEE division (`vdivpd`), Figure 1's own operation;
//! - a reciprocal estimate (`vrcp14pd` on AVX-512, `vrcpps` on AVX2)
//!   refined by FMA steps ([`newton_512`], [`newton_256`]). This is a
//!   replacement of an IEEE operation, so the exhaustive tests below check
//!   it, like the division, against Figure 1's `2^31 / d` for every one of
//!   the 2^31 divisors. It costs six (AVX-512) or ten (AVX2, with its
//!   conversions) floating-point operations where division costs one, but
//!   they run on the FMA ports, which on CPUs with a slow divider (Intel's
//!   `vdivpd zmm` takes 16 cycles) are idle while the divider is the
//!   bottleneck.

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
pub(crate) fn scaled_divisor_512(state: __m512i) -> __m512d {
    let biased = _mm512_or_si512(
        _mm512_srli_epi64::<33>(state),
        _mm512_set1_epi64(SCALED_MAGIC as i64),
    );
    _mm512_sub_pd(_mm512_castsi512_pd(biased), _mm512_set1_pd(SCALED_OFFSET))
}

/// `D = ((state >> 33) + 1) 2^-31`, exact, for four LCG states. A shift,
/// measured faster than a shuffle that spares the multiply ports (see docs/kernels.md).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn scaled_divisor_256(state: __m256i) -> __m256d {
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

/// `RN(1 / D)` from the 14-bit reciprocal estimate, for eight scaled
/// divisors. With `e = 1 - D q` (exact in one FMA), `q (1 + e + e^2)` has
/// relative error about `e^3 <= 2^-42`; one correction `q + q (1 - D q)`
/// leaves about `2^-84`. A bound alone does not settle the final rounding
/// at that distance (`1 / D` can lie as close as `2^-86` to a rounding
/// midpoint when `D` has 32 significant bits): the exhaustive test below
/// does, for every divisor. (The same shortcut from AVX2's coarser 12-bit
/// estimate fails that test for 409 divisors, so [`newton_256`] takes one
/// more term.)
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn newton_512(scaled: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let q = _mm512_rcp14_pd(scaled);
    let e = _mm512_fnmadd_pd(scaled, q, one);
    let q = _mm512_fmadd_pd(q, _mm512_fmadd_pd(e, e, e), q);
    let r = _mm512_fnmadd_pd(scaled, q, one);
    _mm512_fmadd_pd(q, r, q)
}

/// `RN(1 / D)` from the 12-bit single-precision reciprocal estimate, for
/// four scaled divisors: from relative error up to `1.5 2^-12`,
/// `q (1 + e + e^2 + e^3)` leaves about `e^4 = 2^-45.6` and the correction
/// about `2^-91`, inside the `2^-86` margin. `D` is in
/// `[2^-31, 1]`, well inside the single-precision range.
#[inline]
#[target_feature(enable = "avx,fma")]
pub(super) fn newton_256(scaled: __m256d) -> __m256d {
    let one = _mm256_set1_pd(1.0);
    let q = _mm256_cvtps_pd(_mm_rcp_ps(_mm256_cvtpd_ps(scaled)));
    let e = _mm256_fnmadd_pd(scaled, q, one);
    let p = _mm256_fmadd_pd(_mm256_fmadd_pd(e, e, e), e, e);
    let q = _mm256_fmadd_pd(q, p, q);
    let r = _mm256_fnmadd_pd(scaled, q, one);
    _mm256_fmadd_pd(q, r, q)
}

/// `RN(1 / D)` for eight scaled divisors, by [`newton_512`] when `NEWTON`,
/// else by IEEE division.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn quotient_512<const NEWTON: bool>(scaled: __m512d) -> __m512d {
    if NEWTON {
        newton_512(scaled)
    } else {
        divide_512(scaled)
    }
}

/// `RN(1 / D)` for four scaled divisors, by [`newton_256`] when `NEWTON`,
/// else by IEEE division.
#[inline]
#[target_feature(enable = "avx,fma")]
pub(crate) fn quotient_256<const NEWTON: bool>(scaled: __m256d) -> __m256d {
    if NEWTON {
        newton_256(scaled)
    } else {
        divide_256(scaled)
    }
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
    fn sweep_512<const NEWTON: bool>() -> (u64, u64) {
        let two31 = _mm512_set1_pd(2_147_483_648.0);
        let mut d = _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8);
        let step = _mm512_set1_epi64(8);
        let (mut bad, mut seen) = (0u64, 0u64);
        for _ in 0..ALL / 8 {
            let state = _mm512_slli_epi64::<33>(_mm512_sub_epi64(d, _mm512_set1_epi64(1)));
            let scaled = scaled_divisor_512(state);
            // What Figure 1 computes: 2^31 / (double)d.
            let want = _mm512_castpd_si512(_mm512_div_pd(two31, int_to_f64_512(d)));
            let got = _mm512_castpd_si512(quotient_512::<NEWTON>(scaled));
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

    #[target_feature(enable = "avx2,fma")]
    fn sweep_256<const NEWTON: bool>() -> (u64, u64) {
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
            let got = _mm256_castpd_si256(quotient_256::<NEWTON>(scaled));
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
        let (bad, seen) = unsafe { sweep_512::<false>() };
        assert_eq!(seen, ALL);
        assert_eq!(bad, 0, "1 / D differs from 2^31 / d");
    }

    #[test]
    #[cfg_attr(miri, ignore = "exhaustive: 2^31 divisors take days under Miri")]
    fn avx512_newton_quotient_is_exact_for_every_divisor() {
        if !is_x86_feature_detected!("avx512f") {
            assert!(!required("avx512"), "AVX-512F required but missing");
            return;
        }
        // SAFETY: AVX-512F, the only feature `sweep_512` enables, was
        // detected just above.
        let (bad, seen) = unsafe { sweep_512::<true>() };
        assert_eq!(seen, ALL);
        assert_eq!(bad, 0, "the refined reciprocal differs from 2^31 / d");
    }

    #[test]
    #[cfg_attr(miri, ignore = "exhaustive: 2^31 divisors take days under Miri")]
    fn avx2_quotient_is_exact_for_every_divisor() {
        if !is_x86_feature_detected!("avx2") || !is_x86_feature_detected!("fma") {
            assert!(!required("avx2"), "AVX2 required but missing");
            return;
        }
        // SAFETY: AVX2 and FMA, the features `sweep_256` enables, were
        // detected just above.
        let (bad, seen) = unsafe { sweep_256::<false>() };
        assert_eq!(seen, ALL);
        assert_eq!(bad, 0, "1 / D differs from 2^31 / d");
    }

    #[test]
    #[cfg_attr(miri, ignore = "exhaustive: 2^31 divisors take days under Miri")]
    fn avx2_newton_quotient_is_exact_for_every_divisor() {
        if !is_x86_feature_detected!("avx2") || !is_x86_feature_detected!("fma") {
            assert!(!required("avx2"), "AVX2 required but missing");
            return;
        }
        // SAFETY: AVX2 and FMA, the features `sweep_256` enables, were
        // detected just above.
        let (bad, seen) = unsafe { sweep_256::<true>() };
        assert_eq!(seen, ALL);
        assert_eq!(bad, 0, "the refined reciprocal differs from 2^31 / d");
    }
}
