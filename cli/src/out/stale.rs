//! Temporary files left by a run that was killed outright. Where the
//! system makes no unnamed temporary files (`crate::out::unnamed`), SIGKILL
//! leaves a named `.jumpshard-*.tmp` beside the output, as large as what
//! was written. The next run that writes into the same directory removes
//! such files, but only those that are surely dead ones of ours:
//!
//! - the name is exactly one that `crate::out::temp_name` makes, with this
//!   boot, machine and process-id namespace in it (another machine's or
//!   container's process cannot be asked whether it lives);
//! - it is a regular file (not a link, not a directory) of this user;
//! - its process is gone: no process has that id (a process that has it,
//!   even another one that reused the id, keeps the file).

use std::path::Path;

use crate::out::temp_name::{host, PREFIX, SUFFIX};

/// Removes the dead temporary files of ours in `dir`; finding none, or
/// failing to read the directory, is no error (the output is still
/// written).
#[cfg(target_os = "linux")]
pub fn remove_stale(dir: &Path) {
    use std::os::unix::fs::MetadataExt;

    if host().bytes().all(|b| b == b'0') {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // SAFETY: `geteuid` has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(pid_of_ours) else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.file_type().is_file() || meta.uid() != me || alive(pid) {
            continue;
        }
        let _ = std::fs::remove_file(&path);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn remove_stale(_dir: &Path) {}

/// The process id in `name` if it is a temporary file name of this host's
/// (`.jumpshard-PID-HOST-COUNT-TIME.tmp`, every field as written).
fn pid_of_ours(name: &str) -> Option<i32> {
    let fields = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let mut fields = fields.split('-');
    let (pid, tag, count, time) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if fields.next().is_some()
        || tag != host()
        || !digits(pid, 10)
        || !digits(count, 10)
        || !digits(time, 16)
    {
        return None;
    }
    pid.parse().ok().filter(|&pid| pid > 0)
}

/// Whether a process has the id `pid` (asked of the kernel: a process of
/// another user counts too).
#[cfg(target_os = "linux")]
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 sends nothing; `kill` only checks that the process
    // exists and may be signalled.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_exact_names_are_read() {
        let h = host();
        assert_eq!(
            pid_of_ours(&format!(".jumpshard-42-{h}-0-1f.tmp")),
            Some(42)
        );
        for bad in [
            format!(".jumpshard-42-{h}-0-1f.tmp.x"),
            format!(".jumpshard-42-{h}-0-1g.tmp"),
            format!(".jumpshard-4a-{h}-0-1f.tmp"),
            format!(".jumpshard-0-{h}-0-1f.tmp"),
            format!(".jumpshard-42-{h}-0-1f-2.tmp"),
            ".jumpshard-42-0000000000000001-0-1f.tmp".to_string(),
            ".jumpshard-42-0-1f.tmp".to_string(),
            format!("x.jumpshard-42-{h}-0-1f.tmp"),
        ] {
            assert_eq!(pid_of_ours(&bad), None, "{bad}");
        }
    }
}
