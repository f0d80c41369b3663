//! The paper's Figure 1, compiled from C++ (`reference/figure1.cpp`) by
//! `build.rs`: the oracle that tests, benchmarks and `jumpshard verify` hold
//! every kernel against; and the Memento lookup written in C++ from its
//! specification (`reference/memento.cpp`), the oracle of
//! [`crate::Memento`]. Present with the `reference` feature (on by
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
        pub fn jumpshard_reference_xxh64(data: *const u8, len: usize, seed: u64) -> u64;
        pub fn jumpshard_reference_memento(
            key: u64,
            n: i32,
            removed: *const i32,
            removed_len: usize,
        ) -> i32;
        pub fn jumpshard_reference_memento_bytes(
            key: *const u8,
            len: usize,
            n: i32,
            removed: *const i32,
            removed_len: usize,
        ) -> i32;
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

/// XXH64 of `data` with `seed`, computed by the C++ reference from the
/// xxHash specification.
///
/// ```
/// assert_eq!(jumpshard::reference::xxh64(b"", 0), 0xEF46_DB37_51D8_E999);
/// ```
pub fn xxh64(data: &[u8], seed: u64) -> u64 {
    // SAFETY: the pointer and length come from a live slice, which the C++
    // function only reads.
    unsafe { ffi::jumpshard_reference_xxh64(data.as_ptr(), data.len(), seed) }
}

/// The removed buckets as the C++ reference takes them: `int32_t`, which
/// every bucket below 2^31 - 1 fits. Panics unless they are a removal log
/// the C++ can follow: `n >= 1`, each below `n`, none twice, and at least
/// one bucket left working (with none, the lookup would take a remainder
/// by 0, undefined in C++).
fn removed_i32(n: i32, removed: &[u32]) -> Vec<i32> {
    assert!(
        n >= 1,
        "a b-array of {n} buckets: the reference needs 1 or more"
    );
    let mut seen = std::collections::HashSet::with_capacity(removed.len());
    for &b in removed {
        assert!(
            i64::from(b) < i64::from(n),
            "bucket {b} removed from {n} buckets"
        );
        assert!(seen.insert(b), "bucket {b} removed twice");
    }
    assert!(
        removed.len() < n as usize,
        "every one of the {n} buckets removed: a Memento keeps one working"
    );
    removed.iter().map(|&b| b as i32).collect()
}

/// The Memento bucket of the u64 `key` in a b-array of `n` buckets from
/// which `removed` were removed in this order, following the plain chain
/// of replacers (see [`crate::Memento`] for the computation).
///
/// # Panics
/// Unless `n >= 1` and `removed` holds distinct buckets below `n`, leaving
/// at least one working (what [`crate::Memento::from_removals`] refuses
/// with an error).
///
/// ```
/// use jumpshard::{BucketCount, Memento};
///
/// let mut m = Memento::new(BucketCount::new(100)?);
/// m.remove(86)?;
/// assert_eq!(
///     jumpshard::reference::memento(1253737204188795044, 100, m.removals()),
///     m.bucket(1253737204188795044) as i32
/// );
/// # Ok::<(), jumpshard::Error>(())
/// ```
pub fn memento(key: u64, n: i32, removed: &[u32]) -> i32 {
    let removed = removed_i32(n, removed);
    // SAFETY: `removed` is a live vector of `removed.len()` elements, which
    // the C++ function only reads.
    unsafe { ffi::jumpshard_reference_memento(key, n, removed.as_ptr(), removed.len()) }
}

/// [`memento`] for a byte key, with the hashes of the authors' engine.
///
/// # Panics
/// As [`memento`] does.
pub fn memento_bytes(key: &[u8], n: i32, removed: &[u32]) -> i32 {
    let removed = removed_i32(n, removed);
    // SAFETY: both pointers come from live slices of the lengths given,
    // which the C++ function only reads.
    unsafe {
        ffi::jumpshard_reference_memento_bytes(
            key.as_ptr(),
            key.len(),
            n,
            removed.as_ptr(),
            removed.len(),
        )
    }
}

#[cfg(test)]
mod tests {
    /// A log the C++ cannot follow panics in Rust instead of reaching it
    /// (every bucket removed was a remainder by 0 there: SIGFPE).
    #[test]
    fn removal_logs_the_reference_cannot_follow_panic() {
        for (n, removed) in [
            (1, &[0u32][..]),
            (2, &[0, 1]),
            (3, &[5]),
            (3, &[1, 1]),
            (0, &[]),
        ] {
            let caught = std::panic::catch_unwind(|| super::memento(5, n, removed));
            assert!(caught.is_err(), "n {n}, removed {removed:?}");
        }
        assert_eq!(super::memento(5, 1, &[]), 0);
    }
}
