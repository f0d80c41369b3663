//! Memento clusters through their handle: every lookup against the Rust
//! API, removal and restore, and the saved state; the handle the other
//! Memento tests use (refusals in `memento_refusals`).

use super::*;
use jumpshard::Memento;

/// The C type, opaque here as in C.
#[repr(C)]
pub(super) struct CMemento {
    _opaque: [u8; 0],
}

extern "C" {
    pub(super) fn jumpshard_memento_new(num_buckets: i32, out: *mut *mut CMemento) -> i32;
    pub(super) fn jumpshard_memento_from_removals(
        barray: i32,
        removals: *const i32,
        len: usize,
        out: *mut *mut CMemento,
    ) -> i32;
    pub(super) fn jumpshard_memento_free(memento: *mut CMemento);
    pub(super) fn jumpshard_memento_remove(memento: *mut CMemento, bucket: i32) -> i32;
    pub(super) fn jumpshard_memento_restore(memento: *mut CMemento, restored: *mut i32) -> i32;
    pub(super) fn jumpshard_memento_barray(memento: *const CMemento) -> i32;
    pub(super) fn jumpshard_memento_working(memento: *const CMemento) -> i32;
    pub(super) fn jumpshard_memento_is_removed(memento: *const CMemento, bucket: i32) -> i32;
    pub(super) fn jumpshard_memento_removals(
        memento: *const CMemento,
        out: *mut i32,
        capacity: usize,
        len: *mut usize,
    ) -> i32;
    pub(super) fn jumpshard_memento_bucket(
        memento: *const CMemento,
        key: u64,
        out: *mut i32,
    ) -> i32;
    pub(super) fn jumpshard_memento_batch(
        memento: *const CMemento,
        keys: *const u64,
        len: usize,
        out: *mut i32,
    ) -> i32;
    pub(super) fn jumpshard_memento_bucket_bytes(
        memento: *const CMemento,
        data: *const u8,
        len: usize,
        out: *mut i32,
    ) -> i32;
    pub(super) fn jumpshard_memento_replicas(
        memento: *const CMemento,
        key: u64,
        out: *mut i32,
        k: usize,
    ) -> i32;
    pub(super) fn jumpshard_memento_batch_bytes(
        memento: *const CMemento,
        data: *const u8,
        data_len: usize,
        offsets: *const u64,
        offsets_len: usize,
        out: *mut i32,
        out_len: usize,
    ) -> i32;
}

/// A live handle, freed on drop. The tests pass it only while they hold
/// it, which is every function's contract on the handle.
pub(super) struct Handle(pub(super) *mut CMemento);

impl Handle {
    pub(super) fn new(n: i32) -> Handle {
        let mut out = std::ptr::null_mut();
        // SAFETY: `out` is a writable pointer slot.
        assert_eq!(unsafe { jumpshard_memento_new(n, &mut out) }, OK);
        assert!(!out.is_null());
        Handle(out)
    }

    pub(super) fn from_removals(barray: i32, removals: &[i32]) -> Result<Handle, i32> {
        let mut out = std::ptr::null_mut();
        // SAFETY: a live slice and a writable pointer slot.
        let status = unsafe {
            jumpshard_memento_from_removals(barray, removals.as_ptr(), removals.len(), &mut out)
        };
        match status {
            OK => Ok(Handle(out)),
            _ => {
                assert!(out.is_null(), "a handle written on error");
                Err(status)
            }
        }
    }

    pub(super) fn remove(&self, bucket: i32) -> i32 {
        // SAFETY: a live handle used by this thread alone.
        unsafe { jumpshard_memento_remove(self.0, bucket) }
    }

    pub(super) fn restore(&self) -> Result<i32, i32> {
        let mut restored = UNTOUCHED;
        // SAFETY: a live handle used by this thread alone; one writable
        // `int32_t`.
        match unsafe { jumpshard_memento_restore(self.0, &mut restored) } {
            OK => Ok(restored),
            status => {
                assert_eq!(restored, UNTOUCHED, "restored written on error");
                Err(status)
            }
        }
    }

    pub(super) fn barray(&self) -> i32 {
        // SAFETY: a live handle.
        unsafe { jumpshard_memento_barray(self.0) }
    }

    pub(super) fn working(&self) -> i32 {
        // SAFETY: a live handle.
        unsafe { jumpshard_memento_working(self.0) }
    }

    pub(super) fn removals(&self) -> Vec<i32> {
        let mut len = usize::MAX;
        // SAFETY: a live handle; capacity 0 with NULL; a writable `size_t`.
        let status =
            unsafe { jumpshard_memento_removals(self.0, std::ptr::null_mut(), 0, &mut len) };
        assert!(status == OK || status == CAPACITY);
        assert_eq!(status == OK, len == 0);
        let mut out = vec![UNTOUCHED; len + 2];
        let mut got = usize::MAX;
        // SAFETY: `len + 2` writable elements.
        let status =
            unsafe { jumpshard_memento_removals(self.0, out.as_mut_ptr(), len + 2, &mut got) };
        assert_eq!((status, got), (OK, len));
        assert_eq!(out[len..], [UNTOUCHED; 2]);
        out.truncate(len);
        out
    }

    pub(super) fn bucket(&self, key: u64) -> i32 {
        let mut out = UNTOUCHED;
        // SAFETY: a live handle and one writable `int32_t`.
        let got = unsafe { jumpshard_memento_bucket(self.0, key, &mut out) };
        assert_eq!(got, OK);
        out
    }

    pub(super) fn bucket_bytes(&self, key: &[u8]) -> i32 {
        let mut out = UNTOUCHED;
        // SAFETY: a live handle, a live slice and one writable `int32_t`.
        let status =
            unsafe { jumpshard_memento_bucket_bytes(self.0, key.as_ptr(), key.len(), &mut out) };
        assert_eq!(status, OK);
        out
    }

