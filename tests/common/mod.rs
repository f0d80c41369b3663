//! The shared differential harness: every kernel goes through
//! [`check_kernel`], which holds it against the C++ Figure 1 reference.
#![allow(dead_code)] // each test binary uses a different part of it

use std::sync::OnceLock;

use jumpshard::{reference, BucketCount, Kernel};

#[allow(unused_imports)] // each test binary uses a different part
pub use jumpshard::verify::{adversarial_keys, key_reaching, SplitMix64, LCG_MULTIPLIER};

/// The library's edge counts, as plain integers.
pub fn edge_bucket_counts() -> Vec<u32> {
    jumpshard::verify::edge_bucket_counts()
        .into_iter()
        .map(|n| n.get())
        .collect()
}

/// Figure 1 from the C++ reference, as `u32` (valid counts only).
pub fn reference_batch(keys: &[u64], n: u32) -> Vec<u32> {
    let mut out = vec![0i32; keys.len()];
    reference::batch(keys, n as i32, &mut out);
    out.into_iter().map(|b| b as u32).collect()
}

fn run(kernel: Kernel, keys: &[u64], n: u32, out: &mut [u32]) {
    kernel
        .batch(keys, BucketCount::new(n).unwrap(), out)
        .unwrap();
}

/// Compares, and names the first differing key when there is one.
pub fn assert_same(kernel: Kernel, what: &str, keys: &[u64], n: u32, got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len());
    let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{kernel} ({} division) differs from Figure 1 on {bad} of {} keys ({what}, N={n}); first: key {} gives {}, reference {}",
            kernel.division(),
            got.len(),
            keys[i],
            got[i],
            want[i]
        );
    }
}

/// Every length from 0 to 600, so that every crossover between a kernel's
/// paths (one key, the short path's vector counts and block splits, the
/// switch to the refilling loop, at 192, 256 and 512 keys on x86, and the
/// loop's tails) is covered, and a few long ones (past an outbox flush).
fn tail_lengths() -> Vec<usize> {
    let mut lens: Vec<usize> = (0..=600).collect();
    lens.extend([1000, 4097]);
    lens
}

/// The checks that need no large corpus: adversarial keys at every edge
/// count, every tail length and misaligned input and output buffers.
pub fn check_edges(kernel: Kernel) {
    let adversarial = adversarial_keys();
    let mut rng = SplitMix64::new(0xA11CE);
    for n in edge_bucket_counts() {
        let want = reference_batch(&adversarial, n);
        let mut got = vec![u32::MAX; adversarial.len()];
        run(kernel, &adversarial, n, &mut got);
        assert_same(kernel, "adversarial keys", &adversarial, n, &got, &want);
    }
    // Tails, with input and output offset independently from a 64-byte
    // boundary (the widest vector), so that no kernel can rely on alignment.
    let lanes = kernel.lanes().max(8);
    let pool = rng.keys(4097 + 64);
    for n in [1, 3, 1000, (1 << 31) - 1] {
        for len in tail_lengths() {
            for (in_off, out_off) in [(0, 0), (1, 0), (0, 3), (5, 7), (lanes - 1, 1)] {
                let keys = &pool[in_off..in_off + len];
                let want = reference_batch(keys, n);
                let mut buf = vec![u32::MAX; len + out_off + 16];
                run(kernel, keys, n, &mut buf[out_off..out_off + len]);
                assert_same(
                    kernel,
                    "tail/misaligned",
                    keys,
                    n,
                    &buf[out_off..out_off + len],
                    &want,
                );
                // Nothing outside the output slice was touched.
                assert!(
                    buf[..out_off].iter().all(|&b| b == u32::MAX),
                    "{kernel} wrote before out"
                );
                assert!(
                    buf[out_off + len..].iter().all(|&b| b == u32::MAX),
                    "{kernel} wrote past out"
                );
            }
        }
    }
}

/// The bulk corpus: 2^23 random keys at each of these 12 counts, just over
/// 10^8 (key, N) pairs, with the reference's answers, computed once per
/// test binary and shared by every kernel's test.
pub const BULK_KEYS: usize = 1 << 23;

/// The environment variable that scales the bulk corpus down for emulated
/// runs (`.ci/aarch64` under qemu), where 10^8 pairs per kernel would take
/// far longer than CI allows; unset, the corpus has [`BULK_KEYS`] keys.
pub const BULK_KEYS_ENV: &str = "JUMPSHARD_BULK_KEYS";

