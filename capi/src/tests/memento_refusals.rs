//! Memento handles: every refusal, with the outputs and the cluster left
//! as they were.

use super::memento::*;
use super::*;

#[test]
fn removals_need_capacity_and_write_nothing_else_without_it() {
    let handle = Handle::new(10);
    for b in [1, 5, 2] {
        assert_eq!(handle.remove(b), OK);
    }
    for capacity in [0, 1, 2] {
        let mut out = [UNTOUCHED; 4];
        let mut len = 0;
        // SAFETY: `capacity` writable elements at most 4.
        let status =
            unsafe { jumpshard_memento_removals(handle.0, out.as_mut_ptr(), capacity, &mut len) };
        assert_eq!((status, len), (CAPACITY, 3));
        assert_eq!(out, [UNTOUCHED; 4]);
    }
    let mut out = [UNTOUCHED; 4];
    let mut len = 0;
    // SAFETY: 3 writable elements.
    let status = unsafe { jumpshard_memento_removals(handle.0, out.as_mut_ptr(), 3, &mut len) };
    assert_eq!((status, len, out), (OK, 3, [1, 5, 2, UNTOUCHED]));

    // Bad buffers: nothing written, `*len` included.
    let mut len = 77;
    // SAFETY: NULL `out` with capacity is refused before anything is written.
    let status = unsafe { jumpshard_memento_removals(handle.0, std::ptr::null_mut(), 3, &mut len) };
    assert_eq!((status, len), (NULL_POINTER, 77));
    // SAFETY: NULL `len` is refused before anything is written.
    let status =
        unsafe { jumpshard_memento_removals(handle.0, out.as_mut_ptr(), 3, std::ptr::null_mut()) };
    assert_eq!(status, NULL_POINTER);
    let misaligned = out.as_mut_ptr().cast::<u8>().wrapping_add(1).cast::<i32>();
    // SAFETY: a misaligned `out` is refused before it is touched.
    let status = unsafe { jumpshard_memento_removals(handle.0, misaligned, 3, &mut len) };
    assert_eq!((status, len), (MISALIGNED_POINTER, 77));
    let mut words = [0usize; 4];
    let base = words.as_mut_ptr();
    // SAFETY: `*len` inside `out` is refused before anything is written.
    let status = unsafe { jumpshard_memento_removals(handle.0, base.cast::<i32>(), 3, base) };
    assert_eq!((status, words), (OVERLAPPING_BUFFERS, [0; 4]));
}

#[test]
fn remove_and_restore_refusals_change_nothing() {
    let handle = Handle::new(4);
    let keys = keys(300);
    let before = handle.batch(&keys);
    for bad in [-1, i32::MIN, 4, 5, i32::MAX] {
        assert_eq!(handle.remove(bad), NOT_A_BUCKET, "{bad}");
    }
    assert_eq!(handle.remove(1), OK);
    assert_eq!(handle.remove(1), ALREADY_REMOVED);
    assert_eq!(handle.remove(3), OK);
    assert_eq!(handle.remove(0), OK);
    assert_eq!(handle.working(), 1);
    assert_eq!(handle.remove(2), LAST_WORKING_BUCKET);
    // SAFETY: a live handle; both are refused for the last working bucket.
    assert_eq!(unsafe { jumpshard_memento_is_removed(handle.0, 2) }, 0);
    for (b, removed) in [(0, 1), (1, 1), (3, 1), (4, 0), (-1, 0), (i32::MAX, 0)] {
        // SAFETY: a live handle.
        let got = unsafe { jumpshard_memento_is_removed(handle.0, b) };
        assert_eq!(got, removed);
    }
    assert!(handle.batch(&keys).iter().all(|&b| b == 2));
    assert_eq!(handle.restore(), Ok(0));
    assert_eq!(handle.restore(), Ok(3));
    assert_eq!(handle.restore(), Ok(1));
    assert_eq!(handle.batch(&keys), before);
    // Nothing removed: a restore grows the b-array.
    assert_eq!(handle.restore(), Ok(4));
    assert_eq!((handle.barray(), handle.working()), (5, 5));
    // And removing the tail while nothing is removed shrinks it back.
    assert_eq!(handle.remove(4), OK);
    assert_eq!((handle.barray(), handle.removals()), (4, vec![]));
    // SAFETY: a live handle; NULL `restored` is allowed.
    let got = unsafe { jumpshard_memento_restore(handle.0, std::ptr::null_mut()) };
    assert_eq!(got, OK);
    assert_eq!(handle.barray(), 5);
    let mut slot = [UNTOUCHED; 2];
    let misaligned = slot.as_mut_ptr().cast::<u8>().wrapping_add(2).cast::<i32>();
    // SAFETY: a misaligned `restored` is refused before anything changes.
    let status = unsafe { jumpshard_memento_restore(handle.0, misaligned) };
    assert_eq!(
        (status, slot, handle.barray()),
        (MISALIGNED_POINTER, [UNTOUCHED; 2], 5)
    );

    // At the largest b-array, nothing removed: no restore can grow it.
    let full = Handle::new(i32::MAX);
    assert_eq!(full.restore(), Err(INVALID_BUCKET_COUNT));
    assert_eq!(full.barray(), i32::MAX);
    assert_eq!(full.remove(5), OK);
    assert_eq!(full.restore(), Ok(5));
}

