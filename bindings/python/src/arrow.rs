//! Arrays read through the Arrow C data interface and its PyCapsule
//! protocol (`__arrow_c_array__`, `__arrow_c_stream__`), without copying.
//!
//! Only the few fields the keys need are read: the format string, the
//! length, offset and null count, and the buffers. The structs are the
//! interface's, which is a stable ABI (arrow.apache.org/docs/format/
//! CDataInterface.html); a crate for five `repr(C)` structs would cost more
//! build time than it saves.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::NonNull;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

impl ArrowSchema {
    const EMPTY: ArrowSchema = ArrowSchema {
        format: std::ptr::null(),
        name: std::ptr::null(),
        metadata: std::ptr::null(),
        flags: 0,
        n_children: 0,
        children: std::ptr::null_mut(),
        dictionary: std::ptr::null_mut(),
        release: None,
        private_data: std::ptr::null_mut(),
    };
}

impl ArrowArray {
    const EMPTY: ArrowArray = ArrowArray {
        length: 0,
        null_count: 0,
        offset: 0,
        n_buffers: 0,
        n_children: 0,
        buffers: std::ptr::null_mut(),
        children: std::ptr::null_mut(),
        dictionary: std::ptr::null_mut(),
        release: None,
        private_data: std::ptr::null_mut(),
    };
}

/// The physical layouts keys come in, by their format string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `L` (uint64) or `l` (int64): one buffer of 8-byte values.
    Int64,
    /// `z`/`u` (binary/utf8): i32 offsets and data.
    Binary32,
    /// `Z`/`U` (large_binary/large_utf8): i64 offsets and data.
    Binary64,
    /// `vz`/`vu` (binary_view/utf8_view, polars' strings): 16-byte views,
    /// short strings inline, longer ones in variadic data buffers.
    BinaryView,
}

impl Layout {
    fn of(format: &str) -> Option<Layout> {
        match format {
            "L" | "l" => Some(Layout::Int64),
            "z" | "u" => Some(Layout::Binary32),
            "Z" | "U" => Some(Layout::Binary64),
            "vz" | "vu" => Some(Layout::BinaryView),
            _ => None,
        }
    }
}

/// Owns what it points to: an array released when dropped, whether it came
/// in a capsule (which then keeps ownership) or out of a stream.
enum Owner<'py> {
    Capsule { _capsule: Bound<'py, PyAny> },
    Stream(Box<ArrowArray>),
}

impl Drop for Owner<'_> {
    fn drop(&mut self) {
        if let Owner::Stream(array) = self {
            if let Some(release) = array.release {
                // SAFETY: the stream's producer handed this array to us
                // (get_next) and it is released once, here.
                unsafe { release(&mut **array) };
            }
        }
    }
}

/// One imported array, valid while it lives.
pub struct Chunk<'py> {
    array: NonNull<ArrowArray>,
    _owner: Owner<'py>,
    _schema: Option<Bound<'py, PyAny>>,
}

