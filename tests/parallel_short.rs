//! A short batch through `batch_parallel` runs on the calling thread and
//! starts no thread pool (`jumpshard_batch_parallel` is a checked call of
//! it). Alone in its test binary so that nothing else starts the pool first.

use jumpshard::BucketCount;

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
    let before = threads();
    for len in [0, 1, 2, 8, 64, 4096] {
        jumpshard::batch_parallel(
            &keys[..len],
            BucketCount::new(1000).unwrap(),
            &mut out[..len],
            0,
        )
        .unwrap();
    }
    assert_eq!(threads(), before, "a short batch started threads");
    let n = BucketCount::new(1000).unwrap();
    assert!(keys
        .iter()
        .zip(&out)
        .all(|(&k, &b)| b == jumpshard::bucket(k, n)));
}
