//! Scalar arguments: keys, bucket counts and thread counts, each refused
//! with a message naming it rather than PyO3's generic conversion errors
//! (and `OverflowError`, which is no `ValueError`).

use jumpshard::BucketCount;
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::keys::not_bool;

/// A `jumpshard::Error` as the `ValueError` Python callers expect.
pub fn value_error(e: jumpshard::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `obj` converted to `T`, or a `TypeError`/`ValueError` naming `what` and
/// the range it must lie in.
fn int<'py, T: FromPyObjectOwned<'py>>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    range: &str,
) -> PyResult<T> {
    not_bool(obj, what)?;
    obj.extract::<T>().map_err(|e| {
        let e: PyErr = e.into();
        let py = obj.py();
        if e.is_instance_of::<PyOverflowError>(py) {
            PyValueError::new_err(format!("{what} must be between {range}, got {obj}"))
        } else if e.is_instance_of::<PyTypeError>(py) {
            let type_name = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            PyTypeError::new_err(format!("{what} must be an int, not {type_name}"))
        } else {
            e
        }
    })
}

/// A 64-bit key.
///
/// Ints below 2^63, the common case, take `PyLong_AsLongLongAndOverflow`,
/// which reads small ints directly; the general conversion PyO3 uses for
/// u64 goes through a byte array and costs as much as the hash itself.
#[inline]
pub fn key(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    match small_int(obj) {
        Some(key) if key >= 0 => Ok(key as u64),
        _ => int(obj, "key", "0 and 2**64-1"),
    }
}

/// The value of an exact `int` (not a subclass such as `bool`) between
/// -2^63 and 2^63-1, read directly; `None` for anything else.
#[inline(always)]
pub fn small_int(obj: &Bound<'_, PyAny>) -> Option<i64> {
    if !obj.is_exact_instance_of::<PyInt>() {
        return None;
    }
    let mut overflow = 0;
    // SAFETY: `obj` is a live int and we hold the GIL; an exact int has no
    // `__index__` to run, so this cannot fail (overflow is reported apart).
    let value = unsafe { pyo3::ffi::PyLong_AsLongLongAndOverflow(obj.as_ptr(), &mut overflow) };
    (overflow == 0).then_some(value)
}

/// A bucket count, 1 to 2^31-1.
#[inline]
pub fn buckets(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<BucketCount> {
    let n: i64 = match small_int(obj) {
        Some(n) => n,
        None => int(obj, what, "1 and 2147483647")?,
    };
    BucketCount::try_from(n).map_err(|_| {
        PyValueError::new_err(format!("{what} must be between 1 and 2147483647, got {n}"))
    })
}

/// A thread count: 0 for one per core, 1 (the default) for the calling
/// thread only.
pub fn threads(obj: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    match obj {
        None => Ok(1),
        Some(obj) => int(obj, "threads", &format!("0 and {}", usize::MAX)),
    }
}

/// A replica count `k`, checked before anything is sized by it: an int
/// from `low` to `limit` (`what_limit` says what the limit is), whatever its
/// size, then `check`, the library's own test of `k` for that placement.
/// Every error names `k` and the limit.
pub fn replica_count<E: std::fmt::Display>(
    obj: &Bound<'_, PyAny>,
    low: usize,
    limit: usize,
    what_limit: &str,
    check: impl FnOnce(usize) -> Result<(), E>,
) -> PyResult<usize> {
    not_bool(obj, "k")?;
    // Past 1024 the set's own limit binds, whatever the count.
    let (limit, what_limit) = match limit > jumpshard::replicas::MAX_REPLICAS {
        true => (
            jumpshard::replicas::MAX_REPLICAS,
            "the most members a set may have",
        ),
        false => (limit, what_limit),
    };
    let out_of_range = || {
        PyValueError::new_err(format!(
            "k must be between {low} and {limit} ({what_limit}), got {obj}"
        ))
    };
    let k = match obj.extract::<usize>() {
        Ok(k) => k,
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => return Err(out_of_range()),
        Err(_) => {
            let name = obj.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "k must be an int, not {name}"
            )));
        }
    };
    check(k).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if k < low || k > limit {
        return Err(out_of_range());
    }
    Ok(k)
}

/// `len` zeros, or a `MemoryError` naming what they were for when the
/// allocator cannot give them (rather than the abort of `vec!`).
pub fn zeros<T: Copy + Default>(len: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        PyMemoryError::new_err(format!(
            "{what}: {len} values of {} bytes do not fit in memory",
            std::mem::size_of::<T>()
        ))
    })?;
    v.resize(len, T::default());
    Ok(v)
}

/// A real number named `what` (a weight, a load factor): any number but a
/// `bool` (Python's or numpy's), which is never one; a `TypeError` for
/// what is no number, a `ValueError` for an int past the floats' range.
pub fn real(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    let name = obj.get_type().name()?;
    let numpy_bool = (name == "bool_" || name == "bool")
        && obj
            .get_type()
            .module()
            .is_ok_and(|m| m.to_string_lossy().starts_with("numpy"));
    if obj.is_instance_of::<pyo3::types::PyBool>() || numpy_bool {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a number, not bool"
        )));
    }
    obj.extract::<f64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(obj.py()) {
            PyValueError::new_err(format!("{what} is too large for a float: {e}"))
        } else {
            PyTypeError::new_err(format!("{what} must be a number, not {name}"))
        }
    })
}
