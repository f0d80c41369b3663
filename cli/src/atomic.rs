//! Output files written atomically: everything goes to a temporary file in
//! the destination's directory (so that the final rename stays on one file
//! system), which is synced and renamed over the destination only once all
//! of it is written. On any error, or if the command stops early, the
//! temporary file is removed when dropped and the destination is untouched;
//! a terminating signal removes it too (see `crate::signals`).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use crate::signals::{remove_on_signal, RemoveOnSignal};

/// An output file in the making.
pub struct AtomicFile {
    file: BufWriter<File>,
    /// Removes the temporary file when dropped, unless persisted.
    temp: TempPath,
    /// Where the file goes.
    path: PathBuf,
    /// The destination as the user named it, for messages.
    name: String,
    /// Removes the temporary file on SIGINT, SIGTERM or SIGHUP.
    on_signal: RemoveOnSignal,
}

impl AtomicFile {
    /// Starts writing what will become `path`. An existing `path` must be
    /// a regular file (renaming over a device such as /dev/null would
    /// replace the device); behind a symbolic link, the file it points to is
    /// replaced and the link stays.
    pub fn create(path: &Path) -> Result<AtomicFile, String> {
        let name = path.display().to_string();
        let path = match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                return Err(format!("cannot write {name}: it is a directory"));
            }
            Ok(meta) if !meta.is_file() => {
                return Err(format!(
                    "cannot write {name}: it is not a regular file, and the output \
                     is renamed into place, which would replace it"
                ));
            }
            Ok(_) => {
                std::fs::canonicalize(path).map_err(|e| format!("cannot write {name}: {e}"))?
            }
            Err(_) => path.to_path_buf(),
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".jumpshard-").suffix(".tmp");
        // A temporary file is private by default; the output gets the usual
        // mode, less the umask.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let (file, temp) = builder
            .tempfile_in(dir)
            .map_err(|e| {
                format!(
                    "cannot write {name}: cannot create a file in {}: {}",
                    dir.display(),
                    without_temp_name(&e)
                )
            })?
            .into_parts();
        let on_signal = remove_on_signal(&temp);
        Ok(AtomicFile {
            file: BufWriter::with_capacity(1 << 20, file),
            temp,
            path,
            name,
            on_signal,
        })
    }

    /// Writes all of `bytes`, naming the destination on failure.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file.write_all(bytes).map_err(|e| self.error(e))
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(mut self) -> Result<(), String> {
        self.file.flush().map_err(|e| self.error(e))?;
        self.file.get_ref().sync_all().map_err(|e| self.error(e))?;
        let AtomicFile {
            file,
            temp,
            path,
            name,
            on_signal,
        } = self;
        drop(file); // closed before the rename
        let persisted = temp
            .persist(&path)
            .map_err(|e| format!("cannot write {name}: {}", e.error));
        // Only now: a signal after the rename finds nothing to remove,
        // while one before it must still remove the temporary file.
        drop(on_signal);
        persisted
    }

    fn error(&self, e: io::Error) -> String {
        format!("cannot write {}: {e}", self.name)
    }
}

/// The error without the temporary file's name, which `tempfile` appends
/// but which means nothing to the user: the file never came to be.
fn without_temp_name(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at path \"") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}
