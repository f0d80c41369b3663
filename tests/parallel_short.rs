//! A short batch through `batch_parallel` or `jumpshard_batch_parallel`
//! runs on the calling thread and starts no thread pool. Alone in its test
//! binary so that nothing else starts the pool first.

use jumpshard::BucketCount;

extern "C" {
    fn jumpshard_batch_parallel(
        keys: *const u64,
        len: usize,
        num_buckets: i32,
        out: *mut i32,
        threads: usize,
    ) -> i32;
}

/// The threads of this process, from procfs.
#[cfg(target_os = "linux")]
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[cfg(target_os = "linux")]
#[test]
fn short_parallel_batches_start_no_threads() {
    let keys: Vec<u64> = (0..4096).collect();
    let mut out = vec![0u32; keys.len()];
    let mut c_out = vec![0i32; keys.len()];
    let before = threads();
    for len in [0, 1, 2, 8, 64, 4096] {
        jumpshard::batch_parallel(
            &keys[..len],
            BucketCount::new(1000).unwrap(),
            &mut out[..len],
            0,
        )
        .unwrap();
        // SAFETY: both pointers come from live slices of at least `len`
        // elements, which do not overlap.
        let status =
            unsafe { jumpshard_batch_parallel(keys.as_ptr(), len, 1000, c_out.as_mut_ptr(), 0) };
        assert_eq!(status, 0);
    }
    assert_eq!(threads(), before, "a short batch started threads");
    let n = BucketCount::new(1000).unwrap();
    assert!(keys
        .iter()
        .zip(&out)
        .all(|(&k, &b)| b == jumpshard::bucket(k, n)));
}
