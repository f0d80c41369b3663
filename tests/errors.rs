//! Every rejected input gets its own error, naming the bad value, and
//! leaves outputs untouched.

use jumpshard::{BucketCount, Error, Kernel};

#[test]
fn bucket_counts_out_of_range_are_named() {
    assert_eq!(
        BucketCount::new(0),
        Err(Error::InvalidBucketCount { value: 0 })
    );
    assert_eq!(
        BucketCount::new(1 << 31),
        Err(Error::InvalidBucketCount { value: 1 << 31 })
    );
    assert_eq!(
        BucketCount::new(u32::MAX),
        Err(Error::InvalidBucketCount {
            value: u32::MAX.into()
        })
    );
    assert_eq!(
        BucketCount::try_from(-1i32),
        Err(Error::InvalidBucketCount { value: -1 })
    );
    assert_eq!(
        BucketCount::try_from(i32::MIN),
        Err(Error::InvalidBucketCount {
            value: i32::MIN.into()
        })
    );
    assert_eq!(
        BucketCount::try_from(i64::MIN),
        Err(Error::InvalidBucketCount {
            value: i64::MIN.into()
        })
    );
    assert_eq!(
        BucketCount::try_from(u64::MAX),
        Err(Error::InvalidBucketCount {
            value: u64::MAX.into()
        })
    );
    assert_eq!(
        BucketCount::try_from(0usize),
        Err(Error::InvalidBucketCount { value: 0 })
    );
    let msg = BucketCount::try_from(-7i64).unwrap_err().to_string();
    assert!(msg.contains("-7") && msg.contains("2147483647"), "{msg}");
}

#[test]
fn bucket_counts_in_range_are_accepted() {
    assert_eq!(BucketCount::new(1).unwrap(), BucketCount::MIN);
    assert_eq!(BucketCount::try_from(i32::MAX).unwrap(), BucketCount::MAX);
    assert_eq!(BucketCount::try_from(12u8).unwrap().get(), 12);
}

#[test]
fn length_mismatches_are_errors_and_leave_out_untouched() {
    let n = BucketCount::new(10).unwrap();
    let keys = [1u64, 2, 3, 4];
    for out_len in [0usize, 3, 5, 100] {
        let mut out = vec![7u32; out_len];
        let want = Err(Error::LengthMismatch {
            keys: 4,
            out: out_len,
        });
        assert_eq!(jumpshard::batch(&keys, n, &mut out), want);
        for kernel in Kernel::supported() {
            assert_eq!(kernel.batch(&keys, n, &mut out), want, "{kernel}");
        }
        assert!(out.iter().all(|&b| b == 7));
    }
    let msg = jumpshard::batch(&keys, n, &mut [0; 1])
        .unwrap_err()
        .to_string();
    assert!(msg.contains('4') && msg.contains('1'), "{msg}");
}

#[test]
fn empty_batches_are_fine() {
    let n = BucketCount::new(10).unwrap();
    assert_eq!(jumpshard::batch(&[], n, &mut []), Ok(()));
}

#[test]
fn kernel_names_are_checked() {
    assert!(matches!(
        Kernel::by_name("AVX2"),
        Err(Error::UnknownKernel { .. })
    ));
    assert!(matches!(
        Kernel::by_name(""),
        Err(Error::UnknownKernel { .. })
    ));
    for name in Kernel::NAMES {
        match Kernel::by_name(name) {
            Ok(k) => assert_eq!(k.name(), name),
            Err(e) => assert_eq!(e, Error::UnsupportedKernel { name }),
        }
    }
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_length_mismatch_leaves_out_untouched() {
    let n = BucketCount::new(10).unwrap();
    let mut out = vec![9u32; 3];
    assert_eq!(
        jumpshard::batch_parallel(&[1, 2], n, &mut out, 2),
        Err(Error::LengthMismatch { keys: 2, out: 3 })
    );
    assert_eq!(out, [9, 9, 9]);
}

/// An error's text is whole for every value its fields can hold, an empty
/// cluster's too.
#[test]
fn not_a_bucket_of_an_empty_cluster_says_so() {
    let e = Error::NotABucket {
        bucket: 3,
        barray: 0,
    };
    assert_eq!(
        e.to_string(),
        "bucket 3 does not exist: the cluster has no bucket"
    );
    let e = Error::NotABucket {
        bucket: 7,
        barray: 5,
    };
    assert!(e.to_string().ends_with("buckets 0 to 4"), "{e}");
}
