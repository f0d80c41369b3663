"""Arrow record batches in, buckets and moves out: the one implementation
that every engine module (``jumpshard.spark``, ``jumpshard.dask``,
``jumpshard.polars``, ``jumpshard.ray``) runs on its batches.

A key column is read as 64-bit keys by its Arrow type (``key_type="auto"``):

- ``uint64`` as is, and ``int64`` as the same 64 bits (a key above 2**63
  stored in a signed column round-trips);
- ``decimal(p, s)`` holding whole numbers from 0 to 2**64-1, which is what
  Spark makes of a Parquet ``UINT_64`` column (``decimal(20,0)``);
- the other integer types, when no value is negative;
- ``binary`` and ``string`` through the fixed pre-hash (XXH3-64, seed 0).

``key_type="uint64"`` declares the keys unsigned, so a negative ``int64``
is an error rather than a reinterpretation; ``"int64"`` reads only signed
64-bit columns; ``"bytes"`` only binary and string columns. Anything else
(floats, booleans, dates, a fraction, a value above 2**64-1) raises
``TypeError`` or ``ValueError`` naming the column, the place (file or
partition) and the row. Null keys raise the same way unless
``nulls="keep"``, which carries them through with null buckets: never
dropped silently.

>>> import pyarrow as pa, jumpshard.arrow as ja
>>> keys = pa.array([0, 2**64 - 1], type=pa.decimal128(20, 0))
>>> ja.buckets(keys, 12).to_pylist()
[0, 10]
>>> m = ja.moves(pa.table({"key": pa.array([1, 2**63 + 5, None], pa.uint64())}), 10, 12, nulls="keep")
>>> m.column_names, m.num_rows >= 1
(['key', 'from', 'to'], True)
>>> ja.moves(pa.table({"key": pa.array([-1], pa.int64())}), 10, 12, key_type="uint64")
Traceback (most recent call last):
...
ValueError: column 'key', row 0: -1 is negative, and the keys were declared unsigned (key_type='uint64'); use key_type='int64' to read the bits
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import sys
import uuid
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import jumpshard

__all__ = [
    "Cluster",
    "KEY_TYPES",
    "NULLS",
    "OUT_KEYS",
    "Placement",
    "buckets",
    "keys",
    "moves",
    "moves_schema",
    "locate",
    "parquet_files",
    "per_destination",
    "placement",
    "staging",
    "summary",
]

#: How a key column is read (see the module's documentation).
KEY_TYPES = ("auto", "uint64", "int64", "bytes")
#: What a null key does: raise, or travel through with null buckets.
NULLS = ("error", "keep")
#: The type of the ``key`` column of a move list: the input's own, or the
#: 64-bit key as ``uint64``, as ``int64`` (the same bits, for engines and
#: files without unsigned types) or as ``decimal(20,0)`` (its unsigned value,
#: as Spark reads Parquet ``UINT_64``).
OUT_KEYS = ("same", "uint64", "int64", "decimal")

#: A cluster: a bucket count, or a placement that carries more state.
Cluster = Union[int, "jumpshard.Memento", "jumpshard.Weights", "jumpshard.NodeTable"]

_MAX = 2**64 - 1


def _choice(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def _place(where: str, row: Optional[int] = None) -> str:
    """`, in file F, row R`: where a bad key is, as much as is known."""
    text = f", {where}" if where else ""
    return text if row is None else f"{text}, row {row}"


class Placement:
    """A cluster checked once on the client, with a digest of its state, so
    that a worker can prove it places keys as the client does.

    Placements travel to workers by pickling; a worker whose jumpshard reads
    that state differently (another version, a different table file) would
    place keys differently, so every worker recomputes the digest from the
    object it holds and refuses to run on a mismatch.
    """

    def __init__(self, cluster: Cluster, role: str = "cluster"):
        if isinstance(cluster, (bool, np.bool_)) or not isinstance(
            cluster, (int, np.integer, jumpshard.Memento, jumpshard.Weights, jumpshard.NodeTable)
        ):
            raise TypeError(
                f"{role}: a cluster is a bucket count, a jumpshard.Memento, a jumpshard.Weights "
                f"or a jumpshard.NodeTable, not {type(cluster).__name__}"
            )
        if isinstance(cluster, (int, np.integer)):
            cluster = int(cluster)
            if not 1 <= cluster <= 2**31 - 1:
                name = f"{role}_buckets" if role in ("from", "to") else "the bucket count"
                raise ValueError(f"{name} must be between 1 and {2**31 - 1}, got {cluster}")
        self.cluster = cluster
        self.role = role
        self.version = jumpshard.__version__
        self.digest = self._state_digest()

    def _state_digest(self) -> str:
        c = self.cluster
        if isinstance(c, int):
            state = f"jump {c}"
        elif isinstance(c, jumpshard.NodeTable):
            state = "table " + c.to_text()
        elif isinstance(c, jumpshard.Memento):
            state = f"memento {c.barray} {c.removals}"
        else:
            state = f"weights {c.weights}"
        return hashlib.sha256(state.encode()).hexdigest()[:16]

    def check(self) -> None:
        """Raises unless this process places keys exactly as the client did."""
        if self.version != jumpshard.__version__:
            raise RuntimeError(
                f"{self.role}: this worker runs jumpshard {jumpshard.__version__} and the client "
                f"{self.version}: install the same wheel everywhere"
            )
        digest = self._state_digest()
        if digest != self.digest:
            raise RuntimeError(
                f"{self.role}: this worker's node table (digest {digest}) differs from the "
                f"client's ({self.digest}); every worker must place keys with the same table"
            )

    @property
    def nodes(self) -> Optional[List[str]]:
        """Slot names, for a node table."""
        return self.cluster.slots if isinstance(self.cluster, jumpshard.NodeTable) else None

    def batch(self, bits: np.ndarray) -> np.ndarray:
        if isinstance(self.cluster, int):
            return jumpshard.batch(bits, self.cluster)
        return self.cluster.batch(bits)

    def replicas(self, bits: np.ndarray, k: int) -> np.ndarray:
        """Every key's replica set, shape (len(bits), k)."""
        if isinstance(self.cluster, int):
            return jumpshard.replicas(bits, self.cluster, k)
        if isinstance(self.cluster, jumpshard.Weights):
            raise TypeError(f"{self.role}: weighted buckets have no replica sets")
        return self.cluster.replicas(bits, k)

    def describe(self) -> Any:
        """The bucket count, or the placement's repr (for summaries)."""
        return self.cluster if isinstance(self.cluster, int) else repr(self.cluster)


