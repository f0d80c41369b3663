//! Output files written atomically: everything goes to a temporary file in
//! the destination's directory (so that the final rename stays on one file
//! system), which is synced and renamed over the destination only once all
//! of it is written. On any error, or if the command stops early, the
//! temporary file is removed when dropped and the destination is untouched.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// An output file in the making.
pub struct AtomicFile {
    temp: BufWriter<NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing what will become `path`.
    pub fn create(path: &Path) -> Result<AtomicFile, String> {
        let name = path.display();
        if path.is_dir() {
            return Err(format!("cannot write {name}: it is a directory"));
        }
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
        let temp = builder.tempfile_in(dir).map_err(|e| {
            format!(
                "cannot write {name}: cannot create a file in {}: {e}",
                dir.display()
            )
        })?;
        Ok(AtomicFile {
            temp: BufWriter::with_capacity(1 << 20, temp),
            path: path.to_path_buf(),
        })
    }

    /// Writes all of `bytes`, naming the destination on failure.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.temp.write_all(bytes).map_err(|e| self.error(e))
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(self) -> Result<(), String> {
        let path = self.path;
        let name = path.display().to_string();
        let temp = self
            .temp
            .into_inner()
            .map_err(|e| format!("cannot write {name}: {}", e.error()))?;
        temp.as_file()
            .sync_all()
            .map_err(|e| format!("cannot write {name}: {e}"))?;
        temp.persist(&path)
            .map_err(|e| format!("cannot write {name}: {}", e.error))?;
        Ok(())
    }

    fn error(&self, e: std::io::Error) -> String {
        format!("cannot write {}: {e}", self.path.display())
    }
}
