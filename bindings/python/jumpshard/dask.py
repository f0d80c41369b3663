"""Resharding Dask DataFrames and Parquet datasets, on whatever cluster the
current Dask client points at (a ``LocalCluster`` or a real one).

Every partition is planned where it lies, on Arrow data with
``jumpshard.arrow`` (the code every engine module shares): jump hash needs
nothing but the key, so there is no shuffle, and the counts of the
partitions are summed at the end. Columns keep pyarrow dtypes end to end,
and moving rows are picked with Arrow ``take``. Install with ``pip install
'jumpshard[dask]'``.

A cluster is a bucket count, or a placement that carries more state: a
``jumpshard.Memento`` (buckets removed and restored), ``jumpshard.Weights``,
or a ``jumpshard.NodeTable`` read from a table file (its removals or weights
included; the moves then name the nodes in ``from_node`` and ``to_node``).
Placements pickle as that state, and every task checks that its worker
places keys with the same state as the client. ``replicas=k`` plans
replica sets of ``k`` members. Keys, nulls and ``out_key`` are read as
``jumpshard.arrow`` documents.

>>> import dask.dataframe as dd, numpy as np, pandas as pd
>>> import jumpshard.dask
>>> df = dd.from_pandas(pd.DataFrame({"key": np.arange(1000, dtype=np.uint64)}), npartitions=4)
>>> m = jumpshard.dask.moves(df, 10, 12).compute()
>>> list(m.columns), bool((m["to"] >= 10).all()), str(m["key"].dtype)
(['key', 'from', 'to'], True, 'uint64[pyarrow]')
>>> before = jumpshard.Memento(10)
>>> after = jumpshard.Memento(10)
>>> after.remove(3)
>>> gone = jumpshard.dask.moves(df, before, after).compute()
>>> bool((gone["from"] == 3).all()), bool((gone["to"] != 3).all())
(True, True)
"""

from __future__ import annotations

import posixpath
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import dask
import dask.dataframe as dd
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.core import url_to_fs

from . import arrow as ja

__all__ = ["moves", "reshard_parquet"]

#: A cluster: a bucket count, or a placement with more state.
Cluster = ja.Cluster


def _arrow(part: pd.DataFrame, columns: Sequence[str]) -> pa.Table:
    """The columns of a pandas partition as Arrow, without a copy for
    pyarrow dtypes and numpy integers."""
    return pa.Table.from_pandas(part[list(columns)], preserve_index=False)