#[test]
fn from_removals_refusals_allocate_and_write_nothing() {
    let refused = |barray, removals: &[i32]| Handle::from_removals(barray, removals).err();
    assert_eq!(refused(0, &[]), Some(INVALID_BUCKET_COUNT));
    assert_eq!(refused(-3, &[1]), Some(INVALID_BUCKET_COUNT));
    assert_eq!(refused(10, &[9]), Some(SHRINK_IN_REMOVALS));
    assert_eq!(refused(10, &[3, 9]), None, "the tail later is a removal");
    assert_eq!(refused(10, &[3, -1]), Some(NOT_A_BUCKET));
    assert_eq!(refused(10, &[3, 10]), Some(NOT_A_BUCKET));
    assert_eq!(refused(10, &[i32::MIN]), Some(NOT_A_BUCKET));
    assert_eq!(
        refused(10, &[3, 3, -1]),
        Some(ALREADY_REMOVED),
        "the first failure"
    );
    assert_eq!(refused(3, &[0, 1, 2]), Some(LAST_WORKING_BUCKET));
    assert_eq!(refused(1, &[0]), Some(SHRINK_IN_REMOVALS));

    let sentinel: *mut CMemento = std::ptr::without_provenance_mut(8);
    let call = |removals: *const i32, len, out: *mut *mut CMemento| {
        // SAFETY: the calls below pass arguments that are refused before
        // any memory is read or written.
        unsafe { jumpshard_memento_from_removals(10, removals, len, out) }
    };
    let mut out = sentinel;
    assert_eq!(call(std::ptr::null(), 2, &mut out), NULL_POINTER);
    assert_eq!(call([1].as_ptr(), 1, std::ptr::null_mut()), NULL_POINTER);
    let words = [1u64, 2];
    let odd = words.as_ptr().cast::<u8>().wrapping_add(1).cast::<i32>();
    assert_eq!(call(odd, 2, &mut out), MISALIGNED_POINTER);
    assert_eq!(call([1].as_ptr(), usize::MAX, &mut out), INVALID_LENGTH);
    let odd_out = (&mut out as *mut *mut CMemento)
        .cast::<u8>()
        .wrapping_add(4)
        .cast();
    assert_eq!(call([1].as_ptr(), 1, odd_out), MISALIGNED_POINTER);
    assert_eq!(out, sentinel);
    // `*out` inside the removals.
    let mut shared = [0usize; 2];
    let base = shared.as_mut_ptr();
    assert_eq!(
        call(base.cast::<i32>(), 4, base.cast()),
        OVERLAPPING_BUFFERS
    );
    assert_eq!(shared, [0; 2]);
}