def placement(cluster: Union[Cluster, Placement], role: str = "cluster") -> Placement:
    """``cluster`` checked as a ``Placement`` (kept as is when it is one)."""
    return cluster if isinstance(cluster, Placement) else Placement(cluster, role)


def _combined(array: Union[pa.Array, pa.ChunkedArray]) -> pa.Array:
    if isinstance(array, pa.ChunkedArray):
        return array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    return array


def _first(mask: pa.Array) -> int:
    """The index of the first true value of a boolean array that has one."""
    return int(pc.index(mask, True).as_py())


def _decimal_bits(array: pa.Array, column: str, where: str, offset: int) -> np.ndarray:
    if pa.types.is_decimal128(array.type) and array.type.scale == 0 and sys.byteorder == "little":
        # A decimal128 is a 128-bit two's complement integer; a whole number
        # from 0 to 2**64-1 is one whose high 64 bits are zero, and its low
        # 64 bits are the key. Four times faster than Arrow's checked cast,
        # which Spark's decimal(20,0) keys would otherwise all go through.
        words = np.frombuffer(array.buffers()[1], dtype=np.uint64, count=2 * (array.offset + len(array)))
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
            f"column {column!r}{_place(where, offset + row)}: {value} {problem}; decimal keys must be "
            "whole numbers from 0 to 2**64-1"
        )
    raise ValueError(f"column {column!r}{_place(where)}: {array.type} values do not fit 64 bits")


def _integer_bits(array: pa.Array, column: str, where: str, offset: int, key_type: str) -> np.ndarray:
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
        raise ValueError(f"column {column!r}{_place(where, offset + row)}: {array[row].as_py()} is negative{hint}")
    return array.cast(pa.uint64()).to_numpy(zero_copy_only=False)


