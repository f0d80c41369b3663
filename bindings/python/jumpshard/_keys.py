"""Arrow key columns as 64-bit keys: the reading rules of
``jumpshard.arrow``'s documentation (``key_type``, ``nulls``) and the
errors that name a bad key's column, place and row.

A leaf of ``jumpshard.arrow``, which re-exports ``keys``, ``KEY_TYPES`` and
``NULLS``; it imports no other module of the package but the extension.
"""

from __future__ import annotations

import sys
from typing import Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import jumpshard

#: How a key column is read (see ``jumpshard.arrow``'s documentation).
KEY_TYPES = ("auto", "uint64", "int64", "bytes")
#: What a null key does: raise, or travel through with null buckets.
NULLS = ("error", "keep")

_MAX = 2**64 - 1


def _choice(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def _count(name: str, value: object, low: int = 1, high: int = 2**31 - 1) -> int:
    """``value`` checked as an int count from ``low`` to ``high`` (a batch
    size, say) before an engine is handed it: a ``TypeError`` or
    ``ValueError`` naming it and its limits."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")
    return int(value)


def _place(where: str, row: Optional[int] = None) -> str:
    """`, in file F, row R`: where a bad key is, as much as is known."""
    text = f", {where}" if where else ""
    return text if row is None else f"{text}, row {row}"


#: What a key column may be, as the errors name it (what ``jumpshard.batch``
#: takes, and Arrow's own).
ACCEPTED = (
    "a pyarrow Array or ChunkedArray, a 1-D numpy array, a pandas or polars Series, "
    "anything with an Arrow C interface, or a list of ints"
)


def _as_arrow(array: object) -> Union[pa.Array, pa.ChunkedArray]:
    """A key column given as anything ``jumpshard.batch`` takes, as Arrow:
    numpy arrays and Series in place when their layout allows; a list of
    ints as ``uint64`` (a Python int is a key's value, as ``batch`` reads it)."""
    if isinstance(array, (pa.Array, pa.ChunkedArray)):
        return array
    if isinstance(array, (list, tuple)):
        return _ints(array, nulls=False)
    if isinstance(array, np.ndarray):
        if array.ndim != 1:
            raise ValueError(
                f"keys must be 1-D, got {array.ndim} dimension(s) (shape {array.shape})"
            )
        return _numpy(array)
    pandas = type(array).__module__.startswith("pandas")
    if pandas and isinstance(getattr(array, "dtype", None), np.dtype):
        # numpy-backed: its numpy array, as numpy arrays are read.
        return _numpy(array.to_numpy())
    try:
        if hasattr(array, "__arrow_c_stream__"):
            return pa.chunked_array(array)
        if hasattr(array, "__arrow_c_array__") or pandas:
            return pa.array(array)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        # A type Arrow does not know (Polars' Int128, say).
        raise TypeError(
            f"keys: Arrow cannot read this {type(array).__name__} ({error}); cast it to an "
            "unsigned or signed 64-bit integer, a decimal or a string type first"
        ) from None
    raise TypeError(f"keys must be {ACCEPTED}, not {type(array).__name__}")


def _ints(values: Sequence[object], nulls: bool) -> pa.Array:
    """Python ints as ``uint64``: each a key's value, from 0 to 2**64-1 (a
    negative int is refused, not read as 64 bits), with ``None`` a null
    where ``nulls`` allows it."""
    for i, value in enumerate(values):
        if value is None and nulls:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"keys[{i}] must be an int, not {type(value).__name__}")
        if not 0 <= value <= _MAX:
            raise ValueError(f"keys[{i}] is {value}: integer keys must be from 0 to 2**64-1")
    return pa.array(values, pa.uint64())


def _numpy(array: np.ndarray) -> pa.Array:
    """A 1-D numpy array as Arrow: in place when Arrow can view it."""
    if array.dtype == object:
        # Python objects: ints are keys' values, as in a list (a negative
        # int or one past 2**64-1 is refused, not read as 64 bits), None a
        # null (and pandas' NaN); strings and bytes stay what Arrow makes of
        # them.
        values = [None if isinstance(v, float) and v != v else v for v in array.tolist()]
        if any(isinstance(v, (int, np.integer)) for v in values):
            return _ints(values, nulls=True)
        return pa.array(array, from_pandas=True)
    if not array.dtype.isnative:
        # Arrow reads only native byte order: one converting copy.
        array = array.astype(array.dtype.newbyteorder("="))
    return pa.array(array)


def _combined(array: Union[pa.Array, pa.ChunkedArray]) -> pa.Array:
    if isinstance(array, pa.ChunkedArray):
        return array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    return array


def _first(mask: pa.Array) -> int:
    """The index of the first true value of a boolean array that has one."""
    return int(pc.index(mask, True).as_py())


def _row(offset: int, rows: Optional[np.ndarray], i: int) -> int:
    """The row in the caller's data of value ``i`` of the keys read:
    ``rows`` maps the keys of a column whose nulls were set aside back to
    their rows, so that a row number counts the nulls before it."""
    return offset + (int(rows[i]) if rows is not None else i)


def _decimal_bits(
    array: pa.Array, column: str, where: str, offset: int, rows: Optional[np.ndarray]
) -> np.ndarray:
    if array.type.bit_width < 128:
        # decimal32 and decimal64 (pyarrow 18 on; how pyarrow 26 reads small
        # Parquet decimals): every value fits a decimal128 of the same scale,
        # whose checks and casts below Arrow has.
        array = array.cast(pa.decimal128(38, array.type.scale))
    if pa.types.is_decimal128(array.type) and array.type.scale == 0 and sys.byteorder == "little":
        # A decimal128 is a 128-bit two's complement integer; a whole number
        # from 0 to 2**64-1 is one whose high 64 bits are zero, and its low
        # 64 bits are the key. Four times faster than Arrow's checked cast,
        # which Spark's decimal(20,0) keys would otherwise all go through.
        words = np.frombuffer(
            array.buffers()[1], dtype=np.uint64, count=2 * (array.offset + len(array))
        )
        words = words[2 * array.offset :]
        if not words[1::2].any():
            return np.ascontiguousarray(words[0::2])
    try:
        return array.cast(pa.uint64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    # Only on the error path: find the first bad value and say what is wrong.
    for row, value in enumerate(array.to_pylist()):
        if value < 0:
            problem = "is negative"
        elif value != value.to_integral_value():
            problem = "has a fraction"
        elif value > _MAX:
            problem = "is over 2**64-1"
        else:
            continue
        raise ValueError(
            f"column {column!r}{_place(where, _row(offset, rows, row))}: {value} {problem}; decimal keys must be "
            "whole numbers from 0 to 2**64-1"
        )
    raise ValueError(f"column {column!r}{_place(where)}: {array.type} values do not fit 64 bits")


def _integer_bits(
    array: pa.Array, column: str, where: str, offset: int, rows: Optional[np.ndarray], key_type: str
) -> np.ndarray:
    t = array.type
    if key_type == "int64" and not pa.types.is_int64(t):
        raise TypeError(f"column {column!r}{_place(where)}: {t} is not int64 (key_type='int64')")
    if pa.types.is_uint64(t):
        return array.to_numpy(zero_copy_only=False)
    if pa.types.is_int64(t) and key_type != "uint64":
        return array.to_numpy(zero_copy_only=False).view(np.uint64)
    negative = pc.less(array, 0)
    if pc.any(negative).as_py():
        row = _first(negative)
        hint = (
            ", and the keys were declared unsigned (key_type='uint64'); use key_type='int64' to read the bits"
            if pa.types.is_int64(t)
            else f"; keys are unsigned and {t} cannot hold their bits"
        )
        place = _place(where, _row(offset, rows, row))
        raise ValueError(f"column {column!r}{place}: {array[row].as_py()} is negative{hint}")
    return array.cast(pa.uint64()).to_numpy(zero_copy_only=False)


def _bits(
    array: pa.Array, column: str, where: str, offset: int, rows: Optional[np.ndarray], key_type: str
) -> np.ndarray:
    """The 64-bit keys of a null-free array (``rows``: the rows of its values
    in the caller's data, when nulls were set aside)."""
    t = array.type
    if pa.types.is_dictionary(t):
        values = array.dictionary
        # Arrow has no `take` of view types (Polars' categoricals): their
        # large kin decode, and hash the same bytes.
        if pa.types.is_string_view(values.type):
            values = values.cast(pa.large_string())
        elif pa.types.is_binary_view(values.type):
            values = values.cast(pa.large_binary())
        array = pa.DictionaryArray.from_arrays(array.indices, values).dictionary_decode()
        t = array.type
    is_bytes = any(
        check(t)
        for check in (
            pa.types.is_binary,
            pa.types.is_large_binary,
            pa.types.is_binary_view,
            pa.types.is_string,
            pa.types.is_large_string,
            pa.types.is_string_view,
        )
    )
    if key_type == "bytes" or is_bytes:
        if not is_bytes:
            raise TypeError(
                f"column {column!r}{_place(where)}: {t} is not binary or string (key_type='bytes')"
            )
        if key_type not in ("auto", "bytes"):
            raise TypeError(
                f"column {column!r}{_place(where)}: {t} holds byte strings; use key_type='bytes' or 'auto'"
            )
        return jumpshard.prehash(array)
    if pa.types.is_integer(t):
        return _integer_bits(array, column, where, offset, rows, key_type)
    if pa.types.is_decimal(t) and key_type in ("auto", "uint64"):
        return _decimal_bits(array, column, where, offset, rows)
    raise TypeError(
        f"column {column!r}{_place(where)}: {t} is not a key type; keys are 64-bit integers "
        "(uint64, int64, decimal(20,0)) or byte strings (binary, string)"
    )


def keys(
    array: Union[pa.Array, pa.ChunkedArray, np.ndarray, Sequence[int], object],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
    where: str = "",
    offset: int = 0,
) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(the 64-bit keys of the non-null rows, the boolean mask of those rows
    or None when every row has a key). ``array`` is an Arrow array, or any
    key column ``jumpshard.batch`` takes (see ``ACCEPTED``); anything else
    raises ``TypeError`` naming those. ``where`` and ``offset`` say where
    the array lies (a file or partition, the number of its first row) for
    error messages."""
    _choice("key_type", key_type, KEY_TYPES)
    _choice("nulls", nulls, NULLS)
    array = _combined(_as_arrow(array))
    valid = rows = None
    if array.null_count:
        mask = pc.is_null(array)
        if nulls == "error":
            raise ValueError(
                f"column {column!r}{_place(where, offset + _first(mask))}: the key is null; "
                "pass nulls='keep' to carry null keys through with null buckets"
            )
        valid = pc.invert(mask)
        array = array.filter(valid)
        valid = valid.to_numpy(zero_copy_only=False)
        rows = np.flatnonzero(valid)
    return _bits(array, column, where, offset, rows, key_type), valid
