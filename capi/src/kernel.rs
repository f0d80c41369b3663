//! Which kernel the batch functions use: reading and changing it.

use core::ffi::{c_char, CStr};

use crate::guard::{guard, guard_status};
use crate::status::jumpshard_status;
use jumpshard::{active_kernel, set_active_kernel, Kernel};

/// [`Kernel::NAMES`] as C strings, in the same order (a test checks).
const C_NAMES: [&CStr; 4] = [c"scalar", c"avx2", c"avx512", c"neon"];

/// The name of the kernel the batch functions use now: "scalar", "avx2",
/// "avx512" or "neon". A static string; the caller must not free it.
///
/// The first call (or the first batch) picks the fastest kernel this CPU
/// runs, unless the `JUMPSHARD_KERNEL` environment variable names another
/// one it runs; `jumpshard_set_kernel` changes it later.
#[no_mangle]
pub extern "C" fn jumpshard_kernel_name() -> *const c_char {
    const UNKNOWN: &CStr = c"unknown";
    guard(UNKNOWN.as_ptr(), || {
        let name = active_kernel().name();
        C_NAMES
            .into_iter()
            .find(|c| c.to_bytes() == name.as_bytes())
            .unwrap_or(UNKNOWN)
            .as_ptr()
    })
}

/// Makes every later batch call, on every thread, use the kernel called
/// `name` ("scalar", "avx2", "avx512" or "neon"). Batches already running
/// finish on the kernel they started with; every kernel gives the same
/// results, so this only changes speed.
///
/// Returns `JUMPSHARD_OK`, `JUMPSHARD_ERROR_NULL_POINTER`,
/// `JUMPSHARD_ERROR_UNKNOWN_KERNEL` (also for a name that is not UTF-8) or
/// `JUMPSHARD_ERROR_UNSUPPORTED_KERNEL` (a kernel this CPU cannot run). On
/// error the kernel in use does not change.
///
/// # Safety
/// `name` must be NULL or point to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn jumpshard_set_kernel(name: *const c_char) -> jumpshard_status {
    guard_status(|| {
        if name.is_null() {
            return Err(jumpshard_status::JUMPSHARD_ERROR_NULL_POINTER);
        }
        // SAFETY: not NULL, and the caller promises a NUL-terminated string
        // that lives for the call.
        let name = unsafe { CStr::from_ptr(name) };
        let name = name
            .to_str()
            .map_err(|_| jumpshard_status::JUMPSHARD_ERROR_UNKNOWN_KERNEL)?;
        let kernel = Kernel::by_name(name).map_err(|e| jumpshard_status::of(&e))?;
        set_active_kernel(kernel);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_names_match_the_kernel_names() {
        let c: Vec<&str> = C_NAMES.iter().map(|c| c.to_str().unwrap()).collect();
        assert_eq!(c, Kernel::NAMES);
    }
}
