//! `u64le` keys read with positioned reads: a regular file of 8-byte
//! little-endian keys back to back, and keys already in memory.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use crate::source::KeysAt;

/// The regular `u64le` file at `path`, for positioned reads.
pub fn u64le_file(path: &Path) -> Result<Box<dyn KeysAt>, Error> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|source| Error::Open {
        name: name.clone(),
        source,
    })?;
    let meta = file.metadata().map_err(|source| Error::Read {
        name: name.clone(),
        source,
    })?;
    if !meta.is_file() {
        return Err(Error::NotRegularFile { name });
    }
    let len = meta.len();
    if !holds_its_size(&file, len).map_err(|source| Error::Read {
        name: name.clone(),
        source,
    })? {
        return Err(Error::SizeUntold { name, len });
    }
    if len % 8 != 0 {
        return Err(Error::NotWholeKeys { name, len });
    }
    positional(Some(&file), &name, len).ok_or_else(|| Error::Read {
        name: name.clone(),
        source: io::Error::other("positioned reads are not available here"),
    })
}

/// Whether the regular file `file` ends where its size, `len` bytes, says:
/// positioned reads trust the size, and a file the kernel makes up as it is
/// read (under `/proc` or `/sys`) reports 0 or 4096 bytes whatever it
/// holds. One read of up to 2 bytes from the last byte (from the start
/// when `len` is 0) must find exactly that byte; anything else means the
/// file is read front to back instead, to its end.
pub(crate) fn holds_its_size(file: &File, len: u64) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let mut probe = [0; 2];
        loop {
            match file.read_at(&mut probe, len.saturating_sub(1)) {
                Ok(read) => return Ok(read == usize::from(len > 0)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    #[cfg(not(unix))]
    {
        // Read front to back there (see `positional`), to the end.
        let _ = (file, len);
        Ok(true)
    }
}

/// Keys already in memory, as a positional source.
///
/// ```
/// use std::sync::Arc;
/// use jumpshard_stream::{InMemory, KeysAt};
///
/// let keys = InMemory(Arc::from(vec![5, 6, 7, 8]));
/// let mut chunk = Vec::new();
/// keys.read_at(1, 2, &mut chunk)?;
/// assert_eq!(chunk, [6, 7]);
/// # Ok::<(), jumpshard_stream::Error>(())
/// ```
pub struct InMemory(pub Arc<[u64]>);

impl KeysAt for InMemory {
    fn key_count(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), Error> {
        let first = first as usize;
        keys.clear();
        keys.extend_from_slice(&self.0[first..first + count]);
        Ok(())
    }
}

/// A regular `u64le` file of `len` bytes, read with positioned reads (on
/// Unix; elsewhere, front to back).
pub(crate) fn positional(file: Option<&File>, name: &str, len: u64) -> Option<Box<dyn KeysAt>> {
    #[cfg(unix)]
    {
        let file = file?.try_clone().ok()?;
        Some(Box::new(U64LeAt {
            file,
            name: name.to_owned(),
            keys: len / 8,
        }))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, name, len);
        None
    }
}

#[cfg(unix)]
struct U64LeAt {
    file: File,
    name: String,
    keys: u64,
}

#[cfg(unix)]
impl KeysAt for U64LeAt {
    fn key_count(&self) -> u64 {
        self.keys
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), Error> {
        use std::os::unix::fs::FileExt;

        // A recycled chunk is already full length: no zeroing but the first.
        keys.resize(count, 0);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(keys.as_mut_slice());
        // `read_exact_at` retries interrupted reads; it fails at an early
        // end, which only a file shrinking under us can cause.
        self.file
            .read_exact_at(buf, first * 8)
            .map_err(|source| match source.kind() {
                io::ErrorKind::UnexpectedEof => Error::Shrunk {
                    name: self.name.clone(),
                },
                _ => Error::Read {
                    name: self.name.clone(),
                    source,
                },
            })?;
        for key in keys.iter_mut() {
            *key = u64::from_le(*key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_file_that_shrinks_while_read_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.bin");
        let keys: Vec<u8> = (0u64..100).flat_map(u64::to_le_bytes).collect();
        std::fs::write(&path, &keys).unwrap();
        let file = File::open(&path).unwrap();
        let source = positional(Some(&file), "keys.bin", 8 * 100).unwrap();
        let mut read = Vec::new();
        source.read_at(90, 10, &mut read).unwrap();
        assert_eq!(read, (90..100).collect::<Vec<u64>>());
        std::fs::write(&path, &keys[..8 * 95]).unwrap();
        let err = source.read_at(90, 10, &mut read).unwrap_err().to_string();
        assert!(err.contains("keys.bin") && err.contains("shorter"), "{err}");
    }
}
