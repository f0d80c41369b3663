//! Bounded-load routers behind an opaque handle: each request goes to its
//! key's bucket unless that node carries more than `c` times the mean
//! load, then down the key's replica walk (`jumpshard::placement::bounded`
//! states the rule and the guarantee).

use crate::buffers::{Buffer, Buffers};
use crate::guard::{guard, guard_status};
use crate::handle::{self, Slot};
use crate::memento::jumpshard_memento;
use crate::status::jumpshard_status::{self, JUMPSHARD_ERROR_NOT_A_BUCKET};
use jumpshard::placement::BoundedLoads;

/// The walk's usual length: a key's bucket and up to seven other members
/// of its replica set.
pub const JUMPSHARD_BOUNDED_DEFAULT_WALK: usize = 8;

/// The most buckets a router's cluster may have (2^24): it keeps a counter
/// per bucket id.
pub const JUMPSHARD_BOUNDED_MAX_NODES: i32 = 16_777_216;

// Literals for cbindgen's `#define`s, which must stay the library's values.
const _: () = assert!(JUMPSHARD_BOUNDED_DEFAULT_WALK == jumpshard::placement::DEFAULT_WALK);
const _: () = assert!(JUMPSHARD_BOUNDED_MAX_NODES as u32 == jumpshard::placement::MAX_NODES);

/// A router with bounded loads over a Memento cluster: it counts each
/// node's current load, sends `jumpshard_bounded_acquire` to the first
/// node of the key's preference list (its bucket, then its replica walk)
/// whose load stays at most `ceil(c * (total + 1) / live)`, or to the least
/// loaded of the walk when all of it is full, and takes load back with
/// `jumpshard_bounded_release`. Made by `jumpshard_bounded_new`, freed by
/// `jumpshard_bounded_free`.
///
/// Thread safety: every call but `jumpshard_bounded_free` takes a `const`
/// handle and may run on any number of threads at once, membership changes
/// (`jumpshard_bounded_remove`, `jumpshard_bounded_restore`) included:
/// acquires and releases count with atomic operations and never wait for
/// each other, and a membership change waits for the calls in progress.
#[allow(non_camel_case_types)] // the C name
pub struct jumpshard_bounded(BoundedLoads);

/// Node and bucket numbers from C: a negative one is no bucket.
fn node_arg(node: i32) -> Result<u32, jumpshard_status> {
    u32::try_from(node).map_err(|_| JUMPSHARD_ERROR_NOT_A_BUCKET)
}

/// Writes `value` to the caller's one-element output, checked first.
fn write_one<T>(
    out: *mut T,
    value: impl FnOnce() -> Result<T, jumpshard_status>,
) -> Result<(), jumpshard_status> {
    let out = Buffer::new(out.cast_const(), 1)?;
    let value = value()?;
    // SAFETY: one element, checked non-NULL and aligned; the caller
    // promises it is writable and accessed by no one else.
    unsafe { out.slice_mut()[0] = value };
    Ok(())
}

/// Makes a router over a copy of `cluster` (later changes to `cluster` do
/// not reach it) with load factor `factor` (`c`, greater than 1; infinity
/// sends every key to its bucket) and preference lists of up to `walk`
/// nodes (`JUMPSHARD_BOUNDED_DEFAULT_WALK` is 8); every load starts at 0.
/// Writes its handle to `*out`; free it with `jumpshard_bounded_free`.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `cluster`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `out`, the same two;
/// `JUMPSHARD_ERROR_INVALID_LOAD_FACTOR` (NaN or at most 1);
/// `JUMPSHARD_ERROR_INVALID_WALK` (0 or more than 1024);
/// `JUMPSHARD_ERROR_ROUTER_TOO_LARGE` (a cluster of more than
/// `JUMPSHARD_BOUNDED_MAX_NODES` buckets, 2^24: the router keeps a counter
/// per bucket). On any error `*out` is not written and nothing is
/// allocated.
///
/// # Safety
/// `cluster` must be NULL or a live Memento handle that no thread mutates
/// during the call; `out` must point to a writable `jumpshard_bounded *`
/// that no other thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_new(
    cluster: *const jumpshard_memento,
    factor: f64,
    walk: usize,
    out: *mut *mut jumpshard_bounded,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle nobody mutates.
        let cluster = unsafe { handle::borrow(cluster) }?;
        let slot = Slot::new(out)?;
        let router = BoundedLoads::with_walk(cluster.0.clone(), factor, walk)
            .map_err(|e| jumpshard_status::of(&e))?;
        // SAFETY: the caller promises a writable, unaliased `*out`.
        unsafe { slot.fill(jumpshard_bounded(router)) };
        Ok(())
    })
}

