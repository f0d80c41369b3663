//! A node table's fingerprint for C: the text every front end prints for
//! the same table, so that a router in C can compare the table it loaded
//! with the one its control plane expects.

use core::ffi::c_char;

use crate::buffers::Buffer;
use crate::guard::guard_status;
use crate::handle;
use crate::status::jumpshard_status;
use crate::table::jumpshard_table;

/// The bytes `jumpshard_table_fingerprint` writes: `jt1:`, 32 lowercase
/// hexadecimal digits and a terminating NUL.
pub const JUMPSHARD_TABLE_FINGERPRINT_SIZE: usize = 37;

/// Writes the table's fingerprint to `out[0..JUMPSHARD_TABLE_FINGERPRINT_SIZE]`
/// as a NUL-terminated string, `jt1:` and 32 lowercase hexadecimal digits:
/// XXH3-128 of the table's meaning (its slots' names in order, its removal
/// order, its weights), the same for every spelling of the table (comments,
/// blanks, line ends, how a number is written) and the value the CLI's
/// `jumpshard table fingerprint`, the Rust API's `NodeTable::fingerprint`
/// and the Python module print. Two tables with the same fingerprint place
/// every key alike.
///
/// Returns `JUMPSHARD_OK`, or the status of the first check that fails, in
/// this order: for `table`, then `out`, `JUMPSHARD_ERROR_NULL_POINTER` and
/// `JUMPSHARD_ERROR_MISALIGNED_POINTER` (a table handle only). On any
/// error `out` is not written.
///
/// # Safety
/// `table` must be NULL or a live handle; `out` must be NULL or point to
/// `JUMPSHARD_TABLE_FINGERPRINT_SIZE` writable bytes that no other thread
/// accesses during the call.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_table_fingerprint(
    table: *const jumpshard_table,
    out: *mut c_char,
) -> jumpshard_status {
    guard_status(|| {
        // SAFETY: the caller promises a live handle.
        let table = unsafe { handle::borrow(table) }?;
        let out = Buffer::new(out.cast_const(), JUMPSHARD_TABLE_FINGERPRINT_SIZE)?;
        let text = table.0.fingerprint().to_string();
        // SAFETY: the caller promises JUMPSHARD_TABLE_FINGERPRINT_SIZE
        // writable bytes, checked non-NULL, that no one else accesses.
        let out = unsafe { out.slice_mut() };
        for (o, &b) in out.iter_mut().zip(text.as_bytes().iter().chain([&0u8])) {
            *o = b as c_char;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::jumpshard_status::{JUMPSHARD_ERROR_NULL_POINTER, JUMPSHARD_OK};
    use crate::table::{jumpshard_table_free, jumpshard_table_parse};

    /// The C function's text is the Rust API's, NUL-terminated; NULLs are
    /// refused with the buffer untouched.
    #[test]
    fn the_fingerprint_through_the_c_function() {
        let text = b"a  # first\nb removed=1\nc\n+a\n";
        let mut table = std::ptr::null_mut();
        let mut out = [b'?' as c_char; JUMPSHARD_TABLE_FINGERPRINT_SIZE];
        // SAFETY: real buffers of the stated lengths; the handle is freed
        // at the end.
        unsafe {
            let status =
                jumpshard_table_parse(text.as_ptr(), text.len(), &mut table, std::ptr::null_mut());
            assert_eq!(status, JUMPSHARD_OK);
            let status = jumpshard_table_fingerprint(table, std::ptr::null_mut());
            assert_eq!(status, JUMPSHARD_ERROR_NULL_POINTER);
            let status = jumpshard_table_fingerprint(std::ptr::null(), out.as_mut_ptr());
            assert_eq!(status, JUMPSHARD_ERROR_NULL_POINTER);
            assert!(out.iter().all(|&c| c == b'?' as c_char));
            let status = jumpshard_table_fingerprint(table, out.as_mut_ptr());
            assert_eq!(status, JUMPSHARD_OK);
            jumpshard_table_free(table);
        }
        let got = std::ffi::CStr::from_bytes_with_nul(&out.map(|c| c.to_ne_bytes()[0]))
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let want = jumpshard::NodeTable::parse("a\nb removed=1\nc\n+a\n").unwrap();
        assert_eq!(got, want.fingerprint().to_string());
    }
}
