//! Names of temporary files beside an output, chosen before the file
//! exists, so that it can be registered for removal on a signal first and
//! no signal can come between its creation and its registration.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A `.jumpshard-*.tmp` name in `dir` that no other file has: the process
/// id and a count tell this process's files apart, the time those of an
/// earlier process that had the same id.
pub fn fresh_name(dir: &Path) -> PathBuf {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    dir.join(format!(
        ".jumpshard-{}-{}-{nanos:x}.tmp",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ))
}