/// Frees a router made by `jumpshard_bounded_new`. NULL does nothing.
///
/// # Safety
/// `router` must be NULL or a handle not freed yet, which no other thread
/// uses during the call; it must not be used after.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_free(router: *mut jumpshard_bounded) {
    // SAFETY: the caller's contract is `handle::free`'s.
    guard((), || unsafe { handle::free(router) })
}

/// Routes one request for `key`: writes its node to `*node` and counts it
/// (its load and the total grow by one). While the key's bucket is under
/// the bound that is the bucket `jumpshard_memento_bucket` gives.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `node`, the same two. On any
/// error nothing is counted and `*node` is not written.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call;
/// `node` must point to a writable `int32_t` that no other thread accesses
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_acquire(
    router: *const jumpshard_bounded,
    key: u64,
    node: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        // Buckets are below INT32_MAX, so the cast is exact.
        write_one(node, || Ok(router.0.acquire(key) as i32))
    })
}

/// Routes one request for each of `keys[0..len]`: writes to `out[i]` the
/// node `jumpshard_bounded_acquire` of `keys[i]` would answer, each call in
/// turn, and counts each (the total grows by `len`). The keys' buckets come
/// from one Memento batch on the active kernel's lanes (see
/// `jumpshard_kernel_name`), so a batch costs far less than `len` acquires;
/// calls on other threads may interleave between blocks of keys, as
/// between separate acquires.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `keys`, then `out`:
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error nothing is
/// counted and `out` is not written (after `JUMPSHARD_ERROR_PANIC` its
/// contents are unspecified). With `len == 0` the buffers are not used and
/// may be NULL.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call;
/// unless `len` is 0, `keys` must point to `len` readable `uint64_t` and
/// `out` to `len` writable `int32_t` that no other thread writes during
/// the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_acquire_batch(
    router: *const jumpshard_bounded,
    keys: *const u64,
    len: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        // SAFETY: the caller's contract, stated above, is the one
        // `Buffers::new` needs.
        let buffers = unsafe { Buffers::new(keys, out, len) }?;
        // Nodes are buckets, below INT32_MAX: written as `u32`, they read
        // the same as `int32_t`.
        router
            .0
            .acquire_batch(buffers.keys, buffers.out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

/// Takes one unit of load back from `node`, a node an acquire answered,
/// still live or removed since; the total shrinks with it.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_NOT_A_BUCKET`
/// (negative, or a bucket the cluster never had); `JUMPSHARD_ERROR_NO_LOAD`
/// (its load is 0). On any error no count changes.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_release(
    router: *const jumpshard_bounded,
    node: i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        let node = node_arg(node)?;
        router.0.release(node).map_err(|e| jumpshard_status::of(&e))
    })
}

