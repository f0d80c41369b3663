//! Node ids for a batch of releases, out of a list or tuple of ints or a
//! 1-D array of any integer dtype (numpy, or whatever `numpy.asarray`
//! reads: pandas and polars Series, Arrow arrays). Each must lie between 0
//! and 2**32-1; the library then refuses ids its cluster never had.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::keys::{not_bool, ArrayView};

/// The ids of `obj`, copied (a release batch reads each once), or the
/// error naming the first that is no node: `ValueError` for an int out of
/// range, `TypeError` for anything but an int or an integer array.
pub fn node_ids(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut ids = Vec::with_capacity(obj.len()?);
        for (i, item) in obj.try_iter()?.enumerate() {
            ids.push(list_item(&item?, i)?);
        }
        return Ok(ids);
    }
    let py = obj.py();
    // A null (Arrow, Polars) would read as a float's NaN: named as itself.
    let nulls = nulls(obj);
    if nulls > 0 {
        return Err(PyTypeError::new_err(format!(
            "nodes must be integers, got {nulls} null{}: drop or fill them first",
            if nulls == 1 { "" } else { "s" }
        )));
    }
    let numpy = py.import(intern!(py, "numpy"))?;
    let array = numpy.call_method1(intern!(py, "asarray"), (obj,))?;
    let dtype = array.getattr(intern!(py, "dtype"))?;
    let kind: String = dtype.getattr(intern!(py, "kind"))?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(PyTypeError::new_err(format!(
            "nodes must be integers, got dtype {dtype}"
        )));
    }
    ArrayView::of(&array, "nodes")?.one_d("nodes")?;
    // The range checked by numpy over the whole array at once, and the
    // first id out of it named.
    let below = array.call_method1(intern!(py, "__lt__"), (0,))?;
    let above = array.call_method1(intern!(py, "__gt__"), (u32::MAX,))?;
    let outside = below.call_method1(intern!(py, "__or__"), (above,))?;
    let bad = numpy.call_method1(intern!(py, "flatnonzero"), (outside,))?;
    if bad.len()? > 0 {
        let i = bad.get_item(0)?;
        let id = array.get_item(&i)?;
        return Err(no_such(&i, &id));
    }
    // One copy as native uint32, whatever the dtype, order and alignment.
    let uint32 = numpy.getattr(intern!(py, "uint32"))?;
    let bytes = array
        .call_method1(intern!(py, "astype"), (uint32,))?
        .call_method0(intern!(py, "tobytes"))?;
    let bytes = bytes.cast::<PyBytes>()?.as_bytes();
    Ok(bytes
        .chunks_exact(4)
        .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// The nulls `obj` says it holds: an Arrow array's `null_count`, a
/// Polars Series' `null_count()`; 0 for anything else.
fn nulls(obj: &Bound<'_, PyAny>) -> usize {
    let Ok(count) = obj.getattr(intern!(obj.py(), "null_count")) else {
        return 0;
    };
    let count = match count.is_callable() {
        true => count.call0().ok(),
        false => Some(count),
    };
    count.and_then(|c| c.extract().ok()).unwrap_or(0)
}

/// Item `i` of a list of ids: an int (not `bool`) of any size.
fn list_item(item: &Bound<'_, PyAny>, i: usize) -> PyResult<u32> {
    not_bool(item, &format!("nodes[{i}]"))?;
    match item.extract::<i64>() {
        Ok(n) => u32::try_from(n).map_err(|_| no_such(&i, item)),
        Err(e) if e.is_instance_of::<PyOverflowError>(item.py()) => Err(no_such(&i, item)),
        Err(_) => {
            let name = item.get_type().name()?;
            Err(PyTypeError::new_err(format!(
                "nodes[{i}] must be an int, not {name}"
            )))
        }
    }
}

/// The error for id `id` at index `i`, which no cluster can have.
fn no_such(i: &dyn std::fmt::Display, id: &dyn std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("nodes[{i}]: node {id} does not exist"))
}
