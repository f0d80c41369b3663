//! 64-bit keys out of any 1-D sequence: numpy arrays and buffers, Arrow
//! arrays and chunked arrays, pandas and polars Series. Read in place when
//! the layout allows (C-contiguous, aligned, native `uint64`/`int64`),
//! copied only when it does not (a strided or misaligned array, a list).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyModule, PyTuple};
use pyo3::{intern, PyTypeInfo};

use crate::arrow::{self, Layout};

/// Keys as one or more runs of `u64`, with whatever keeps them alive.
pub struct Keys<'py> {
    runs: Vec<Run>,
    _owners: Vec<Bound<'py, PyAny>>,
    _chunks: Vec<arrow::Chunk<'py>>,
    len: usize,
}

/// A run of keys: borrowed from an owner of [`Keys`], or copied.
enum Run {
    Borrowed { address: usize, len: usize },
    Copied(Vec<u64>),
}

impl<'py> Keys<'py> {
    /// Every run, in order.
    pub fn runs(&self) -> Vec<&[u64]> {
        self.runs
            .iter()
            .map(|run| match run {
                // SAFETY: the address and length were read from a live,
                // aligned buffer of `len` u64 owned by `_owners` or
                // `_chunks`, which outlive `self`'s borrow.
                Run::Borrowed { address, len } => unsafe {
                    std::slice::from_raw_parts(*address as *const u64, *len)
                },
                Run::Copied(v) => v.as_slice(),
            })
            .collect()
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether `[address, address + bytes)` overlaps any key.
    pub fn overlaps(&self, address: usize, bytes: usize) -> bool {
        self.runs().iter().any(|run| {
            let start = run.as_ptr() as usize;
            let end = start + std::mem::size_of_val(*run);
            address < end && start < address + bytes && bytes > 0 && start < end
        })
    }

    /// The keys of `obj`.
    pub fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Keys<'py>> {
        let mut keys = Keys {
            runs: Vec::new(),
            _owners: Vec::new(),
            _chunks: Vec::new(),
            len: 0,
        };
        let py = obj.py();
        // pandas: a numpy-backed Series is read as numpy (no conversion); one
        // backed by Arrow or by a masked array goes through Arrow, where nulls
        // show.
        let is_pandas = obj
            .get_type()
            .module()
            .is_ok_and(|m| m.to_string_lossy().starts_with("pandas"));
        let numpy_backed = is_pandas
            && obj
                .getattr(intern!(py, "array"))
                .is_ok_and(|a| !a.hasattr(intern!(py, "__arrow_array__")).unwrap_or(false));
        if !obj.hasattr(intern!(py, "__array_interface__"))? && !numpy_backed {
            let mut imported = arrow::import(obj, "keys")?;
            if imported.is_none() && is_pandas {
                // pandas before 2.2 has no `__arrow_c_stream__` on Series:
                // its Arrow or masked array converts itself.
                let array = obj.getattr(intern!(py, "array"))?;
                let arrow = array.call_method0(intern!(py, "__arrow_array__"))?;
                keys._owners.push(arrow.clone());
                imported = arrow::import(&arrow, "keys")?;
            }
            if let Some((layout, chunks)) = imported {
                if layout != Layout::Int64 {
                    return Err(PyTypeError::new_err(
                        "keys must be 64-bit integers (uint64 or int64), got Arrow byte strings: \
                         use prehash() or bucket_bytes() for those",
                    ));
                }
                for chunk in &chunks {
                    let run = match chunk.words()? {
                        Ok(words) => Run::Borrowed {
                            address: words.as_ptr() as usize,
                            len: words.len(),
                        },
                        Err(copy) => Run::Copied(copy),
                    };
                    keys.push(run);
                }
                keys._chunks = chunks;
                return Ok(keys);
            }
        }
        if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
            keys.push(Run::Copied(list(obj)?));
        } else {
            keys.numpy(obj)?;
        }
        Ok(keys)
    }

    fn push(&mut self, run: Run) {
        self.len += match &run {
            Run::Borrowed { len, .. } => *len,
            Run::Copied(v) => v.len(),
        };
        self.runs.push(run);
    }

    /// Keys through numpy: `numpy.asarray` views buffers and Series
    /// without copying; lists become new arrays.
    fn numpy(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        let py = obj.py();
        let numpy = py.import(intern!(py, "numpy"))?;
        masked(&numpy, obj)?;
        let array = numpy.call_method1(intern!(py, "asarray"), (obj,))?;
        let view = ArrayView::of(&array, "keys")?;
        let dtype = array.getattr(intern!(py, "dtype"))?;
        if let Some(code) = ["u8", "i8"]
            .into_iter()
            .find(|&c| view.typestr == swapped(c))
        {
            // The other byte order (`>u8` here): one converting copy.
            let copy =
                numpy.call_method1(intern!(py, "ascontiguousarray"), (&array, native(code)))?;
            return self.numpy(&copy);
        }
        if !matches!(view.typestr.as_str(), s if s == native("u8") || s == native("i8")) {
            return Err(PyTypeError::new_err(format!(
                "keys must be 64-bit integers (uint64 or int64), got dtype {dtype}"
            )));
        }
        view.one_d("keys")?;
        if !view.contiguous(8) {
            // A strided view: one copy, made by numpy.
            let copy = numpy.call_method1(intern!(py, "ascontiguousarray"), (&array,))?;
            return self.numpy(&copy);
        }
        if view.address % std::mem::align_of::<u64>() != 0 {
            let bytes = view.address as *const u64;
            // SAFETY: numpy says `len` contiguous 8-byte values live there;
            // unaligned reads need no alignment.
            let copy = (0..view.len).map(|i| unsafe { bytes.add(i).read_unaligned() });
            self.push(Run::Copied(copy.collect()));
        } else {
            self.push(Run::Borrowed {
                address: view.address,
                len: view.len,
            });
        }
        self._owners.push(array);
        Ok(())
    }
}

