//! Every kernel this CPU runs, on arbitrary keys, lengths, bucket counts
//! and start offsets, against the scalar loop and the compiled Figure 1.

#![no_main]
#![deny(missing_docs)]

use jumpshard::{BucketCount, Kernel};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [n0, n1, n2, n3, skip, rest @ ..] = data else {
        return;
    };
    let raw = u32::from_le_bytes([*n0, *n1, *n2, *n3]);
    // Small counts half the time (where most branches are), any otherwise.
    let n = if raw & 1 == 0 {
        (raw >> 1) % 1024 + 1
    } else {
        (raw >> 1) % 0x7FFF_FFFF + 1
    };
    let n = BucketCount::new(n).unwrap();
    let all: Vec<u64> = rest
        .chunks(8)
        .map(|c| {
            let mut k = [0u8; 8];
            k[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(k)
        })
        .collect();
    // Starting a few keys in moves the batch off the vector alignment.
    let keys = &all[(usize::from(*skip) % 8).min(all.len())..];
    let want: Vec<u32> = keys.iter().map(|&k| jumpshard::bucket(k, n)).collect();
    let mut reference = vec![0i32; keys.len()];
    jumpshard::reference::batch(keys, n.get() as i32, &mut reference);
    assert!(want.iter().zip(&reference).all(|(&w, &r)| w as i32 == r));
    for kernel in Kernel::supported() {
        let mut out = vec![u32::MAX; keys.len()];
        kernel.batch(keys, n, &mut out).unwrap();
        assert_eq!(out, want, "kernel {kernel}, N {}", n.get());
        let mut short = vec![u32::MAX; keys.len().saturating_sub(1)];
        if !keys.is_empty() {
            assert!(kernel.batch(keys, n, &mut short).is_err());
            assert!(short.iter().all(|&b| b == u32::MAX), "written on error");
        }
    }
});
