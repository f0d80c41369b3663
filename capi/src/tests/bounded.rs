//! Bounded-load routers through their handle: the plain bucket under the
//! bound, the counts across threads and membership changes, and every
//! refusal with its output untouched.

use super::memento::{jumpshard_memento_bucket, CMemento, Handle};
use super::*;

/// The C type, opaque here as in C.
#[repr(C)]
struct CBounded {
    _opaque: [u8; 0],
}

extern "C" {
    fn jumpshard_bounded_new(
        cluster: *const CMemento,
        factor: f64,
        walk: usize,
        out: *mut *mut CBounded,
    ) -> i32;
    fn jumpshard_bounded_free(router: *mut CBounded);
    fn jumpshard_bounded_acquire(router: *const CBounded, key: u64, node: *mut i32) -> i32;
    fn jumpshard_bounded_release(router: *const CBounded, node: i32) -> i32;
    fn jumpshard_bounded_load(router: *const CBounded, node: i32, load: *mut u64) -> i32;
    fn jumpshard_bounded_total(router: *const CBounded) -> u64;
    fn jumpshard_bounded_remove(router: *const CBounded, bucket: i32) -> i32;
    fn jumpshard_bounded_restore(router: *const CBounded, restored: *mut i32) -> i32;
}

/// A router freed on drop; shared between threads as C shares it.
struct Router(*mut CBounded);

// SAFETY: every call but free is documented safe from any thread at once.
unsafe impl Sync for Router {}

impl Router {
    fn new(cluster: &Handle, factor: f64, walk: usize) -> Result<Router, i32> {
        let mut out = core::ptr::null_mut();
        // SAFETY: a live cluster handle and a writable slot.
        let status = unsafe { jumpshard_bounded_new(cluster.0, factor, walk, &mut out) };
        if status == OK {
            Ok(Router(out))
        } else {
            assert!(out.is_null(), "written on error");
            Err(status)
        }
    }

    fn acquire(&self, key: u64) -> i32 {
        let mut node = -1;
        // SAFETY: a live handle and a writable `int32_t`.
        let status = unsafe { jumpshard_bounded_acquire(self.0, key, &mut node) };
        assert_eq!(status, OK);
        node
    }

    fn release(&self, node: i32) -> i32 {
        // SAFETY: a live handle.
        unsafe { jumpshard_bounded_release(self.0, node) }
    }

    fn load(&self, node: i32) -> Result<u64, i32> {
        let mut load = u64::MAX;
        // SAFETY: a live handle and a writable `uint64_t`.
        match unsafe { jumpshard_bounded_load(self.0, node, &mut load) } {
            OK => Ok(load),
            status => {
                assert_eq!(load, u64::MAX, "written on error");
                Err(status)
            }
        }
    }

    fn total(&self) -> u64 {
        // SAFETY: a live handle.
        unsafe { jumpshard_bounded_total(self.0) }
    }
}

impl Drop for Router {
    fn drop(&mut self) {
        // SAFETY: the handle this value owns, used by no one else now.
        unsafe { jumpshard_bounded_free(self.0) }
    }
}

#[test]
fn under_the_bound_each_key_gets_its_memento_bucket() {
    let cluster = Handle::new(50);
    assert_eq!(cluster.remove(13), OK);
    let router = Router::new(&cluster, f64::INFINITY, 8).unwrap();
    for key in 0..2000u64 {
        let key = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut bucket = -1;
        // SAFETY: a live cluster handle and a writable `int32_t`.
        let status = unsafe { jumpshard_memento_bucket(cluster.0, key, &mut bucket) };
        assert_eq!(status, OK);
        assert_eq!(router.acquire(key), bucket);
    }
    assert_eq!(router.total(), 2000);
}

#[test]
fn threads_share_a_router_and_its_counts() {
    let cluster = Handle::new(12);
    let router = Router::new(&cluster, 1.25, 8).unwrap();
    std::thread::scope(|scope| {
        for t in 0..8u64 {
            let router = &router;
            scope.spawn(move || {
                let nodes: Vec<i32> = (0..500).map(|i| router.acquire(t * 1000 + i)).collect();
                for node in nodes {
                    assert_eq!(router.release(node), OK);
                }
            });
        }
    });
    assert_eq!(router.total(), 0);
    assert!((0..12).all(|n| router.load(n) == Ok(0)));
}

