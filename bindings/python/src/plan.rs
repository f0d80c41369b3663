//! `plan`: the library's move plan, its columns handed to numpy in place.

use std::sync::{Arc, Mutex};

use jumpshard::{DestinationCounts, MovePlan, Resize};
use pyo3::intern;
use pyo3::prelude::*;

use crate::args;
use crate::column;
use crate::keys::Keys;

/// The keys that move when the bucket count changes, and where to.
#[pyclass(frozen, module = "jumpshard")]
pub struct Plan {
    /// The moving keys' positions in the input, increasing (uint64).
    #[pyo3(get)]
    positions: Py<PyAny>,
    /// Their old buckets (int32); named `from_` as `from` is a Python keyword.
    #[pyo3(get, name = "from_")]
    from: Py<PyAny>,
    /// Their new buckets (int32).
    #[pyo3(get)]
    to: Py<PyAny>,
    /// The destinations that receive keys, increasing (int32).
    destination_buckets: Py<PyAny>,
    /// How many keys each receives (int64).
    destination_counts: Py<PyAny>,
    /// The number of moving keys.
    #[pyo3(get)]
    moved: u64,
    /// The number of keys planned.
    #[pyo3(get)]
    keys: u64,
    /// The old bucket count.
    #[pyo3(get)]
    from_buckets: u32,
    /// The new bucket count.
    #[pyo3(get)]
    to_buckets: u32,
}

/// The most buckets `per_destination` gives densely: 2^24 counts are
/// 128 MiB. A dense array of 10^9 counts would take 8 GB, and numpy's lazily
/// zeroed pages do not save it: transparent huge pages make each count
/// written cost 2 MiB.
const DENSE_DESTINATIONS: u32 = 1 << 24;

#[pymethods]
impl Plan {
    /// The number of moving keys per new bucket (int64, `to_buckets`
    /// long), for up to 2^24 buckets; beyond, `destination_counts` gives
    /// them sparsely and this raises ValueError saying so.
    #[getter]
    fn per_destination<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.to_buckets > DENSE_DESTINATIONS {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "per_destination would hold {} counts ({} bytes): use destination_counts, the \
                 (buckets, counts) of the destinations that receive keys",
                self.to_buckets,
                u64::from(self.to_buckets) * 8
            )));
        }
        let dense = py.import(intern!(py, "numpy"))?.call_method1(
            intern!(py, "zeros"),
            (self.to_buckets as usize, intern!(py, "int64")),
        )?;
        dense.set_item(
            self.destination_buckets.bind(py),
            self.destination_counts.bind(py),
        )?;
        Ok(dense)
    }

    /// `(buckets, counts)`: the destinations that receive keys, increasing
    /// (int32), and how many each receives (int64); sparse, so bounded by
    /// the moves whatever `to_buckets`.
    #[getter]
    fn destination_counts(&self, py: Python<'_>) -> (Py<PyAny>, Py<PyAny>) {
        (
            self.destination_buckets.clone_ref(py),
            self.destination_counts.clone_ref(py),
        )
    }

    /// `from_` under its old name, kept for compatibility: the same array.
    #[getter]
    fn sources(&self, py: Python<'_>) -> Py<PyAny> {
        self.from.clone_ref(py)
    }

    /// `to` under its old name, kept for compatibility: the same array.
    #[getter]
    fn destinations(&self, py: Python<'_>) -> Py<PyAny> {
        self.to.clone_ref(py)
    }

    fn __len__(&self) -> usize {
        self.moved as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "Plan(keys={}, from_buckets={}, to_buckets={}, moved={})",
            self.keys, self.from_buckets, self.to_buckets, self.moved
        )
    }
}

