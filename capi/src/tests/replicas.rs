//! Replica sets, one key and a batch as columns, against the Rust API.

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
}

fn set(key: u64, n: i32, k: usize) -> Result<Vec<i32>, i32> {
    let mut out = vec![UNTOUCHED; k + 1];
    // SAFETY: `k + 1` writable elements.
    let status = unsafe { jumpshard_replicas(key, n, out.as_mut_ptr(), k) };
    assert_eq!(out.pop(), Some(UNTOUCHED), "written past out[k - 1]");
    match status {
        OK => Ok(out),
        _ => {
            assert_eq!(out, vec![UNTOUCHED; k], "written on error");
            Err(status)
        }
    }
}

fn batch(keys: &[u64], n: i32, k: usize) -> Result<Vec<i32>, i32> {
    let mut out = vec![UNTOUCHED; k * keys.len() + 1];
    // SAFETY: `k * len + 1` writable elements and `len` keys, disjoint.
    let status =
        unsafe { jumpshard_replicas_batch(keys.as_ptr(), keys.len(), n, k, out.as_mut_ptr()) };
    assert_eq!(out.pop(), Some(UNTOUCHED), "written past the last column");
    match status {
        OK => Ok(out),
        _ => {
            assert!(out.iter().all(|&b| b == UNTOUCHED), "written on error");
            Err(status)
        }
    }
}

#[test]
fn sets_and_columns_agree_with_the_rust_api() {
    let keys = keys(300);
    for n in [1, 2, 3, 10, 1000, i32::MAX] {
        let count = BucketCount::new(n as u32).unwrap();
        for k in [0, 1, 2, 3, 5] {
            if k > n as usize {
                assert_eq!(set(keys[0], n, k), Err(TOO_MANY_REPLICAS));
                assert_eq!(batch(&keys, n, k), Err(TOO_MANY_REPLICAS));
                continue;
            }
            let mut want = vec![0u32; k];
            for &key in &keys[..50] {
                jumpshard::replicas::set(key, count, &mut want).unwrap();
                let got = set(key, n, k).unwrap();
                assert!(got.iter().zip(&want).all(|(&g, &w)| g == w as i32));
                if k > 0 {
                    assert_eq!(got[0], bucket(key, n));
                }
            }
            for len in (0..=keys.len()).step_by(37).chain([1, 2, 299, 300]) {
                let got = batch(&keys[..len], n, k).unwrap();
                for (j, column) in got.chunks(len.max(1)).enumerate().take(k) {
                    for (i, &b) in column.iter().enumerate().take(len) {
                        jumpshard::replicas::set(keys[i], count, &mut want).unwrap();
                        assert_eq!(b, want[j] as i32, "n {n} k {k} len {len} [{j}][{i}]");
                    }
                }
            }
        }
    }
}

#[test]
fn replica_refusals_write_nothing() {
    assert_eq!(set(1, 0, 1), Err(INVALID_BUCKET_COUNT));
    assert_eq!(set(1, -5, 0), Err(INVALID_BUCKET_COUNT));
    assert_eq!(set(1, 3, 4), Err(TOO_MANY_REPLICAS));
    assert_eq!(batch(&keys(4), i32::MIN, 1), Err(INVALID_BUCKET_COUNT));
    assert_eq!(batch(&[], 3, 4), Err(TOO_MANY_REPLICAS));
    let keys = keys(8);
    let mut out = [UNTOUCHED; 16];
    let o = out.as_mut_ptr();
    let odd = o.cast::<u8>().wrapping_add(2).cast::<i32>();
    let null = std::ptr::null_mut();
    // SAFETY: every call below is refused before any buffer is touched, or
    // has nothing to write.
    unsafe {
        assert_eq!(jumpshard_replicas(1, 10, null, 2), NULL_POINTER);
        assert_eq!(jumpshard_replicas(1, 10, odd, 2), MISALIGNED_POINTER);
        assert_eq!(jumpshard_replicas(1, 10, null, 0), OK);
        assert_eq!(
            jumpshard_replicas(1, i32::MAX, o, usize::MAX),
            TOO_MANY_REPLICAS
        );
        let k = keys.as_ptr();
        assert_eq!(
            jumpshard_replicas_batch(std::ptr::null(), 8, 10, 2, o),
            NULL_POINTER
        );
        assert_eq!(jumpshard_replicas_batch(k, 8, 10, 2, null), NULL_POINTER);
        assert_eq!(
            jumpshard_replicas_batch(k, 7, 10, 2, odd),
            MISALIGNED_POINTER
        );
        // k * len overflows, or is more than any buffer can hold.
        assert_eq!(
            jumpshard_replicas_batch(k, usize::MAX, 10, 2, o),
            INVALID_LENGTH
        );
        // A k legal against the buckets but past the most members a set
        // may have is refused first, before any length is looked at.
        let len = 1usize << 40;
        assert_eq!(
            jumpshard_replicas_batch(k, len, i32::MAX, i32::MAX as usize, o),
            TOO_MANY_REPLICAS
        );
        assert_eq!(
            jumpshard_replicas_batch(k, len, i32::MAX, 1025, o),
            TOO_MANY_REPLICAS
        );
        // Keys that fit the address space, with k columns that do not:
        // k * len elements are too many bytes.
        assert_eq!(
            jumpshard_replicas_batch(k, 1 << 52, i32::MAX, 1024, o),
            INVALID_LENGTH
        );
        let shared = keys.as_ptr().cast_mut().cast::<i32>();
        assert_eq!(
            jumpshard_replicas_batch(k, 4, 10, 2, shared),
            OVERLAPPING_BUFFERS
        );
        // Nothing to write: NULL buffers are fine.
        assert_eq!(
            jumpshard_replicas_batch(std::ptr::null(), 0, 10, 3, null),
            OK
        );
        assert_eq!(jumpshard_replicas_batch(k, 8, 10, 0, null), OK);
        assert_eq!(
            jumpshard_replicas_batch(std::ptr::null(), 0, i32::MAX, 1024, null),
            OK
        );
        // With no keys too, k is checked by value.
        assert_eq!(
            jumpshard_replicas_batch(std::ptr::null(), 0, i32::MAX, i32::MAX as usize, null),
            TOO_MANY_REPLICAS
        );
    }
    assert_eq!(out, [UNTOUCHED; 16]);
}
