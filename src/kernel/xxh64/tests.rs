//! Every lane kernel's XXH64 against `xxhash_rust`, through one harness
//! ([`check`]): adversarial and random keys, seeds at the edges of the
//! 32- and 64-bit ranges, every length from 0 to 300 and slices starting
//! off any vector boundary, with the words around the slice checked
//! untouched, hashed in place and into another area. Small under Miri, which runs
//! the scalar and AVX2 hashes (see `.ci/miri`).

use super::round::P1;
use super::*;

#[test]
fn scalar_is_xxh64() {
    check(Some(Kernel::scalar()), "scalar");
}

#[test]
fn avx2_is_xxh64() {
    check(Kernel::avx2(), "avx2");
}

#[test]
fn avx512_is_xxh64() {
    check(Kernel::avx512(), "avx512");
}

#[test]
fn neon_is_xxh64() {
    check(Kernel::neon(), "neon");
}

/// Keys every test slice is cut from: edges first, then random ones.
fn keys() -> Vec<u64> {
    let mut keys = vec![0, 1, u64::MAX, u64::MAX - 1, u32::MAX.into(), 1 << 32];
    for i in 0..64 {
        keys.extend([1u64 << i, !(1u64 << i)]);
    }
    keys.extend(crate::splitmix::SplitMix64::new(0).keys(400));
    keys
}

/// Seeds: 0, the ends of the range, and
/// around 2^32 (the weighted tables' coins take `2^32 + attempt`).
const SEEDS: [u64; 8] = [
    0,
    1,
    63,
    u32::MAX as u64,
    1 << 32,
    (1 << 32) + 5,
    u64::MAX,
    P1,
];

/// Holds `kernel` (when this CPU runs it; `JUMPSHARD_REQUIRE_KERNELS`
/// naming it makes its absence fail) against `xxhash_rust`.
fn check(kernel: Option<Kernel>, name: &str) {
    // Miri answers detection from the enabled target features: built with
    // AVX2, the AVX2 hash must be among those tested.
    #[cfg(target_feature = "avx2")]
    assert!(name != "avx2" || kernel.is_some());
    let Some(kernel) = kernel else {
        let required = std::env::var("JUMPSHARD_REQUIRE_KERNELS").unwrap_or_default();
        assert!(
            !required.split(',').any(|r| r.trim() == name),
            "JUMPSHARD_REQUIRE_KERNELS names {name}, but this CPU or target lacks it"
        );
        return;
    };
    let pool = keys();
    let lengths: Vec<usize> = if cfg!(miri) {
        vec![0, 1, 2, 3, 4, 5, 7, 8, 9, 17]
    } else {
        (0..=300).collect()
    };
    let seeds: &[u64] = if cfg!(miri) { &SEEDS[..3] } else { &SEEDS };
    for &len in &lengths {
        for start in [0, 1, 3, 7] {
            for &seed in seeds {
                let want: Vec<u64> = pool[start..start + len]
                    .iter()
                    .map(|&k| xxhash_rust::xxh64::xxh64(&k.to_le_bytes(), seed))
                    .collect();
                let mut buf = pool.clone();
                kernel.xxh64(&mut buf[start..start + len], seed);
                assert_eq!(
                    buf[start..start + len],
                    want,
                    "{kernel}, seed {seed}, {len} keys from {start}"
                );
                assert_eq!(buf[..start], pool[..start], "{kernel}: before the slice");
                assert_eq!(
                    buf[start + len..],
                    pool[start + len..],
                    "{kernel}: after the slice"
                );
                // Into another area, misaligned its own way.
                let at = (start + 5) % 8;
                let mut out = vec![u64::MAX; at + len + 9];
                kernel.xxh64_into(&pool[start..start + len], &mut out[at..at + len], seed);
                assert_eq!(out[at..at + len], want, "{kernel}, into, seed {seed}");
                assert!(out[..at]
                    .iter()
                    .chain(&out[at + len..])
                    .all(|&w| w == u64::MAX));
            }
        }
    }
}
