//! Signal dispositions the streaming commands need.
//!
//! - A write past the file-size limit (`ulimit -f`) fails with `EFBIG`,
//!   which the command reports and cleans up after, instead of the default
//!   SIGXFSZ action that kills the process and leaves its temporary file.
//! - SIGINT, SIGTERM and SIGHUP (Ctrl-C, `kill`, a closed terminal) remove
//!   the output's temporary file, then end the process as the signal's
//!   default action would, so that the shell sees the usual status and no
//!   `.jumpshard-*.tmp` file is left beside the destination.
//! - SIGPIPE does the same (Rust ignores it by default, which would turn
//!   `jumpshard assign ... | head` into an error message): a reader that
//!   stops early ends the command quietly, as it ends other Unix tools.

#[cfg(unix)]
use std::sync::atomic::{AtomicPtr, Ordering};

/// The temporary file to remove if a terminating signal arrives, as a C
/// string (null: none). Set once per output and never freed, so that a
/// handler running on another thread can never read freed memory.
#[cfg(unix)]
static PENDING: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

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
        // set); the handler only does what is async-signal-safe (an atomic
        // load, `unlink`, `raise`); SA_RESETHAND restores the default action
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
    let path = PENDING.load(Ordering::SeqCst);
    // SAFETY: a non-null `PENDING` is a NUL-terminated string that is never
    // freed; `unlink` and `raise` are async-signal-safe. The signal is
    // blocked while its handler runs, so the raised one is delivered, with
    // the default action, as the handler returns.
    unsafe {
        if !path.is_null() {
            libc::unlink(path);
        }
        libc::raise(signal);
    }
}

/// Removes `path` if a terminating signal arrives while the returned guard
/// lives.
pub fn remove_on_signal(path: &std::path::Path) -> RemoveOnSignal {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        if let Ok(path) = std::ffi::CString::new(path.as_os_str().as_bytes()) {
            PENDING.store(path.into_raw(), Ordering::SeqCst);
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    RemoveOnSignal(())
}

/// While it lives, a terminating signal removes the registered file.
pub struct RemoveOnSignal(());

impl Drop for RemoveOnSignal {
    fn drop(&mut self) {
        // The string leaks (a path per output file): freeing it could race
        // with a handler reading it.
        #[cfg(unix)]
        PENDING.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}
