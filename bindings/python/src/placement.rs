//! Memento removal, replica sets and weights for Python: the library's
//! `Memento`, `replicas` and `Weights` over the same keys the batch
//! functions take, with the GIL released while they run.

use jumpshard::weights::Weights as Inner;
use jumpshard::BucketCount;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::args;
use crate::column;
use crate::keys::Keys;

/// Every key of `keys` through `each_run`, which fills the matching part of
/// the output; returns the int32 column.
pub(crate) fn column_of<'py>(
    keys: &Bound<'py, PyAny>,
    each_run: impl Fn(&[u64], &mut [u32]) -> Result<(), jumpshard::Error> + Send + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    let keys = Keys::extract(keys)?;
    let runs = keys.runs();
    let mut out = vec![0u32; keys.len()];
    py.detach(|| {
        let mut rest = &mut out[..];
        for run in &runs {
            let (part, tail) = rest.split_at_mut(run.len());
            each_run(run, part)?;
            rest = tail;
        }
        Ok(())
    })
    .map_err(args::value_error)?;
    column::from_vec(py, out, "i4")
}

/// What `__reduce__` returns: a callable and its arguments.
pub(crate) type Reduced<'py, A> = (Bound<'py, PyAny>, A);

/// A jump-hash cluster from which any bucket can be removed and restored
/// (MementoHash): only the removed bucket's keys move.
#[pyclass(module = "jumpshard")]
pub struct Memento(jumpshard::Memento);

#[pymethods]
impl Memento {
    /// A cluster of `n` working buckets.
    #[new]
    fn new(n: &Bound<'_, PyAny>) -> PyResult<Memento> {
        Ok(Memento(jumpshard::Memento::new(args::buckets(n, "n")?)))
    }

    /// The cluster of a b-array of `n` buckets with `removals` removed in
    /// this order (what `removals` returns).
    #[staticmethod]
    fn from_removals(n: &Bound<'_, PyAny>, removals: Vec<u32>) -> PyResult<Memento> {
        let n = args::buckets(n, "n")?;
        jumpshard::Memento::from_removals(n, &removals)
            .map(Memento)
            .map_err(args::value_error)
    }

    /// The b-array size: working and removed buckets.
    #[getter]
    fn barray(&self) -> u32 {
        self.0.barray().get()
    }

    /// The number of working buckets.
    #[getter]
    fn working(&self) -> u32 {
        self.0.working()
    }

    /// The removed buckets, in removal order.
    #[getter]
    fn removals(&self) -> Vec<u32> {
        self.0.removals().to_vec()
    }

    /// Whether `bucket` is removed.
    fn is_removed(&self, bucket: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.0.is_removed(args::bucket(bucket)?))
    }

    /// Removes `bucket`: its keys, and only they, move.
    fn remove(&mut self, bucket: &Bound<'_, PyAny>) -> PyResult<()> {
        self.0
            .remove(args::bucket(bucket)?)
            .map_err(args::value_error)
    }

    /// Restores the last removed bucket and returns it (or grows by one).
    fn restore(&mut self) -> PyResult<u32> {
        self.0.restore().map_err(args::value_error)
    }

    /// The bucket of one 64-bit key.
    fn bucket(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(self.0.bucket(args::key(key)?))
    }

    /// The bucket of one byte key (`bytes`, `bytearray`, or `str` as
    /// UTF-8), as the MementoHash authors' engine computes it.
    fn bucket_bytes(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        if let Ok(b) = key.cast::<PyBytes>() {
            return Ok(self.0.bucket_bytes(b.as_bytes()));
        }
        if let Ok(s) = key.cast::<PyString>() {
            return Ok(self.0.bucket_bytes(s.to_cow()?.as_bytes()));
        }
        if let Ok(b) = key.cast::<PyByteArray>() {
            return Ok(self.0.bucket_bytes(&b.to_vec()));
        }
        let name = key.get_type().name()?;
        Err(PyTypeError::new_err(format!(
            "key must be bytes, bytearray or str, not {name}"
        )))
    }

    /// The bucket of every key, as a new int32 array.
    fn batch<'py>(&self, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        column_of(keys, |run, out| self.0.batch(run, out))
    }

    /// The replica sets of every key under the removals: an int32 array of
    /// shape `(len(keys), k)` whose row `i` holds `k` distinct working
    /// buckets, the first `bucket(keys[i])`. Each removal replaces only the
    /// member it hits, and a restore undoes it.
    fn replicas<'py>(&self, keys: &Bound<'py, PyAny>, k: usize) -> PyResult<Bound<'py, PyAny>> {
        rows_of(keys, k, |run, columns| self.0.replicas_batch(run, columns))
    }

    /// Pickles as its b-array size and removals, which rebuild it exactly,
    /// so that Dask workers can place keys with it.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py, (u32, Vec<u32>)>> {
        let from_removals = slf.get_type().getattr("from_removals")?;
        let this = slf.borrow();
        Ok((
            from_removals,
            (this.0.barray().get(), this.0.removals().to_vec()),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Memento(barray={}, working={}, removals={:?})",
            self.0.barray().get(),
            self.0.working(),
            self.0.removals()
        )
    }
}

