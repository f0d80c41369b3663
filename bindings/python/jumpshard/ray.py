"""Jump consistent hash on Ray Data (tested with Ray 2.60): a bucket
column, the move plan of a Dataset, and the resharding of a Parquet
dataset, all on Arrow batches through ``jumpshard.arrow`` (the code every
engine module shares) and bit-exact with ``jumpshard.plan`` and the CLI.

Every function is lazy or runs on the Ray cluster the process is connected
to: the one ``ray.init`` started, or the local one Ray starts by itself on
first use; this module starts none. Batches reach the tasks as Arrow tables
without a copy (``batch_format="pyarrow"``), ``BATCH_ROWS`` rows at most.

Keys may be ``uint64``, ``int64`` (the same 64 bits, so keys above 2**63
stored signed round-trip), ``decimal(20, 0)``, the other integer types
when not negative, or ``binary``/``string`` (the fixed XXH3 pre-hash); see
``jumpshard.arrow`` for ``key_type``, ``nulls`` and ``out_key``. A cluster
is a bucket count, a ``jumpshard.Memento``, a ``jumpshard.Weights`` or a
``jumpshard.NodeTable`` (whose moves also name the nodes); every task
checks that it places keys with the same state as the driver.

An error raised in a task reaches the caller of a Dataset's consuming
method wrapped by Ray (``RayTaskError``, the task's traceback in its text);
``reshard_parquet`` raises the task's own ``ValueError``, ``TypeError`` or
``KeyError`` instead, naming the file and row of a bad key.

    >>> import ray, jumpshard.ray as jr                        # doctest: +SKIP
    >>> ds = ray.data.read_parquet("s3://keys/")                # doctest: +SKIP
    >>> jr.buckets(ds, 12, name="shard").take(2)                # doctest: +SKIP
    >>> jr.moves(ds, 10, 12).write_parquet("s3://plan/")        # doctest: +SKIP
    >>> jr.reshard_parquet("s3://keys/", 10, 12, "s3://moves/")  # doctest: +SKIP
    {'keys': ..., 'moved': ..., 'from': 10, 'to': 12, 'per_destination': {...}}
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any, Dict, Optional

import pyarrow as pa
import pyarrow.dataset as pads
import ray
import ray.data
from fsspec.core import url_to_fs
from ray.exceptions import RayError

from . import arrow as ja
from ._keys import _count

__all__ = ["BATCH_ROWS", "buckets", "moves", "reshard_parquet"]

#: Rows per batch handed to a task: large batches spread the per-batch cost
#: of Python over many keys (a million 64-bit keys are 8 MB of Arrow data);
#: Ray joins smaller blocks up to this size.
BATCH_ROWS = 1 << 20

#: Where a task's errors say the bad key is (Ray does not tell a batch
#: function which file or rows it holds).
_WHERE = "a Ray batch"


def _empty(ds: ray.data.Dataset, column: str) -> pa.Table:
    """An empty table of ``ds``'s schema when Ray knows it without running
    anything (as for a Parquet read), else of one ``uint64`` column: enough
    to refuse bad types and options before any task runs."""
    schema = ds.schema(fetch_if_missing=False)
    if schema is None or not isinstance(schema.base_schema, pa.Schema):
        return pa.table({column: pa.array([], pa.uint64())})
    return schema.base_schema.empty_table()


def buckets(
    ds: ray.data.Dataset,
    cluster: ja.Cluster,
    column: str = "key",
    *,
    name: str = "bucket",
    key_type: str = "auto",
    nulls: str = "error",
    batch_rows: int = BATCH_ROWS,
) -> ray.data.Dataset:
    """``ds`` with an ``int32`` column ``name`` (replaced if ``ds`` has one):
    the bucket of every key of ``column``, null where the key is null and
    ``nulls="keep"``. Lazy, through ``map_batches``."""
    placement = ja.placement(cluster)
    batch_rows = _count("batch_rows", batch_rows)

    def add(batch: pa.Table) -> pa.Table:
        placement.check()
        if column not in batch.column_names:
            raise KeyError(f"no column {column!r}; the columns are {', '.join(batch.column_names)}")
        found = ja.buckets(
            batch.column(column),
            placement,
            column=column,
            key_type=key_type,
            nulls=nulls,
            where=_WHERE,
        )
        if name in batch.column_names:
            return batch.set_column(batch.column_names.index(name), name, found)
        return batch.append_column(name, found)

    add(_empty(ds, column))  # bad types and options fail now, on the driver
    return ds.map_batches(add, batch_format="pyarrow", batch_size=batch_rows)


def moves(
    ds: ray.data.Dataset,
    from_buckets: ja.Cluster,
    to_buckets: ja.Cluster,
    column: str = "key",
    *,
    key_type: str = "auto",
    nulls: str = "error",
    keep_columns: bool = False,
    out_key: str = "same",
    replicas: int = 1,
    batch_rows: int = BATCH_ROWS,
) -> ray.data.Dataset:
    """The rows of ``ds`` whose key moves when ``from_buckets`` becomes
    ``to_buckets``: ``key``, ``from``, ``to``, then ``from_node`` and
    ``to_node`` for node tables, then ``ds``'s other columns when
    ``keep_columns``; null keys kept with null buckets when
    ``nulls="keep"``. Lazy, through ``map_batches``: no shuffle, and only
    the moving rows leave the tasks. ``replicas=k`` plans replica sets of
    ``k`` members."""
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    batch_rows = _count("batch_rows", batch_rows)
    options = dict(
        column=column,
        key_type=key_type,
        nulls=nulls,
        keep_columns=keep_columns,
        out_key=out_key,
        replicas=replicas,
    )
    ja.moves(_empty(ds, column), before, after, **options)

    def plan(batch: pa.Table) -> pa.Table:
        before.check()
        after.check()
        return ja.moves(batch, before, after, where=_WHERE, **options)

    return ds.map_batches(plan, batch_format="pyarrow", batch_size=batch_rows)


#: The exception a task raised, as its traceback's last line shows it.
_RAISED = re.compile(r"^(ValueError|TypeError|KeyError|RuntimeError): (.*)$", re.M)


def _task_error(error: RayError) -> Optional[Exception]:
    """The exception a task raised, rebuilt from the traceback text Ray
    keeps of it (Ray Data wraps it in a ``UserCodeException``, whose cause
    does not survive the trip to the driver); None for another error."""
    found = _RAISED.findall(str(error))
    if not found:
        return None
    kind, message = found[-1]
    if kind == "KeyError" and message[:1] in ("'", '"'):
        message = ast.literal_eval(message)  # a KeyError prints the repr of its text
    return {
        "ValueError": ValueError,
        "TypeError": TypeError,
        "KeyError": KeyError,
        "RuntimeError": RuntimeError,
    }[kind](message)


def reshard_parquet(
    src: str,
    from_buckets: ja.Cluster,
    to_buckets: ja.Cluster,
    out: str,
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
    out_key: str = "same",
    replicas: int = 1,
    by_destination: bool = True,
    batch_rows: int = BATCH_ROWS,
) -> Dict[str, Any]:
    """Reads the Parquet dataset ``src`` (a file or a directory of
    ``.parquet`` files, any path Ray reads), plans every batch where it is
    read and writes the moving keys to ``out`` as Parquet: ``out/to=B/``
    holding ``key`` and ``from`` (and the node names for node tables) when
    ``by_destination``, else one dataset with a ``to`` column. Returns the
    summary of the CLI's ``reshard --json``: ``keys``, ``moved``, ``from``,
    ``to``, ``per_destination`` (bucket -> keys, buckets receiving none
    left out), and ``null_keys`` when ``nulls="keep"`` carried some through.

    ``out`` must not exist: the moves are written into a temporary sibling,
    renamed to ``out`` when complete and deleted on failure, so ``out`` is
    complete or absent. A bad key raises ``ValueError`` or ``TypeError``
    naming the column, the file and the row. ``replicas=k`` plans replica
    sets of ``k`` members."""
    if isinstance(from_buckets, str):
        raise TypeError(
            "reshard_parquet(src, from_buckets, to_buckets, out): the output comes last"
        )
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    ja._choice("key_type", key_type, ja.KEY_TYPES)
    ja._choice("nulls", nulls, ja.NULLS)
    ja._choice("out_key", out_key, ja.OUT_KEYS)
    ja.moves(
        pa.table({column: pa.array([], pa.uint64())}),
        before,
        after,
        column=column,
        out_key=out_key,
        replicas=replicas,
    )
    batch_rows = _count("batch_rows", batch_rows)
    out_fs, root = url_to_fs(out)
    # One path, which Ray lists itself: a list of paths Ray 2.60 resolves on
    # threads, which race to import fsspec's HTTP filesystem without aiohttp.
    read = ray.data.read_parquet(src)
    try:
        planned = moves(
            read.select_columns([column]),
            before,
            after,
            column,
            key_type=key_type,
            nulls=nulls,
            out_key=out_key,
            replicas=replicas,
            batch_rows=batch_rows,
        )
        with ja.staging(out_fs, root) as staging:
            planned.write_parquet(
                out_fs.unstrip_protocol(staging), partition_cols=["to"] if by_destination else None
            )
    except (RayError, ValueError, TypeError, KeyError) as error:
        # Ray names no file: find the bad key on disk, else raise the task's error.
        fs, files = ja.parquet_files(src)
        ja.locate(fs, files, column=column, key_type=key_type, nulls=nulls)
        raised = _task_error(error) if isinstance(error, RayError) else None
        if raised is None:
            raise
        raise raised from error
    counts = _written(out_fs, root, by_destination)
    return ja.summary(read.count(), counts, before, after)


def _written(fs: Any, root: str, by_destination: bool) -> Counter:
    """{bucket (None for null keys): moves} of the dataset written at
    ``root``, from its ``to`` directories or column, a batch at a time."""
    counts: Counter = Counter()
    files = fs.find(root)
    if not files:
        return counts  # no moves, so no to=B directory
    partitioning: Optional[pads.Partitioning] = (
        pads.partitioning(pa.schema([("to", pa.int32())]), flavor="hive")
        if by_destination
        else None
    )
    dataset = pads.dataset(
        files, filesystem=fs, format="parquet", partitioning=partitioning, partition_base_dir=root
    )
    for batch in dataset.to_batches(columns=["to"]):
        to = batch.column(0)
        counts.update(ja.per_destination(to))
        counts[None] += to.null_count
    return counts