def _pandas(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas(types_mapper=pd.ArrowDtype)


class _Moves:
    """The per-partition function of ``moves`` (a class, so that Dask pickles
    the checked placements once per task)."""

    def __init__(
        self,
        before: ja.Placement,
        after: ja.Placement,
        column: str,
        others: Sequence[str],
        options: Dict[str, Any],
    ):
        self.before, self.after, self.column, self.others, self.options = (
            before,
            after,
            column,
            others,
            options,
        )

    def __call__(
        self, part: pd.DataFrame, partition_info: Optional[Dict[str, Any]] = None
    ) -> pd.DataFrame:
        self.before.check()
        self.after.check()
        where = f"Dask partition {partition_info['number']}" if partition_info else ""
        table = _arrow(part, [self.column, *self.others])
        moving = ja.moves(
            table,
            self.before,
            self.after,
            column=self.column,
            keep_columns=bool(self.others),
            where=where,
            **self.options,
        )
        return _pandas(moving)


def moves(
    df: dd.DataFrame,
    from_buckets: Cluster,
    to_buckets: Cluster,
    column: str = "key",
    *,
    keep_columns: bool = False,
    key_type: str = "auto",
    nulls: str = "error",
    out_key: str = "same",
    replicas: int = 1,
) -> dd.DataFrame:
    """The rows of ``df`` whose key (column ``column``) moves when
    ``from_buckets`` becomes ``to_buckets``, as a Dask DataFrame with
    pyarrow dtypes: ``key``, ``from`` and ``to`` (and ``from_node``,
    ``to_node`` for node tables), followed by ``df``'s other columns when
    ``keep_columns`` is true. Lazy, through ``map_partitions`` with
    ``meta``, no shuffle. Each partition's moves are numbered from 0, so
    the result's divisions are unknown (``df``'s index does not carry
    over: keep it as a column with ``reset_index`` and ``keep_columns``)."""
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    if column not in df.columns:
        raise KeyError(f"no column {column!r}; the columns are {', '.join(map(str, df.columns))}")
    others = [c for c in df.columns if c != column] if keep_columns else []
    options = dict(key_type=key_type, nulls=nulls, out_key=out_key, replicas=replicas)
    # The empty partition gives the meta, and refuses bad types and options now.
    meta = _Moves(before, after, column, others, options)(df._meta)
    return df.map_partitions(
        _Moves(before, after, column, others, options),
        meta=meta,
        enforce_metadata=False,
        # The moves have an index of their own: `df`'s divisions would
        # send `loc` and joins to the wrong partitions.
        clear_divisions=True,
    )


_COUNTS = pd.DataFrame(
    {
        "keys": pd.Series([], dtype="int64"),
        "to": pd.Series([], dtype="Int64"),
        "moved": pd.Series([], dtype="int64"),
        "read": pd.Series([], dtype="float64"),
        "plan": pd.Series([], dtype="float64"),
        "write": pd.Series([], dtype="float64"),
    }
)


#: The file a failed task leaves in the staging directory, so that the
#: tasks that start after it skip their file (the run is lost already).
_FAILED = "_failed"


class _ReshardFile:
    """Reads one Parquet file, plans it and writes its moves under
    ``root/to=B/`` (on ``out_fs``); returns (a frame of its counts: one row
    per destination, the file's key count and seconds on the first; None)
    or, when it fails, (None, the error). It never raises, so that a run
    ends only once no task writes into the staging directory any more."""

    def __init__(
        self,
        fs: Any,
        files: Sequence[str],
        out_fs: Any,
        root: str,
        before: ja.Placement,
        after: ja.Placement,
        column: str,
        options: Dict[str, Any],
    ):
        self.fs, self.files, self.out_fs, self.root = fs, list(files), out_fs, root
        self.before, self.after, self.column, self.options = before, after, column, options

    def __call__(self, index: int) -> Tuple[Optional[pd.DataFrame], Optional[BaseException]]:
        marker = posixpath.join(self.root, _FAILED)
        try:
            if self.out_fs.exists(marker):
                return None, None
            return self._run(index), None
        except Exception as error:  # noqa: BLE001 - returned to the client, which raises it
            try:
                self.out_fs.touch(marker)
            except OSError:
                pass  # the other tasks then run their files in vain; the result is the same
            return None, error

    def _run(self, index: int) -> pd.DataFrame:
        self.before.check()
        self.after.check()
        path = self.files[index]
        start = time.perf_counter()
        with self.fs.open(path, "rb") as f:
            reader = pq.ParquetFile(f)
            names = reader.schema_arrow.names
            if self.column not in names:
                raise KeyError(
                    f"no column {self.column!r} in file {path}; its columns are {', '.join(names)}"
                )
            table = reader.read(columns=[self.column])
        read = time.perf_counter()
        moving = ja.moves(
            table, self.before, self.after, column=self.column, where=f"file {path}", **self.options
        )
        planned = time.perf_counter()
        counts = self._write(moving, index)
        written = time.perf_counter()
        first = {
            "keys": table.num_rows,
            "read": read - start,
            "plan": planned - read,
            "write": written - planned,
        }
        rows = [
            dict(first if i == 0 else {}, to=to, moved=n)
            for i, (to, n) in enumerate(counts.items())
        ]
        frame = pd.DataFrame(rows or [dict(first, to=None, moved=0)], columns=list(_COUNTS.columns))
        return frame.fillna({"keys": 0, "read": 0.0, "plan": 0.0, "write": 0.0}).astype(
            _COUNTS.dtypes.to_dict()
        )

    def _write(self, moving: pa.Table, index: int) -> Dict[Optional[int], int]:
        """Writes the moves grouped by destination."""
        if moving.num_rows == 0:
            return {}
        # A stable sort: each destination's moves stay in input order, nulls last.
        order = pc.array_sort_indices(moving.column("to"))
        moving = moving.take(order)
        destinations = moving.column("to").combine_chunks()
        counts: Dict[Optional[int], int] = {}
        start = 0
        for to, n in zip(*_runs(destinations)):
            group = moving.slice(start, n).drop_columns(["to"])
            name = "__HIVE_DEFAULT_PARTITION__" if to is None else str(to)
            directory = posixpath.join(self.root, f"to={name}")
            try:
                # Not its parents: once a failed run's staging directory is
                # removed, a late task cannot make it again.
                self.out_fs.mkdir(directory, create_parents=False)
            except FileExistsError:
                pass
            with self.out_fs.open(
                posixpath.join(directory, f"part-{index:05d}.parquet"), "wb"
            ) as f:
                pq.write_table(group, f)
            counts[to] = n
            start += n
        return counts


def _runs(values: pa.Array):
    """(values, lengths) of the runs of equal values of a sorted array."""
    encoded = pc.run_end_encode(values)
    ends = encoded.run_ends.to_pylist()
    return encoded.values.to_pylist(), [b - a for a, b in zip([0] + ends[:-1], ends)]


def reshard_parquet(
    src: str,
    from_buckets: Cluster,
    to_buckets: Cluster,
    dst: str,
    column: str = "key",
    storage_options: Optional[Dict[str, Any]] = None,
    *,
    key_type: str = "auto",
    nulls: str = "error",
    out_key: str = "same",
    replicas: int = 1,
) -> Dict[str, Any]:
    """Reads the Parquet dataset ``src`` (a local path or any fsspec URL), a
    task per file, plans every file where it lies, and writes the moving
    keys to ``dst`` as a Parquet dataset partitioned by destination
    (``dst/to=B/``, columns ``key`` and ``from``, and the node names for
    node tables). Returns the summary of the CLI's ``reshard --json``:
    ``keys``, ``moved``, ``from``, ``to`` and ``per_destination`` (bucket ->
    number of keys, buckets receiving none left out), ``null_keys`` when
    ``nulls="keep"`` carried some, and ``seconds``: the tasks' time
    reading, planning and writing, summed.

    ``dst`` must not exist: the dataset is written into a temporary sibling
    directory and renamed to ``dst`` only when every file is written, so
    ``dst`` is complete or absent. A bad key raises the error of
    ``jumpshard.arrow``, naming the file and row."""
    if isinstance(from_buckets, str) and not isinstance(dst, str):
        raise TypeError(
            "reshard_parquet(src, from_buckets, to_buckets, dst): the destination now comes last"
        )
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    options = dict(key_type=key_type, nulls=nulls, out_key=out_key, replicas=replicas)
    ja.moves(pa.table({column: pa.array([], pa.uint64())}), before, after, column=column, **options)
    fs, files = ja.parquet_files(src, storage_options)
    out_fs, root = url_to_fs(dst, **(storage_options or {}))
    with ja.staging(out_fs, root) as staging:
        task = _ReshardFile(fs, files, out_fs, staging, before, after, column, options)
        # A task per file, on the current client if there is one. Every task
        # returns, failed or not, so that a failure is raised (and the
        # staging directory removed) only when no task writes any more.
        results: List[Tuple[Optional[pd.DataFrame], Optional[BaseException]]] = dask.compute(
            *[dask.delayed(task, pure=False)(i) for i in range(len(files))]
        )
        errors = [error for _, error in results if error is not None]
        if errors:
            raise errors[0]
        frames = [frame for frame, _ in results if frame is not None]
        counts = pd.concat([_COUNTS, *frames], ignore_index=True) if frames else _COUNTS
    moved: Dict[Any, int] = {}
    for to, n in zip(counts["to"], counts["moved"]):
        to = None if pd.isna(to) else int(to)
        moved[to] = moved.get(to, 0) + int(n)
    summary = ja.summary(counts["keys"].sum(), moved, before, after)
    summary["seconds"] = {phase: float(counts[phase].sum()) for phase in ("read", "plan", "write")}
    return summary
