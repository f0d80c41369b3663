//! The move plan (one evaluation for most keys, a second for movers, on
//! every kernel) against the two-evaluation plan.

#![no_main]
#![deny(missing_docs)]

use jumpshard::{BucketCount, Kernel, MovePlan, Resize};
use libfuzzer_sys::fuzz_target;

/// A bucket count from 4 bytes: small half the time.
fn count(b: [u8; 4]) -> BucketCount {
    let raw = u32::from_le_bytes(b);
    let n = if raw & 1 == 0 {
        (raw >> 1) % 64 + 1
    } else {
        (raw >> 1) % 0x7FFF_FFFF + 1
    };
    BucketCount::new(n).unwrap()
}

fuzz_target!(|data: &[u8]| {
    let [a0, a1, a2, a3, b0, b1, b2, b3, p, rest @ ..] = data else {
        return;
    };
    let (from, to) = (count([*a0, *a1, *a2, *a3]), count([*b0, *b1, *b2, *b3]));
    let Ok(resize) = Resize::new(from, to) else {
        return;
    };
    let first = u64::from(*p) << 56 | u64::from(*p);
    let keys: Vec<u64> = rest
        .chunks(8)
        .map(|c| {
            let mut k = [0u8; 8];
            k[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(k)
        })
        .collect();
    let mut want = Vec::new();
    for (i, &k) in keys.iter().enumerate() {
        let (f, t) = (jumpshard::bucket(k, from), jumpshard::bucket(k, to));
        if f != t {
            want.push((first + i as u64, f, t));
        }
        assert_eq!(resize.destination(k), (f != t).then_some((f, t)));
    }
    let mut per_destination = std::collections::BTreeMap::new();
    for m in &want {
        *per_destination.entry(m.2).or_insert(0u64) += 1;
    }
    let before = jumpshard::active_kernel();
    // One plan reused across kernels, as a stream reuses its chunks' plans.
    let mut plan = MovePlan::new();
    for kernel in Kernel::supported() {
        jumpshard::set_active_kernel(kernel);
        resize.plan(&keys, first, &mut plan);
        let got: Vec<(u64, u32, u32)> = plan.moves().map(|m| (m.position, m.from, m.to)).collect();
        assert_eq!(got, want, "kernel {kernel}");
        assert_eq!(plan.keys(), keys.len());
        // The expected counts, and a total that leaves no room for others.
        let counts = plan.per_destination();
        assert_eq!(counts.total(), want.len() as u64);
        for (&bucket, &n) in &per_destination {
            assert_eq!(counts.get(bucket), n, "kernel {kernel}, bucket {bucket}");
        }
    }
    jumpshard::set_active_kernel(before);
});
