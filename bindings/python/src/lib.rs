//! The `jumpshard._jumpshard` extension module: the jumpshard library's
//! batches, plans and byte keys for Python, on numpy and Arrow memory in
//! place, with the GIL released while they run.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod args;
mod arrow;
mod bounded;
mod byte_keys;
mod column;
mod fast;
mod keys;
mod node_ids;
mod pages;
mod placement;
mod plan;
mod table;

use jumpshard::{BucketCount, Kernel};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;

use crate::keys::{native, ArrayView, Keys};

/// The bucket of every key among `n`, into `out` or a new int32 array.
#[pyfunction]
#[pyo3(signature = (keys, n, *, out=None, threads=None))]
fn batch<'py>(
    keys: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    let n = args::buckets(n, "n")?;
    let threads = args::threads(threads)?;
    let keys = Keys::extract(keys)?;
    let fresh = out.is_none();
    let out = match out {
        Some(out) => out.clone(),
        None => py
            .import(intern!(py, "numpy"))?
            .call_method1(intern!(py, "empty"), (keys.len(), intern!(py, "int32")))?,
    };
    let (address, len) = check_out(&out, &keys)?;
    if fresh {
        pages::advise_huge(address, len * std::mem::size_of::<u32>());
    }
    let runs = keys.runs();
    if len > 0 {
        py.detach(|| {
            // SAFETY: `check_out` found `len` aligned, writable, contiguous
            // int32 at `address`, in `out`'s buffer, which `out` keeps alive
            // meanwhile, overlapping no key. Like any numpy C routine, this
            // assumes no other thread writes the array meanwhile.
            let buckets = unsafe { std::slice::from_raw_parts_mut(address as *mut u32, len) };
            run_batch(&runs, n, buckets, threads)
        });
    }
    Ok(out)
}

/// Every run of keys through the library's parallel batch, into the
/// matching part of `out` (as long as all the runs).
fn run_batch(runs: &[&[u64]], n: BucketCount, out: &mut [u32], threads: usize) {
    let mut rest = out;
    for run in runs {
        let (part, tail) = rest.split_at_mut(run.len());
        // The lengths match by construction, the only error it reports.
        let _ = jumpshard::batch_parallel(run, n, part, threads);
        rest = tail;
    }
}

/// The address and length of the int32 array `out`, after every check
/// (type, length, layout, no overlap with the keys): nothing is written
/// to an `out` that fails one.
fn check_out(out: &Bound<'_, PyAny>, keys: &Keys<'_>) -> PyResult<(usize, usize)> {
    let py = out.py();
    if !out.hasattr(intern!(py, "__array_interface__"))? {
        let name = out.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "out must be a numpy int32 array, not {name}"
        )));
    }
    let view = ArrayView::of(out, "out")?;
    if view.typestr != native("i4") {
        let dtype = out.getattr(intern!(py, "dtype"))?;
        return Err(PyTypeError::new_err(format!(
            "out must have dtype int32, got {dtype}"
        )));
    }
    view.one_d("out")?;
    if view.len != keys.len() {
        return Err(PyValueError::new_err(format!(
            "out has length {}, keys {}: they must match",
            view.len,
            keys.len()
        )));
    }
    if view.readonly {
        return Err(PyValueError::new_err("out is read-only"));
    }
    if !view.contiguous(4) || view.address % std::mem::align_of::<u32>() != 0 {
        return Err(PyValueError::new_err(
            "out must be C-contiguous and aligned",
        ));
    }
    if keys.overlaps(view.address, view.len * 4) {
        return Err(PyValueError::new_err(
            "out overlaps keys: give it its own memory",
        ));
    }
    Ok((view.address, view.len))
}

/// The name of the kernel batches use now.
#[pyfunction]
fn kernel() -> &'static str {
    jumpshard::active_kernel().name()
}

/// The names of the kernels this CPU runs.
#[pyfunction]
fn kernels() -> Vec<&'static str> {
    Kernel::supported().into_iter().map(Kernel::name).collect()
}

/// The module.
#[pymodule]
fn _jumpshard(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("bucket", fast::bucket_function(m)?)?;
    m.add_function(wrap_pyfunction!(batch, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan, m)?)?;
    m.add_function(wrap_pyfunction!(byte_keys::prehash, m)?)?;
    m.add_function(wrap_pyfunction!(byte_keys::bucket_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(kernel, m)?)?;
    m.add_function(wrap_pyfunction!(kernels, m)?)?;
    m.add_class::<plan::Plan>()?;
    m.add_class::<placement::Memento>()?;
    m.add_class::<bounded::BoundedLoads>()?;
    m.add_class::<placement::Weights>()?;
    m.add_class::<table::NodeTable>()?;
    m.add_function(wrap_pyfunction!(placement::replicas, m)?)?;
    Ok(())
}