/// The keys of a list or tuple of ints, each between 0 and 2**64-1: a
/// Python int is a key's value, as `bucket` reads it, so -1 is refused here
/// too (an int64 array, whose dtype declares 64 bits, is read bit for bit).
fn list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    let mut keys = Vec::with_capacity(obj.len()?);
    for (i, item) in obj.try_iter()?.enumerate() {
        let item = item?;
        let what = format!("keys[{i}]");
        not_bool(&item, &what)?;
        let key = match item.extract::<u64>() {
            Ok(key) => key,
            Err(_) => {
                let name = item.get_type().name()?;
                // An int, or an integer of another type (`numpy.int64`):
                // its value is out of range, not its type wrong.
                let integer = item.is_instance_of::<pyo3::types::PyInt>()
                    || item.hasattr("__index__").unwrap_or(false);
                return Err(if integer {
                    // The hint is for negative values, which an int64
                    // array would take.
                    let hint = match item.lt(0).unwrap_or(false) {
                        true => " (an int64 array reads negative values as their 64 bits)",
                        false => "",
                    };
                    PyValueError::new_err(format!(
                        "{what} must be between 0 and 2**64-1, got {item}{hint}"
                    ))
                } else {
                    PyTypeError::new_err(format!("{what} must be an int, not {name}"))
                });
            }
        };
        keys.push(key);
    }
    Ok(keys)
}

/// The typestr of a native-endian numpy type (`u8` -> `<u8` here).
pub fn native(code: &str) -> String {
    typestr(code, cfg!(target_endian = "little"))
}

/// The typestr of a numpy type in the other byte order (`u8` -> `>u8` here).
fn swapped(code: &str) -> String {
    typestr(code, cfg!(target_endian = "big"))
}

/// The typestr of `code` in little-endian order, or big-endian.
fn typestr(code: &str, little: bool) -> String {
    format!("{}{code}", if little { '<' } else { '>' })
}

/// Refuses a numpy masked array with a masked key: `numpy.asarray` would
/// hand over whatever its data holds there, and the key has no value.
fn masked(numpy: &Bound<'_, PyModule>, obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = obj.py();
    let ma = numpy.getattr(intern!(py, "ma"))?;
    if !obj.is_instance(&ma.getattr(intern!(py, "MaskedArray"))?)? {
        return Ok(());
    }
    let mask = ma.call_method1(intern!(py, "getmaskarray"), (obj,))?;
    if !mask.call_method0(intern!(py, "any"))?.is_truthy()? {
        return Ok(());
    }
    let row: usize = mask.call_method0(intern!(py, "argmax"))?.extract()?;
    Err(PyValueError::new_err(format!(
        "keys[{row}] is masked: a masked key has no value to place; fill or compress the \
         masked array first"
    )))
}

/// What numpy's `__array_interface__` says about a 1-D array.
pub struct ArrayView {
    pub address: usize,
    pub len: usize,
    pub typestr: String,
    pub readonly: bool,
    shape: Vec<usize>,
    strides: Option<isize>,
}

impl ArrayView {
    /// The view of `array`.
    pub fn of(array: &Bound<'_, PyAny>, what: &str) -> PyResult<ArrayView> {
        let py = array.py();
        let interface = array.getattr(intern!(py, "__array_interface__"))?;
        let interface = interface.cast::<PyDict>()?;
        let item = |key: &str| {
            interface.get_item(key)?.ok_or_else(|| {
                PyTypeError::new_err(format!("{what} has no {key} in its __array_interface__"))
            })
        };
        let shape: Vec<usize> = item("shape")?.extract()?;
        let (address, readonly): (usize, bool) = item("data")?.extract()?;
        let typestr: String = item("typestr")?.extract()?;
        let strides = match interface.get_item(intern!(py, "strides"))? {
            Some(s) if !s.is_none() => match s.cast::<PyTuple>()?.get_item(0) {
                Ok(first) => Some(first.extract()?),
                Err(_) => None, // 0-d
            },
            _ => None,
        };
        Ok(ArrayView {
            address,
            len: shape.iter().product(),
            shape,
            typestr,
            readonly,
            strides,
        })
    }

    /// Refuses any shape but 1-D (checked after the dtype, which says
    /// more about a wrong input).
    pub fn one_d(&self, what: &str) -> PyResult<()> {
        if self.shape.len() != 1 {
            return Err(PyValueError::new_err(format!(
                "{what} must be 1-D, got {} dimension(s) (shape {:?})",
                self.shape.len(),
                self.shape
            )));
        }
        Ok(())
    }

    /// Whether its items lie back to back, `size` bytes each.
    pub fn contiguous(&self, size: isize) -> bool {
        self.len <= 1 || self.strides.is_none_or(|s| s == size)
    }
}

/// Refuses `bool` where an int is meant: Python's `True` is an `int` equal
/// to 1, which is never what a caller passing it means.
pub fn not_bool(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    if pyo3::types::PyBool::is_exact_type_of(obj) {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not bool"
        )));
    }
    Ok(())
}
