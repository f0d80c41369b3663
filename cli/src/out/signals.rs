//! Signal dispositions the streaming commands need.
//!
//! - A write past the file-size limit (`ulimit -f`) fails with `EFBIG`,
//!   which the command reports and cleans up after, instead of the default
//!   SIGXFSZ action that kills the process and leaves its temporary file.
//! - SIGINT, SIGTERM and SIGHUP (Ctrl-C, `kill`, a closed terminal) remove
//!   every pending output's named temporary file (a move list's and a
//!   plot's at once), then end the process as the signal's default action
//!   would, so that the shell sees the usual status and no
//!   `.jumpshard-*.tmp` file is left beside a destination. Where outputs
//!   are unnamed temporary files (`crate::out::unnamed`), there is nothing
//!   to remove but during the instant of their rename.
//! - SIGPIPE does the same (Rust ignores it by default, which would turn
//!   `jumpshard assign ... | head` into an error message): a reader that
//!   stops early ends the command quietly, as it ends other Unix tools;
//!   but once a command's files are committed, its report is written with
//!   SIGPIPE ignored ([`pipe_errors`]), so that a closed pipe is reported
//!   with what was written.

#[cfg(unix)]
use std::sync::atomic::{AtomicPtr, Ordering};

/// Temporary files pending at once: a move list, a plot and a node table
/// are the most a command writes, and each holds a slot only while its
/// file has a name.
#[cfg(unix)]
const SLOTS: usize = 16;

/// The temporary files to remove if a terminating signal arrives, as C
/// strings (null: a free slot). A string is never freed, so that a handler
/// running on another thread can never read freed memory.
#[cfg(unix)]
static PENDING: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

#[cfg(unix)]
const TERMINATING: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE];

/// Installs the dispositions above; called once, before any thread starts.
pub fn install() {
    #[cfg(unix)]
    // SAFETY: SIG_IGN installs no handler code; `signal` only changes the
    // process's disposition for SIGXFSZ, which nothing else relies on.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    #[cfg(unix)]
    for signal in TERMINATING {
        // SAFETY: `action` is fully initialised (zeroed, then the fields
        // set); the handler only does what is async-signal-safe (atomic
        // loads, `unlink`, `raise`); SA_RESETHAND restores the default action
        // before the handler runs, so the re-raised signal ends the process.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_terminating_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_terminating_signal(signal: libc::c_int) {
    remove_pending();
    // SAFETY: `raise` is async-signal-safe. The signal is blocked while its
    // handler runs, so the raised one is delivered, with the default
    // action, as the handler returns.
    unsafe {
        libc::raise(signal);
    }
}

/// Removes every registered temporary file; async-signal-safe (atomic
/// loads and `unlink` only).
#[cfg(unix)]
fn remove_pending() {
    for slot in &PENDING {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a non-null slot holds a NUL-terminated string that is
            // never freed; `unlink` only reads it.
            unsafe {
                libc::unlink(path);
            }
        }
    }
}

/// Removes `path` if a terminating signal arrives while the returned guard
/// lives, alongside every other registered file; `name` is the output's,
/// for the error when more files are pending than there are slots.
pub fn remove_on_signal(path: &std::path::Path, name: &str) -> Result<RemoveOnSignal, String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return Err(format!("cannot write {name}: its path holds a NUL byte"));
        };
        let raw = c_path.into_raw();
        for (slot, pending) in PENDING.iter().enumerate() {
            let free = pending.compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
            if free.is_ok() {
                return Ok(RemoveOnSignal(slot));
            }
        }
        // SAFETY: `raw` came from `into_raw` above and no slot holds it.
        drop(unsafe { std::ffi::CString::from_raw(raw) });
        Err(format!(
            "cannot write {name}: more than {SLOTS} output files pending at once"
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, name);
        Ok(RemoveOnSignal(0))
    }
}

/// From now on a closed output pipe is an error (EPIPE) instead of
/// SIGPIPE: once a command's files are committed, a report that cannot be
/// written must still say on standard error what was written.
pub fn pipe_errors() {
    #[cfg(unix)]
    // SAFETY: SIG_IGN installs no handler code; only SIGPIPE's disposition
    // changes, which nothing else relies on once the outputs are
    // committed.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// While it lives, a terminating signal removes its registered file.
pub struct RemoveOnSignal(usize);

impl Drop for RemoveOnSignal {
    fn drop(&mut self) {
        // The string leaks (a path per output file): freeing it could race
        // with a handler reading it.
        #[cfg(unix)]
        PENDING[self.0].store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Every pending file is removed, not only the last registered; a
    /// file whose guard is gone (renamed into place) stays.
    #[test]
    fn every_pending_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<_> = ["moves", "plot", "table"]
            .iter()
            .map(|n| dir.path().join(n))
            .collect();
        for p in &paths {
            std::fs::write(p, "x").unwrap();
        }
        let mut guards: Vec<_> = paths
            .iter()
            .map(|p| remove_on_signal(p, "out").unwrap())
            .collect();
        drop(guards.remove(1));
        remove_pending();
        let left: Vec<bool> = paths.iter().map(|p| p.exists()).collect();
        assert_eq!(left, [false, true, false]);
    }
}
