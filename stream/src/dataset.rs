//! The files of a Parquet dataset directory, as the Parquet key source
//! reads them and as a front end checks its outputs against them.
//!
//! A dataset is a directory of `*.parquet` files, possibly split into
//! partition subdirectories (Hive style, `year=2024/part-0.parquet`), read
//! recursively. Every file is read, in one deterministic order: by path,
//! component by component, each compared byte by byte (so `p=10` comes
//! before `p=9`). Partition values in directory names are not columns.
//!
//! Nothing is dropped silently. Names starting with `.` or `_` are skipped,
//! files and directories alike, as Spark, Hadoop and pyarrow write and
//! skip them (`_SUCCESS`, `_metadata`, `.part-0.parquet.crc`); any other
//! entry that is not a `*.parquet` file or a directory (a README, a FIFO)
//! is an error naming it, so that a dataset is never read in part.
//!
//! Symbolic links are followed, to files and directories alike, and each
//! file is read once: files reached by several paths (a link to a
//! partition directory of the same dataset, a link to one of its files)
//! are told by their real path (`canonicalize`), and read under the first
//! of their paths in reading order, at that place.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Directory levels followed below the dataset's root: far more than any
/// partitioning, few enough that a loop of symbolic links ends.
const MAX_DEPTH: usize = 64;

/// Whether an entry named `name` is a writer's side file, skipped.
fn hidden(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.starts_with(b".") || bytes.starts_with(b"_")
}

/// Every Parquet file of the dataset directory `dir`, in reading order.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("dataset-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("p=1"))?;
/// std::fs::write(dir.join("p=1/b.parquet"), "")?;
/// std::fs::write(dir.join("a.parquet"), "")?;
/// std::fs::write(dir.join("_SUCCESS"), "")?;
/// let files = jumpshard_stream::dataset_files(&dir)?;
/// assert_eq!(files, [dir.join("a.parquet"), dir.join("p=1/b.parquet")]);
/// std::fs::write(dir.join("README"), "")?;
/// assert!(jumpshard_stream::dataset_files(&dir).unwrap_err().to_string().contains("README"));
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dataset_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    walk(dir, 0, &mut files, &mut Vec::new())?;
    files.sort();
    // Each file once, by its real path, under its first path.
    let mut real = std::collections::HashSet::with_capacity(files.len());
    let mut once = Vec::with_capacity(files.len());
    for path in files {
        let canonical = std::fs::canonicalize(&path).map_err(|source| Error::Open {
            name: path.display().to_string(),
            source,
        })?;
        if real.insert(canonical) {
            once.push(path);
        }
    }
    let files = once;
    if files.is_empty() {
        return Err(Error::BadParquet {
            name: dir.display().to_string(),
            why: "a directory without any .parquet file (in it or its partition \
                  subdirectories)"
                .into(),
        });
    }
    Ok(files)
}

/// Every directory of the dataset directory `dir` that its files are read
/// from: `dir`, its partition directories, and those reached through
/// symbolic links, wherever they are (a file written into any of them
/// would be read as part of the dataset next time). As the walk finds them,
/// not canonical.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("dataset-dirs-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("p=1"))?;
/// std::fs::write(dir.join("p=1/a.parquet"), "")?;
/// let dirs = jumpshard_stream::dataset_directories(&dir)?;
/// assert_eq!(dirs, [dir.clone(), dir.join("p=1")]);
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dataset_directories(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut dirs = Vec::new();
    walk(dir, 0, &mut Vec::new(), &mut dirs)?;
    Ok(dirs)
}

/// Adds the Parquet files under `dir`, `depth` levels below the root, and
/// `dir` and the directories under it.
fn walk(
    dir: &Path,
    depth: usize,
    files: &mut Vec<PathBuf>,
    dirs: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let name = dir.display().to_string();
    if depth > MAX_DEPTH {
        return Err(Error::BadParquet {
            name,
            why: format!(
                "more than {MAX_DEPTH} levels of subdirectories (a loop of symbolic links?)"
            ),
        });
    }
    let read = |source| Error::Read {
        name: name.clone(),
        source,
    };
    dirs.push(dir.to_path_buf());
    for entry in std::fs::read_dir(dir).map_err(read)? {
        let entry = entry.map_err(read)?;
        if hidden(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        let unexpected = |why: &str| Error::BadParquet {
            name: path.display().to_string(),
            why: format!(
                "{why}, in the Parquet dataset {name}, which holds *.parquet files and \
                 partition directories (names starting with . or _ are skipped): move it \
                 out or rename it"
            ),
        };
        // Through symbolic links: a linked file or partition counts.
        let meta = std::fs::metadata(&path).map_err(|source| Error::Open {
            name: path.display().to_string(),
            source,
        })?;
        if meta.is_dir() {
            walk(&path, depth + 1, files, dirs)?;
        } else if !meta.is_file() {
            return Err(unexpected("neither a file nor a directory"));
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
        {
            files.push(path);
        } else {
            return Err(unexpected("not named *.parquet"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file reached through a link to its partition and through a link
    /// to itself is listed once, under its first path.
    #[test]
    fn linked_files_are_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("p=1")).unwrap();
        std::fs::write(root.join("p=1/a.parquet"), "").unwrap();
        std::fs::write(root.join("p=1/b.parquet"), "").unwrap();
        std::os::unix::fs::symlink(root.join("p=1"), root.join("p=2")).unwrap();
        std::os::unix::fs::symlink("p=1/b.parquet", root.join("c.parquet")).unwrap();
        // A link to a directory outside the dataset is read like any other.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("d.parquet"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("p=3")).unwrap();
        let files = dataset_files(root).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                Path::new("c.parquet"),
                Path::new("p=1/a.parquet"),
                Path::new("p=3/d.parquet")
            ]
        );
    }
}
