//! Routing with bounded loads for Python: the library's
//! `placement::BoundedLoads` over a copy of a `Memento`, shared between
//! threads without a lock of its own (its counts are atomic).

use jumpshard::placement::{BoundedLoads as Inner, DEFAULT_WALK};
use jumpshard::replicas::MAX_REPLICAS;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::args;
use crate::keys::not_bool;
use crate::node_ids::node_ids;
use crate::placement::{column_of, Memento};

/// A router with bounded loads: `acquire(key)` answers the first node of
/// the key's preference list (its bucket, then its replica walk) whose
/// load stays at most ceil(c * (total + 1) / live), or the least loaded of
/// the walk when all of it is full, and counts it; `release(node)` takes
/// it back (`acquire_batch` and `release_batch` do the same for many).
#[pyclass(module = "jumpshard", frozen)]
pub struct BoundedLoads(Inner);

#[pymethods]
impl BoundedLoads {
    /// A router over a copy of `cluster` (a `Memento`, or an int: that many
    /// buckets, none removed), with load factor `factor` (> 1, `math.inf`
    /// allowed) and walks of up to `walk` nodes (None: 8).
    #[new]
    #[pyo3(signature = (cluster, factor, walk=None))]
    fn new(
        cluster: &Bound<'_, PyAny>,
        factor: &Bound<'_, PyAny>,
        walk: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<BoundedLoads> {
        let cluster = match cluster.cast::<Memento>() {
            Ok(m) => m.borrow().0.clone(),
            Err(_) => jumpshard::Memento::new(args::buckets(cluster, "cluster")?),
        };
        let factor = factor_arg(factor)?;
        let walk = match walk {
            None => DEFAULT_WALK,
            Some(walk) => walk_arg(walk)?,
        };
        Inner::with_walk(cluster, factor, walk)
            .map(BoundedLoads)
            .map_err(args::value_error)
    }

    /// The load factor c.
    #[getter]
    fn factor(&self) -> f64 {
        self.0.factor()
    }

    /// The most nodes a preference list holds.
    #[getter]
    fn walk(&self) -> usize {
        self.0.walk()
    }

    /// The sum of all loads, removed nodes' included.
    #[getter]
    fn total(&self) -> u64 {
        self.0.total()
    }

    /// Every bucket id's load, removed buckets included.
    #[getter]
    fn loads(&self) -> Vec<u64> {
        self.0.loads()
    }

    /// The bound the next acquire would be checked against.
    #[getter]
    fn next_bound(&self) -> u64 {
        self.0.next_bound()
    }

    /// A copy of the cluster as it stands.
    #[getter]
    fn cluster(&self) -> Memento {
        Memento(self.0.cluster())
    }

    /// The node for one request with `key`, counted.
    fn acquire(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = args::key(key)?;
        // A walk of up to 1024 members is a long computation: other Python
        // threads run meanwhile.
        Ok(py.detach(|| self.0.acquire(key)))
    }

    /// The nodes for one request with each key, counted, as a new int32
    /// array (the dtype of `Memento.batch`): exactly what `acquire` of each
    /// key in turn answers. Takes the keys every batch call takes (numpy
    /// arrays read in place, lists, Arrow arrays, pandas and polars
    /// Series); their buckets come from one Memento batch on the SIMD
    /// lanes, with the GIL released. Bad keys raise before anything is
    /// counted.
    fn acquire_batch<'py>(&self, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        column_of(keys, |run, out| self.0.acquire_batch(run, out))
    }

    /// Takes one unit of load back from `node`, live or removed since.
    fn release(&self, node: &Bound<'_, PyAny>) -> PyResult<()> {
        let node = node_arg(node, "node")?;
        self.0.release(node).map_err(args::value_error)
    }

    /// Takes one unit of load back from each of `nodes` (repeats allowed,
    /// live or removed since): exactly what `release` of each in turn does,
    /// as one call with the GIL released. Takes a list or tuple of ints or
    /// a 1-D array of any integer dtype (numpy uint32, int32, int64...,
    /// pandas and polars Series, Arrow arrays). Raises, changing no load,
    /// for an id that is no node (checked first) and for more releases of
    /// a node than its load, a caller's bug: the releases made are undone,
    /// and other threads may briefly see the lower loads meanwhile.
    fn release_batch(&self, py: Python<'_>, nodes: &Bound<'_, PyAny>) -> PyResult<()> {
        let nodes = node_ids(nodes)?;
        py.detach(|| self.0.release_batch(&nodes))
            .map_err(args::value_error)
    }

    /// The current load of `node`, live or removed.
    fn load(&self, node: &Bound<'_, PyAny>) -> PyResult<u64> {
        let node = node_arg(node, "node")?;
        self.0.load(node).map_err(args::value_error)
    }

    /// Removes `bucket` as `Memento.remove` does; counts are kept.
    fn remove(&self, bucket: &Bound<'_, PyAny>) -> PyResult<()> {
        let bucket = node_arg(bucket, "bucket")?;
        self.0.remove(bucket).map_err(args::value_error)
    }

    /// Restores the last removed bucket, or grows by one, and returns it.
    fn restore(&self) -> PyResult<u32> {
        self.0.restore().map_err(args::value_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "BoundedLoads(factor={}, walk={}, total={})",
            self.0.factor(),
            self.0.walk(),
            self.0.total()
        )
    }
}

/// A load factor: any real number but `bool` ([`args::real`]); the library
/// refuses NaN and values at most 1, naming them.
fn factor_arg(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    args::real(obj, "factor")
}

/// A walk length, checked as an int of any size before it is used.
fn walk_arg(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    not_bool(obj, "walk")?;
    let out_of_range = || {
        PyValueError::new_err(format!(
            "walk must be between 1 and {MAX_REPLICAS}, got {obj}"
        ))
    };
    match obj.extract::<i64>() {
        Ok(w) => usize::try_from(w).map_err(|_| out_of_range()),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Err(out_of_range()),
        Err(_) => {
            let name = obj.get_type().name()?;
            Err(PyTypeError::new_err(format!(
                "walk must be an int, not {name}"
            )))
        }
    }
}

/// A node or bucket number, checked as an int of any size before it is
/// used: one no cluster can have raises `ValueError` naming it.
fn node_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    not_bool(obj, what)?;
    let no_such = || PyValueError::new_err(format!("{what} {obj} does not exist"));
    match obj.extract::<i64>() {
        Ok(n) => u32::try_from(n).map_err(|_| no_such()),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Err(no_such()),
        Err(_) => {
            let name = obj.get_type().name()?;
            Err(PyTypeError::new_err(format!(
                "{what} must be an int, not {name}"
            )))
        }
    }
}
