//! Output files written atomically: everything goes to a temporary file in
//! the destination's directory (so that the final rename stays on one file
//! system), which is synced and renamed over the destination only once all
//! of it is written. On any error, or if the command stops early, the
//! destination is untouched and the temporary file is gone.
//!
//! On Linux the temporary file is unnamed (`crate::out::unnamed`), so that
//! nothing is left even when the process is killed outright; elsewhere, or
//! where the file system cannot make one, it is a named
//! `.jumpshard-*.tmp`, removed when dropped and by a terminating signal
//! (see `crate::out::signals`), though not by SIGKILL: the next output
//! made in the same directory removes it (see `crate::out::stale`).
//!
//! A FIFO or a character device (`/dev/null`, which users reach for when
//! timing a run; a pipe behind `/dev/stdout`) is written directly
//! instead: there is nothing to replace
//! atomically, and renaming over it would replace the device. A FIFO is
//! opened as it is, waiting for its reader.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use crate::out::signals::{remove_on_signal, RemoveOnSignal};

/// An output file in the making.
pub struct AtomicFile {
    file: BufWriter<File>,
    /// The temporary file, until it becomes the destination.
    temp: Temp,
    /// Where the file goes.
    path: PathBuf,
    /// The destination as the user named it, for messages.
    name: String,
}

/// What the output is written to until it is complete.
enum Temp {
    /// The destination itself, a FIFO or character device.
    Direct,
    /// A file without a name in `dir`, the destination's directory.
    #[cfg(target_os = "linux")]
    Unnamed { dir: PathBuf },
    /// A named file, removed when dropped unless persisted, and on SIGINT,
    /// SIGTERM or SIGHUP while `on_signal` lives.
    Named {
        path: TempPath,
        on_signal: RemoveOnSignal,
    },
}

impl AtomicFile {
    /// Starts writing what will become `path`. An existing `path` that is
    /// a FIFO or a character device is written directly; otherwise it must
    /// be a regular file that the user may write (a read-only file, or
    /// one owned by someone else, is not replaced behind its owner's back);
    /// the replacement keeps its mode (and its owner, where allowed).
    /// Behind symbolic links, even one whose target does not exist yet, the
    /// file they lead to is written and the links stay.
    pub fn create(path: &Path) -> Result<AtomicFile, String> {
        let name = path.display().to_string();
        // A pipe behind `/dev/stdout` is reached only through
        // the kernel's own links (`/proc/self/fd/1` names `pipe:[...]`,
        // which is no path): asked first.
        let direct = std::fs::metadata(path).is_ok_and(|meta| is_direct(&meta));
        let path = match direct {
            true => path.to_path_buf(),
            false => follow_links(path).map_err(|e| format!("cannot write {name}: {e}"))?,
        };
        let existing = match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                return Err(format!("cannot write {name}: it is a directory"));
            }
            Ok(meta) if is_direct(&meta) => {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| format!("cannot write {name}: {e}"))?;
                return Ok(AtomicFile {
                    file: BufWriter::with_capacity(1 << 20, file),
                    temp: Temp::Direct,
                    path,
                    name,
                });
            }
            Ok(meta) if !meta.is_file() => {
                return Err(format!(
                    "cannot write {name}: it is not a regular file, a FIFO or a \
                     character device"
                ));
            }
            Ok(meta) => {
                if let Err(e) = may_access(&path, false) {
                    return Err(format!(
                        "cannot write {name}: the file exists and you may not write \
                         it, so it is not replaced: {e}"
                    ));
                }
                Some(meta)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot write {name}: {e}")),
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let cannot_create = |e: &io::Error| {
            format!(
                "cannot write {name}: cannot create a file in {}: {}",
                dir.display(),
                e
            )
        };
        crate::out::stale::remove_stale(dir);
        let (file, temp) = match unnamed(dir).map_err(|e| cannot_create(&e))? {
            Some(unnamed) => unnamed,
            None => named(dir, &name).map_err(|e| match e {
                Named::Io(e) => cannot_create(&e),
                Named::Signal(message) => message,
            })?,
        };
        if let Some(meta) = existing {
            keep_mode_and_owner(&file, &meta).map_err(|e| format!("cannot write {name}: {e}"))?;
        }
        Ok(AtomicFile {
            file: BufWriter::with_capacity(1 << 20, file),
            temp,
            path,
            name,
        })
    }

    /// Writes all of `bytes`, naming the destination on failure.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file.write_all(bytes).map_err(|e| self.error(e))
    }

    /// The destination as the user named it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The buffered file, for writers that report their own errors.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.file
    }

    /// Flushes and syncs the file (a FIFO or device: flushes), so that
    /// every write that can fail has been made, without putting it in
    /// place ([`Ready::commit`] renames it there): a command with several
    /// outputs prepares them all, then commits them all, so that one that
    /// cannot be written (a full disk) leaves the others untouched too.
    pub fn prepare(mut self) -> Result<Ready, String> {
        self.file.flush().map_err(|e| self.error(e))?;
        if !matches!(self.temp, Temp::Direct) {
            self.file.get_ref().sync_all().map_err(|e| self.error(e))?;
        }
        let AtomicFile {
            file,
            temp,
            path,
            name,
        } = self;
        let file = file
            .into_inner()
            .map_err(|e| format!("cannot write {name}: {}", e.error()))?;
        Ok(Ready {
            file,
            temp,
            path,
            name,
        })
    }

    fn error(&self, e: io::Error) -> String {
        format!("cannot write {}: {e}", self.name)
    }
}