/// The keys of a test over `native` random keys beyond the bulk corpus,
/// scaled as `JUMPSHARD_BULK_KEYS` scales the corpus (`.ci/aarch64` sets
/// it under qemu) but never below `floor`, which keeps what the test needs
/// (several blocks, a fair count per bucket).
pub fn scaled_keys(native: usize, floor: usize) -> usize {
    let scaled = native as u128 * bulk_keys() as u128 / BULK_KEYS as u128;
    (scaled as usize).max(floor)
}

/// How many keys the bulk corpus has: [`BULK_KEYS`], or `JUMPSHARD_BULK_KEYS`
/// when set. A value that is not a positive integer fails the test rather
/// than quietly checking a different corpus.
pub fn bulk_keys() -> usize {
    match std::env::var(BULK_KEYS_ENV) {
        Err(std::env::VarError::NotPresent) => BULK_KEYS,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => panic!("{BULK_KEYS_ENV}={v:?} is not a positive number of keys"),
        },
        Err(e) => panic!("{BULK_KEYS_ENV}: {e}"),
    }
}
pub const BULK_COUNTS: [u32; 12] = [
    1,
    2,
    3,
    10,
    12,
    1000,
    65536,
    1_000_000,
    123_456_789,
    (1 << 30) + 1,
    (1 << 31) - 2,
    (1 << 31) - 1,
];

pub struct Corpus {
    pub keys: Vec<u64>,
    pub answers: Vec<Vec<u32>>, // one per BULK_COUNTS entry
}

pub fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let len = bulk_keys();
        if len != BULK_KEYS {
            eprintln!("note: bulk corpus scaled to {len} keys by {BULK_KEYS_ENV}");
        }
        let keys = SplitMix64::new(0x5EED_0FC0_FFEE).keys(len);
        let answers = std::thread::scope(|s| {
            let handles: Vec<_> = BULK_COUNTS
                .iter()
                .map(|&n| {
                    let keys = &keys;
                    s.spawn(move || reference_batch(keys, n))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        Corpus { keys, answers }
    })
}

/// The bulk check: over 10^8 (key, N) pairs against the reference.
pub fn check_bulk(kernel: Kernel) {
    let corpus = corpus();
    let mut got = vec![0u32; corpus.keys.len()];
    for (&n, want) in BULK_COUNTS.iter().zip(&corpus.answers) {
        run(kernel, &corpus.keys, n, &mut got);
        assert_same(kernel, "random keys", &corpus.keys, n, &got, want);
    }
}

/// Everything: the one call each kernel's test makes.
pub fn check_kernel(kernel: Kernel) {
    check_edges(kernel);
    check_bulk(kernel);
}

/// [`check_kernel`] with the kernel forced to `division`, which it must
/// have (every SIMD x86 kernel has every strategy).
pub fn check_division(kernel: Kernel, division: jumpshard::Division) {
    let kernel = kernel
        .with_division(division)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    assert_eq!(kernel.division(), division);
    check_kernel(kernel);
}

/// The kernel if this CPU runs it. Where it does not, the test passes with a
/// note, unless `JUMPSHARD_REQUIRE_KERNELS` (a comma-separated list, as CI
/// sets it) names it: then a missing kernel fails, so that a CI job cannot
/// silently test a different kernel from the one it claims.
pub fn kernel_or_skip(kernel: Option<Kernel>, name: &str) -> Option<Kernel> {
    if kernel.is_none() {
        let required = std::env::var("JUMPSHARD_REQUIRE_KERNELS").unwrap_or_default();
        assert!(
            !required.split(',').any(|r| r.trim() == name),
            "JUMPSHARD_REQUIRE_KERNELS names {name}, but this CPU or target lacks it"
        );
        eprintln!("note: {name} kernel not supported here; its checks were not run");
    }
    kernel
}

/// The checked-in golden vectors: `(key, num_buckets, bucket)` lines
/// starting with `u64`.
pub fn golden_u64() -> Vec<(u64, u32, u32)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/golden.txt");
    let text = std::fs::read_to_string(path).expect("read testdata/golden.txt");
    let rows: Vec<_> = text
        .lines()
        .filter(|l| l.starts_with("u64 "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect();
    assert!(
        rows.len() >= 100,
        "golden file too small: {} rows",
        rows.len()
    );
    rows
}
