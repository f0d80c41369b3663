//! Node tables behind an opaque handle: a router in C loads the same table
//! file as the CLI and every other front end (names, `+NAME` repeats,
//! `removed=K` removals, `weight=W` weights) and places keys on its slots
//! exactly as they do.

use crate::buffers::{Buffer, Buffers};
use crate::guard::{guard, guard_status};
use crate::handle::{self, Slot};
use crate::status::jumpshard_status::{
    self, JUMPSHARD_ERROR_INVALID_TABLE, JUMPSHARD_ERROR_NOT_A_BUCKET,
    JUMPSHARD_ERROR_OVERLAPPING_BUFFERS,
};
use jumpshard::NodeTable;

/// A node table: its slots' node names and how keys are placed on them.
/// Made by `jumpshard_table_parse`, freed by `jumpshard_table_free`.
///
/// Thread safety: a table never changes after it is made, so any number of
/// threads may look keys up in it at once; only `jumpshard_table_free`
/// needs it to itself.
#[allow(non_camel_case_types)] // the C name
pub struct jumpshard_table(pub(crate) NodeTable);

/// Parses the node-table file text `text[0..len]` (UTF-8; the syntax of
/// `docs/cluster-operations.md`: one node name per line, line i+1 serving
/// slot i, `+NAME` for a repeat, `removed=K` and `weight=W` attributes,
/// then `override KEY NODE` lines pinning keys to nodes) and writes the
/// handle to `*out`; free it with `jumpshard_table_free`.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `out`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `text`,
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`) and
/// `JUMPSHARD_ERROR_INVALID_LENGTH`; `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`
/// (`*out` inside the text); then `JUMPSHARD_ERROR_INVALID_TABLE` (not
/// UTF-8, or a table the other front ends refuse too: an empty or unfit
/// line, an unmarked repeat, a bad attribute, removals that do not replay,
/// all weights 0, a bad override line), with the 1-based line at fault
/// written to `*error_line` when `error_line` is not NULL (0 when the fault
/// is the whole table). On any error `*out` is not written and nothing
/// stays allocated.
///
/// # Safety
/// Unless `len` is 0, `text` must point to `len` readable bytes; `out` must
/// point to a writable `jumpshard_table *`; `error_line` must be NULL or
/// point to a writable `size_t`; no other thread writes any of them during
/// the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_parse(
    text: *const u8,
    len: usize,
    out: *mut *mut jumpshard_table,
    error_line: *mut usize,
) -> jumpshard_status {
    guard_status(|| {
        let slot = Slot::new(out)?;
        let text = Buffer::new(text, len)?;
        if slot.overlaps(&text) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        // SAFETY: the caller promises `len` readable bytes, not written
        // during the call.
        let bytes = unsafe { text.slice() };
        let parsed = std::str::from_utf8(bytes)
            .map_err(|e| {
                // The line of the first byte that is not UTF-8.
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                Some(line)
            })
            .and_then(|text| NodeTable::parse(text).map_err(|e| line_of(&e)));
        match parsed {
            Ok(table) => {
                // SAFETY: the caller promises a writable, unaliased `*out`,
                // which does not overlap the text (read already).
                unsafe { slot.fill(jumpshard_table(table)) };
                Ok(())
            }
            Err(line) => {
                if !error_line.is_null() {
                    let at = Buffer::new(error_line.cast_const(), 1)?;
                    // SAFETY: a writable `size_t`, checked non-NULL and
                    // aligned, that no one else accesses.
                    unsafe { at.slice_mut()[0] = line.unwrap_or(0) };
                }
                Err(JUMPSHARD_ERROR_INVALID_TABLE)
            }
        }
    })
}

/// The line a table error names, if one.
fn line_of(error: &jumpshard::TableError) -> Option<usize> {
    use jumpshard::TableError::*;
    match error {
        EmptyName { line }
        | BadName { line, .. }
        | UnmarkedRepeat { line, .. }
        | MarkedFirst { line, .. }
        | LookAlike { line, .. }
        | BadAttribute { line, .. }
        | BadOverride { line, .. }
        | BadZone { line, .. } => Some(*line),
        BadRemovals { line, .. } => *line,
        _ => None,
    }
}

/// Frees a table made by `jumpshard_table_parse`. NULL does nothing.
///
/// # Safety
/// `table` must be NULL or a handle not freed yet, which no other thread
/// uses during the call; it must not be used after.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_free(table: *mut jumpshard_table) {
    // SAFETY: the caller's contract is `handle::free`'s.
    guard((), || unsafe { handle::free(table) })
}

/// The number of slots (the table's lines, removed ones included), or -1
/// when `table` is NULL or misaligned.
///
/// # Safety
/// `table` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_len(table: *const jumpshard_table) -> i32 {
    guard(-1, || {
        // SAFETY: the caller promises a live handle.
        let table = unsafe { handle::borrow(table) };
        // At most INT32_MAX slots, so the cast is exact.
        table.map_or(-1, |t| t.0.len() as i32)
    })
}

/// Writes to `*name` and `*name_len` the node name serving `slot` (or that
/// served it, if it is removed): UTF-8, not NUL-terminated, owned by the
/// table and valid until it is freed.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `table`, `name`, then `name_len`:
/// `JUMPSHARD_ERROR_NULL_POINTER`, `JUMPSHARD_ERROR_MISALIGNED_POINTER`;
/// `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS` (`name` and `name_len` share
/// bytes); then `JUMPSHARD_ERROR_NOT_A_BUCKET` (`slot` outside `0..len`).
/// On any error nothing is written.
///
/// # Safety
/// `table` must be NULL or a live handle; `name` and `name_len` must point
/// to a writable `const uint8_t *` and `size_t` that no other thread
/// accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_slot_name(
    table: *const jumpshard_table,
    slot: i32,
    name: *mut *const u8,
    name_len: *mut usize,
) -> jumpshard_status {
    // SAFETY: the caller's promises, passed on unchanged.
    unsafe { slot_text(table, slot, name, name_len, |t, slot| Ok(t.slot(slot))) }
}

/// Writes the text `text_of` gives for slot `slot` of `table` (one of the
/// table's own strings) to `*name` and `*name_len`, after checking the
/// handle, both pointers and the slot; on any error nothing is written.
/// The slot-name and zone-name functions share it.
///
/// # Safety
/// As [`jumpshard_table_slot_name`].
pub(crate) unsafe fn slot_text(
    table: *const jumpshard_table,
    slot: i32,
    name: *mut *const u8,
    name_len: *mut usize,
    text_of: impl FnOnce(&NodeTable, usize) -> Result<&str, jumpshard_status>,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle.
        let table = unsafe { handle::borrow(table) }?;
        let name = Buffer::new(name.cast_const(), 1)?;
        let name_len = Buffer::new(name_len.cast_const(), 1)?;
        if name.overlaps(&name_len) {
            return Err(JUMPSHARD_ERROR_OVERLAPPING_BUFFERS);
        }
        let slot = usize::try_from(slot)
            .ok()
            .filter(|&s| s < table.0.len())
            .ok_or(JUMPSHARD_ERROR_NOT_A_BUCKET)?;
        let text = text_of(&table.0, slot)?;
        // SAFETY: a writable pointer and a writable `size_t`, checked
        // non-NULL and aligned, that no one else accesses.
        unsafe {
            name.slice_mut()[0] = text.as_ptr();
            name_len.slice_mut()[0] = text.len();
        }
        Ok(())
    })
}

/// Writes the slot of `keys[i]` to `out[i]` for every `i < len`, as the
/// table places keys: Figure 1 over its slots, then Memento's rehashes off
/// removed slots, or its weights' rejection sampling, an overridden key
/// taking its override's slot instead (the Rust API's `NodeTable::batch`,
/// bit for bit). `jumpshard_table_slot_name` names the
/// node of each.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `table`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`; for `keys`, then `out`:
/// `JUMPSHARD_ERROR_NULL_POINTER` (NULL with `len > 0`),
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER`, `JUMPSHARD_ERROR_INVALID_LENGTH`;
/// then `JUMPSHARD_ERROR_OVERLAPPING_BUFFERS`. On any error `out` is not
/// written (after `JUMPSHARD_ERROR_PANIC` its contents are unspecified).
/// With `len == 0` the buffers are not used and may be NULL.
///
/// # Safety
/// `table` must be NULL or a live handle; unless `len` is 0, `keys` must
/// point to `len` readable `uint64_t` and `out` to `len` writable `int32_t`
/// that no other thread writes during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_batch(
    table: *const jumpshard_table,
    keys: *const u64,
    len: usize,
    out: *mut i32,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle.
        let table = unsafe { handle::borrow(table) }?;
        // SAFETY: the caller's contract, stated above, is the one
        // `Buffers::new` needs.
        let buffers = unsafe { Buffers::new(keys, out, len) }?;
        table
            .0
            .batch(buffers.keys, buffers.out)
            .map_err(|e| jumpshard_status::of(&e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jumpshard_status::JUMPSHARD_OK;

    /// A table with removals through the C functions (for Miri): the slots
    /// are the library's, names point into the table, bad text names its
    /// line and writes nothing.
    #[test]
    fn tables_through_the_c_functions() {
        let text = b"a\nb removed=1\nc\n+a\n";
        let mut table = std::ptr::null_mut();
        let mut line = 99usize;
        let keys = [1u64, 2, 3, u64::MAX];
        let mut out = [-1i32; 4];
        let (mut name, mut name_len) = (std::ptr::null(), 0usize);
        // SAFETY: real buffers of the stated lengths; the handle is freed
        // at the end.
        unsafe {
            let status = jumpshard_table_parse(text.as_ptr(), text.len(), &mut table, &mut line);
            assert_eq!((status, line), (JUMPSHARD_OK, 99));
            assert_eq!(jumpshard_table_len(table), 4);
            let status = jumpshard_table_batch(table, keys.as_ptr(), 4, out.as_mut_ptr());
            assert_eq!(status, JUMPSHARD_OK);
            let want = NodeTable::parse("a\nb removed=1\nc\n+a\n").unwrap();
            for (i, &key) in keys.iter().enumerate() {
                assert_eq!(out[i], want.bucket(key) as i32);
                assert_ne!(out[i], 1);
            }
            let status = jumpshard_table_slot_name(table, 2, &mut name, &mut name_len);
            assert_eq!(status, JUMPSHARD_OK);
            assert_eq!(std::slice::from_raw_parts(name, name_len), b"c");
            let status = jumpshard_table_slot_name(table, 4, &mut name, &mut name_len);
            assert_eq!(status, JUMPSHARD_ERROR_NOT_A_BUCKET);
            jumpshard_table_free(table);

            let mut untouched = std::ptr::null_mut();
            for (bad, at) in [
                (&b"a\nb removed=2\nc\n"[..], 0),
                (b"a\n\xff\n", 2),
                (b"a\nb\na\n", 3),
            ] {
                let status =
                    jumpshard_table_parse(bad.as_ptr(), bad.len(), &mut untouched, &mut line);
                assert_eq!((status, line), (JUMPSHARD_ERROR_INVALID_TABLE, at));
                assert!(untouched.is_null());
            }
        }
    }
}
