//! The dispatch honours `JUMPSHARD_KERNEL` and `JUMPSHARD_DIVISION`, as CI
//! sets them for each kernel and strategy in turn, and the forced kernel
//! agrees with Figure 1 through the plain batch calls.

mod common;

use jumpshard::{
    active_kernel, kernel_selection, BucketCount, Division, Kernel, DIVISION_ENV, KERNEL_ENV,
};

#[test]
fn environment_override_is_honoured_or_reported() {
    let selection = kernel_selection();
    let kernel = match std::env::var(KERNEL_ENV).ok().filter(|v| !v.is_empty()) {
        None => Kernel::detect(),
        Some(name) => {
            assert_eq!(selection.requested.as_deref(), Some(name.as_str()));
            match Kernel::by_name(&name) {
                Ok(kernel) => {
                    assert_eq!(selection.refused, None);
                    kernel
                }
                Err(why) => {
                    assert_eq!(selection.refused, Some(why));
                    Kernel::detect()
                }
            }
        }
    };
    let kernel = match std::env::var(DIVISION_ENV).ok().filter(|v| !v.is_empty()) {
        None => kernel,
        Some(name) => {
            assert_eq!(selection.division_requested.as_deref(), Some(name.as_str()));
            match Division::by_name(&name).and_then(|d| kernel.with_division(d)) {
                Ok(forced) => {
                    assert_eq!(selection.division_refused, None);
                    forced
                }
                Err(why) => {
                    assert_eq!(selection.division_refused, Some(why));
                    kernel
                }
            }
        }
    };
    assert_eq!(selection.kernel, kernel);
    assert_eq!(active_kernel(), selection.kernel);
}

#[test]
fn forced_kernel_matches_reference_at_every_short_length() {
    let keys = common::SplitMix64::new(13).keys(300 + 8);
    for n in [1, 10, 1000, 1_000_000, (1 << 31) - 1] {
        for len in 0..=300 {
            for offset in [0, 3] {
                let keys = &keys[offset..offset + len];
                let want = common::reference_batch(keys, n);
                let mut got = vec![u32::MAX; len];
                jumpshard::batch(keys, BucketCount::new(n).unwrap(), &mut got).unwrap();
                common::assert_same(active_kernel(), "short, dispatched", keys, n, &got, &want);
            }
        }
    }
}

#[test]
fn forced_kernel_matches_reference_through_batch() {
    // 2^18 random keys; under qemu, where `.ci/aarch64` runs this for each
    // kernel, 2^16.
    let mut keys = common::adversarial_keys();
    keys.extend(common::SplitMix64::new(11).keys(common::scaled_keys(1 << 18, 1 << 16)));
    for n in common::edge_bucket_counts() {
        let want = common::reference_batch(&keys, n);
        let mut got = vec![0u32; keys.len()];
        jumpshard::batch(&keys, BucketCount::new(n).unwrap(), &mut got).unwrap();
        common::assert_same(active_kernel(), "dispatched", &keys, n, &got, &want);
        #[cfg(feature = "parallel")]
        {
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
}
