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

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import jumpshard

# Key reading, placements and Parquet files live in leaf modules that never
# import this one; this module is where the engines and users reach them.
from ._files import locate, parquet_files, staging
from ._keys import KEY_TYPES, NULLS, _as_arrow, _choice, _combined, _place, keys
from ._placement import Cluster, Placement, placement

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

#: The type of the ``key`` column of a move list: the input's own, or the
#: 64-bit key as ``uint64``, as ``int64`` (the same bits, for engines and
#: files without unsigned types) or as ``decimal(20,0)`` (its unsigned value,
#: as Spark reads Parquet ``UINT_64``).
OUT_KEYS = ("same", "uint64", "int64", "decimal")


def _spread(values: np.ndarray, valid: Optional[np.ndarray], n: int) -> pa.Array:
    """``values`` for the valid rows of ``n``, nulls elsewhere."""
    if valid is None:
        return pa.array(values)
    out = np.zeros(n, dtype=values.dtype)
    out[valid] = values
    return pa.array(out, mask=~valid)


def buckets(
    array: Union[pa.Array, pa.ChunkedArray, np.ndarray, Sequence[int], Any],
    cluster: Union[Cluster, Placement],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
    where: str = "",
    offset: int = 0,
) -> pa.Int32Array:
    """The bucket of every key of ``array`` (null where the key is null and
    ``nulls="keep"``): an Arrow array, or any key column ``jumpshard.batch``
    takes (a numpy array, a pandas or polars Series, a list of ints)."""
    array = _as_arrow(array)
    bits, valid = keys(
        array, column=column, key_type=key_type, nulls=nulls, where=where, offset=offset
    )
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
    own = {f.name for f in fields}
    for field in others:
        if field.name in own:
            # Two columns of one name: Arrow would keep both, and readers
            # (pandas, Spark, Ray) would take the wrong one or fail later.
            raise ValueError(
                f"column {field.name!r} of the input has the name of a column of the moves "
                f"({', '.join(f.name for f in fields)}): rename it to keep it (keep_columns=True)"
            )
    return pa.schema(fields + list(others))


_OUT_TYPES = {"uint64": pa.uint64(), "int64": pa.int64(), "decimal": pa.decimal128(20, 0)}


def _out_key(column: pa.Array, bits: np.ndarray, out_key: str, name: str) -> pa.Array:
    if out_key == "same":
        return column
    t = column.type
    if not (pa.types.is_integer(t) or pa.types.is_decimal(t)):
        raise TypeError(
            f"column {name!r}: {t} keys are not integers, so out_key={out_key!r} does not apply; use 'same'"
        )
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
    data = _as_table(data)
    if column not in data.schema.names and str(column) in data.schema.names:
        # pandas' non-string names (0, 1, ...) become strings in Arrow.
        column = str(column)
    if column not in data.schema.names:
        raise KeyError(
            f"no column {column!r}{_place(where)}; the columns are {', '.join(data.schema.names)}"
        )
    key_column = _combined(data.column(column))
    others = [f for f in data.schema if f.name != column] if keep_columns else []
    schema = moves_schema(key_column.type, before, after, others, out_key)
    bits, valid = keys(
        key_column, column=column, key_type=key_type, nulls=nulls, where=where, offset=offset
    )
    moving, from_, to = _plan(bits, before, after, replicas)
    if valid is not None:
        # Positions among the keyed rows -> rows of `data`, null keys merged in.
        rows = np.flatnonzero(valid)
        null_rows = np.flatnonzero(~valid)
        take = np.concatenate([rows[moving], null_rows])
        order = np.argsort(take, kind="stable")
        take = take[order]
        is_null = np.concatenate([np.zeros(len(moving), bool), np.ones(len(null_rows), bool)])[
            order
        ]
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


def _as_table(data: Any) -> Union[pa.Table, pa.RecordBatch]:
    """``data`` as an Arrow table: a table or record batch as it is, else
    anything Arrow reads as one (a pandas or polars DataFrame)."""
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return data
    if (
        hasattr(data, "__arrow_c_stream__")
        or hasattr(data, "__arrow_c_array__")
        or type(data).__module__.startswith("pandas")
    ):
        return pa.table(data)
    raise TypeError(
        f"data must be a pyarrow Table or RecordBatch, or a pandas or polars DataFrame, not {type(data).__name__}"
    )


def _fill(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``values`` at the true places of ``where``, zeros elsewhere."""
    out = np.zeros(len(where), values.dtype)
    out[where] = values
    return out


def _plan(
    bits: np.ndarray, before: Placement, after: Placement, k: int
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positions, from, to) of the moves of ``bits``; a position repeats
    when several replicas of its key move."""
    # Checked first (True is no count), and bounded by the placement itself,
    # whose message names the limit, before anything is sized by it.
    if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)) or k < 1:
        raise ValueError(f"replicas must be a positive int, not {k!r}")
    if k == 1:
        if isinstance(before.cluster, int) and isinstance(after.cluster, int):
            plan = jumpshard.plan(bits, before.cluster, after.cluster)
            return plan.positions, plan.from_, plan.to
        old, new = before.batch(bits), after.batch(bits)
        moving = np.flatnonzero(old != new)
        return moving, old[moving], new[moving]
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


def _identities(
    before: Placement, after: Placement, old: np.ndarray, new: np.ndarray
) -> Tuple[np.ndarray, np.ndarray]:
    """Comparable identities of the members of two sets of replica sets:
    bucket numbers, or node names (as codes) for node tables."""
    if (before.nodes is None) != (after.nodes is None):
        raise TypeError(
            "replica moves compare two node tables, or two clusters of numbered buckets"
        )
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


def summary(
    keys: int,
    counts: Dict[Any, int],
    before: Union[Cluster, Placement],
    after: Union[Cluster, Placement],
) -> Dict[str, Any]:
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