/// Which keys move from `from_buckets` to `to_buckets`, and where.
#[pyfunction]
#[pyo3(signature = (keys, from_buckets, to_buckets, *, threads=None))]
pub fn plan<'py>(
    keys: &Bound<'py, PyAny>,
    from_buckets: &Bound<'py, PyAny>,
    to_buckets: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Plan> {
    let py = keys.py();
    let from_count = args::buckets(from_buckets, "from_buckets")?;
    let to_count = args::buckets(to_buckets, "to_buckets")?;
    let resize = Resize::new(from_count, to_count).map_err(args::value_error)?;
    let threads = args::threads(threads)?;
    let keys = Keys::extract(keys)?;
    let runs = keys.runs();
    let total = keys.len() as u64;
    let (positions, from, to, counts) = py.detach(|| {
        let mut first = 0u64;
        let mut plans: Vec<MovePlan> = runs
            .iter()
            .map(|run| {
                let mut plan = spare_plan();
                resize.plan_parallel(run, first, &mut plan, threads);
                first += run.len() as u64;
                plan
            })
            .collect();
        if plans.len() == 1 {
            // One run (numpy, one Arrow array): the plan's own buffers.
            let plan = Arc::new(Recycled(plans.pop().unwrap_or_default()));
            let counts = plan.0.per_destination().clone();
            return (
                Whole(plan.clone()),
                Whole(plan.clone()),
                Whole(plan),
                counts,
            );
        }
        // Several runs (chunked Arrow): joined, once.
        let mut counts = DestinationCounts::new(resize);
        let (mut positions, mut from, mut to) = (Vec::new(), Vec::new(), Vec::new());
        for plan in &plans {
            positions.extend_from_slice(plan.positions());
            from.extend_from_slice(plan.from());
            to.extend_from_slice(plan.to());
            counts.merge(plan.per_destination());
        }
        plans.into_iter().for_each(give_back);
        (Joined(positions), Joined(from), Joined(to), counts)
    });
    let (buckets, moves): (Vec<i32>, Vec<i64>) = counts
        .iter()
        .map(|(bucket, n)| (bucket as i32, n as i64))
        .unzip();
    let moved = counts.total();
    Ok(Plan {
        positions: positions.array(py, MovePlan::positions, "u8")?,
        from: from.array(py, MovePlan::from, "i4")?,
        to: to.array(py, MovePlan::to, "i4")?,
        destination_buckets: column::from_vec(py, buckets, "i4")?.unbind(),
        destination_counts: column::from_vec(py, moves, "i8")?.unbind(),
        moved,
        keys: total,
        from_buckets: from_count.get(),
        to_buckets: to_count.get(),
    })
}

/// One column of a plan: inside the library's plan, or joined from several.
enum Part<T> {
    Whole(Arc<Recycled>),
    Joined(Vec<T>),
}
use Part::{Joined, Whole};

impl<T: Copy + Send + Sync + 'static> Part<T> {
    fn array(self, py: Python<'_>, get: fn(&MovePlan) -> &[T], code: &str) -> PyResult<Py<PyAny>> {
        let array = match self {
            Whole(plan) => column::array(py, plan.clone(), get(&plan.0), code)?,
            Joined(v) => column::from_vec(py, v, code)?,
        };
        Ok(array.unbind())
    }
}

/// A plan whose numpy columns are its own buffers; when the last of them
/// dies, the buffers become the spare for the next call.
struct Recycled(MovePlan);

impl Drop for Recycled {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.0));
    }
}

/// The buffers of one plan whose arrays are gone. Memory a new plan writes
/// for the first time costs a page fault per 4 KiB: measured, 670 faults
/// (0.8 ms, an eighth of the call) for each plan of 10^6 keys, where a
/// Rust loop reusing its `MovePlan` pays none. A spare's pages are mapped
/// already.
static SPARE: Mutex<Option<MovePlan>> = Mutex::new(None);

/// Plans with more moves than this are freed, not kept: the spare should
/// not hold on to much memory the caller has let go of.
const SPARE_MAX_MOVES: usize = 1 << 22;

/// The spare plan, or a new one.
fn spare_plan() -> MovePlan {
    SPARE
        .lock()
        .ok()
        .and_then(|mut spare| spare.take())
        .unwrap_or_default()
}

/// Keeps `plan` as the spare, unless there is one or it is too large.
fn give_back(plan: MovePlan) {
    if plan.len() <= SPARE_MAX_MOVES {
        if let Ok(mut spare) = SPARE.lock() {
            spare.get_or_insert(plan);
        }
    }
}
