//! Opaque handles: a boxed Rust value whose address C holds. A handle is
//! checked for NULL and alignment before it is borrowed, handed to the
//! caller only once every other check passed, and dropped by the `_free`
//! functions.

use crate::buffers::Buffer;
use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_MISALIGNED_POINTER, JUMPSHARD_ERROR_NULL_POINTER,
};

/// The checks a handle pointer passes before it is dereferenced: not NULL,
/// aligned for its type. Nothing else about it can be checked.
fn check<T>(handle: *const T) -> Result<(), jumpshard_status> {
    if handle.is_null() {
        return Err(JUMPSHARD_ERROR_NULL_POINTER);
    }
    if !handle.is_aligned() {
        return Err(JUMPSHARD_ERROR_MISALIGNED_POINTER);
    }
    Ok(())
}

/// The value behind a handle, shared.
///
/// # Safety
/// Unless NULL or misaligned, `handle` must come from [`Slot::fill`] and
/// not be freed yet, and no thread may mutate or free it during `'a`.
pub(super) unsafe fn borrow<'a, T>(handle: *const T) -> Result<&'a T, jumpshard_status> {
    check(handle)?;
    // SAFETY: non-NULL and aligned; the caller promises a live handle,
    // made by `Box::into_raw`, that nobody mutates during 'a.
    Ok(unsafe { &*handle })
}

/// The value behind a handle, exclusively.
///
/// # Safety
/// Unless NULL or misaligned, `handle` must come from [`Slot::fill`] and
/// not be freed yet, and no other thread may use it during `'a`.
pub(super) unsafe fn borrow_mut<'a, T>(handle: *mut T) -> Result<&'a mut T, jumpshard_status> {
    check(handle)?;
    // SAFETY: non-NULL and aligned; the caller promises a live handle,
    // made by `Box::into_raw`, that nobody else uses during 'a.
    Ok(unsafe { &mut *handle })
}

/// Drops the value behind a handle; NULL (and a misaligned pointer, which
/// no handle is) does nothing.
///
/// # Safety
/// Unless NULL or misaligned, `handle` must come from [`Slot::fill`] and
/// not be freed yet, and no other thread may use it during or after the
/// call.
pub(super) unsafe fn free<T>(handle: *mut T) {
    if check(handle).is_ok() {
        // SAFETY: the caller promises a live handle made by `Box::into_raw`
        // and used by nobody else: this is the one owner dropping it.
        drop(unsafe { Box::from_raw(handle) });
    }
}

/// The caller's `T **out`, where a new handle goes.
pub(super) struct Slot<T> {
    out: Buffer<*mut T>,
}

impl<T> Slot<T> {
    /// Checks `out`: not NULL, aligned for a pointer.
    pub(super) fn new(out: *mut *mut T) -> Result<Slot<T>, jumpshard_status> {
        Ok(Slot {
            out: Buffer::new(out.cast_const(), 1)?,
        })
    }

    /// Whether `*out` shares a byte with `buffer`.
    pub(super) fn overlaps<U>(&self, buffer: &Buffer<U>) -> bool {
        self.out.overlaps(buffer)
    }

    /// Boxes `value` and writes its address to `*out`: the handle, which
    /// the caller frees with [`free`].
    ///
    /// # Safety
    /// `*out` must be writable and accessed by no one else during the call
    /// (C's contract), and must not overlap any buffer the call still reads.
    pub(super) unsafe fn fill(self, value: T) {
        // SAFETY: `new` checked one non-NULL, aligned pointer slot; the
        // caller promises it is writable and not aliased.
        let out = unsafe { self.out.slice_mut() };
        out[0] = Box::into_raw(Box::new(value));
    }
}
