//! The library version, as a string C can hold on to.

use core::ffi::{c_char, CStr};

use crate::guard::guard;

/// Cargo.toml's version, NUL-terminated at compile time.
const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the package version contains a NUL byte"),
    };

/// The version of the library that is loaded, "MAJOR.MINOR.PATCH": compare
/// it with `JUMPSHARD_VERSION`, the version of the header compiled against.
/// A static string; the caller must not free it.
#[no_mangle]
pub extern "C" fn jumpshard_version() -> *const c_char {
    guard(VERSION.as_ptr(), || VERSION.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_the_package_version() {
        // SAFETY: `jumpshard_version` returns a pointer to a static
        // NUL-terminated string.
        let version = unsafe { CStr::from_ptr(jumpshard_version()) };
        assert_eq!(version.to_str(), Ok(env!("CARGO_PKG_VERSION")));
    }
}
