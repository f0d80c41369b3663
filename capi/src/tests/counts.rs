//! Every count a C caller passes, at its extremes: bucket counts as
//! `int32_t` (0, -1, `INT32_MIN`, `INT32_MAX`), replica counts and thread
//! counts as `size_t` (0, `SIZE_MAX`, 2^31, 2^32, 2^63). Each is served or
//! refused with its status before anything is allocated or written.

use super::memento::*;
use super::*;

extern "C" {
    fn jumpshard_replicas(key: u64, num_buckets: i32, out: *mut i32, k: usize) -> i32;
    fn jumpshard_replicas_batch(
        keys: *const u64,
        len: usize,
        num_buckets: i32,
        k: usize,
        out: *mut i32,
    ) -> i32;
    fn jumpshard_memento_replicas_batch(
        memento: *const CMemento,
        keys: *const u64,
        len: usize,
        k: usize,
        out: *mut i32,
    ) -> i32;
}

const BAD_COUNTS: [i32; 3] = [0, -1, i32::MIN];
const HUGE: [usize; 4] = [usize::MAX, 1 << 31, 1 << 32, 1 << 63];

#[test]
fn bucket_counts_at_their_extremes() {
    let keys = [1u64, 2, u64::MAX];
    let mut out = [UNTOUCHED; 3];
    let mut handle = std::ptr::null_mut();
    for n in BAD_COUNTS {
        // SAFETY: 3 keys, 3 writable outputs, a writable handle pointer;
        // every call is refused before it writes.
        unsafe {
            assert_eq!(jumpshard_bucket(1, n), -1, "{n}");
            let o = out.as_mut_ptr();
            assert_eq!(
                jumpshard_batch(keys.as_ptr(), 3, n, o),
                INVALID_BUCKET_COUNT
            );
            assert_eq!(
                jumpshard_batch_parallel(keys.as_ptr(), 3, n, o, 0),
                INVALID_BUCKET_COUNT
            );
            assert_eq!(jumpshard_replicas(1, n, o, 2), INVALID_BUCKET_COUNT);
            assert_eq!(
                jumpshard_replicas_batch(keys.as_ptr(), 3, n, 1, o),
                INVALID_BUCKET_COUNT
            );
            assert_eq!(jumpshard_memento_new(n, &mut handle), INVALID_BUCKET_COUNT);
        }
        assert_eq!(out, [UNTOUCHED; 3]);
        assert!(handle.is_null());
    }
    // SAFETY: as above; these are served.
    unsafe {
        assert_eq!(
            jumpshard_bucket(u64::MAX, i32::MAX),
            jumpshard::bucket(u64::MAX, BucketCount::new(i32::MAX as u32).unwrap()) as i32
        );
        assert_eq!(
            jumpshard_batch(keys.as_ptr(), 3, i32::MAX, out.as_mut_ptr()),
            OK
        );
    }
}

#[test]
fn replica_and_thread_counts_at_their_extremes() {
    let keys = [1u64, 2, u64::MAX];
    let mut out = [UNTOUCHED; 6];
    let o = out.as_mut_ptr();
    let handle = Handle::new(10);
    for k in HUGE {
        // SAFETY: a `k` this large is refused before `out` is touched.
        unsafe {
            assert_eq!(
                jumpshard_replicas(1, i32::MAX, o, k),
                TOO_MANY_REPLICAS,
                "{k}"
            );
            assert_eq!(
                jumpshard_replicas_batch(keys.as_ptr(), 3, i32::MAX, k, o),
                TOO_MANY_REPLICAS
            );
            assert_eq!(
                jumpshard_memento_replicas_batch(handle.0, keys.as_ptr(), 3, k, o),
                TOO_MANY_REPLICAS
            );
        }
        assert_eq!(out, [UNTOUCHED; 6]);
    }
    // SAFETY: k = 0 writes nothing.
    unsafe {
        assert_eq!(jumpshard_replicas(1, 10, o, 0), OK);
        assert_eq!(jumpshard_replicas_batch(keys.as_ptr(), 3, 10, 0, o), OK);
        assert_eq!(
            jumpshard_memento_replicas_batch(handle.0, keys.as_ptr(), 3, 0, o),
            OK
        );
    }
    assert_eq!(out, [UNTOUCHED; 6]);
    let want = {
        let mut want = [0i32; 3];
        // SAFETY: 3 keys, 3 outputs.
        let status = unsafe { jumpshard_batch(keys.as_ptr(), 3, 1000, want.as_mut_ptr()) };
        assert_eq!(status, OK);
        want
    };
    for threads in [0, usize::MAX, 1 << 31, 1 << 32, 1 << 63] {
        let mut got = [UNTOUCHED; 3];
        // SAFETY: 3 keys, 3 outputs; a thread count is a bound, never a size.
        let status =
            unsafe { jumpshard_batch_parallel(keys.as_ptr(), 3, 1000, got.as_mut_ptr(), threads) };
        assert_eq!((status, got), (OK, want), "{threads}");
    }
}