def _bits(array: pa.Array, column: str, where: str, offset: int, key_type: str) -> np.ndarray:
    """The 64-bit keys of a null-free array."""
    t = array.type
    if pa.types.is_dictionary(t):
        array = array.dictionary_decode()
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
            raise TypeError(f"column {column!r}{_place(where)}: {t} is not binary or string (key_type='bytes')")
        if key_type not in ("auto", "bytes"):
            raise TypeError(f"column {column!r}{_place(where)}: {t} holds byte strings; use key_type='bytes' or 'auto'")
        return jumpshard.prehash(array)
    if pa.types.is_integer(t):
        return _integer_bits(array, column, where, offset, key_type)
    if pa.types.is_decimal(t) and key_type in ("auto", "uint64"):
        return _decimal_bits(array, column, where, offset)
    raise TypeError(
        f"column {column!r}{_place(where)}: {t} is not a key type; keys are 64-bit integers "
        "(uint64, int64, decimal(20,0)) or byte strings (binary, string)"
    )


def keys(
    array: Union[pa.Array, pa.ChunkedArray],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
    where: str = "",
    offset: int = 0,
) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(the 64-bit keys of the non-null rows, the boolean mask of those rows
    or None when every row has a key). ``where`` and ``offset`` say where
    the array lies (a file or partition, the number of its first row) for
    error messages."""
    _choice("key_type", key_type, KEY_TYPES)
    _choice("nulls", nulls, NULLS)
    array = _combined(array)
    valid = None
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
    return _bits(array, column, where, offset, key_type), valid


def _spread(values: np.ndarray, valid: Optional[np.ndarray], n: int) -> pa.Array:
    """``values`` for the valid rows of ``n``, nulls elsewhere."""
    if valid is None:
        return pa.array(values)
    out = np.zeros(n, dtype=values.dtype)
    out[valid] = values
    return pa.array(out, mask=~valid)


def buckets(
    array: Union[pa.Array, pa.ChunkedArray],
    cluster: Union[Cluster, Placement],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
    where: str = "",
    offset: int = 0,
) -> pa.Int32Array:
    """The bucket of every key of ``array`` (null where the key is null and
    ``nulls="keep"``)."""
    bits, valid = keys(array, column=column, key_type=key_type, nulls=nulls, where=where, offset=offset)
    return _spread(placement(cluster).batch(bits), valid, len(array))


def moves_schema(
    key_type: pa.DataType,
    before: Union[Cluster, Placement],
    after: Union[Cluster, Placement],
    others: Sequence[pa.Field] = (),
    out_key: str = "same",
) -> pa.Schema:
    """The schema of ``moves``' output for a key column of ``key_type``."""
    _choice("out_key", out_key, OUT_KEYS)
    before, after = placement(before, "from"), placement(after, "to")
    fields = [
        pa.field("key", key_type if out_key == "same" else _OUT_TYPES[out_key]),
        pa.field("from", pa.int32()),
        pa.field("to", pa.int32()),
    ]
    if before.nodes is not None:
        fields.append(pa.field("from_node", pa.string()))
    if after.nodes is not None:
        fields.append(pa.field("to_node", pa.string()))
    return pa.schema(fields + list(others))


_OUT_TYPES = {"uint64": pa.uint64(), "int64": pa.int64(), "decimal": pa.decimal128(20, 0)}


def _out_key(column: pa.Array, bits: np.ndarray, out_key: str, name: str) -> pa.Array:
    if out_key == "same":
        return column
    t = column.type
    if not (pa.types.is_integer(t) or pa.types.is_decimal(t)):
        raise TypeError(f"column {name!r}: {t} keys are not integers, so out_key={out_key!r} does not apply; use 'same'")
    if out_key == "int64":
        return pa.array(bits.view(np.int64))
    return pa.array(bits).cast(_OUT_TYPES[out_key])