impl Chunk<'_> {
    fn array(&self) -> &ArrowArray {
        // SAFETY: `array` points into `_owner` (a capsule's struct or our
        // box), alive and unreleased as long as `self`.
        unsafe { self.array.as_ref() }
    }

    /// Refuses an array whose header cannot describe `layout`'s buffers
    /// (a broken producer), before any buffer is read.
    fn check(&self, layout: Layout) -> PyResult<()> {
        let a = self.array();
        let buffers = match layout {
            Layout::Int64 => 2,
            Layout::Binary32 | Layout::Binary64 | Layout::BinaryView => 3,
        };
        if a.length < 0 || a.offset < 0 || a.n_buffers < buffers || a.buffers.is_null() {
            return Err(PyValueError::new_err(format!(
                "an Arrow array has an invalid header (length {}, offset {}, {} buffers)",
                a.length, a.offset, a.n_buffers
            )));
        }
        Ok(())
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.array().length as usize
    }

    fn buffer(&self, i: usize) -> *const c_void {
        let a = self.array();
        if (i as i64) >= a.n_buffers || a.buffers.is_null() {
            return std::ptr::null();
        }
        // SAFETY: `buffers` holds `n_buffers` pointers, `i` is below that.
        unsafe { *a.buffers.add(i) }
    }

    /// The number of null values, counting the validity bitmap when the
    /// producer did not.
    fn null_count(&self) -> usize {
        let a = self.array();
        if a.null_count >= 0 {
            return a.null_count as usize;
        }
        let bits = self.buffer(0).cast::<u8>();
        if bits.is_null() {
            return 0;
        }
        let (start, len) = (a.offset as usize, a.length as usize);
        (start..start + len)
            // SAFETY: the bitmap holds at least offset + length bits.
            .filter(|&i| unsafe { *bits.add(i / 8) } & (1 << (i % 8)) == 0)
            .count()
    }

    fn check_nulls(&self) -> PyResult<()> {
        match self.null_count() {
            0 => Ok(()),
            n => Err(PyValueError::new_err(format!(
                "keys contain {n} null(s): drop or fill them first"
            ))),
        }
    }

    /// The 8-byte values of an `Int64` chunk, as u64 bits, or `None` when
    /// the buffer is not 8-byte aligned (it then needs a copy).
    pub fn words(&self) -> PyResult<Result<&[u64], Vec<u64>>> {
        self.check_nulls()?;
        let a = self.array();
        let len = a.length as usize;
        if len == 0 {
            return Ok(Ok(&[]));
        }
        let base = self.buffer(1).cast::<u64>();
        if base.is_null() {
            return Err(PyValueError::new_err(
                "an Arrow key array has no data buffer",
            ));
        }
        // SAFETY: the data buffer holds offset + length values of 8 bytes.
        let start = unsafe { base.add(a.offset as usize) };
        if start.align_offset(std::mem::align_of::<u64>()) != 0 {
            // SAFETY: as above; unaligned reads need no alignment.
            let copy = (0..len).map(|i| unsafe { start.add(i).read_unaligned() });
            return Ok(Err(copy.collect()));
        }
        // SAFETY: aligned, `len` values, alive and unchanged while `self`
        // lives (Arrow arrays are immutable).
        Ok(Ok(unsafe { std::slice::from_raw_parts(start, len) }))
    }

    /// The offsets (`len + 1`, from the array's offset) and the data of a
    /// binary chunk whose offsets are of type `O`.
    pub fn binary<O: Copy + TryInto<usize>>(&self) -> PyResult<(&[u8], &[O])> {
        self.check_nulls()?;
        let a = self.array();
        let len = a.length as usize;
        let offsets = self.buffer(1).cast::<O>();
        if offsets.is_null() {
            // A producer may leave the buffers of an empty array null.
            return Ok((&[], &[]));
        }
        if offsets.align_offset(std::mem::align_of::<O>()) != 0 {
            return Err(PyValueError::new_err(
                "an Arrow array's offsets are not aligned",
            ));
        }
        // SAFETY: the offsets buffer holds offset + length + 1 offsets, and
        // Arrow buffers are aligned to their type.
        let offsets =
            unsafe { std::slice::from_raw_parts(offsets.add(a.offset as usize), len + 1) };
        let end = offsets[len].try_into().unwrap_or(0);
        let data = self.buffer(2).cast::<u8>();
        if data.is_null() || end == 0 {
            return Ok((&[], offsets));
        }
        // SAFETY: the data buffer holds at least the last offset's bytes.
        Ok((unsafe { std::slice::from_raw_parts(data, end) }, offsets))
    }
}

impl Chunk<'_> {
    /// The pre-hash of every string of a `BinaryView` chunk, into `out`
    /// (as long as the chunk).
    pub fn prehash_views(&self, out: &mut [u64]) -> PyResult<()> {
        self.each_view(|i, bytes| out[i] = jumpshard::bytes::prehash(bytes))
    }

    /// Every string of a `BinaryView` chunk, with its index, to `each`.
    pub fn each_view(&self, mut each: impl FnMut(usize, &[u8])) -> PyResult<()> {
        self.check_nulls()?;
        let a = self.array();
        let views = self.buffer(1).cast::<[u8; 16]>();
        if views.is_null() || a.length == 0 {
            return Ok(());
        }
        // Buffers: validity, views, the variadic data buffers, then their
        // sizes (int64), which bound every long string's bytes.
        let data_buffers = (a.n_buffers - 3).max(0) as usize;
        let sizes = self.buffer(2 + data_buffers).cast::<i64>();
        for i in 0..a.length as usize {
            // SAFETY: the views buffer holds offset + length views.
            let view = unsafe { &*views.add(a.offset as usize + i) };
            let word = |at: usize| {
                i32::from_le_bytes([view[at], view[at + 1], view[at + 2], view[at + 3]])
            };
            let len = word(0).max(0) as usize;
            let bytes: &[u8] = if len <= 12 {
                &view[4..4 + len]
            } else {
                let (buffer, start) = (word(8), word(12));
                if buffer < 0 || buffer as usize >= data_buffers || start < 0 || sizes.is_null() {
                    return Err(PyValueError::new_err(
                        "an Arrow string view points outside its buffers",
                    ));
                }
                // SAFETY: `sizes` holds one size per variadic buffer.
                let size = unsafe { *sizes.add(buffer as usize) };
                if start as i64 + len as i64 > size {
                    return Err(PyValueError::new_err(
                        "an Arrow string view points outside its buffers",
                    ));
                }
                let data = self.buffer(2 + buffer as usize).cast::<u8>();
                // SAFETY: the view lies within that buffer (checked above).
                unsafe { std::slice::from_raw_parts(data.add(start as usize), len) }
            };
            each(i, bytes);
        }
        Ok(())
    }
}