/// Every function refuses a NULL or misaligned handle, writing nothing;
/// the readers return -1 and free does nothing.
#[test]
fn null_and_misaligned_handles_are_refused() {
    let misaligned: *mut CMemento = std::ptr::without_provenance_mut(3);
    for handle in [std::ptr::null_mut(), misaligned] {
        let want = if handle.is_null() {
            NULL_POINTER
        } else {
            MISALIGNED_POINTER
        };
        let mut out = [UNTOUCHED; 2];
        let o = out.as_mut_ptr();
        let mut len = 5usize;
        let key = [7u64];
        // SAFETY: every call refuses the handle before touching anything.
        unsafe {
            assert_eq!(jumpshard_memento_remove(handle, 0), want);
            assert_eq!(jumpshard_memento_restore(handle, o), want);
            assert_eq!(jumpshard_memento_barray(handle), -1);
            assert_eq!(jumpshard_memento_working(handle), -1);
            assert_eq!(jumpshard_memento_is_removed(handle, 0), -1);
            assert_eq!(jumpshard_memento_removals(handle, o, 2, &mut len), want);
            assert_eq!(jumpshard_memento_bucket(handle, 7, o), want);
            assert_eq!(jumpshard_memento_batch(handle, key.as_ptr(), 1, o), want);
            assert_eq!(
                jumpshard_memento_bucket_bytes(handle, b"a".as_ptr(), 1, o),
                want
            );
            let offsets = [0u64, 1];
            let status =
                jumpshard_memento_batch_bytes(handle, b"a".as_ptr(), 1, offsets.as_ptr(), 2, o, 1);
            assert_eq!(status, want);
            jumpshard_memento_free(handle);
        }
        assert_eq!((out, len), ([UNTOUCHED; 2], 5));
    }
    let mut out = std::ptr::null_mut();
    // SAFETY: a writable slot; the count is refused first.
    let got = unsafe { jumpshard_memento_new(0, &mut out) };
    assert_eq!(got, INVALID_BUCKET_COUNT);
    assert!(out.is_null());
    // SAFETY: NULL `out` is refused.
    let got = unsafe { jumpshard_memento_new(5, std::ptr::null_mut()) };
    assert_eq!(got, NULL_POINTER);
}

/// The lookups' buffer checks, as the plain batch functions make them.
#[test]
fn lookup_buffers_are_checked_and_left_alone_on_error() {
    let handle = Handle::new(10);
    assert_eq!(handle.remove(4), OK);
    let h = handle.0;
    let keys = keys(8);
    let mut out = [UNTOUCHED; 8];
    let o = out.as_mut_ptr();
    let odd_out = o.cast::<u8>().wrapping_add(1).cast::<i32>();
    let odd_keys = keys.as_ptr().cast::<u8>().wrapping_add(4).cast::<u64>();
    let null = std::ptr::null_mut();
    // SAFETY: every call below is refused before any buffer is touched.
    unsafe {
        assert_eq!(jumpshard_memento_bucket(h, 1, null), NULL_POINTER);
        assert_eq!(jumpshard_memento_bucket(h, 1, odd_out), MISALIGNED_POINTER);
        assert_eq!(
            jumpshard_memento_batch(h, std::ptr::null(), 8, o),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_memento_batch(h, keys.as_ptr(), 8, null),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_memento_batch(h, odd_keys, 7, o),
            MISALIGNED_POINTER
        );
        assert_eq!(
            jumpshard_memento_batch(h, keys.as_ptr(), 7, odd_out),
            MISALIGNED_POINTER
        );
        let huge = isize::MAX as usize / 8 + 1;
        assert_eq!(
            jumpshard_memento_batch(h, keys.as_ptr(), huge, o),
            INVALID_LENGTH
        );
        let shared = keys.as_ptr().cast_mut();
        assert_eq!(
            jumpshard_memento_batch(h, shared, 4, shared.add(1).cast()),
            OVERLAPPING_BUFFERS
        );
        assert_eq!(
            jumpshard_memento_bucket_bytes(h, std::ptr::null(), 1, o),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_memento_bucket_bytes(h, b"ab".as_ptr(), 2, null),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_memento_bucket_bytes(h, b"ab".as_ptr(), 2, odd_out),
            MISALIGNED_POINTER
        );
        assert_eq!(
            jumpshard_memento_bucket_bytes(h, b"ab".as_ptr(), usize::MAX, o),
            INVALID_LENGTH
        );
        assert_eq!(
            jumpshard_memento_bucket_bytes(h, o.cast::<u8>(), 8, o.add(1)),
            OVERLAPPING_BUFFERS
        );
        let data = b"alicebobcarol";
        let offsets = [0u64, 5, 8, 13];
        let batch_bytes = |offsets: &[u64], out: *mut i32, out_len| {
            jumpshard_memento_batch_bytes(
                h,
                data.as_ptr(),
                data.len(),
                offsets.as_ptr(),
                offsets.len(),
                out,
                out_len,
            )
        };
        assert_eq!(batch_bytes(&offsets, null, 3), NULL_POINTER);
        assert_eq!(batch_bytes(&offsets, odd_out, 3), MISALIGNED_POINTER);
        assert_eq!(batch_bytes(&offsets[..3], o, 3), INVALID_OFFSETS);
        assert_eq!(batch_bytes(&[0, 5, 3, 13], o, 3), INVALID_OFFSETS);
        assert_eq!(batch_bytes(&[0, 5, 8, 14], o, 3), INVALID_OFFSETS);
        assert_eq!(
            batch_bytes(&offsets, offsets.as_ptr().cast_mut().cast(), 3),
            OVERLAPPING_BUFFERS
        );
        // Empty: NULL buffers of length 0 are fine, and nothing is written.
        assert_eq!(jumpshard_memento_batch(h, std::ptr::null(), 0, null), OK);
        assert_eq!(batch_bytes(&[13], null, 0), OK);
    }
    assert_eq!(out, [UNTOUCHED; 8]);
}