/// An output written whole and synced, not yet in place: dropped, it
/// leaves the destination untouched and no temporary file.
pub struct Ready {
    file: File,
    temp: Temp,
    path: PathBuf,
    name: String,
}

impl Ready {
    /// Renames the file into place (a FIFO or device: nothing left to do).
    pub fn commit(self) -> Result<(), String> {
        let Ready {
            file,
            temp,
            path,
            name,
        } = self;
        match temp {
            Temp::Direct => Ok(()),
            #[cfg(target_os = "linux")]
            Temp::Unnamed { dir } => crate::out::unnamed::commit(&file, &dir, &path, &name),
            Temp::Named {
                path: temp,
                on_signal,
            } => {
                drop(file); // closed before the rename
                let persisted = temp
                    .persist(&path)
                    .map_err(|e| format!("cannot write {name}: {}", e.error));
                // Only now: a signal after the rename finds nothing to
                // remove, while one before it must still remove the
                // temporary file.
                drop(on_signal);
                persisted
            }
        }
    }
}

/// Why a named temporary file could not be made.
enum Named {
    /// Creating it failed.
    Io(io::Error),
    /// Registering it for removal on a signal failed (the message).
    Signal(String),
}

/// A new named temporary file in `dir` for the output `name`, registered
/// for removal on a signal before it exists.
fn named(dir: &Path, name: &str) -> Result<(File, Temp), Named> {
    loop {
        let path = crate::out::temp_name::fresh_name(dir);
        let on_signal = remove_on_signal(&path, name).map_err(Named::Signal)?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        // The usual mode, less the umask.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
        match options.open(&path) {
            Ok(file) => match TempPath::try_from_path(&path) {
                Ok(path) => return Ok((file, Temp::Named { path, on_signal })),
                Err(e) => {
                    let _ = std::fs::remove_file(&path);
                    return Err(Named::Io(e));
                }
            },
            // Another file has the name (left by an earlier process of the
            // same id): another name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Named::Io(e)),
        }
    }
}

/// Whether `meta` is a FIFO (a pipe, also behind `/dev/stdout`) or a
/// character device, written directly.
pub fn is_direct(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        kind.is_fifo() || kind.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// An unnamed temporary file in `dir`, where one can be made.
#[cfg(target_os = "linux")]
fn unnamed(dir: &Path) -> io::Result<Option<(File, Temp)>> {
    let file = crate::out::unnamed::create(dir)?;
    Ok(file.map(|file| {
        let dir = dir.to_path_buf();
        (file, Temp::Unnamed { dir })
    }))
}

#[cfg(not(target_os = "linux"))]
fn unnamed(_dir: &Path) -> io::Result<Option<(File, Temp)>> {
    Ok(None)
}

/// Where `path` leads through any symbolic links: the first path that is
/// not a link, whether it exists or not.
pub fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // As many links as Linux follows (ELOOP past that).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                // A relative target is relative to the link's directory;
                // joining an absolute one gives it unchanged.
                path = match path.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Whether the user may write the existing file at `path` (with `dir`,
/// the directory at `path`: create and rename files in it), by the
/// kernel's own check for the effective user (root may write anything,
/// but not on a read-only file system); if not, the kernel's reason.
#[cfg(unix)]
pub fn may_access(path: &Path, dir: bool) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;

    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mode = if dir {
        libc::W_OK | libc::X_OK
    } else {
        libc::W_OK
    };
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call;
    // `faccessat` only reads it.
    let allowed =
        unsafe { libc::faccessat(libc::AT_FDCWD, c_path.as_ptr(), mode, libc::AT_EACCESS) };
    match allowed {
        0 => Ok(()),
        // Why not: EACCES, EROFS (root too), ETXTBSY.
        _ => Err(io::Error::last_os_error()),
    }
}

#[cfg(not(unix))]
pub fn may_access(path: &Path, _dir: bool) -> io::Result<()> {
    match std::fs::metadata(path)?.permissions().readonly() {
        true => Err(io::Error::from(io::ErrorKind::PermissionDenied)),
        false => Ok(()),
    }
}

/// Gives the new file the replaced one's mode and, where the user may
/// (root, or a group the user is in), its owner and group.
#[cfg(unix)]
fn keep_mode_and_owner(file: &File, old: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    // Not being allowed to give the file away is no error: the mode is
    // what matters to who reads it.
    let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    // After the owner: changing it may clear the set-id bits.
    file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))
}

#[cfg(not(unix))]
fn keep_mode_and_owner(file: &File, old: &std::fs::Metadata) -> io::Result<()> {
    file.set_permissions(old.permissions())
}