/// The format of a schema, checked against the layouts keys may have.
fn layout(schema: &ArrowSchema, what: &str) -> PyResult<Layout> {
    if schema.format.is_null() {
        return Err(PyValueError::new_err("an Arrow schema has no format"));
    }
    // SAFETY: a released-or-not schema's format is a NUL-terminated string.
    let format = unsafe { CStr::from_ptr(schema.format) }.to_string_lossy();
    // A dictionary-encoded array's format is its indices': with 64-bit
    // indices it would pass for keys, and the indices be hashed.
    if !schema.dictionary.is_null() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a plain Arrow array, got a dictionary-encoded one (its {format:?} \
             values are indices into the dictionary): decode it first, with \
             .dictionary_decode() or pyarrow.compute.cast to the dictionary's type"
        )));
    }
    Layout::of(&format).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what} must be an Arrow array of {}, got Arrow format {format:?}",
            match what {
                "keys" => "uint64 or int64",
                _ => "binary, string, large_binary, large_string, binary_view or string_view",
            }
        ))
    })
}

/// The arrays of an object speaking the Arrow PyCapsule protocol, with
/// their layout, or `None` when it speaks neither method.
pub fn import<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Option<(Layout, Vec<Chunk<'py>>)>> {
    let py = obj.py();
    if let Ok(method) = obj.getattr(pyo3::intern!(py, "__arrow_c_array__")) {
        let pair = method.call0()?;
        let pair = pair.cast::<PyTuple>()?;
        let schema = pair.get_item(0)?;
        let array = pair.get_item(1)?;
        let schema_ptr = schema
            .cast::<PyCapsule>()?
            .pointer_checked(Some(c"arrow_schema"))?
            .cast::<ArrowSchema>();
        // SAFETY: the capsule holds a live ArrowSchema (its name says so).
        let layout = layout(unsafe { schema_ptr.as_ref() }, what)?;
        let array_ptr = array
            .cast::<PyCapsule>()?
            .pointer_checked(Some(c"arrow_array"))?
            .cast::<ArrowArray>();
        let chunk = Chunk {
            array: array_ptr,
            _owner: Owner::Capsule { _capsule: array },
            _schema: Some(schema),
        };
        chunk.check(layout)?;
        return Ok(Some((layout, vec![chunk])));
    }
    let Ok(method) = obj.getattr(pyo3::intern!(py, "__arrow_c_stream__")) else {
        return Ok(None);
    };
    let capsule = method.call0()?;
    let stream = capsule
        .cast::<PyCapsule>()?
        .pointer_checked(Some(c"arrow_array_stream"))?
        .cast::<ArrowArrayStream>()
        .as_ptr();
    let fail = |what: &str| {
        // SAFETY: `stream` is live; get_last_error returns null or a string
        // valid until the next call on the stream.
        let message = unsafe {
            match (*stream).get_last_error.map(|f| f(stream)) {
                Some(p) if !p.is_null() => CStr::from_ptr(p).to_string_lossy().into_owned(),
                _ => "no message".to_owned(),
            }
        };
        PyValueError::new_err(format!(
            "reading an Arrow stream ({what}) failed: {message}"
        ))
    };
    let mut schema = ArrowSchema::EMPTY;
    // SAFETY: the capsule holds a live stream, which writes a schema that we
    // own and release below.
    let status =
        unsafe { ((*stream).get_schema.ok_or_else(|| fail("schema"))?)(stream, &mut schema) };
    if status != 0 {
        return Err(fail("schema"));
    }
    let checked = layout(&schema, what);
    if let Some(release) = schema.release {
        // SAFETY: we own `schema` and release it once.
        unsafe { release(&mut schema) };
    }
    let layout = checked?;
    let mut chunks = Vec::new();
    loop {
        let mut array = Box::new(ArrowArray::EMPTY);
        // SAFETY: as above; the array written is ours, released by `Owner`.
        let status =
            unsafe { ((*stream).get_next.ok_or_else(|| fail("array"))?)(stream, &mut *array) };
        if status != 0 {
            return Err(fail("array"));
        }
        if array.release.is_none() {
            break; // the end of the stream
        }
        let chunk = Chunk {
            array: NonNull::from(&mut *array),
            _owner: Owner::Stream(array),
            _schema: None,
        };
        chunk.check(layout)?;
        chunks.push(chunk);
    }
    drop(capsule);
    Ok(Some((layout, chunks)))
}