/// One key's replica set: the Rust API's, and every refusal before `out`
/// is touched, a huge `k` included (checked before anything is allocated).
#[test]
fn one_key_replica_sets_and_their_refusals() {
    let handle = Handle::new(10);
    assert_eq!(handle.remove(4), OK);
    let mut rust = jumpshard::Memento::new(BucketCount::new(10).unwrap());
    rust.remove(4).unwrap();
    for key in [0u64, 1, 99, u64::MAX] {
        for k in 1..=9usize {
            let mut out = [UNTOUCHED; 10];
            // SAFETY: `k` writable elements of 10.
            let status = unsafe { jumpshard_memento_replicas(handle.0, key, out.as_mut_ptr(), k) };
            assert_eq!(status, OK);
            let mut want = vec![0u32; k];
            rust.replicas(key, &mut want).unwrap();
            let got: Vec<u32> = out[..k].iter().map(|&b| b as u32).collect();
            assert_eq!(got, want, "key {key} k {k}");
            assert!(out[k..].iter().all(|&b| b == UNTOUCHED));
        }
    }
    let mut out = [UNTOUCHED; 4];
    let o = out.as_mut_ptr();
    let odd = o.cast::<u8>().wrapping_add(1).cast::<i32>();
    let null = std::ptr::null_mut();
    // SAFETY: every call below is refused before `out` is written, or
    // writes nothing (k = 0).
    unsafe {
        assert_eq!(
            jumpshard_memento_replicas(std::ptr::null(), 1, o, 2),
            NULL_POINTER
        );
        for k in [10, 1 << 31, 1 << 40, usize::MAX] {
            assert_eq!(
                jumpshard_memento_replicas(handle.0, 1, o, k),
                TOO_MANY_REPLICAS
            );
            assert_eq!(
                jumpshard_memento_replicas(handle.0, 1, null, k),
                TOO_MANY_REPLICAS
            );
        }
        assert_eq!(
            jumpshard_memento_replicas(handle.0, 1, null, 2),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_memento_replicas(handle.0, 1, odd, 2),
            MISALIGNED_POINTER
        );
        assert_eq!(jumpshard_memento_replicas(handle.0, 1, null, 0), OK);
    }
    assert_eq!(out, [UNTOUCHED; 4]);
}
