"""Resharding Dask DataFrames and Parquet datasets, on whatever cluster the
current Dask client points at (a ``LocalCluster`` or a real one).

Every partition is planned where it lies, with ``jumpshard.plan``: jump hash
needs nothing but the key, so there is no shuffle, and the counts of the
partitions are summed at the end. Install with ``pip install
'jumpshard[dask]'``.

A cluster is a bucket count, or a placement that carries more state: a
``jumpshard.Memento`` (buckets removed and restored), ``jumpshard.Weights``,
or a ``jumpshard.NodeTable`` read from a table file (its removals or weights
included; the moves then name the nodes in ``from_node`` and ``to_node``).
Placements pickle as that state, so every worker places keys exactly as the
client does; between two placements each key is placed in both and moves
when the buckets differ (a Memento removal moves exactly the removed
bucket's keys).

>>> import dask.dataframe as dd, numpy as np, pandas as pd
>>> import jumpshard.dask
>>> df = dd.from_pandas(pd.DataFrame({"key": np.arange(1000, dtype=np.uint64)}), npartitions=4)
>>> m = jumpshard.dask.moves(df, 10, 12).compute()
>>> list(m.columns), bool((m["to"] >= 10).all())
(['key', 'from', 'to'], True)
>>> before = jumpshard.Memento(10)
>>> after = jumpshard.Memento(10)
>>> after.remove(3)
>>> gone = jumpshard.dask.moves(df, before, after).compute()
>>> bool((gone["from"] == 3).all()), bool((gone["to"] != 3).all())
(True, True)
"""

from __future__ import annotations

import posixpath
import uuid
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.core import url_to_fs

import jumpshard

__all__ = ["moves", "reshard_parquet"]

#: A cluster: a bucket count, or a placement with more state.
Cluster = Union[int, "jumpshard.Memento", "jumpshard.Weights", "jumpshard.NodeTable"]

_PLACEMENTS = (jumpshard.Memento, jumpshard.Weights, jumpshard.NodeTable)


def _check(before: Cluster, after: Cluster) -> None:
    """Refuses bad clusters on the client, before any task runs."""
    for cluster in (before, after):
        if not isinstance(cluster, (int, np.integer, *_PLACEMENTS)):
            raise TypeError(
                "a cluster is a bucket count, a jumpshard.Memento, a jumpshard.Weights or a "
                f"jumpshard.NodeTable, not {type(cluster).__name__}"
            )
    if isinstance(before, (int, np.integer)) and isinstance(after, (int, np.integer)):
        jumpshard.plan(np.empty(0, np.uint64), before, after)  # checks the counts now
    else:
        for cluster in (before, after):
            _place(cluster, np.empty(0, np.uint64))


def _place(cluster: Cluster, keys: Any) -> np.ndarray:
    if isinstance(cluster, (int, np.integer)):
        return jumpshard.batch(keys, cluster)
    return cluster.batch(keys)


def _plan(keys: Any, before: Cluster, after: Cluster) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positions, from, to) of the keys whose bucket differs."""
    if isinstance(before, (int, np.integer)) and isinstance(after, (int, np.integer)):
        plan = jumpshard.plan(keys, before, after)
        return plan.positions.astype(np.intp, copy=False), plan.from_, plan.to
    old, new = _place(before, keys), _place(after, keys)
    positions = np.flatnonzero(old != new)
    return positions, old[positions], new[positions]


def _describe(cluster: Cluster) -> Any:
    return int(cluster) if isinstance(cluster, (int, np.integer)) else repr(cluster)


def _moving_rows(
    part: pd.DataFrame, from_buckets: Cluster, to_buckets: Cluster, column: str, others: Sequence[str]
) -> pd.DataFrame:
    keys = part[column]
    positions, from_, to = _plan(keys, from_buckets, to_buckets)
    rows = {"key": keys.to_numpy()[positions], "from": from_, "to": to}
    # Node tables name the nodes too.
    for name, cluster, slots in (("from_node", from_buckets, from_), ("to_node", to_buckets, to)):
        if isinstance(cluster, jumpshard.NodeTable):
            rows[name] = np.asarray(cluster.slots, dtype=object)[slots]
    rows.update({name: part[name].to_numpy()[positions] for name in others})
    return pd.DataFrame(rows, index=part.index[positions])


def moves(
    df: dd.DataFrame,
    from_buckets: Cluster,
    to_buckets: Cluster,
    column: str = "key",
    *,
    keep_columns: bool = False,
) -> dd.DataFrame:
    """The rows of ``df`` whose key (column ``column``, 64-bit integers) moves
    when ``from_buckets`` becomes ``to_buckets``, as a Dask DataFrame with
    columns ``key``, ``from`` and ``to``, followed by ``df``'s other columns
    when ``keep_columns`` is true. Lazy, partition by partition, no shuffle.
    Either cluster may be a ``jumpshard.Memento`` or ``jumpshard.Weights``
    (see the module's documentation)."""
    _check(from_buckets, to_buckets)
    others = [c for c in df.columns if c != column] if keep_columns else []
    meta = _moving_rows(df._meta, from_buckets, to_buckets, column, others)
    return df.map_partitions(_moving_rows, from_buckets, to_buckets, column, others, meta=meta)


def _reshard_partition(
    part: pd.DataFrame,
    index: int,
    fs: Any,
    root: str,
    from_buckets: Cluster,
    to_buckets: Cluster,
    column: str,
) -> Tuple[int, Dict[int, int]]:
    """Writes one partition's moving keys under ``root/to=B/`` and returns
    (its number of keys, its moves per destination)."""
    keys = part[column]
    positions, from_, to_ = _plan(keys, from_buckets, to_buckets)
    moving = keys.to_numpy()[positions]
    # A stable sort groups the moves by destination, each group in input order.
    order = np.argsort(to_, kind="stable")
    sorted_to = to_[order]
    starts = np.flatnonzero(np.diff(sorted_to, prepend=-1))
    bounds = np.append(starts, len(order))
    counts = {}
    for start, end in zip(bounds[:-1], bounds[1:]):
        take = order[start:end]
        to = int(sorted_to[start])
        table = pa.table({"key": moving[take], "from": from_[take]})
        directory = posixpath.join(root, f"to={to}")
        fs.makedirs(directory, exist_ok=True)
        with fs.open(posixpath.join(directory, f"part-{index:05d}.parquet"), "wb") as f:
            pq.write_table(table, f)
        counts[to] = int(end - start)
    return len(keys), counts


def reshard_parquet(
    src: str,
    dst: str,
    from_buckets: Cluster,
    to_buckets: Cluster,
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
    so ``dst`` is complete or absent. Either cluster may be a
    ``jumpshard.Memento`` or ``jumpshard.Weights``; the summary then gives its
    ``repr`` for ``from`` or ``to``."""
    _check(from_buckets, to_buckets)
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
        "from": _describe(from_buckets),
        "to": _describe(to_buckets),
        "per_destination": dict(sorted(per_destination.items())),
    }
