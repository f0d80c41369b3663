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
    fn jumpshard_bounded_acquire_batch(
        router: *const CBounded,
        keys: *const u64,
        len: usize,
        out: *mut i32,
    ) -> i32;
    fn jumpshard_bounded_release(router: *const CBounded, node: i32) -> i32;
    fn jumpshard_bounded_release_batch(
        router: *const CBounded,
        nodes: *const i32,
        len: usize,
    ) -> i32;
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

    /// `jumpshard_bounded_acquire_batch` of `keys`, which must succeed.
    fn acquire_batch(&self, keys: &[u64]) -> Vec<i32> {
        let mut nodes = vec![UNTOUCHED; keys.len()];
        // SAFETY: a live handle, `len` readable keys and `len` writable
        // outputs, disjoint.
        let status = unsafe {
            jumpshard_bounded_acquire_batch(self.0, keys.as_ptr(), keys.len(), nodes.as_mut_ptr())
        };
        assert_eq!(status, OK);
        nodes
    }

    fn release(&self, node: i32) -> i32 {
        // SAFETY: a live handle.
        unsafe { jumpshard_bounded_release(self.0, node) }
    }

    fn release_batch(&self, nodes: &[i32]) -> i32 {
        // SAFETY: a live handle and `len` readable nodes.
        unsafe { jumpshard_bounded_release_batch(self.0, nodes.as_ptr(), nodes.len()) }
    }

    /// Every node's load, of the `n` the cluster has.
    fn loads(&self, n: i32) -> Vec<u64> {
        (0..n).map(|node| self.load(node).unwrap()).collect()
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

/// A batch answers what one acquire of each key in turn answers on a twin
/// router, hot keys walking on, around a removed bucket and at lengths
/// around the batch's blocks of 256.
#[test]
fn a_batch_answers_each_acquire_in_turn() {
    let cluster = Handle::new(40);
    assert_eq!(cluster.remove(7), OK);
    let (batch, one_by_one) = (
        Router::new(&cluster, 1.25, 8).unwrap(),
        Router::new(&cluster, 1.25, 8).unwrap(),
    );
    // One key in three is the same hot key: its bucket fills and the
    // rest of its requests take their walk.
    let all: Vec<u64> = keys(1200)
        .into_iter()
        .enumerate()
        .map(|(i, k)| if i % 3 == 0 { 77 } else { k })
        .collect();
    let mut start = 0;
    for len in [0, 1, 3, 255, 256, 257, 300, 1] {
        // Each slice starts one key past the last one's end: different
        // offsets within the lanes' vectors.
        let keys = &all[start..start + len];
        start += len + 1;
        let nodes = batch.acquire_batch(keys);
        let want: Vec<i32> = keys.iter().map(|&k| one_by_one.acquire(k)).collect();
        assert_eq!(nodes, want, "len {len}");
    }
    assert!(batch.total() > 0);
    assert_eq!(batch.total(), one_by_one.total());
    for node in 0..40 {
        assert_eq!(batch.load(node), one_by_one.load(node), "node {node}");
    }
    assert!(batch.load(7).is_ok_and(|l| l == 0), "a removed node");
}

/// Every refusal of a batch counts nothing and writes nothing.
#[test]
fn batch_refusals_count_and_write_nothing() {
    let cluster = Handle::new(10);
    let router = Router::new(&cluster, 2.0, 8).unwrap();
    let keys = keys(8);
    let mut out = [UNTOUCHED; 8];
    let o = out.as_mut_ptr();
    let odd_out = o.cast::<u8>().wrapping_add(1).cast::<i32>();
    let odd_keys = keys.as_ptr().cast::<u8>().wrapping_add(4).cast::<u64>();
    let misaligned: *const CBounded = std::ptr::without_provenance(3);
    let huge = isize::MAX as usize / 8 + 1;
    let shared = keys.as_ptr().cast_mut();
    let r = router.0;
    let calls: [(&str, i32, *const CBounded, *const u64, usize, *mut i32); 8] = [
        (
            "NULL router",
            NULL_POINTER,
            std::ptr::null(),
            keys.as_ptr(),
            8,
            o,
        ),
        (
            "misaligned router",
            MISALIGNED_POINTER,
            misaligned,
            keys.as_ptr(),
            8,
            o,
        ),
        ("NULL keys", NULL_POINTER, r, std::ptr::null(), 8, o),
        (
            "NULL out",
            NULL_POINTER,
            r,
            keys.as_ptr(),
            8,
            std::ptr::null_mut(),
        ),
        ("misaligned keys", MISALIGNED_POINTER, r, odd_keys, 7, o),
        (
            "misaligned out",
            MISALIGNED_POINTER,
            r,
            keys.as_ptr(),
            7,
            odd_out,
        ),
        ("huge len", INVALID_LENGTH, r, keys.as_ptr(), huge, o),
        (
            "overlap",
            OVERLAPPING_BUFFERS,
            r,
            shared,
            4,
            shared.wrapping_add(1).cast(),
        ),
    ];
    for (name, want, router, keys, len, out) in calls {
        // SAFETY: each call is refused before any buffer is touched.
        let got = unsafe { jumpshard_bounded_acquire_batch(router, keys, len, out) };
        assert_eq!(got, want, "{name}");
    }
    assert_eq!(out, [UNTOUCHED; 8], "out written");
    assert_eq!(keys, super::keys(8), "keys written");
    assert_eq!(router.total(), 0);
    // SAFETY: with `len == 0` the buffers are not used.
    let status = unsafe {
        jumpshard_bounded_acquire_batch(router.0, std::ptr::null(), 0, std::ptr::null_mut())
    };
    assert_eq!((status, router.total()), (OK, 0));
}

/// A batch of releases does what one release of each node in turn does on
/// a twin router: repeated nodes, a removed one, lengths around the
/// blocks of 256.
#[test]
fn a_release_batch_is_each_release_in_turn() {
    let cluster = Handle::new(20);
    let (batch, one_by_one) = (
        Router::new(&cluster, 1.25, 8).unwrap(),
        Router::new(&cluster, 1.25, 8).unwrap(),
    );
    let all: Vec<u64> = keys(1000)
        .into_iter()
        .enumerate()
        .map(|(i, k)| if i % 3 == 0 { 77 } else { k })
        .collect();
    let held = batch.acquire_batch(&all);
    assert_eq!(one_by_one.acquire_batch(&all), held);
    // SAFETY: live handles; membership changes may run beside any call.
    unsafe {
        assert_eq!(jumpshard_bounded_remove(batch.0, held[0]), OK);
        assert_eq!(jumpshard_bounded_remove(one_by_one.0, held[0]), OK);
    }
    let mut start = 0;
    for len in [0, 1, 255, 256, 257] {
        let nodes: Vec<i32> = held[start..start + len].iter().rev().copied().collect();
        start += len;
        assert_eq!(batch.release_batch(&nodes), OK, "len {len}");
        for &node in &nodes {
            assert_eq!(one_by_one.release(node), OK);
        }
        assert_eq!(batch.loads(20), one_by_one.loads(20), "len {len}");
        assert_eq!(batch.total(), one_by_one.total());
    }
    assert_eq!(batch.total(), (1000 - start) as u64);
}

/// Every refusal of a batch of releases changes no count.
#[test]
fn release_batch_refusals_change_nothing() {
    let cluster = Handle::new(10);
    assert_eq!(cluster.remove(4), OK);
    let router = Router::new(&cluster, 2.0, 8).unwrap();
    let held = router.acquire_batch(&keys(300));
    let (loads, total) = (router.loads(10), router.total());
    let with = |i: usize, node: i32| {
        let mut nodes = held.clone();
        nodes.insert(i, node);
        nodes
    };
    // Bucket 4 is removed and never acquired: its load is 0.
    let refused = [
        ("negative", with(200, -1), NOT_A_BUCKET),
        ("past the cluster", with(0, 10), NOT_A_BUCKET),
        ("no load, first", with(0, 4), NO_LOAD),
        ("no load, second block", with(280, 4), NO_LOAD),
        ("no load, last", with(300, 4), NO_LOAD),
        ("one too many", with(300, held[0]), NO_LOAD),
    ];
    for (name, nodes, want) in refused {
        assert_eq!(router.release_batch(&nodes), want, "{name}");
        assert_eq!((router.loads(10), router.total()), (loads.clone(), total));
    }
    let misaligned: *const CBounded = std::ptr::without_provenance(3);
    let odd_nodes = held.as_ptr().cast::<u8>().wrapping_add(1).cast::<i32>();
    let huge = isize::MAX as usize / 4 + 1;
    let calls: [(&str, i32, *const CBounded, *const i32, usize); 5] = [
        (
            "NULL router",
            NULL_POINTER,
            std::ptr::null(),
            held.as_ptr(),
            3,
        ),
        (
            "misaligned router",
            MISALIGNED_POINTER,
            misaligned,
            held.as_ptr(),
            3,
        ),
        ("NULL nodes", NULL_POINTER, router.0, std::ptr::null(), 3),
        (
            "misaligned nodes",
            MISALIGNED_POINTER,
            router.0,
            odd_nodes,
            3,
        ),
        ("huge len", INVALID_LENGTH, router.0, held.as_ptr(), huge),
    ];
    for (name, want, r, nodes, len) in calls {
        // SAFETY: each call is refused before any buffer is read.
        let got = unsafe { jumpshard_bounded_release_batch(r, nodes, len) };
        assert_eq!(got, want, "{name}");
    }
    // SAFETY: with `len == 0` `nodes` is not used.
    let status = unsafe { jumpshard_bounded_release_batch(router.0, std::ptr::null(), 0) };
    assert_eq!((status, router.total()), (OK, total));
    assert_eq!(router.release_batch(&held), OK);
    assert_eq!(router.total(), 0);
}