    pub(super) fn batch(&self, keys: &[u64]) -> Vec<i32> {
        let mut out = vec![UNTOUCHED; keys.len() + 1];
        // SAFETY: a live handle and live slices of `keys.len()` elements.
        let status =
            unsafe { jumpshard_memento_batch(self.0, keys.as_ptr(), keys.len(), out.as_mut_ptr()) };
        assert_eq!(status, OK);
        assert_eq!(out.pop(), Some(UNTOUCHED), "written past out[len - 1]");
        out
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once, by its one owner.
        unsafe { jumpshard_memento_free(self.0) }
    }
}

/// Byte keys of lengths 0..=40 and a few long ones, with their offsets.
fn byte_keys() -> (Vec<u8>, Vec<u64>) {
    let mut data = Vec::new();
    let mut offsets = vec![0u64];
    for (k, len) in (0..=40).chain([200, 1000, 3]).cycle().take(150).enumerate() {
        data.extend((0..len).map(|i| (i * 13 + k * 5) as u8));
        offsets.push(data.len() as u64);
    }
    (data, offsets)
}

/// Every lookup of `handle` equals the Rust cluster's: one key, batches
/// of every length 0..=300, byte keys one by one and in one batch.
fn agrees(handle: &Handle, rust: &Memento, keys: &[u64]) {
    assert_eq!(handle.barray(), rust.barray().get() as i32);
    assert_eq!(handle.working(), rust.working() as i32);
    let removals: Vec<i32> = rust.removals().iter().map(|&b| b as i32).collect();
    assert_eq!(handle.removals(), removals);
    let want: Vec<i32> = keys.iter().map(|&k| rust.bucket(k) as i32).collect();
    for (&k, &w) in keys.iter().zip(&want) {
        assert_eq!(handle.bucket(k), w, "key {k}");
    }
    for len in 0..=keys.len().min(300) {
        assert_eq!(handle.batch(&keys[..len]), want[..len], "len {len}");
    }
    assert_eq!(handle.batch(keys), want);
    let (data, offsets) = byte_keys();
    let strings: Vec<&[u8]> = offsets
        .windows(2)
        .map(|w| &data[w[0] as usize..w[1] as usize])
        .collect();
    let want: Vec<i32> = strings
        .iter()
        .map(|s| rust.bucket_bytes(s) as i32)
        .collect();
    for (s, &w) in strings.iter().zip(&want) {
        assert_eq!(handle.bucket_bytes(s), w);
    }
    let mut out = vec![UNTOUCHED; want.len() + 1];
    // SAFETY: a live handle and live slices of their stated lengths.
    let status = unsafe {
        jumpshard_memento_batch_bytes(
            handle.0,
            data.as_ptr(),
            data.len(),
            offsets.as_ptr(),
            offsets.len(),
            out.as_mut_ptr(),
            want.len(),
        )
    };
    assert_eq!(status, OK);
    assert_eq!(out.pop(), Some(UNTOUCHED));
    assert_eq!(out, want);
}

#[test]
fn lookups_agree_with_the_rust_api_through_removals_and_restores() {
    let keys = keys(1000);
    for n in [1, 2, 3, 10, 1000, i32::MAX] {
        let handle = Handle::new(n);
        let mut rust = Memento::new(BucketCount::new(n as u32).unwrap());
        agrees(&handle, &rust, &keys);
        // With nothing removed, Figure 1 over the b-array.
        assert!(keys.iter().all(|&k| handle.bucket(k) == bucket(k, n)));
        // Middle buckets, then the tail, then restores.
        for b in [n / 2, n / 3, n - 1, 0] {
            let want = rust.remove(b as u32).map_err(|e| e.to_string());
            let got = handle.remove(b);
            assert_eq!(got == OK, want.is_ok(), "n {n} remove {b}: {got}");
            agrees(&handle, &rust, &keys);
        }
        for _ in 0..3 {
            assert_eq!(handle.restore(), Ok(rust.restore().unwrap() as i32));
            agrees(&handle, &rust, &keys);
        }
    }
}

#[test]
fn removal_lists_rebuild_the_cluster() {
    let keys = keys(500);
    let handle = Handle::new(100);
    for b in [3, 50, 99, 7, 0, 98] {
        assert_eq!(handle.remove(b), OK);
    }
    let removals = handle.removals();
    assert_eq!(removals, [3, 50, 99, 7, 0, 98]);
    assert_eq!(handle.barray() - handle.working(), removals.len() as i32);
    let rebuilt = Handle::from_removals(handle.barray(), &removals).unwrap();
    let rust = Memento::from_removals(
        BucketCount::new(100).unwrap(),
        &removals.iter().map(|&b| b as u32).collect::<Vec<_>>(),
    )
    .unwrap();
    agrees(&rebuilt, &rust, &keys);
    assert_eq!(handle.batch(&keys), rebuilt.batch(&keys));
    // The restores of both undo the same removals, last first.
    for &b in removals.iter().rev() {
        assert_eq!((handle.restore(), rebuilt.restore()), (Ok(b), Ok(b)));
    }
    let empty = Handle::from_removals(7, &[]).unwrap();
    assert_eq!((empty.barray(), empty.working()), (7, 7));
    // SAFETY: no removals, so the pointer is not read.
    let status = unsafe {
        let mut out = std::ptr::null_mut();
        let status = jumpshard_memento_from_removals(7, std::ptr::null(), 0, &mut out);
        jumpshard_memento_free(out);
        status
    };
    assert_eq!(status, OK);
}
