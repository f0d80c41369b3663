//! `bucket` with CPython's fast calling convention.
//!
//! Under the 3.9 stable ABI PyO3 registers functions as METH_VARARGS (the
//! fast convention, METH_FASTCALL, entered the stable ABI only in 3.10), so
//! each call builds an argument tuple: about 75 ns, as much as the hash of
//! one key and twice the 1.5x budget against the C extension
//! `jump-consistent-hash`. Every CPython this wheel loads into (3.9 and
//! later) has supported METH_FASTCALL since 3.7 with the same `PyMethodDef`
//! layout, so this one function is registered by hand with it; its body is
//! the ordinary PyO3 `bucket`.

use std::ffi::{c_char, c_int};

use jumpshard::BucketCount;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::args;

/// CPython's METH_FASTCALL flag (Include/methodobject.h, 3.7 and later).
const METH_FASTCALL: c_int = 0x0080;

/// The fast signature: the module, a vector of `nargs` borrowed arguments.
type Fast = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    ffi::Py_ssize_t,
) -> *mut ffi::PyObject;

unsafe extern "C" fn bucket(
    _module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls module functions with the thread attached.
    let py = unsafe { Python::assume_attached() };
    let result = std::panic::catch_unwind(|| -> PyResult<Py<PyAny>> {
        if nargs != 2 {
            return Err(PyTypeError::new_err(format!(
                "bucket() takes 2 positional arguments (key, n), got {nargs}"
            )));
        }
        // SAFETY: METH_FASTCALL passes `nargs` (2) borrowed, live objects,
        // which outlive the call.
        let (key, n) = unsafe {
            (
                Borrowed::from_ptr(py, *args),
                Borrowed::from_ptr(py, *args.add(1)),
            )
        };
        // Two plain ints in range, the common case, skip the checks that
        // name what is wrong.
        let bucket = match (args::small_int(&key), args::small_int(&n)) {
            (Some(k), Some(n)) if k >= 0 && (1..=i64::from(i32::MAX)).contains(&n) => {
                jumpshard::bucket(
                    k as u64,
                    BucketCount::new(n as u32).map_err(args::value_error)?,
                )
            }
            _ => bucket_checked(&key, &n)?,
        };
        Ok(bucket.into_pyobject(py)?.into_any().unbind())
    });
    let error = match result {
        Ok(Ok(object)) => return object.into_ptr(),
        Ok(Err(error)) => error,
        Err(_) => PyRuntimeError::new_err("jumpshard.bucket panicked (a bug: please report it)"),
    };
    error.restore(py);
    std::ptr::null_mut()
}

/// The bucket of one 64-bit key among `n` (Figure 1, in Rust), with
/// Python's argument checks: the slow path of the `bucket` function.
fn bucket_checked(key: &Bound<'_, PyAny>, n: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(jumpshard::bucket(args::key(key)?, args::buckets(n, "n")?))
}

/// The `bucket` function object, for the module `m`.
pub fn bucket_function<'py>(m: &Bound<'py, PyModule>) -> PyResult<Bound<'py, PyAny>> {
    let fast: Fast = bucket;
    // SAFETY: CPython calls a METH_FASTCALL function through this union
    // member with the `Fast` signature, which it has.
    let meth = unsafe { std::mem::transmute::<Fast, ffi::PyCFunction>(fast) };
    let def = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: c"bucket".as_ptr(),
        ml_meth: ffi::PyMethodDefPointer { PyCFunction: meth },
        ml_flags: METH_FASTCALL,
        ml_doc: c"bucket(key, n, /)\n--\n\nThe bucket of one 64-bit key among n (1 to 2**31-1)."
            .as_ptr() as *const c_char,
    }));
    // SAFETY: `def` is leaked, so it outlives the function object as CPython
    // requires; `m` is a live module and the thread is attached.
    unsafe {
        Bound::from_owned_ptr_or_err(
            m.py(),
            ffi::PyCFunction_NewEx(def, m.as_ptr(), std::ptr::null_mut()),
        )
    }
}
