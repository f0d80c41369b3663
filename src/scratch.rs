//! Working memory kept on each thread from one batch call to the next.
//!
//! A batch's working areas (the pending keys of a Memento block, a replica
//! run's derived keys and endings) run to hundreds of KiB. Allocated anew
//! by each call, areas that large go back to the operating system when
//! they are freed (glibc's allocator unmaps them, or trims the heap's
//! top), and the next call faults their pages in again, zeroed: tens of
//! microseconds a call, which made calls of 2048 to 32768 keys up to 3
//! times as slow per key as longer ones (`docs/performance.md`, "Working
//! memory kept per thread"). So each thread keeps the areas of its last
//! call, at most one of each kind; each kind is bounded by its block size,
//! not by the calls' lengths.

use std::any::Any;
use std::cell::RefCell;

thread_local! {
    /// The areas this thread's calls left, one of each type.
    static KEPT: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// `f` of the `T` that this thread's last call using one left (a new one
/// the first time, or while an enclosing call holds it), kept for the next
/// call afterwards (of nested calls, the outermost's). A panic in `f`
/// drops it.
pub(crate) fn with<T: Default + 'static, R>(f: impl FnOnce(&mut T) -> R) -> R {
    // `try_with`: a thread being torn down has no storage left, and then
    // the call makes its own.
    let kept = KEPT
        .try_with(|kept| {
            let mut kept = kept.borrow_mut();
            let at = kept.iter().position(|area| area.is::<T>())?;
            kept.swap_remove(at).downcast::<T>().ok()
        })
        .ok()
        .flatten();
    let mut area: Box<T> = kept.unwrap_or_default();
    let result = f(&mut area);
    let _ = KEPT.try_with(|kept| {
        let mut kept = kept.borrow_mut();
        // A nested call of the same kind put its own back before this,
        // the outer call's, which replaces it.
        kept.retain(|area| !area.is::<T>());
        kept.push(area);
    });
    result
}

#[cfg(test)]
mod tests {
    use super::with;

    #[test]
    fn an_area_is_kept_for_the_next_call_and_nested_calls_get_their_own() {
        with(|v: &mut Vec<u32>| v.extend([1, 2, 3]));
        with(|v: &mut Vec<u32>| {
            assert_eq!(*v, [1, 2, 3]);
            with(|inner: &mut Vec<u32>| {
                assert!(inner.is_empty());
                inner.push(9);
            });
            v.push(4);
        });
        // The outer call's area is the one kept.
        with(|v: &mut Vec<u32>| assert_eq!(*v, [1, 2, 3, 4]));
        // Other types and other threads have areas of their own.
        with(|v: &mut Vec<u64>| assert!(v.is_empty()));
        std::thread::spawn(|| with(|v: &mut Vec<u32>| assert!(v.is_empty())))
            .join()
            .unwrap();
    }
}
