//! The panic boundary every `extern "C"` function runs inside.
//!
//! A Rust panic must not unwind into C (since Rust 1.81 it aborts the
//! process instead, which is no better for the storage system hosting us).
//! Nothing in the checked paths is meant to panic, but printing a warning
//! to a closed stderr or failing to start the thread pool can, so every entry
//! point turns a panic into a return value.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::status::jumpshard_status;

/// Runs `f`, returning `on_panic` if it panics.
///
/// `AssertUnwindSafe` is sound here because the closures only borrow their
/// caller's arguments, and nothing they touch is observed after a panic
/// except an output buffer, whose contents the C API leaves unspecified
/// after `JUMPSHARD_ERROR_PANIC`.
pub(super) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) => {
            // A payload whose destructor panics in turn must not escape
            // either; dropping it under a second boundary contains that.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            on_panic
        }
    }
}

/// [`guard`] for the functions that return a status: `Err` carries the
/// refusal, and a panic becomes `JUMPSHARD_ERROR_PANIC`.
pub(super) fn guard_status(f: impl FnOnce() -> Result<(), jumpshard_status>) -> jumpshard_status {
    guard(jumpshard_status::JUMPSHARD_ERROR_PANIC, || match f() {
        Ok(()) => jumpshard_status::JUMPSHARD_OK,
        Err(status) => status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_panic_status() {
        let status = guard_status(|| panic!("deliberate panic in a test"));
        assert_eq!(status, jumpshard_status::JUMPSHARD_ERROR_PANIC);
    }

    #[test]
    fn results_pass_through() {
        assert_eq!(guard_status(|| Ok(())), jumpshard_status::JUMPSHARD_OK);
        assert_eq!(
            guard_status(|| Err(jumpshard_status::JUMPSHARD_ERROR_NULL_POINTER)),
            jumpshard_status::JUMPSHARD_ERROR_NULL_POINTER
        );
        assert_eq!(guard(-1, || 7), 7);
    }

    #[test]
    fn a_payload_that_panics_on_drop_is_contained() {
        struct Bomb;
        impl Drop for Bomb {
            fn drop(&mut self) {
                panic!("deliberate panic while dropping a panic payload");
            }
        }
        let value = guard(-1, || -> i32 { std::panic::panic_any(Bomb) });
        assert_eq!(value, -1);
    }
}
