"""Resharding Dask DataFrames and Parquet datasets, on whatever cluster the
current Dask client points at (a ``LocalCluster`` or a real one).

Every partition is planned where it lies, with ``jumpshard.plan``: jump hash
needs nothing but the key, so there is no shuffle, and the counts of the
partitions are summed at the end. Install with ``pip install
'jumpshard[dask]'``.

>>> import dask.dataframe as dd, numpy as np, pandas as pd
>>> import jumpshard.dask
>>> df = dd.from_pandas(pd.DataFrame({"key": np.arange(1000, dtype=np.uint64)}), npartitions=4)
>>> m = jumpshard.dask.moves(df, 10, 12).compute()
>>> list(m.columns), bool((m["to"] >= 10).all())
(['key', 'from', 'to'], True)
"""

from __future__ import annotations

import posixpath
import uuid
from typing import Any, Dict, Optional, Sequence, Tuple

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.core import url_to_fs

import jumpshard

__all__ = ["moves", "reshard_parquet"]


def _moving_rows(
    part: pd.DataFrame, from_buckets: int, to_buckets: int, column: str, others: Sequence[str]
) -> pd.DataFrame:
    keys = part[column]
    plan = jumpshard.plan(keys, from_buckets, to_buckets)
    positions = plan.positions.astype(np.intp, copy=False)
    rows = {"key": keys.to_numpy()[positions], "from": plan.from_, "to": plan.to}
    rows.update({name: part[name].to_numpy()[positions] for name in others})
    return pd.DataFrame(rows, index=part.index[positions])


def moves(
    df: dd.DataFrame,
    from_buckets: int,
    to_buckets: int,
    column: str = "key",
    *,
    keep_columns: bool = False,
) -> dd.DataFrame:
    """The rows of ``df`` whose key (column ``column``, 64-bit integers) moves
    when ``from_buckets`` becomes ``to_buckets``, as a Dask DataFrame with
    columns ``key``, ``from`` and ``to``, followed by ``df``'s other columns
    when ``keep_columns`` is true. Lazy, partition by partition, no shuffle."""
    jumpshard.plan(np.empty(0, np.uint64), from_buckets, to_buckets)  # checks the counts now
    others = [c for c in df.columns if c != column] if keep_columns else []
    meta = _moving_rows(df._meta, from_buckets, to_buckets, column, others)
    return df.map_partitions(_moving_rows, from_buckets, to_buckets, column, others, meta=meta)


def _reshard_partition(
    part: pd.DataFrame,
    index: int,
    fs: Any,
    root: str,
    from_buckets: int,
    to_buckets: int,
    column: str,
) -> Tuple[int, Dict[int, int]]:
    """Writes one partition's moving keys under ``root/to=B/`` and returns
    (its number of keys, its moves per destination)."""
    keys = part[column]
    plan = jumpshard.plan(keys, from_buckets, to_buckets)
    positions = plan.positions.astype(np.intp, copy=False)
    moving = keys.to_numpy()[positions]
    # A stable sort groups the moves by destination, each group in input order.
    order = np.argsort(plan.to, kind="stable")
    sorted_to = plan.to[order]
    starts = np.flatnonzero(np.diff(sorted_to, prepend=-1))
    bounds = np.append(starts, len(order))
    counts = {}
    for start, end in zip(bounds[:-1], bounds[1:]):
        take = order[start:end]
        to = int(sorted_to[start])
        table = pa.table({"key": moving[take], "from": plan.from_[take]})
        directory = posixpath.join(root, f"to={to}")
        fs.makedirs(directory, exist_ok=True)
        with fs.open(posixpath.join(directory, f"part-{index:05d}.parquet"), "wb") as f:
            pq.write_table(table, f)
        counts[to] = int(end - start)
    return len(keys), counts


def reshard_parquet(
    src: str,
    dst: str,
    from_buckets: int,
    to_buckets: int,
    column: str = "key",
    storage_options: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """Reads the Parquet dataset ``src`` (a local path or any fsspec URL),
    plans every partition where it lies, and writes the moving keys to
    ``dst`` as a Parquet dataset partitioned by destination (``dst/to=B/``,
    columns ``key`` and ``from``). Returns the summary of the CLI's
    ``reshard --json``: ``keys``, ``moved``, ``from``, ``to`` and
    ``per_destination`` (bucket -> number of keys, buckets receiving none
    left out).

    ``dst`` must not exist: the dataset is written into a temporary sibling
    directory and renamed to ``dst`` only when every partition is written,
    so ``dst`` is complete or absent."""
    jumpshard.plan(np.empty(0, np.uint64), from_buckets, to_buckets)  # checks the counts now
    storage_options = storage_options or {}
    fs, root = url_to_fs(dst, **storage_options)
    root = root.rstrip("/")
    if fs.exists(root):
        raise FileExistsError(f"{dst} exists: give a new destination")
    parent, name = posixpath.split(root)
    staging = posixpath.join(parent, f".{name}.tmp-{uuid.uuid4().hex}")
    df = dd.read_parquet(src, columns=[column], storage_options=storage_options)
    tasks = [
        dask.delayed(_reshard_partition)(part, i, fs, staging, from_buckets, to_buckets, column)
        for i, part in enumerate(df.to_delayed())
    ]
    fs.makedirs(staging, exist_ok=True)
    try:
        results = dask.compute(*tasks)
        fs.mv(staging, root, recursive=True)
    except BaseException:
        fs.rm(staging, recursive=True)
        raise
    per_destination: Dict[int, int] = {}
    for _, counts in results:
        for to, n in counts.items():
            per_destination[to] = per_destination.get(to, 0) + n
    return {
        "keys": sum(n for n, _ in results),
        "moved": sum(per_destination.values()),
        "from": from_buckets,
        "to": to_buckets,
        "per_destination": dict(sorted(per_destination.items())),
    }