#[test]
fn membership_changes_keep_the_counts() {
    let cluster = Handle::new(6);
    let router = Router::new(&cluster, 2.0, 8).unwrap();
    let node = router.acquire(99);
    // SAFETY: a live handle; membership changes may run beside any call.
    assert_eq!(unsafe { jumpshard_bounded_remove(router.0, node) }, OK);
    assert_eq!(router.load(node), Ok(1));
    assert_eq!(router.release(node), OK);
    assert_eq!(router.total(), 0);
    let mut restored = UNTOUCHED;
    // SAFETY: a live handle and a writable `int32_t`.
    let status = unsafe { jumpshard_bounded_restore(router.0, &mut restored) };
    assert_eq!(status, OK);
    assert_eq!(restored, node);
    // SAFETY: a live handle; NULL `restored` is allowed.
    let status = unsafe { jumpshard_bounded_restore(router.0, std::ptr::null_mut()) };
    assert_eq!(status, OK);
    assert_eq!(router.load(6), Ok(0)); // grown
}

#[test]
fn refusals_write_nothing() {
    let cluster = Handle::new(4);
    for bad in [1.0, 0.0, -1.0, f64::NAN, f64::NEG_INFINITY] {
        assert_eq!(
            Router::new(&cluster, bad, 8).err(),
            Some(INVALID_LOAD_FACTOR)
        );
    }
    for walk in [0, 1025, usize::MAX] {
        assert_eq!(Router::new(&cluster, 2.0, walk).err(), Some(INVALID_WALK));
    }
    let mut out = core::ptr::null_mut();
    // SAFETY: NULL handles and slots are refused before any use.
    unsafe {
        assert_eq!(
            jumpshard_bounded_new(core::ptr::null(), 2.0, 8, &mut out),
            NULL_POINTER
        );
        assert_eq!(
            jumpshard_bounded_new(cluster.0, 2.0, 8, core::ptr::null_mut()),
            NULL_POINTER
        );
        let mut node = UNTOUCHED;
        assert_eq!(
            jumpshard_bounded_acquire(core::ptr::null(), 1, &mut node),
            NULL_POINTER
        );
        assert_eq!(node, UNTOUCHED);
        assert_eq!(jumpshard_bounded_total(core::ptr::null()), 0);
        jumpshard_bounded_free(core::ptr::null_mut());
    }
    let router = Router::new(&cluster, 2.0, 8).unwrap();
    let mut cells = [0i32; 2];
    let misaligned = cells.as_mut_ptr().cast::<u8>().wrapping_add(1);
    // SAFETY: a misaligned `node` is refused before it is written.
    let status = unsafe { jumpshard_bounded_acquire(router.0, 1, misaligned.cast()) };
    assert_eq!(status, MISALIGNED_POINTER);
    // SAFETY: NULL `node` is refused before anything is counted.
    let status = unsafe { jumpshard_bounded_acquire(router.0, 1, core::ptr::null_mut()) };
    assert_eq!(status, NULL_POINTER);
    assert_eq!(router.total(), 0);
    assert_eq!(router.release(0), NO_LOAD);
    assert_eq!(router.release(-1), NOT_A_BUCKET);
    assert_eq!(router.release(4), NOT_A_BUCKET);
    assert_eq!(router.load(-3), Err(NOT_A_BUCKET));
    // SAFETY: a live handle.
    unsafe {
        assert_eq!(jumpshard_bounded_remove(router.0, 9), NOT_A_BUCKET);
        assert_eq!(jumpshard_bounded_remove(router.0, -1), NOT_A_BUCKET);
        assert_eq!(jumpshard_bounded_remove(router.0, 1), OK);
        assert_eq!(jumpshard_bounded_remove(router.0, 1), ALREADY_REMOVED);
    }
}
