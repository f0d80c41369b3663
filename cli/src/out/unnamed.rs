//! Unnamed temporary files (Linux's `O_TMPFILE`): an output is written to
//! a file that has no name in its directory until it is complete, so that
//! nothing is left behind however the command ends, even by SIGKILL or a
//! power cut. Committing gives it a name through `/proc/self/fd` (`linkat`),
//! then renames that over the destination: the name exists only for that
//! instant, during which a terminating signal removes it.
//!
//! Where the file system or kernel has no `O_TMPFILE` (EOPNOTSUPP, or
//! EISDIR and EINVAL from kernels that predate it), or `/proc` is not
//! mounted, `create` says so and the caller falls back to a named
//! temporary file. The environment variable `JUMPSHARD_TEMP=named` forces
//! that fallback, so that tests can check it on any system.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::out::signals::remove_on_signal;
use crate::out::temp_name::fresh_name;

/// An unnamed file in `dir`, open for writing, with the usual mode less
/// the umask; `None` where unnamed files cannot be made or named there.
pub fn create(dir: &Path) -> io::Result<Option<File>> {
    if std::env::var_os("JUMPSHARD_TEMP").is_some_and(|v| v == "named")
        || !Path::new("/proc/self/fd").is_dir()
    {
        return Ok(None);
    }
    let opened = OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
        .open(dir);
    match opened {
        Ok(file) => Ok(Some(file)),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Gives the unnamed `file` (complete and synced) in `dir` the name
/// `path`, replacing whatever is there; `name` is the output's, for
/// messages.
pub fn commit(file: &File, dir: &Path, path: &Path, name: &str) -> Result<(), String> {
    let error = |e: io::Error| format!("cannot write {name}: {e}");
    let fd = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .map_err(|e| error(io::Error::other(e)))?;
    // A fresh name beside the destination, registered before it exists so
    // that a signal at any moment from here on removes it.
    let temp = fresh_name(dir);
    let on_signal = remove_on_signal(&temp, name)?;
    let c_temp =
        CString::new(temp.as_os_str().as_bytes()).map_err(|e| error(io::Error::other(e)))?;
    // SAFETY: both paths are NUL-terminated strings that outlive the call,
    // which only reads them.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            fd.as_ptr(),
            libc::AT_FDCWD,
            c_temp.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if linked != 0 {
        return Err(error(io::Error::last_os_error()));
    }
    let renamed = std::fs::rename(&temp, path);
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    // Only now: a signal before the rename must still find the name.
    drop(on_signal);
    renamed.map_err(error)
}
