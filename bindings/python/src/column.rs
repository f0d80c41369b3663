//! Results handed to numpy without copying: a Rust buffer exposed through
//! `__array_interface__`, which `numpy.asarray` wraps in an array whose
//! base keeps the buffer alive.

use std::any::Any;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::{intern, IntoPyObjectExt};

/// A 1-D run of `len` items of numpy type `typestr` at `address`, inside
/// `owner`.
#[pyclass(frozen, module = "jumpshard")]
pub struct Column {
    _owner: Arc<dyn Any + Send + Sync>,
    address: usize,
    len: usize,
    typestr: String,
}

#[pymethods]
impl Column {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let interface = PyDict::new(py);
        interface.set_item(intern!(py, "version"), 3)?;
        interface.set_item(intern!(py, "shape"), (self.len,))?;
        interface.set_item(intern!(py, "typestr"), &self.typestr)?;
        // Writable: the array is the caller's, nothing else reads the buffer.
        interface.set_item(intern!(py, "data"), (self.address, false))?;
        Ok(interface)
    }
}

/// A numpy array over `slice`, which lives inside `owner`.
pub fn array<'py, T: Copy>(
    py: Python<'py>,
    owner: Arc<dyn Any + Send + Sync>,
    slice: &[T],
    code: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let column = Column {
        address: slice.as_ptr() as usize,
        len: slice.len(),
        typestr: crate::keys::native(code),
        _owner: owner,
    }
    .into_bound_py_any(py)?;
    let numpy = py.import(intern!(py, "numpy"))?;
    numpy.call_method1(intern!(py, "asarray"), (column,))
}

/// A numpy array holding `v`, without copying it.
pub fn from_vec<'py, T: Copy + Send + Sync + 'static>(
    py: Python<'py>,
    v: Vec<T>,
    code: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let v = Arc::new(v);
    array(py, v.clone(), &v[..], code)
}
