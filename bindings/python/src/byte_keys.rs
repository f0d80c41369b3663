//! Byte-string keys: `prehash` and `bucket_bytes` on one `bytes`/`str`, a
//! list of them, or an Arrow binary/string array (read in place).

use jumpshard::bytes::{prehash_batch, Offset};
use jumpshard::BucketCount;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::args;
use crate::arrow::{self, Layout};
use crate::column;

/// The bytes of one key, if `obj` is one: `bytes`, `bytearray`, or `str`
/// (its UTF-8).
fn one(obj: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(jumpshard::bytes::prehash(b.as_bytes())));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(jumpshard::bytes::prehash(s.to_cow()?.as_bytes())));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(jumpshard::bytes::prehash(&b.to_vec())));
    }
    Ok(None)
}

/// Pre-hashed keys: one, or an array of them.
enum Hashed {
    One(u64),
    Many(Vec<u64>),
}

fn prehashed(keys: &Bound<'_, PyAny>) -> PyResult<Hashed> {
    if let Some(key) = one(keys)? {
        return Ok(Hashed::One(key));
    }
    if keys.is_instance_of::<PyList>() || keys.is_instance_of::<PyTuple>() {
        let mut out = Vec::with_capacity(keys.len()?);
        for (i, key) in keys.try_iter()?.enumerate() {
            let key = key?;
            match one(&key)? {
                Some(k) => out.push(k),
                None => {
                    let name = key.get_type().name()?;
                    return Err(PyTypeError::new_err(format!(
                        "keys[{i}] must be bytes or str, not {name}"
                    )));
                }
            }
        }
        return Ok(Hashed::Many(out));
    }
    let Some((layout, chunks)) = arrow::import(keys, "byte keys")? else {
        let name = keys.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "byte keys must be bytes, str, a list of them or an Arrow binary or string array, \
             not {name}"
        )));
    };
    let len = chunks.iter().map(|c| c.len()).sum();
    let mut out = vec![0u64; len];
    let mut rest = &mut out[..];
    for chunk in &chunks {
        let (part, tail) = rest.split_at_mut(chunk.len());
        match layout {
            Layout::Binary32 => hash_chunk(keys.py(), chunk.binary::<i32>()?, part)?,
            Layout::Binary64 => hash_chunk(keys.py(), chunk.binary::<i64>()?, part)?,
            Layout::BinaryView => chunk.prehash_views(part)?,
            Layout::Int64 => {
                return Err(PyTypeError::new_err(
                    "byte keys must be an Arrow binary or string array, got 64-bit integers: \
                     use bucket() or batch() for those",
                ))
            }
        }
        rest = tail;
    }
    Ok(Hashed::Many(out))
}

fn hash_chunk<O: Offset + Send + Sync>(
    py: Python<'_>,
    (data, offsets): (&[u8], &[O]),
    out: &mut [u64],
) -> PyResult<()> {
    if out.is_empty() {
        return Ok(());
    }
    py.detach(|| prehash_batch(data, offsets, out))
        .map_err(args::value_error)
}

/// The 64-bit keys of byte-string keys (XXH3-64, seed 0).
#[pyfunction]
#[pyo3(signature = (keys, /))]
pub fn prehash<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    match prehashed(keys)? {
        Hashed::One(key) => key.into_bound_py_any(py),
        Hashed::Many(v) => column::from_vec(py, v, "u8"),
    }
}

/// The buckets of byte-string keys among `n`.
#[pyfunction]
#[pyo3(signature = (keys, n, /))]
pub fn bucket_bytes<'py>(
    keys: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    let n: BucketCount = args::buckets(n, "n")?;
    match prehashed(keys)? {
        Hashed::One(key) => jumpshard::bucket(key, n).into_bound_py_any(py),
        Hashed::Many(v) => {
            let mut out = vec![0u32; v.len()];
            py.detach(|| jumpshard::batch(&v, n, &mut out))
                .map_err(args::value_error)?;
            column::from_vec(py, out, "i4")
        }
    }
}

/// The Memento bucket of every byte key of `keys` (a list or tuple of
/// `bytes`/`bytearray`/`str`, or an Arrow binary or string array), as a new
/// int32 array: the library's byte batch, with the GIL released.
pub fn memento_batch<'py>(
    memento: &jumpshard::Memento,
    keys: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    if keys.is_instance_of::<PyList>() || keys.is_instance_of::<PyTuple>() {
        // The strings end to end, cut by offsets, as the C batch takes them.
        let (mut data, mut offsets) = (Vec::new(), vec![0u64]);
        for (i, key) in keys.try_iter()?.enumerate() {
            let key = key?;
            if let Ok(b) = key.cast::<PyBytes>() {
                data.extend_from_slice(b.as_bytes());
            } else if let Ok(s) = key.cast::<PyString>() {
                data.extend_from_slice(s.to_cow()?.as_bytes());
            } else if let Ok(b) = key.cast::<PyByteArray>() {
                data.extend_from_slice(&b.to_vec());
            } else {
                let name = key.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "keys[{i}] must be bytes or str, not {name}"
                )));
            }
            offsets.push(data.len() as u64);
        }
        let out = memento_buckets(py, memento, &data, &offsets)?;
        return column::from_vec(py, out, "i4");
    }
    let Some((layout, chunks)) = arrow::import(keys, "byte keys")? else {
        let name = keys.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "byte keys must be a list of bytes or str or an Arrow binary or string array, \
             not {name}"
        )));
    };
    let mut out = Vec::new();
    for chunk in chunks.iter().filter(|c| c.len() > 0) {
        let part = match layout {
            Layout::Binary32 => {
                let (data, offsets) = chunk.binary::<i32>()?;
                memento_buckets(py, memento, data, offsets)?
            }
            Layout::Binary64 => {
                let (data, offsets) = chunk.binary::<i64>()?;
                memento_buckets(py, memento, data, offsets)?
            }
            Layout::BinaryView => {
                let (mut data, mut offsets) = (Vec::new(), vec![0u64]);
                chunk.each_view(|_, bytes| {
                    data.extend_from_slice(bytes);
                    offsets.push(data.len() as u64);
                })?;
                memento_buckets(py, memento, &data, &offsets)?
            }
            Layout::Int64 => {
                return Err(PyTypeError::new_err(
                    "byte keys must be an Arrow binary or string array, got 64-bit integers: \
                     use batch() for those",
                ))
            }
        };
        out.extend_from_slice(&part);
    }
    column::from_vec(py, out, "i4")
}

/// The buckets of the strings `offsets` cut `data` into.
fn memento_buckets<O: Offset + Send + Sync>(
    py: Python<'_>,
    memento: &jumpshard::Memento,
    data: &[u8],
    offsets: &[O],
) -> PyResult<Vec<u32>> {
    let mut out = vec![0u32; offsets.len().saturating_sub(1)];
    py.detach(|| memento.batch_bytes(data, offsets, &mut out))
        .map_err(args::value_error)?;
    Ok(out)
}
