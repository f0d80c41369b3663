//! Memento removal, replica sets and weights for Python: the library's
//! `Memento`, `replicas` and `Weights` over the same keys the batch
//! functions take, with the GIL released while they run.

use jumpshard::weights::Weights as Inner;
use jumpshard::BucketCount;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyString};
use pyo3::IntoPyObjectExt;

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
pub struct Memento(pub(crate) jumpshard::Memento);

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
    fn from_removals(n: &Bound<'_, PyAny>, removals: &Bound<'_, PyAny>) -> PyResult<Memento> {
        let n = args::buckets(n, "n")?;
        let mut buckets = Vec::new();
        for (i, item) in removals.try_iter()?.enumerate() {
            let item = item?;
            let bucket = bucket_of(&item, n.get(), &format!("removals[{i}]"))?;
            buckets.push(bucket.ok_or_else(|| {
                PyValueError::new_err(format!("removals[{i}]: {}", not_a_bucket(&item, n.get())))
            })?);
        }
        jumpshard::Memento::from_removals(n, &buckets)
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

    /// Whether `bucket` is removed (an int beyond the b-array is not).
    fn is_removed(&self, bucket: &Bound<'_, PyAny>) -> PyResult<bool> {
        let bucket = bucket_of(bucket, self.0.barray().get(), "bucket")?;
        Ok(bucket.is_some_and(|b| self.0.is_removed(b)))
    }

    /// Removes `bucket`: its keys, and only they, move.
    fn remove(&mut self, bucket: &Bound<'_, PyAny>) -> PyResult<()> {
        let barray = self.0.barray().get();
        let Some(b) = bucket_of(bucket, barray, "bucket")? else {
            return Err(PyValueError::new_err(not_a_bucket(bucket, barray)));
        };
        self.0.remove(b).map_err(args::value_error)
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

    /// The bucket of every byte key (a list of `bytes`/`str`, or an Arrow
    /// binary or string array), as a new int32 array: `bucket_bytes` of
    /// each.
    fn batch_bytes<'py>(&self, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        crate::byte_keys::memento_batch(&self.0, keys)
    }

    /// The replica sets under the removals: for one int key, a list of `k`
    /// distinct working buckets, the first `bucket(key)`; for many, an
    /// int32 array of shape `(len(keys), k)`, a set per row. Each removal
    /// replaces only the member it hits, and a restore undoes it. `k` above
    /// the working buckets raises ValueError.
    fn replicas<'py>(
        &self,
        keys: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let working = self.0.working() as usize;
        let k = args::replica_count(k, 0, working, "the working buckets", |k| {
            self.0.check_replicas(k)
        })?;
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

/// Buckets with real-valued weights over Figure 1: heavy buckets hold several slots of its axis.
#[pyclass(module = "jumpshard")]
pub struct Weights(Inner, Vec<f64>);

#[pymethods]
impl Weights {
    /// Buckets `0..len(weights)` with these weights (finite, not negative,
    /// not all zero; numbers, not `bool`).
    #[new]
    fn new(weights: &Bound<'_, PyAny>) -> PyResult<Weights> {
        let weights = weight_list(weights)?;
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

/// The replica sets of Figure 1: for one int key, a list of `k` distinct
/// buckets, the first `bucket(key, n)`; for many, an int32 array of shape
/// `(len(keys), k)`, a set per row. `k` above `n` raises ValueError.
#[pyfunction]
#[pyo3(signature = (keys, n, k))]
pub fn replicas<'py>(
    keys: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    k: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let n: BucketCount = args::buckets(n, "n")?;
    let limit = n.get() as usize;
    let k = args::replica_count(k, 0, limit, "the bucket count n", |k| {
        jumpshard::replicas::check(k, n)
    })?;
    rows_of(keys, k, |run, columns| {
        jumpshard::replicas::batch(run, n, columns)
    })
}

/// Replica values the working columns of one piece of keys hold: the keys
/// go through in pieces of about this many values over their `k` columns,
/// so that nothing but the result grows with the number of keys.
const PIECE_VALUES: usize = 1 << 16;

/// The `k` replica columns (`k` already checked) of `keys` through
/// `each_run`: for one int key a list of `k` buckets, else an int32 array
/// of shape `(len(keys), k)`.
pub(crate) fn rows_of<'py, E: std::fmt::Display + Send>(
    keys: &Bound<'py, PyAny>,
    k: usize,
    each_run: impl Fn(&[u64], &mut [&mut [u32]]) -> Result<(), E> + Send + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    let py = keys.py();
    let error = |e: E| PyValueError::new_err(e.to_string());
    if let Some(key) = scalar_key(keys)? {
        let mut set = args::zeros::<u32>(k, "a replica set")?;
        let mut columns: Vec<&mut [u32]> = set.chunks_mut(1).collect();
        each_run(&[key], &mut columns).map_err(error)?;
        return set.into_bound_py_any(py);
    }
    let extracted = Keys::extract(keys)?;
    let runs = extracted.runs();
    let len = extracted.len();
    let total = len.saturating_mul(k);
    let mut rows = args::zeros::<u32>(total, "replica sets")?;
    if total > 0 {
        let piece = (PIECE_VALUES / k).max(1);
        py.detach(|| -> Result<(), E> {
            let mut columns = vec![0u32; piece.min(len) * k];
            let mut start = 0;
            for keys in runs.iter().flat_map(|run| run.chunks(piece)) {
                let m = keys.len();
                let mut refs: Vec<&mut [u32]> = columns[..m * k].chunks_mut(m).collect();
                each_run(keys, &mut refs)?;
                for (j, column) in refs.iter().enumerate() {
                    for (i, &b) in column.iter().enumerate() {
                        rows[(start + i) * k + j] = b;
                    }
                }
                start += m;
            }
            Ok(())
        })
        .map_err(error)?;
    }
    let flat = column::from_vec(py, rows, "i4")?;
    flat.call_method1("reshape", ((len, k),))
}

/// The key of a replica call given one key (an int, or anything with
/// `__index__` and no length, such as a numpy integer), else `None`.
fn scalar_key(obj: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    let py = obj.py();
    let one = obj.is_instance_of::<PyInt>()
        || (obj.hasattr(pyo3::intern!(py, "__index__"))?
            && !obj.hasattr(pyo3::intern!(py, "__len__"))?);
    if one {
        args::key(obj).map(Some)
    } else {
        Ok(None)
    }
}

/// `obj` as a bucket below `barray` when it is one, `None` for any other
/// int (negative or beyond, whatever its size); a `TypeError` naming
/// `what` for a non-int.
fn bucket_of(obj: &Bound<'_, PyAny>, barray: u32, what: &str) -> PyResult<Option<u32>> {
    crate::keys::not_bool(obj, what)?;
    match obj.extract::<i64>() {
        Ok(b) => Ok(u32::try_from(b).ok().filter(|&b| b < barray)),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => Ok(None),
        Err(_) => {
            let name = obj.get_type().name()?;
            Err(PyTypeError::new_err(format!(
                "{what} must be an int, not {name}"
            )))
        }
    }
}

/// The library's words for a bucket beyond a b-array of `barray`, for any
/// int (a negative one included).
fn not_a_bucket(obj: &Bound<'_, PyAny>, barray: u32) -> String {
    format!(
        "bucket {obj} does not exist: the cluster has buckets 0 to {}",
        barray - 1
    )
}

/// Weights as floats: any real number but `bool` (Python's or numpy's),
/// which is never a weight; a `TypeError` naming the first that is not.
fn weight_list(weights: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let mut out = Vec::new();
    for (i, item) in weights.try_iter()?.enumerate() {
        out.push(args::real(&item?, &format!("weights[{i}]"))?);
    }
    Ok(out)
}
