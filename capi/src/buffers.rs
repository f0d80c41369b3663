//! Turning C (pointer, length) pairs into slices, refusing every pair that
//! cannot be a valid buffer before any slice exists.

use core::mem::{align_of, size_of};

use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_INVALID_LENGTH, JUMPSHARD_ERROR_MISALIGNED_POINTER,
    JUMPSHARD_ERROR_NULL_POINTER, JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
};

/// The address range `len` elements of `T` at `ptr` would cover, once the
/// checks that need no dereference pass: `None` for an empty buffer (any
/// pointer, NULL included, is fine then).
fn span<T>(ptr: *const T, len: usize) -> Result<Option<(usize, usize)>, jumpshard_status> {
    if len == 0 {
        return Ok(None);
    }
    if ptr.is_null() {
        return Err(JUMPSHARD_ERROR_NULL_POINTER);
    }
    if !ptr.is_aligned() {
        return Err(JUMPSHARD_ERROR_MISALIGNED_POINTER);
    }
    // `slice::from_raw_parts` requires at most isize::MAX bytes, within
    // one allocation, which cannot wrap around the address space.
    let start = ptr as usize;
    let end = len
        .checked_mul(size_of::<T>())
        .filter(|&bytes| bytes <= isize::MAX as usize)
        .and_then(|bytes| start.checked_add(bytes))
        .ok_or(JUMPSHARD_ERROR_INVALID_LENGTH)?;
    Ok(Some((start, end)))
}

/// A (pointer, length) pair that passed [`span`]'s checks.
pub(super) struct Buffer<T> {
    ptr: *const T,
    len: usize,
    /// The address range; (0, 0) for an empty buffer, which overlaps
    /// nothing. Plain integers rather than an `Option`, whose unset payload
    /// the optimiser may compare before the tag (harmless, but valgrind
    /// reports a jump on uninitialised memory).
    range: (usize, usize),
}

impl<T> Buffer<T> {
    /// Checks `len` elements of `T` at `ptr`: NULL, alignment, length.
    pub(super) fn new(ptr: *const T, len: usize) -> Result<Buffer<T>, jumpshard_status> {
        Ok(Buffer {
            ptr,
            len,
            range: span(ptr, len)?.unwrap_or((0, 0)),
        })
    }

    /// Whether the two buffers share a byte (an empty buffer shares none).
    pub(super) fn overlaps<U>(&self, other: &Buffer<U>) -> bool {
        let (a, b) = (self.range, other.range);
        a.0 < b.1 && b.0 < a.1
    }

    /// The buffer as a slice.
    ///
    /// # Safety
    /// Unless the buffer is empty, its `len` elements must be readable and
    /// written by no one during `'a`. This is the C caller's contract,
    /// which no check can verify.
    pub(super) unsafe fn slice<'a>(self) -> &'a [T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `span` checked that `ptr` is non-NULL, aligned and that
        // `len` elements fit in isize::MAX bytes without wrapping; the
        // caller promises they are readable and not written during 'a.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The buffer as a mutable slice.
    ///
    /// # Safety
    /// Unless the buffer is empty, its `len` elements must be writable and
    /// accessed by no one else during `'a`, which includes not overlapping
    /// any other buffer of the same call (check with [`Buffer::overlaps`]).
    pub(super) unsafe fn slice_mut<'a>(self) -> &'a mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as in `slice`, checked by `span`; the caller promises the
        // elements are writable and aliased by no other reference.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.cast_mut(), self.len) }
    }
}

// `out` arrives as `int32_t *` and is written as `u32`: one layout.
const _: () =
    assert!(size_of::<u32>() == size_of::<i32>() && align_of::<u32>() == align_of::<i32>());

/// Checked `keys` and `out` buffers of `len` elements each.
pub(super) struct Buffers<'a> {
    pub(super) keys: &'a [u64],
    pub(super) out: &'a mut [u32],
}

impl<'a> Buffers<'a> {
    /// Checks `keys`, then `out`, then that they are disjoint, and only then
    /// makes the slices.
    ///
    /// # Safety
    /// When the checks pass and `len > 0`, `keys` must point to `len`
    /// readable `uint64_t` and `out` to `len` writable `int32_t`, neither
    /// written by anyone else during `'a`. This is the C caller's contract,
    /// which no check can verify.
    pub(super) unsafe fn new(
        keys: *const u64,
        out: *mut i32,
        len: usize,
    ) -> Result<Buffers<'a>, jumpshard_status> {
        let keys = Buffer::new(keys, len)?;
        let out = Buffer::new(out_u32(out), len)?;
        if keys.overlaps(&out) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        Ok(Buffers {
            // SAFETY: the caller promises `len` readable keys, not written
            // during 'a.
            keys: unsafe { keys.slice() },
            // SAFETY: the caller promises `len` writable outputs, used by no
            // one else during 'a; `out` does not overlap `keys`.
            out: unsafe { out.slice_mut() },
        })
    }
}

/// An `int32_t *` output as the `u32` buffer the library writes: one
/// layout, and results below 2^31 read the same.
pub(super) fn out_u32(out: *mut i32) -> *const u32 {
    out.cast::<u32>().cast_const()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pointer that is only an address: `span` never dereferences.
    fn addr(address: usize) -> *const u64 {
        core::ptr::without_provenance(address)
    }

    #[test]
    fn empty_buffers_accept_any_pointer() {
        assert_eq!(span::<u64>(core::ptr::null(), 0), Ok(None));
        assert_eq!(span(addr(3), 0), Ok(None));
    }

    #[test]
    fn buffers_overlap_only_when_they_share_a_byte() {
        let buffer = |address, len| Buffer::new(addr(address), len).unwrap();
        assert!(buffer(8, 2).overlaps(&buffer(16, 1)));
        assert!(buffer(16, 1).overlaps(&buffer(8, 2)));
        assert!(!buffer(8, 1).overlaps(&buffer(16, 1)), "adjacent");
        assert!(!buffer(8, 0).overlaps(&buffer(8, 1)), "empty");
        let bytes = Buffer::new(core::ptr::without_provenance::<u8>(23), 1).unwrap();
        assert!(bytes.overlaps(&buffer(16, 1)));
        assert!(!bytes.overlaps(&buffer(24, 1)));
    }

    #[test]
    fn bad_spans_are_refused_in_order() {
        assert_eq!(
            span::<u64>(core::ptr::null(), 1),
            Err(JUMPSHARD_ERROR_NULL_POINTER)
        );
        assert_eq!(span(addr(4), 1), Err(JUMPSHARD_ERROR_MISALIGNED_POINTER));
        let huge = isize::MAX as usize / 8 + 1;
        assert_eq!(span(addr(8), huge), Err(JUMPSHARD_ERROR_INVALID_LENGTH));
        assert_eq!(span(addr(8), huge - 1), Ok(Some((8, 8 + (huge - 1) * 8))));
        let near_top = usize::MAX - 15;
        assert_eq!(span(addr(near_top), 2), Err(JUMPSHARD_ERROR_INVALID_LENGTH));
        assert_eq!(
            span(addr(near_top), 1),
            Ok(Some((near_top, usize::MAX - 7)))
        );
    }
}