/// Takes one unit of load back from each of `nodes[0..len]` (a node may
/// appear any number of times, live or removed since it was acquired): what
/// `jumpshard_bounded_release` of each in turn does when all of them
/// succeed; the total shrinks by `len`. Calls on other threads may
/// interleave between blocks of nodes, as between separate releases.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `nodes`,
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// `JUMPSHARD_ERROR_NOT_A_BUCKET` (any node negative, or a bucket the
/// cluster never had); `JUMPSHARD_ERROR_NO_LOAD` (a node whose load runs
/// out before its last copy: more releases than acquires). On any error no
/// count changes: after `JUMPSHARD_ERROR_NO_LOAD` the releases already made
/// are undone, and other threads may briefly see the lower loads. With
/// `len == 0` `nodes` is not used and may be NULL.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call;
/// unless `len` is 0, `nodes` must point to `len` readable `int32_t` that
/// no other thread writes during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_release_batch(
    router: *const jumpshard_bounded,
    nodes: *const i32,
    len: usize,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        // Read as `u32`, one layout: a negative node reads as 2^31 or
        // more, past every bucket, and is refused as not a bucket.
        let nodes = Buffer::new(nodes.cast::<u32>(), len)?;
        // SAFETY: the caller promises `len` readable nodes, not written
        // during the call.
        let nodes = unsafe { nodes.slice() };
        router
            .0
            .release_batch(nodes)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

/// Writes the current load of `node` (live or removed) to `*load`.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, then `load`, `JUMPSHARD_ERROR_NULL_POINTER`
/// and `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_NOT_A_BUCKET`
/// (negative, or a bucket the cluster never had). On any error `*load` is
/// not written.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call;
/// `load` must point to a writable `uint64_t` that no other thread accesses
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_load(
    router: *const jumpshard_bounded,
    node: i32,
    load: *mut u64,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        write_one(load, || {
            router
                .0
                .load(node_arg(node)?)
                .map_err(|e| jumpshard_status::of(&e))
        })
    })
}

/// The sum of all loads, removed nodes' included; 0 when `router` is NULL
/// or misaligned.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_total(router: *const jumpshard_bounded) -> u64 {
    guard(0, || {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) };
        router.map_or(0, |r| r.0.total())
    })
}

/// Removes `bucket` from the router's cluster as `jumpshard_memento_remove`
/// does: new requests avoid it, and its load stays until released.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; then as
/// `jumpshard_memento_remove`: `JUMPSHARD_ERROR_NOT_A_BUCKET`,
/// `JUMPSHARD_ERROR_ALREADY_REMOVED`, `JUMPSHARD_ERROR_LAST_WORKING_BUCKET`.
/// On any error nothing changes.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_remove(
    router: *const jumpshard_bounded,
    bucket: i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        let bucket = node_arg(bucket)?;
        router
            .0
            .remove(bucket)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