def moves(
    data: Union[pa.Table, pa.RecordBatch],
    before: Union[Cluster, Placement],
    after: Union[Cluster, Placement],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
    keep_columns: bool = False,
    out_key: str = "same",
    replicas: int = 1,
    where: str = "",
    offset: int = 0,
) -> pa.Table:
    """The rows of ``data`` whose key moves when ``before`` becomes
    ``after``: columns ``key``, ``from``, ``to``, then ``from_node`` and
    ``to_node`` for node tables, then ``data``'s other columns when
    ``keep_columns``; in input order, taken with Arrow ``take``. With
    ``nulls="keep"``, rows with a null key are kept with null buckets.

    With ``replicas=k``, every key has a set of ``k`` buckets (nodes, for
    node tables) on each side, and a row is one member that leaves a key's
    set, paired with one that joins it in the sets' order, as the CLI's
    ``reshard --replicas``."""
    before, after = placement(before, "from"), placement(after, "to")
    if column not in data.schema.names:
        raise KeyError(f"no column {column!r}{_place(where)}; the columns are {', '.join(data.schema.names)}")
    key_column = _combined(data.column(column))
    others = [f for f in data.schema if f.name != column] if keep_columns else []
    schema = moves_schema(key_column.type, before, after, others, out_key)
    bits, valid = keys(key_column, column=column, key_type=key_type, nulls=nulls, where=where, offset=offset)
    moving, from_, to = _plan(bits, before, after, replicas)
    if valid is not None:
        # Positions among the keyed rows -> rows of `data`, null keys merged in.
        rows = np.flatnonzero(valid)
        null_rows = np.flatnonzero(~valid)
        take = np.concatenate([rows[moving], null_rows])
        order = np.argsort(take, kind="stable")
        take = take[order]
        is_null = np.concatenate([np.zeros(len(moving), bool), np.ones(len(null_rows), bool)])[order]
        from_ = np.concatenate([from_, np.zeros(len(null_rows), np.int32)])[order]
        to = np.concatenate([to, np.zeros(len(null_rows), np.int32)])[order]
        from_col = pa.array(from_, mask=is_null)
        to_col = pa.array(to, mask=is_null)
    else:
        take = moving
        from_col, to_col = pa.array(from_), pa.array(to)
    # Arrow takes uint64 and int64 indices alike: the plan's are used as they are.
    indices = pa.array(take)
    key_out = key_column.take(indices)
    if out_key != "same":
        key_bits = bits[moving] if valid is None else _fill(bits[moving], ~is_null)
        key_out = _out_key(key_out, key_bits, out_key, column)
        if valid is not None:
            key_out = pc.if_else(pa.array(is_null), pa.nulls(len(key_out), key_out.type), key_out)
    arrays = [key_out, from_col, to_col]
    for side, buckets_ in ((before, from_col), (after, to_col)):
        if side.nodes is not None:
            names = pa.array(side.nodes, pa.string())
            arrays.append(names.take(buckets_))
    arrays += [_combined(data.column(f.name)).take(indices) for f in others]
    return pa.Table.from_arrays(arrays, schema=schema)


def _fill(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``values`` at the true places of ``where``, zeros elsewhere."""
    out = np.zeros(len(where), values.dtype)
    out[where] = values
    return out


def _plan(bits: np.ndarray, before: Placement, after: Placement, k: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positions, from, to) of the moves of ``bits``; a position repeats
    when several replicas of its key move."""
    if k == 1:
        if isinstance(before.cluster, int) and isinstance(after.cluster, int):
            plan = jumpshard.plan(bits, before.cluster, after.cluster)
            return plan.positions, plan.from_, plan.to
        old, new = before.batch(bits), after.batch(bits)
        moving = np.flatnonzero(old != new)
        return moving, old[moving], new[moving]
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"replicas must be a positive int, not {k!r}")
    old, new = before.replicas(bits, k), after.replicas(bits, k)
    old_ids, new_ids = _identities(before, after, old, new)
    lost = ~(old_ids[:, :, None] == new_ids[:, None, :]).any(axis=2)
    gained = ~(new_ids[:, :, None] == old_ids[:, None, :]).any(axis=2)
    # A set loses as many members as it gains: the r-th lost goes to the r-th gained.
    lost_rank, gained_rank = np.cumsum(lost, axis=1) - 1, np.cumsum(gained, axis=1) - 1
    rows, ranks, from_, to = [], [], [], []
    for r in range(k):
        row_l, col_l = np.nonzero(lost & (lost_rank == r))
        row_g, col_g = np.nonzero(gained & (gained_rank == r))
        rows.append(row_l)
        ranks.append(np.full(len(row_l), r))
        from_.append(old[row_l, col_l])
        to.append(new[row_g, col_g])
    rows_, ranks_ = np.concatenate(rows), np.concatenate(ranks)
    order = np.lexsort((ranks_, rows_))
    return rows_[order].astype(np.int64), np.concatenate(from_)[order], np.concatenate(to)[order]


