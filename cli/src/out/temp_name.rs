//! Names of temporary files beside an output, chosen before the file
//! exists, so that it can be registered for removal on a signal first and
//! no signal can come between its creation and its registration.
//!
//! A name says whose file it is: `.jumpshard-PID-HOST-COUNT-TIME.tmp`,
//! where HOST tells this boot of this machine and this process-id
//! namespace from others that may share the directory (a network file
//! system, a container), so that a later run can tell a temporary file
//! whose process is gone (killed by SIGKILL, which no handler sees) from
//! one still being written (see `crate::out::stale`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// How every temporary file's name starts and ends.
pub const PREFIX: &str = ".jumpshard-";
pub const SUFFIX: &str = ".tmp";

/// A `.jumpshard-*.tmp` name in `dir` that no other file has: the process
/// id and a count tell this process's files apart, the time those of an
/// earlier process that had the same id.
pub fn fresh_name(dir: &Path) -> PathBuf {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    dir.join(format!(
        "{PREFIX}{}-{}-{}-{nanos:x}{SUFFIX}",
        std::process::id(),
        host(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// This boot of this machine and this process-id namespace, as 16 hex
/// digits: a hash of the kernel's boot id and the namespace's identity
/// (on Linux; elsewhere, where they cannot be read, zeros, which no stale
/// file removal trusts).
pub fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id");
        let namespace = std::fs::read_link("/proc/self/ns/pid");
        match (boot, namespace) {
            (Ok(boot), Ok(namespace)) => {
                use std::hash::{Hash, Hasher};
                // SipHash with fixed keys: the same in every process of
                // this build.
                let mut hasher = std::hash::DefaultHasher::new();
                boot.trim().hash(&mut hasher);
                namespace.hash(&mut hasher);
                format!("{:016x}", hasher.finish())
            }
            _ => "0".repeat(16),
        }
    })
}