/// Restores the last removed bucket, or grows the cluster by one bucket
/// when nothing is removed, as `jumpshard_memento_restore` does; the
/// bucket keeps the load it had. Writes it to `*restored` unless
/// `restored` is NULL.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `router`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; `JUMPSHARD_ERROR_MISALIGNED_POINTER`
/// for `restored`; `JUMPSHARD_ERROR_ROUTER_TOO_LARGE` (a growth past 2^24
/// buckets). On any error nothing changes and `*restored` is not written.
///
/// # Safety
/// `router` must be NULL or a live handle not freed during the call;
/// `restored` must be NULL or point to a writable `int32_t` that no other
/// thread accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_bounded_restore(
    router: *const jumpshard_bounded,
    restored: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle, which is `Sync`.
        let router = unsafe { handle::borrow(router) }?;
        if restored.is_null() {
            return router
                .0
                .restore()
                .map(drop)
                .map_err(|e| jumpshard_status::of(&e));
        }
        write_one(restored, || {
            // Buckets are below INT32_MAX, so the cast is exact.
            router
                .0
                .restore()
                .map(|b| b as i32)
                .map_err(|e| jumpshard_status::of(&e))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memento::{jumpshard_memento_free, jumpshard_memento_new};
    use jumpshard_status::*;

    /// A router's whole life through the C functions, small enough for
    /// Miri to see every box and write.
    #[test]
    fn a_router_through_the_c_functions() {
        let mut cluster = core::ptr::null_mut();
        let mut router = core::ptr::null_mut();
        // SAFETY: writable slots, then live handles used by this thread
        // alone until freed at the end.
        unsafe {
            assert_eq!(jumpshard_memento_new(5, &mut cluster), JUMPSHARD_OK);
            assert_eq!(
                jumpshard_bounded_new(cluster, 1.0, 8, &mut router),
                JUMPSHARD_ERROR_INVALID_LOAD_FACTOR
            );
            assert!(router.is_null());
            assert_eq!(
                jumpshard_bounded_new(cluster, 2.0, 0, &mut router),
                JUMPSHARD_ERROR_INVALID_WALK
            );
            assert_eq!(
                jumpshard_bounded_new(cluster, 2.0, 8, &mut router),
                JUMPSHARD_OK
            );
            jumpshard_memento_free(cluster);
            let mut node = -1;
            assert_eq!(
                jumpshard_bounded_acquire(router, 42, &mut node),
                JUMPSHARD_OK
            );
            let n = jumpshard::BucketCount::new(5).unwrap();
            assert_eq!(node as u32, jumpshard::bucket(42, n));
            assert_eq!(jumpshard_bounded_total(router), 1);
            assert_eq!(jumpshard_bounded_remove(router, node), JUMPSHARD_OK);
            let mut load = 0u64;
            assert_eq!(
                jumpshard_bounded_load(router, node, &mut load),
                JUMPSHARD_OK
            );
            assert_eq!(load, 1);
            assert_eq!(jumpshard_bounded_release(router, node), JUMPSHARD_OK);
            assert_eq!(
                jumpshard_bounded_release(router, node),
                JUMPSHARD_ERROR_NO_LOAD
            );
            assert_eq!(
                jumpshard_bounded_release(router, -1),
                JUMPSHARD_ERROR_NOT_A_BUCKET
            );
            assert_eq!(jumpshard_bounded_total(router), 0);
            let mut restored = -1;
            assert_eq!(
                jumpshard_bounded_restore(router, &mut restored),
                JUMPSHARD_OK
            );
            assert_eq!(restored, node);
            let keys = [3u64, 3, 9];
            let mut nodes = [-1; 3];
            assert_eq!(
                jumpshard_bounded_acquire_batch(router, keys.as_ptr(), 3, nodes.as_mut_ptr()),
                JUMPSHARD_OK
            );
            assert!(nodes.iter().all(|&n| (0..5).contains(&n)));
            assert_eq!(jumpshard_bounded_total(router), 3);
            let null = core::ptr::null_mut();
            assert_eq!(
                jumpshard_bounded_acquire_batch(router, core::ptr::null(), 0, null),
                JUMPSHARD_OK
            );
            assert_eq!(
                jumpshard_bounded_acquire_batch(router, keys.as_ptr(), 3, null),
                JUMPSHARD_ERROR_NULL_POINTER
            );
            assert_eq!(jumpshard_bounded_total(router), 3);
            let bad = [nodes[0], -1];
            assert_eq!(
                jumpshard_bounded_release_batch(router, bad.as_ptr(), 2),
                JUMPSHARD_ERROR_NOT_A_BUCKET
            );
            assert_eq!(
                jumpshard_bounded_release_batch(router, core::ptr::null(), 1),
                JUMPSHARD_ERROR_NULL_POINTER
            );
            assert_eq!(
                jumpshard_bounded_release_batch(router, core::ptr::null(), 0),
                JUMPSHARD_OK
            );
            assert_eq!(jumpshard_bounded_total(router), 3);
            assert_eq!(
                jumpshard_bounded_release_batch(router, nodes.as_ptr(), 3),
                JUMPSHARD_OK
            );
            assert_eq!(jumpshard_bounded_total(router), 0);
            jumpshard_bounded_free(router);
        }
    }
}