def _identities(before: Placement, after: Placement, old: np.ndarray, new: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Comparable identities of the members of two sets of replica sets:
    bucket numbers, or node names (as codes) for node tables."""
    if (before.nodes is None) != (after.nodes is None):
        raise TypeError("replica moves compare two node tables, or two clusters of numbered buckets")
    if before.nodes is None:
        return old, new
    codes: Dict[str, int] = {}
    old_codes = np.array([codes.setdefault(name, len(codes)) for name in before.nodes], np.int64)
    new_codes = np.array([codes.setdefault(name, len(codes)) for name in after.nodes], np.int64)
    return old_codes[old], new_codes[new]


def per_destination(to: Union[pa.Array, pa.ChunkedArray, np.ndarray]) -> Dict[int, int]:
    """{bucket: number of moves} of a ``to`` column, nulls left out."""
    counts = pc.value_counts(to if isinstance(to, (pa.Array, pa.ChunkedArray)) else pa.array(to))
    pairs = zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist())
    return dict(sorted((int(b), int(n)) for b, n in pairs if b is not None))


def summary(keys: int, counts: Dict[Any, int], before: Union[Cluster, Placement], after: Union[Cluster, Placement]) -> Dict[str, Any]:
    """The summary of the CLI's ``reshard --json`` that every engine's
    ``reshard_parquet`` returns, from the number of keys and the moves per
    destination (``None`` for null keys kept): ``keys``, ``moved``,
    ``from``, ``to``, ``per_destination`` (sorted, buckets receiving none
    left out) and ``null_keys`` when there are any."""
    per_destination: Dict[int, int] = {}
    for to, n in counts.items():
        if to is not None:
            per_destination[int(to)] = per_destination.get(int(to), 0) + int(n)
    result: Dict[str, Any] = {
        "keys": int(keys),
        "moved": sum(per_destination.values()),
        "from": placement(before, "from").describe(),
        "to": placement(after, "to").describe(),
        "per_destination": dict(sorted(per_destination.items())),
    }
    if counts.get(None):
        result["null_keys"] = int(counts[None])
    return result


@contextmanager
def staging(fs: Any, dst: str) -> Iterator[str]:
    """A temporary sibling directory of ``dst`` (an fsspec filesystem path)
    to write into, renamed to ``dst`` when the block ends without error and
    removed when it raises: ``dst`` is complete or absent, never half
    written, and an existing ``dst`` (an input, say) is never replaced."""
    dst = dst.rstrip("/")
    if fs.exists(dst):
        raise FileExistsError(f"{dst} exists: give a new destination")
    parent, name = posixpath.split(dst)
    temporary = posixpath.join(parent, f".{name}.tmp-{uuid.uuid4().hex}")
    fs.makedirs(temporary, exist_ok=True)
    try:
        yield temporary
        if fs.exists(dst):
            raise FileExistsError(f"{dst} appeared while it was written: the result is not moved over it")
        if getattr(fs, "protocol", None) in ("file", ("file", "local")) or "file" in getattr(fs, "protocol", ()):
            os.rename(temporary, dst)
        else:
            fs.mv(temporary, dst, recursive=True)
    except BaseException:
        if fs.exists(temporary):
            fs.rm(temporary, recursive=True)
        raise


def parquet_files(src: str, storage_options: Optional[Dict[str, Any]] = None) -> Tuple[Any, List[str]]:
    """(the fsspec filesystem, the Parquet files of ``src``): ``src`` itself
    when it is a file, else every file under it, recursively and sorted,
    but for hidden and ``_``-prefixed names (``_SUCCESS``, ``.crc``,
    temporary directories)."""
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(src, **(storage_options or {}))
    if fs.isfile(root):
        return fs, [root]
    if not fs.isdir(root):
        raise FileNotFoundError(f"{src}: no such file or directory")
    files = [
        path
        for path in fs.find(root)
        if not any(part.startswith((".", "_")) for part in posixpath.relpath(path, root).split("/"))
    ]
    return fs, sorted(files)


def locate(
    fs: Any,
    files: Sequence[str],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
) -> None:
    """Reads ``column`` of every file in batches and raises the error that
    ``keys`` gives for the first bad key, naming its file and row; returns
    when every key is good. Engines call it after a task failed, so that
    the error says where the bad key is on disk."""
    import pyarrow.parquet as pq

    for path in files:
        with fs.open(path, "rb") as f:
            reader = pq.ParquetFile(f)
            if column not in reader.schema_arrow.names:
                raise KeyError(f"no column {column!r} in file {path}; its columns are {', '.join(reader.schema_arrow.names)}")
            offset = 0
            for batch in reader.iter_batches(columns=[column]):
                keys(batch.column(0), column=column, key_type=key_type, nulls=nulls, where=f"file {path}", offset=offset)
                offset += batch.num_rows
