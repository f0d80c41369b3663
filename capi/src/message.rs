//! The English description of a status, for C callers to print.

use core::ffi::{c_char, CStr};

use crate::guard::guard;
use crate::status::jumpshard_status;

/// A static, NUL-terminated English description of `status`, for any value
/// (codes this version does not know get a generic message). Never NULL;
/// the caller must not free it.
#[no_mangle]
pub extern "C" fn jumpshard_status_message(status: i32) -> *const c_char {
    const UNKNOWN: &CStr = c"unknown jumpshard status code";
    guard(UNKNOWN.as_ptr(), || {
        jumpshard_status::from_code(status)
            .map_or(UNKNOWN, jumpshard_status::message)
            .as_ptr()
    })
}