/// Buckets with real-valued weights, by rejection sampling over Figure 1.
#[pyclass(module = "jumpshard")]
pub struct Weights(Inner, Vec<f64>);

#[pymethods]
impl Weights {
    /// Buckets `0..len(weights)` with these weights (finite, not negative,
    /// not all zero).
    #[new]
    fn new(weights: Vec<f64>) -> PyResult<Weights> {
        let inner = Inner::new(&weights).map_err(args::value_error)?;
        Ok(Weights(inner, weights))
    }

    /// The weights, as given.
    #[getter]
    fn weights(&self) -> Vec<f64> {
        self.1.clone()
    }

    /// Pickles as its weights, so that Dask workers can place keys with it.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py, (Vec<f64>,)>> {
        let class = slf.get_type().into_any();
        Ok((class, (slf.borrow().1.clone(),)))
    }

    fn __repr__(&self) -> String {
        format!("Weights({:?})", self.1)
    }

    /// The bucket of one 64-bit key.
    fn bucket(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(self.0.bucket(args::key(key)?))
    }

    /// The bucket of every key, as a new int32 array.
    fn batch<'py>(&self, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        column_of(keys, |run, out| self.0.batch(run, out))
    }

    fn __len__(&self) -> usize {
        self.0.len().get() as usize
    }
}

/// The replica sets of every key: an int32 array of shape `(len(keys), k)`
/// whose row `i` holds `k` distinct buckets of `keys[i]`, the first its
/// Figure 1 bucket.
#[pyfunction]
#[pyo3(signature = (keys, n, k))]
pub fn replicas<'py>(
    keys: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    k: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let n: BucketCount = args::buckets(n, "n")?;
    rows_of(keys, k, |run, columns| {
        jumpshard::replicas::batch(run, n, columns)
    })
}

/// The `k` replica columns of every key of `keys` through `each_run`, as an
/// int32 array of shape `(len(keys), k)`. `each_run` is first called with
/// no keys, so that a bad `k` is refused before the keys are read.
pub(crate) fn rows_of<'py, E: std::fmt::Display + Send>(
    keys: &Bound<'py, PyAny>,
    k: usize,
    each_run: impl Fn(&[u64], &mut [&mut [u32]]) -> Result<(), E> + Send + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    let error = |e: E| pyo3::exceptions::PyValueError::new_err(e.to_string());
    let mut none: Vec<&mut [u32]> = (0..k).map(|_| &mut [][..]).collect();
    each_run(&[], &mut none).map_err(error)?;
    let extracted = Keys::extract(keys)?;
    let runs = extracted.runs();
    let len = extracted.len();
    let mut rows = vec![0u32; len * k];
    py.detach(|| -> Result<(), E> {
        let mut columns = vec![Vec::new(); k];
        let mut start = 0;
        for run in &runs {
            columns.iter_mut().for_each(|c| c.resize(run.len(), 0));
            let mut refs: Vec<&mut [u32]> = columns.iter_mut().map(|c| &mut c[..]).collect();
            each_run(run, &mut refs)?;
            for (j, column) in columns.iter().enumerate() {
                for (i, &b) in column.iter().enumerate() {
                    rows[(start + i) * k + j] = b;
                }
            }
            start += run.len();
        }
        Ok(())
    })
    .map_err(error)?;
    let flat = column::from_vec(py, rows, "i4")?;
    flat.call_method1("reshape", ((len, k),))
}
