//! Node tables for Python: the table file's text, parsed as every other
//! front end parses it, placing keys as its removals or weights say.

use jumpshard::NodeTable as Inner;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::args;
use crate::placement::{column_of, rows_of};

/// A node table: slot `i` served by a named node (`+NAME` repeats one),
/// keys placed by Figure 1, or Memento with the `removed=K` slots, or the
/// `weight=W` weights.
#[pyclass(module = "jumpshard")]
pub struct NodeTable {
    inner: Inner,
    text: String,
}

#[pymethods]
impl NodeTable {
    /// The table in the table-file text; a table the syntax refuses raises
    /// ValueError naming the line.
    #[new]
    fn new(text: &str) -> PyResult<NodeTable> {
        let inner = Inner::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(NodeTable {
            text: inner.to_text(),
            inner,
        })
    }

    /// The number of slots, removed ones included.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Each slot's node name, in slot order.
    #[getter]
    fn slots(&self) -> Vec<String> {
        (0..self.inner.len())
            .map(|i| self.inner.slot(i).to_owned())
            .collect()
    }

    /// The removed slots, in removal order.
    #[getter]
    fn removals(&self) -> Vec<u32> {
        self.inner.removals().to_vec()
    }

    /// The fingerprint of the table's meaning, `jt1:` and 32 hex digits:
    /// the same for every spelling of the table (comments, blanks, number
    /// spelling) and the value every front end prints for it.
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_string()
    }

    /// The overridden keys (`override KEY NODE` lines), as a list of
    /// `(key, node)` pairs in increasing key order; lookups answer them
    /// first.
    #[getter]
    fn overrides(&self) -> Vec<(u64, String)> {
        self.inner
            .overrides()
            .map(|(key, node)| (key, node.to_owned()))
            .collect()
    }

    /// The slot of one 64-bit key.
    fn bucket(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(self.inner.bucket(args::key(key)?))
    }

    /// The node serving one 64-bit key.
    fn node(&self, key: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.inner.node(args::key(key)?).to_owned())
    }

    /// The slot of every key, as a new int32 array (`slots` names them).
    fn batch<'py>(&self, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        column_of(keys, |run, out| self.inner.batch(run, out))
    }

    /// The replica sets: for one int key, a list of `k` slots of distinct
    /// working nodes, the first `bucket(key)`; for many, an int32 array of
    /// shape `(len(keys), k)`, a set per row. A weighted table, a node with
    /// two slots or `k` outside 1 to the working nodes raise ValueError. On
    /// a zoned table (`zone=NAME` lines) the sets are the zoned ones: `k`
    /// distinct live nodes in distinct zones whenever `k` zones have live
    /// nodes, each member as its node's first working slot (`k` from 1 to
    /// the live nodes; a node may serve several slots, and the first member
    /// is then `bucket(key)`'s node, not always its slot).
    fn replicas<'py>(
        &self,
        keys: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (limit, what) = if self.inner.is_zoned() {
            let live = (0..self.inner.nodes().len())
                .filter(|&n| self.inner.is_live(n))
                .count();
            (live, "the live nodes")
        } else {
            (
                self.inner.len() - self.inner.removals().len(),
                "the working nodes",
            )
        };
        let k = args::replica_count(k, 1, limit, what, |k| self.inner.check_replicas(k))?;
        rows_of(keys, k, |run, columns| {
            self.inner.replicas_batch(run, columns)
        })
    }

    /// The zones the table names (`zone=NAME`), in first-appearance order;
    /// empty for a table without zones.
    #[getter]
    fn zones(&self) -> Vec<String> {
        self.inner.zones().to_vec()
    }

    /// The zone of a node (by name), or None on a table without zones; an
    /// unknown node raises ValueError naming it.
    fn zone_of(&self, node: &str) -> PyResult<Option<String>> {
        let index = self.node_index(node)?;
        Ok(self.inner.zone_of(index).map(str::to_owned))
    }

    /// The table with `node` added at the end in zone `zone` (and rack
    /// `rack`, if given): one more slot line, onto which alone its zoned
    /// sets move replicas, save a key's primary moving inside a zone. An
    /// unknown zone, a table without zones, a taken name or a table with
    /// removals (restore them first) raise ValueError naming the value.
    #[pyo3(signature = (node, zone, rack=None))]
    fn with_node_added(&self, node: &str, zone: &str, rack: Option<&str>) -> PyResult<NodeTable> {
        Self::zoned(self.inner.with_node_added(node, zone, rack))
    }

    /// The table with every node of `zone` removed (the order of their
    /// slots); an unknown zone or the last zone with live nodes raise
    /// ValueError naming it.
    fn with_zone_lost(&self, zone: &str) -> PyResult<NodeTable> {
        Self::zoned(self.inner.with_zone_lost(zone))
    }

    /// The table with a new zone `zone` of `nodes` (a sequence of names)
    /// added at the end; a zone the table has, no node, a taken name or a
    /// table with removals raise ValueError, one str for `nodes`
    /// TypeError.
    fn with_zone_added(&self, zone: &str, nodes: &Bound<'_, PyAny>) -> PyResult<NodeTable> {
        // A str is a sequence of one-letter names, never what was meant.
        let names: Option<Vec<String>> = match nodes.is_instance_of::<PyString>() {
            true => None,
            false => nodes.extract().ok(),
        };
        let Some(nodes) = names else {
            return Err(PyTypeError::new_err(format!(
                "nodes must be a sequence of node names, got {} (one node is [\"name\"])",
                nodes.get_type().name()?
            )));
        };
        let nodes: Vec<&str> = nodes.iter().map(String::as_str).collect();
        Self::zoned(self.inner.with_zone_added(zone, &nodes))
    }

    /// The table in the table-file text.
    fn to_text(&self) -> String {
        self.text.clone()
    }

    /// Pickles as its text, so that Dask workers place keys with it.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<crate::placement::Reduced<'py, (String,)>> {
        let class = slf.get_type().into_any();
        Ok((class, (slf.borrow().text.clone(),)))
    }

    fn __repr__(&self) -> String {
        format!(
            "NodeTable(slots={}, removals={:?}, weighted={})",
            self.inner.len(),
            self.inner.removals(),
            // Python's spelling of the boolean.
            if self.inner.weights().is_some() {
                "True"
            } else {
                "False"
            }
        )
    }
}

impl NodeTable {
    /// The index of the node named `name`, or ValueError naming it.
    fn node_index(&self, name: &str) -> PyResult<usize> {
        self.inner
            .node_index(name)
            .ok_or_else(|| PyValueError::new_err(format!("node {name:?} is not in the table")))
    }

    /// A changed table, or its refusal as ValueError.
    fn zoned(changed: Result<Inner, jumpshard::zones::ZoneError>) -> PyResult<NodeTable> {
        let inner = changed.map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(NodeTable {
            text: inner.to_text(),
            inner,
        })
    }
}
