//! The paper's Figure 1, compiled from C++ (`reference/figure1.cpp`) by
//! `build.rs`: the oracle that tests, benchmarks and `jumpshard verify` hold
//! every kernel against. Present with the `reference` feature (on by
//! default).

mod ffi {
    extern "C" {
        pub fn jumpshard_figure1(key: u64, num_buckets: i32) -> i32;
        pub fn jumpshard_figure1_batch(
            keys: *const u64,
            len: usize,
            num_buckets: i32,
            out: *mut i32,
        );
    }
}

/// Figure 1 exactly as the C++ compiler built it, including its answer of
/// -1 for `num_buckets <= 0`.
///
/// ```
/// assert_eq!(jumpshard::reference::jump_consistent_hash(1253737204188795044, 100), 86);
/// assert_eq!(jumpshard::reference::jump_consistent_hash(7, 0), -1);
/// ```
pub fn jump_consistent_hash(key: u64, num_buckets: i32) -> i32 {
    // SAFETY: the C++ function takes two integers by value and touches no
    // memory; every input, including non-positive counts, is defined for it.
    unsafe { ffi::jumpshard_figure1(key, num_buckets) }
}

/// Figure 1 over a batch, with the loop in C++ so that a benchmark measures
/// the compiled reference and not one foreign call per key.
///
/// # Panics
/// When `keys` and `out` differ in length.
///
/// ```
/// let keys = [0u64, 1, u64::MAX];
/// let mut out = [0i32; 3];
/// jumpshard::reference::batch(&keys, 1000, &mut out);
/// assert_eq!(out[0], jumpshard::reference::jump_consistent_hash(0, 1000));
/// ```
pub fn batch(keys: &[u64], num_buckets: i32, out: &mut [i32]) {
    assert_eq!(keys.len(), out.len(), "keys and out differ in length");
    // SAFETY: both pointers come from live slices of `keys.len()` elements
    // (checked equal above); the C++ loop reads `len` keys and writes `len`
    // outputs, and nothing else.
    unsafe {
        ffi::jumpshard_figure1_batch(keys.as_ptr(), keys.len(), num_buckets, out.as_mut_ptr())
    }
}
