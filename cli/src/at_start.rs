//! The standard descriptors' state when the process started, taken by a
//! constructor that the loader runs before `main` and so before Rust's
//! runtime replaces a closed descriptor: afterwards, /dev/null opened
//! read-write by the runtime and /dev/null opened read-write by a parent
//! (Python's `subprocess.DEVNULL`) look the same. Linux only; elsewhere
//! `crate::out::stdout` tells a closed standard output by other means.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether descriptors 0 and 1 were closed when the process started.
static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Run by the loader before `main`, like a C constructor.
#[used]
#[link_section = ".init_array"]
static AT_START: extern "C" fn() = at_start;

extern "C" fn at_start() {
    for (fd, closed) in [
        (libc::STDIN_FILENO, &STDIN_CLOSED),
        (libc::STDOUT_FILENO, &STDOUT_CLOSED),
    ] {
        // SAFETY: F_GETFD on a descriptor number only reads its flags; a
        // closed descriptor gives -1 (EBADF) and touches no memory.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        closed.store(flags < 0, Ordering::Relaxed);
    }
}

/// Whether standard input was closed at start (`<&-`).
pub fn stdin_closed() -> bool {
    STDIN_CLOSED.load(Ordering::Relaxed)
}

/// Whether standard output was closed at start (`>&-`).
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}
