//! Signal dispositions the streaming commands need.

/// Makes a write past the file-size limit (`ulimit -f`) fail with `EFBIG`,
/// which the command reports and cleans up after, instead of the default
/// SIGXFSZ action that kills the process and leaves its temporary file.
pub fn ignore_file_size_limit_signal() {
    #[cfg(unix)]
    // SAFETY: SIG_IGN installs no handler code, so nothing runs in signal
    // context; `signal` only changes the process's disposition for SIGXFSZ,
    // which no other part of the program relies on.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
