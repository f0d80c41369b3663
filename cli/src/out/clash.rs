//! The check every command makes of its outputs before it reads a key: no
//! output may be one of its inputs (the key file, each file of a Parquet
//! dataset directory or a place inside it, a node table), nor another
//! output, and each must be writable where it is, so that a command never
//! streams all its keys only to fail at the end, nor replaces what it read
//! (a node table written over `--from-nodes` could never be checked
//! again).
//!
//! Files are compared by identity (device and inode, the same through
//! every link and hard link); an output that does not exist yet, by its
//! canonical directory and name. FIFOs and character devices, written
//! directly, are not compared: `/dev/null` can take every output at once.

use std::io;
use std::path::{Path, PathBuf};

use crate::out::atomic::{follow_links, is_direct, may_access};
use crate::out::stdout::{is_stdout, stdout_metadata};

/// A file's identity: its device and inode, the same through every link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file `meta` describes (None off Unix).
    fn of(meta: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// One file a command reads.
struct Read {
    /// What it is, for messages: "the input file keys.u64".
    what: String,
    id: Option<FileId>,
}

/// The files a command reads, to check its outputs against.
#[derive(Default)]
pub struct InputFiles {
    files: Vec<Read>,
    /// Each directory a Parquet dataset read as keys is read from:
    /// whatever is written inside one would be read as keys next time.
    datasets: Vec<DatasetDir>,
}

/// A directory of a Parquet dataset.
struct DatasetDir {
    /// Its canonical path, which outputs are compared with.
    canonical: PathBuf,
    /// Its path as the dataset's walk reaches it (through symbolic links).
    reached: PathBuf,
    /// The dataset's directory, as given.
    root: PathBuf,
}

impl InputFiles {
    /// Adds the file described by `meta`, which is `what` ("the input
    /// file keys.u64").
    pub fn add(&mut self, what: String, meta: &std::fs::Metadata) {
        if is_direct(meta) {
            return;
        }
        self.files.push(Read {
            what,
            id: FileId::of(meta),
        });
    }

    /// With the file at `path`, given with `option` (nothing if it cannot
    /// be read: reading it will say why). `-` is the file standard input
    /// is (`--from-nodes - < nodes.txt`), which an output must not replace
    /// any more than the same file named.
    pub fn with(mut self, option: &str, path: &Path) -> InputFiles {
        if path.as_os_str() == "-" {
            if let Some(meta) = crate::stdin::metadata() {
                self.add(format!("the {option} file (on standard input)"), &meta);
            }
        } else if let Ok(meta) = std::fs::metadata(path) {
            self.add(format!("the {option} file {}", path.display()), &meta);
        }
        self
    }

    /// Adds the Parquet dataset directory `dir`, each directory it is read
    /// from (a linked partition directory may be anywhere) and each of its
    /// files.
    pub fn add_dataset(&mut self, dir: &Path) {
        let dirs =
            jumpshard_stream::dataset_directories(dir).unwrap_or_else(|_| vec![dir.to_path_buf()]);
        for reached in dirs {
            if let Ok(canonical) = reached.canonicalize() {
                self.datasets.push(DatasetDir {
                    canonical,
                    reached,
                    root: dir.to_path_buf(),
                });
            }
        }
        for file in jumpshard_stream::dataset_files(dir).unwrap_or_default() {
            if let Ok(meta) = std::fs::metadata(&file) {
                self.add(format!("the input file {}", file.display()), &meta);
            }
        }
    }

    /// The input file `meta` is, if any.
    fn find(&self, id: Option<FileId>) -> Option<&Read> {
        id.and_then(|id| self.files.iter().find(|f| f.id == Some(id)))
    }
}

/// Where an output will be, to tell two outputs apart.
#[derive(PartialEq, Eq)]
enum Place {
    /// An existing file.
    File(FileId),
    /// A file to create: its canonical directory and name.
    New(PathBuf),
}

/// Checks `outputs` (each an option and the path it names, if given;
/// `-`, standard output, may be one of them only) against each other and against
/// `inputs`, and that each can be written, before any key is read; and
/// standard output against `inputs` even when no output is `-`, since the
/// report goes there then.
pub fn check(outputs: &[(&str, Option<&Path>)], inputs: &InputFiles) -> Result<(), String> {
    let mut places: Vec<(&str, &Path, Place)> = Vec::new();
    let mut on_stdout: Option<(&str, &Path)> = None;
    for &(option, path) in outputs {
        let Some(path) = path else {
            continue;
        };
        if is_stdout(path) {
            if let Some((other, other_path)) = on_stdout {
                return Err(format!(
                    "{option} {} and {other} {} both name standard output: give one of them a \
                     file",
                    path.display(),
                    other_path.display()
                ));
            }
            on_stdout = Some((option, path));
            stdout_not_input(Some(option), inputs)?;
            continue;
        }
        let Some(place) = writable(option, path, inputs)? else {
            continue;
        };
        if let Some((other, other_path, _)) = places.iter().find(|(_, _, p)| *p == place) {
            return Err(format!(
                "{option} {} and {other} {} are the same file: give each output its own",
                path.display(),
                other_path.display()
            ));
        }
        places.push((option, path, place));
    }
    if on_stdout.is_none() {
        stdout_not_input(None, inputs)?;
    }
    Ok(())
}

/// Refuses standard output that is one of `inputs` (`> keys.u64`, or
/// `1<> keys.u64`), as `cat` does: the results would overwrite keys not
/// read yet, or the shell's `>` already emptied the file, and the command
/// would report no keys as a success. `option` names the output written
/// there (`--output -`), if any; else what the command prints goes there
/// (`lookup`'s answers, `table fingerprint`'s lines, a report). Every
/// command that reads files and prints asks this before printing.
pub fn stdout_not_input(option: Option<&str>, inputs: &InputFiles) -> Result<(), String> {
    let Some(meta) = stdout_metadata().filter(|meta| !is_direct(meta)) else {
        return Ok(());
    };
    let Some(input) = inputs.find(FileId::of(&meta)) else {
        return Ok(());
    };
    Err(match option {
        Some(option) => format!(
            "standard output ({option}) is {}: the results would overwrite it while it is \
             read (a shell's > empties it first)",
            input.what
        ),
        None => format!(
            "standard output is {}: what is printed there would overwrite it (a shell's > \
             empties it first)",
            input.what
        ),
    })
}

/// Checks the output `path` of `option` against `inputs` and that it can
/// be written; its place, unless it is a FIFO or device.
fn writable(option: &str, path: &Path, inputs: &InputFiles) -> Result<Option<Place>, String> {
    let name = path.display();
    let cannot = |why: String| format!("cannot write {name} ({option}): {why}");
    // `/dev/stdout` into a pipe: written directly (see `AtomicFile`).
    if std::fs::metadata(path).is_ok_and(|meta| is_direct(&meta)) {
        return Ok(None);
    }
    let target = follow_links(path).map_err(|e| cannot(e.to_string()))?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let meta = match std::fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(cannot(e.to_string())),
    };
    if let Some(meta) = &meta {
        if is_direct(meta) {
            return Ok(None);
        }
        if meta.is_dir() {
            return Err(cannot("it is a directory".into()));
        }
        if !meta.is_file() {
            return Err(cannot(
                "it is not a regular file, a FIFO or a character device".into(),
            ));
        }
        if let Some(input) = inputs.find(FileId::of(meta)) {
            return Err(cannot(format!(
                "it is {}, which the output would replace",
                input.what
            )));
        }
    }
    let dir_meta = std::fs::metadata(dir).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => cannot(format!(
            "its directory {} does not exist (No such file or directory)",
            dir.display()
        )),
        _ => cannot(format!("its directory {}: {e}", dir.display())),
    })?;
    if !dir_meta.is_dir() {
        return Err(cannot(format!("{} is not a directory", dir.display())));
    }
    // The output is made in its directory, then renamed there.
    if let Err(e) = may_access(dir, true) {
        return Err(cannot(format!(
            "its directory {}, where the output is made and then renamed: {e}",
            dir.display()
        )));
    }
    let canonical = dir
        .canonicalize()
        .map_err(|e| cannot(format!("its directory {}: {e}", dir.display())))?
        .join(target.file_name().unwrap_or_default());
    // The dataset's own directory comes first, for the plainest message.
    if let Some(dir) = inputs
        .datasets
        .iter()
        .find(|d| canonical.starts_with(&d.canonical))
    {
        let place = match dir.reached == dir.root {
            true => format!("the Parquet dataset directory {}", dir.canonical.display()),
            false => format!(
                "{}, read as {} of the Parquet dataset directory {}",
                dir.canonical.display(),
                dir.reached.display(),
                dir.root.display()
            ),
        };
        return Err(cannot(format!(
            "it is inside {place} that the keys are read from, where it would be read as \
             keys next time"
        )));
    }
    match meta {
        Some(meta) => {
            if let Err(e) = may_access(&target, false) {
                return Err(cannot(format!(
                    "the file exists and you may not write it, so it is not replaced: {e}"
                )));
            }
            Ok(Some(
                FileId::of(&meta).map_or(Place::New(canonical), Place::File),
            ))
        }
        None => Ok(Some(Place::New(canonical))),
    }
}
