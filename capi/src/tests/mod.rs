//! The C ABI, called from Rust exactly as C calls it: through the exported
//! symbols, with raw pointers and plain integer status codes. Each status,
//! the untouched output on every error, and NULL buffers with length 0.

// Miri runs each module's own unit tests; these repeat them through the
// symbols at a cost Miri would take minutes over.
#![cfg(not(miri))]

use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use jumpshard::{BucketCount, Kernel};

extern "C" {
    fn jumpshard_bucket(key: u64, num_buckets: i32) -> i32;
    fn jumpshard_batch(keys: *const u64, len: usize, num_buckets: i32, out: *mut i32) -> i32;
    fn jumpshard_batch_parallel(
        keys: *const u64,
        len: usize,
        num_buckets: i32,
        out: *mut i32,
        threads: usize,
    ) -> i32;
    fn jumpshard_kernel_name() -> *const c_char;
    fn jumpshard_set_kernel(name: *const c_char) -> i32;
    fn jumpshard_status_message(status: i32) -> *const c_char;
    fn jumpshard_version() -> *const c_char;
    fn jumpshard_prehash_bytes(data: *const u8, len: usize, out: *mut u64) -> i32;
    fn jumpshard_bucket_bytes(data: *const u8, len: usize, num_buckets: i32) -> i32;
    fn jumpshard_prehash_bytes_seeded(data: *const u8, len: usize, seed: u64, out: *mut u64)
        -> i32;
    fn jumpshard_batch_bytes_seeded(
        data: *const u8,
        data_len: usize,
        offsets: *const u64,
        offsets_len: usize,
        seed: u64,
        num_buckets: i32,
        out: *mut i32,
        out_len: usize,
    ) -> i32;
    fn jumpshard_batch_bytes(
        data: *const u8,
        data_len: usize,
        offsets: *const u64,
        offsets_len: usize,
        num_buckets: i32,
        out: *mut i32,
        out_len: usize,
    ) -> i32;
}

// The status codes are ABI: these values may never change.
const OK: i32 = 0;
const NULL_POINTER: i32 = 1;
const INVALID_BUCKET_COUNT: i32 = 2;
const UNKNOWN_KERNEL: i32 = 3;
const UNSUPPORTED_KERNEL: i32 = 4;
const PANIC: i32 = 5;
const MISALIGNED_POINTER: i32 = 6;
const INVALID_LENGTH: i32 = 7;
const OVERLAPPING_BUFFERS: i32 = 8;
const INVALID_OFFSETS: i32 = 9;
const CAPACITY: i32 = 10;
const NOT_A_BUCKET: i32 = 11;
const ALREADY_REMOVED: i32 = 12;
const LAST_WORKING_BUCKET: i32 = 13;
const SHRINK_IN_REMOVALS: i32 = 14;
const TOO_MANY_REPLICAS: i32 = 15;
const INVALID_WEIGHT: i32 = 16;
const ALL_WEIGHTS_ZERO: i32 = 17;
const INVALID_TABLE: i32 = 18;
const INVALID_LOAD_FACTOR: i32 = 19;
const INVALID_WALK: i32 = 20;
const NO_LOAD: i32 = 21;
const WEIGHTED_TABLE: i32 = 22;
const SHARED_NODE: i32 = 23;
const NOT_ZONED: i32 = 24;
const ROUTER_TOO_LARGE: i32 = 25;

/// Tests that change the active kernel take this, so that a test checking
/// that a refused change left the kernel alone sees no one else's change.
static KERNEL: Mutex<()> = Mutex::new(());

const UNTOUCHED: i32 = 0x5A5A_5A5A;

/// A batch function as the tests call it.
type Batch = fn(*const u64, usize, i32, *mut i32) -> i32;

/// Both batch functions, so every case runs through each. The tests pass
/// either buffers valid for `len` elements, or arguments that the checks
/// under test refuse before any memory is touched; that is the contract of
/// both batch functions.
fn batch_fns() -> [(&'static str, Batch); 3] {
    [
        // SAFETY: as the contract above says.
        ("batch", |k, l, n, o| unsafe { jumpshard_batch(k, l, n, o) }),
        // SAFETY: as the contract above says.
        ("parallel(0)", |k, l, n, o| unsafe {
            jumpshard_batch_parallel(k, l, n, o, 0)
        }),
        // SAFETY: as the contract above says.
        ("parallel(3)", |k, l, n, o| unsafe {
            jumpshard_batch_parallel(k, l, n, o, 3)
        }),
    ]
}

fn bucket(key: u64, num_buckets: i32) -> i32 {
    // SAFETY: takes two integers by value, any values.
    unsafe { jumpshard_bucket(key, num_buckets) }
}

fn kernel_name() -> &'static str {
    // SAFETY: takes nothing.
    c_str(unsafe { jumpshard_kernel_name() })
}

fn set_kernel(name: &CStr) -> i32 {
    // SAFETY: a NUL-terminated string.
    unsafe { jumpshard_set_kernel(name.as_ptr()) }
}

fn status_message(status: i32) -> &'static str {
    // SAFETY: takes an integer by value, any value.
    c_str(unsafe { jumpshard_status_message(status) })
}

fn keys(n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7))
        .collect()
}

fn c_str(ptr: *const c_char) -> &'static str {
    assert!(!ptr.is_null());
    // SAFETY: every jumpshard function returning a string returns a static
    // NUL-terminated one.
    unsafe { CStr::from_ptr(ptr) }.to_str().unwrap()
}

/// Asserts that a call was refused with `status` and left `out` alone.
fn refused(name: &str, status: i32, got: i32, out: &[i32]) {
    assert_eq!(got, status, "{name}: status");
    assert!(
        out.iter().all(|&b| b == UNTOUCHED),
        "{name}: output was written"
    );
}

mod batch;
mod bounded;
mod bytes;
mod counts;
mod memento;
mod memento_golden;
mod memento_refusals;
mod plan;
mod replicas;
mod table_fingerprint;
mod table_zones;
mod weights;
