//! Every kernel's pre-hash of byte keys against `xxhash_rust`'s XXH3-64
//! (and XXH64, Memento's), through the blocks of `crate::bytes::lanes`:
//! every length from 0 to 300 (XXH3 over 16 bytes and XXH64 over 128
//! through the fallback), random and adversarial bytes, keys of one length and of
//! mixed lengths, data cut from any byte of a buffer with the last key at
//! its very end, data under 8 bytes, edge and random seeds; and on the
//! kernels with lanes every key of 1 to 3 bytes. Small under Miri, which
//! runs the scalar and AVX2 kernels (both through `xxhash_rust`, see
//! `.ci/miri`).

use crate::bytes::lanes::Prehash;
use crate::bytes::BLOCK;
use crate::splitmix::SplitMix64;
use crate::Kernel;

#[test]
fn scalar_is_xxh3() {
    check(Some(Kernel::scalar()), "scalar");
}

#[test]
fn avx2_is_xxh3() {
    check(Kernel::avx2(), "avx2");
}

#[test]
fn avx512_is_xxh3() {
    check(Kernel::avx512(), "avx512");
}

#[test]
fn neon_is_xxh3() {
    check(Kernel::neon(), "neon");
}

#[test]
fn every_key_of_one_to_three_bytes() {
    if cfg!(miri) {
        return;
    }
    // The kernels with byte-key lanes; the others call `xxhash_rust`
    // itself, which would be held to itself (and under qemu for minutes).
    let lanes = Kernel::supported()
        .into_iter()
        .filter(|k| k.name() == "avx512");
    for kernel in lanes {
        for seed in [0, 0x5EED_0000_0000_0001] {
            for len in 1..=3usize {
                // The keys of `len` bytes in runs that share their first
                // byte (one run for a single byte).
                let runs = if len == 3 { 256 } else { 1 };
                for first in 0..runs {
                    let count = 1usize << (8 * len.min(2));
                    let data: Vec<u8> = (0..count)
                        .flat_map(|k| {
                            let bytes = [first as u8, (k >> 8) as u8, k as u8];
                            bytes[3 - len..].to_vec()
                        })
                        .collect();
                    let offsets: Vec<u32> = (0..=count).map(|k| (k * len) as u32).collect();
                    compare(kernel, seed, &data, &offsets);
                }
            }
        }
    }
}

/// `prehash` of every key of `data` cut by `offsets`, block by block.
fn hashes(mut prehash: Prehash, data: &[u8], offsets: &[u32]) -> Vec<u64> {
    let mut got = vec![0u64; offsets.len() - 1];
    for (i, out) in got.chunks_mut(BLOCK).enumerate() {
        prehash.block(data, &offsets[i * BLOCK..], out);
    }
    got
}

/// Holds `kernel`'s block pre-hash of `data` cut by `offsets` to
/// `xxhash_rust`, key by key: XXH3-64 with `seed`, and with seed 0 also
/// XXH64 (Memento's byte keys).
fn compare(kernel: Kernel, seed: u64, data: &[u8], offsets: &[u32]) {
    let key = |i: usize| &data[offsets[i] as usize..offsets[i + 1] as usize];
    if seed == 0 {
        let got = hashes(Prehash::xxh64(kernel), data, offsets);
        for (i, got) in got.into_iter().enumerate() {
            let want = xxhash_rust::xxh64::xxh64(key(i), 0);
            assert_eq!(got, want, "{kernel}, XXH64, key {i}: {:02x?}", key(i));
        }
    }
    let got = hashes(Prehash::new(kernel, seed), data, offsets);
    for (i, got) in got.into_iter().enumerate() {
        let key = key(i);
        let want = xxhash_rust::xxh3::xxh3_64_with_seed(key, seed);
        assert_eq!(got, want, "{kernel}, seed {seed:#x}, key {i}: {key:02x?}");
        if seed == 0 {
            assert_eq!(got, xxhash_rust::xxh3::xxh3_64(key));
        }
    }
}

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
    let mut random = SplitMix64::new(0x8B17E5);
    let seeds = [0, 1, u64::MAX, random.next_u64()];
    let seeds = if cfg!(miri) { &seeds[..2] } else { &seeds[..] };
    let lengths: Vec<usize> = if cfg!(miri) {
        vec![0, 1, 3, 4, 8, 9, 16, 17]
    } else {
        (0..=300).collect()
    };
    // Fills: random bytes, all 0x00, all 0xFF; under Miri, which checks
    // memory accesses and not the values, random bytes only.
    let noise: Vec<u8> = (0..8192).map(|_| random.next_u64() as u8).collect();
    let fills: [&dyn Fn(usize) -> u8; 3] = [&|i| noise[i % noise.len()], &|_| 0, &|_| 0xFF];
    let fills = if cfg!(miri) { &fills[..1] } else { &fills[..] };
    // Keys per layout: past a vector and a tail on every kernel, fewer
    // under Miri.
    let keys = if cfg!(miri) { 3 } else { 11 };
    for &seed in seeds {
        for fill in fills {
            for &len in &lengths {
                // `skip` bytes before the first key, the last key at the
                // end of the data slice, cut from a larger buffer; under
                // Miri one of them, in turn from one length to the next.
                for (i, skip) in [0, 1, 7].into_iter().enumerate() {
                    if cfg!(miri) && i != len % 3 {
                        continue;
                    }
                    let buffer: Vec<u8> = (0..skip + keys * len + 5).map(fill).collect();
                    let data = &buffer[..skip + keys * len];
                    let offsets: Vec<u32> = (0..=keys).map(|k| (skip + k * len) as u32).collect();
                    compare(kernel, seed, data, &offsets);
                }
            }
            // Data shorter than the lanes' 8-byte windows, cut in two keys
            // at every place.
            for total in 0..8usize {
                let data: Vec<u8> = (0..total).map(fill).collect();
                for cut in 0..=total {
                    compare(kernel, seed, &data, &[0, cut as u32, total as u32]);
                }
            }
            // Mixed lengths around every class edge in one block, and a
            // block and a half of them.
            let edges = [
                0usize, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 24, 31, 32, 33, 36, 40, 63, 64, 65,
                100, 127, 128, 129, 240, 241,
            ];
            let count = if cfg!(miri) { 24 } else { BLOCK * 3 / 2 };
            let mut offsets = vec![3u32];
            for _ in 0..count {
                let len = edges[(random.next_u64() % edges.len() as u64) as usize];
                offsets.push(offsets[offsets.len() - 1] + len as u32);
            }
            let data: Vec<u8> = (0..offsets[count] as usize).map(fill).collect();
            compare(kernel, seed, &data, &offsets);
            // Random lengths of 17 to 140 bytes: vectors whose keys take
            // different numbers of stripes, words and bytes, and some
            // past the lanes' 128.
            let mut offsets = vec![1u32];
            for _ in 0..count {
                let len = 17 + random.next_u64() % 124;
                offsets.push(offsets[offsets.len() - 1] + len as u32);
            }
            let data: Vec<u8> = (0..offsets[count] as usize).map(fill).collect();
            compare(kernel, seed, &data, &offsets);
        }
    }
}
