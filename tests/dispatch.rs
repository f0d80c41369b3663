//! The dispatch honours `JUMPSHARD_KERNEL`, as CI sets it for each kernel in
//! turn, and the forced kernel agrees with Figure 1 through the plain batch
//! calls.

mod common;

use jumpshard::{active_kernel, kernel_selection, BucketCount, Kernel, KERNEL_ENV};

#[test]
fn environment_override_is_honoured_or_reported() {
    let selection = kernel_selection();
    match std::env::var(KERNEL_ENV).ok().filter(|v| !v.is_empty()) {
        None => assert_eq!(selection.kernel, Kernel::detect()),
        Some(name) => {
            assert_eq!(selection.requested.as_deref(), Some(name.as_str()));
            match Kernel::by_name(&name) {
                Ok(kernel) => {
                    assert_eq!(selection.kernel, kernel);
                    assert_eq!(selection.refused, None);
                }
                Err(why) => {
                    assert_eq!(selection.kernel, Kernel::detect());
                    assert_eq!(selection.refused, Some(why));
                }
            }
        }
    }
    assert_eq!(active_kernel(), selection.kernel);
}

#[test]
fn forced_kernel_matches_reference_through_batch() {
    let mut keys = common::adversarial_keys();
    keys.extend(common::SplitMix64::new(11).keys(1 << 18));
    for n in common::edge_bucket_counts() {
        let want = common::reference_batch(&keys, n);
        let mut got = vec![0u32; keys.len()];
        jumpshard::batch(&keys, BucketCount::new(n).unwrap(), &mut got).unwrap();
        common::assert_same(active_kernel(), "dispatched", &keys, n, &got, &want);
        jumpshard::batch_parallel(&keys, BucketCount::new(n).unwrap(), &mut got, 2).unwrap();
        common::assert_same(
            active_kernel(),
            "dispatched, parallel",
            &keys,
            n,
            &got,
            &want,
        );
    }
}
