"""Jump consistent hash on Spark (PySpark 4.1 or later): a bucket column,
the move plan of a DataFrame, and the resharding of a Parquet dataset, all
on Arrow batches (no Python call per row) and bit-exact with
``jumpshard.plan`` and the CLI.

Spark has no unsigned 64-bit type: it reads a Parquet ``UINT_64`` column
as ``decimal(20,0)``. Keys may be that decimal, ``bigint`` (the same 64
bits, so keys above 2**63 stored signed round-trip) or ``binary``/``string``
(the fixed XXH3 pre-hash); see ``jumpshard.arrow`` for ``key_type``,
``nulls`` and ``out_key``. A cluster is a bucket count, a
``jumpshard.Memento``, a ``jumpshard.Weights`` or a ``jumpshard.NodeTable``
(whose moves also name the nodes); every task checks that it places keys
with the same state as the driver.

The jumpshard wheel must be installed where the executors' Python runs:
ship a packed virtual environment with ``spark.archives`` (see
docs/engines.md). Errors raised in a task reach the driver as Spark's
``PythonException``; ``reshard_parquet`` turns a bad key into a
``ValueError`` naming the file and row.

    >>> import jumpshard.spark as js                      # doctest: +SKIP
    >>> df.select("key", js.bucket("key", 12).alias("shard"))   # doctest: +SKIP
    >>> js.moves(df, 10, 12).show()                        # doctest: +SKIP
    >>> js.reshard_parquet("s3a://keys/", 10, 12, "s3a://moves/")  # doctest: +SKIP
    {'keys': ..., 'moved': ..., 'from': 10, 'to': 12, 'per_destination': {...}}
"""

from __future__ import annotations

import re
import uuid
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Dict, Iterator, Optional, Union

import pyarrow as pa
from pyspark import TaskContext
from pyspark.errors import AnalysisException, PythonException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import DecimalType, IntegerType, IntegralType, LongType, StructType

from . import arrow as ja
from ._files import discard
from ._keys import _count

__all__ = ["BATCH_ROWS", "bucket", "moves", "reshard_parquet"]

#: Rows per Arrow batch while ``reshard_parquet`` runs (Spark's
#: ``spark.sql.execution.arrow.maxRecordsPerBatch``, 10,000 by default):
#: larger batches spread the per-batch cost of Python over more keys.
BATCH_ROWS = 1 << 20

_ARROW_ROWS = "spark.sql.execution.arrow.maxRecordsPerBatch"


def _where() -> str:
    context = TaskContext.get()
    return f"Spark partition {context.partitionId()}" if context is not None else ""


def _name(key: Union[str, Column]) -> str:
    return key if isinstance(key, str) else str(key)


def bucket(
    key: Union[str, Column],
    cluster: ja.Cluster,
    *,
    key_type: str = "auto",
    nulls: str = "error",
) -> Column:
    """The bucket of every key of ``key`` (a column name or expression) as
    an ``int`` column, computed on Arrow batches; null where the key is null
    and ``nulls="keep"``."""
    from pyspark.sql.functions import arrow_udf

    if not isinstance(key, (str, Column)):
        raise TypeError(f"key must be a column name or a Column, not {type(key).__name__}")
    placement = ja.placement(cluster)
    ja._choice("key_type", key_type, ja.KEY_TYPES)
    ja._choice("nulls", nulls, ja.NULLS)
    name = _name(key)

    def buckets(keys: pa.Array) -> pa.Array:
        placement.check()
        return ja.buckets(
            keys,
            placement,
            column=name,
            key_type=key_type,
            nulls=nulls,
            where=f"an Arrow batch of {_where()}",
        )

    return arrow_udf(buckets, IntegerType())(key)


def _arrow_type(df: DataFrame, column: str) -> pa.DataType:
    if column not in df.columns:
        raise KeyError(f"no column {column!r}; the columns are {', '.join(df.columns)}")
    return to_arrow_schema(StructType([df.schema[column]])).field(0).type


def moves(
    df: DataFrame,
    from_buckets: ja.Cluster,
    to_buckets: ja.Cluster,
    column: str = "key",
    *,
    key_type: str = "auto",
    nulls: str = "error",
    keep_columns: bool = False,
    out_key: str = "same",
    replicas: int = 1,
) -> DataFrame:
    """The rows of ``df`` whose key moves when ``from_buckets`` becomes
    ``to_buckets``: ``key``, ``from``, ``to``, then ``from_node`` and
    ``to_node`` for node tables, then ``df``'s other columns when
    ``keep_columns``. Lazy, through ``mapInArrow``: no shuffle, and only the
    moving rows leave the Python workers. ``out_key`` may be ``"same"``,
    ``"int64"`` or ``"decimal"`` (Spark has no unsigned type);
    ``replicas=k`` plans replica sets of ``k`` members."""
    if out_key == "uint64":
        raise ValueError("Spark has no unsigned 64-bit type: use out_key='decimal' or 'int64'")
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    key_arrow = _arrow_type(df, column)
    others = [f for f in df.schema.fields if f.name != column] if keep_columns else []
    other_arrow = list(to_arrow_schema(StructType(others))) if others else []
    # Type errors show now, on the driver, before any task runs.
    empty = pa.table({column: pa.array([], key_arrow)})
    ja.moves(
        empty, before, after, column=column, key_type=key_type, out_key=out_key, replicas=replicas
    )
    schema = from_arrow_schema(ja.moves_schema(key_arrow, before, after, other_arrow, out_key))
    if others:
        schema = StructType(schema.fields[: len(schema.fields) - len(others)] + others)

    def plan(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        before.check()
        after.check()
        where, offset = _where(), 0
        for batch in batches:
            moving = ja.moves(
                batch,
                before,
                after,
                column=column,
                key_type=key_type,
                nulls=nulls,
                keep_columns=keep_columns,
                out_key=out_key,
                replicas=replicas,
                where=where,
                offset=offset,
            )
            offset += batch.num_rows
            yield from moving.to_batches()

    return df.mapInArrow(plan, schema)


@contextmanager
def _arrow_rows(spark: SparkSession, rows: int) -> Iterator[None]:
    old = spark.conf.get(_ARROW_ROWS, None)
    spark.conf.set(_ARROW_ROWS, str(rows))
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(_ARROW_ROWS)
        else:
            spark.conf.set(_ARROW_ROWS, old)


def _bad_rows(df: DataFrame, column: str, key_type: str, nulls: str) -> Column:
    """A filter that holds on the rows ``jumpshard.arrow.keys`` refuses."""
    c = F.col(column)
    bad = c.isNull() if nulls == "error" else F.lit(False)
    t = df.schema[column].dataType
    if isinstance(t, DecimalType):
        bad = bad | (c < 0) | (c != F.floor(c)) | (c > F.lit(Decimal(2**64 - 1)))
    elif isinstance(t, IntegralType) and (key_type == "uint64" or not isinstance(t, LongType)):
        bad = bad | (c < 0)
    return bad


def _task_error(error: PythonException) -> Exception:
    """The exception a task raised, rebuilt on the driver from its text."""
    found = re.findall(r"^(ValueError|TypeError|KeyError|RuntimeError): (.*)$", str(error), re.M)
    if not found:
        return error
    kind, message = found[-1]
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
    spark: Optional[SparkSession] = None,
    batch_rows: int = BATCH_ROWS,
) -> Dict[str, Any]:
    """Reads the Parquet dataset ``src`` (any path Spark reads), plans every
    partition where it lies and writes the moving keys to ``out`` as
    Parquet: ``out/to=B/`` holding ``key`` and ``from`` (and the node
    names for node tables) when ``by_destination``, else one dataset with a
    ``to`` column. Returns the summary of the CLI's ``reshard --json``:
    ``keys``, ``moved``, ``from``, ``to``, ``per_destination`` (bucket ->
    keys, buckets receiving none left out), and ``null_keys`` when
    ``nulls="keep"`` carried some through.

    ``out`` must not exist: Spark writes into a temporary sibling, which is
    renamed to ``out`` once the job commits and deleted if it fails, so
    ``out`` is complete or absent. A bad key raises ``ValueError`` naming
    the column, the file and the row."""
    if isinstance(src, str) and isinstance(from_buckets, str):
        raise TypeError(
            "reshard_parquet(src, from_buckets, to_buckets, out): the output comes last"
        )
    # Every argument is checked before Spark is asked anything.
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    ja._choice("key_type", key_type, ja.KEY_TYPES)
    ja._choice("nulls", nulls, ja.NULLS)
    ja.moves(
        pa.table({column: pa.array([], pa.uint64())}),
        before,
        after,
        column=column,
        out_key=out_key,
        replicas=replicas,
    )
    batch_rows = _count("batch_rows", batch_rows)
    spark = spark or SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("no active SparkSession: start one, or pass spark=")
    try:
        df = spark.read.parquet(src)
    except AnalysisException as error:
        # As the other engines' parquet_files says it (a missing path, or a
        # directory without Parquet files, is where Spark finds no schema).
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise FileNotFoundError(f"{src}: no Parquet files Spark can read ({first})") from error
    if column not in df.columns:
        raise KeyError(f"no column {column!r} in {src}; its columns are {', '.join(df.columns)}")
    planned = moves(
        df.select(column),
        before,
        after,
        column,
        key_type=key_type,
        nulls=nulls,
        out_key=out_key,
        replicas=replicas,
    )

    jvm = spark.sparkContext._jvm
    target = jvm.org.apache.hadoop.fs.Path(out)
    fs = target.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if fs.exists(target):
        raise FileExistsError(f"{out} exists: give a new destination")
    temporary = jvm.org.apache.hadoop.fs.Path(
        target.getParent(), f".{target.getName()}.tmp-{uuid.uuid4().hex}"
    )
    try:
        with _arrow_rows(spark, batch_rows):
            writer = planned.write.mode("errorifexists")
            (writer.partitionBy("to") if by_destination else writer).parquet(temporary.toString())
        if fs.exists(target):
            raise FileExistsError(
                f"{out} appeared while it was written: the result is not moved over it"
            )
        if not fs.rename(temporary, target):
            raise OSError(f"could not rename {temporary.toString()} to {out}")
    except BaseException as error:
        # Tasks of the failed job may still write: removed until it stays gone,
        # and a failed removal never hides the job's own error.
        discard(lambda: fs.exists(temporary), lambda: fs.delete(temporary, True))
        if isinstance(error, PythonException):
            _locate(df, column, key_type, nulls)
            raise _task_error(error) from error
        raise
    # The schema is given, as a plan that moves nothing writes no data file.
    written = spark.read.schema(planned.schema).parquet(out).groupBy("to").count().toArrow()
    counts = dict(zip(written.column("to").to_pylist(), written.column("count").to_pylist()))
    return ja.summary(df.count(), counts, from_buckets, to_buckets)


def _locate(df: DataFrame, column: str, key_type: str, nulls: str) -> None:
    """Finds the first bad key of a Parquet dataset by its file metadata and
    raises the error ``jumpshard.arrow`` gives for it, naming file and row."""
    found = (
        df.where(_bad_rows(df, column, key_type, nulls))
        .select(column, "_metadata.file_path", "_metadata.row_index")
        .limit(1)
        .toArrow()
    )
    if found.num_rows:
        path, row = found.column(1)[0].as_py(), found.column(2)[0].as_py()
        ja.keys(
            found.column(0),
            column=column,
            key_type=key_type,
            nulls=nulls,
            where=f"file {path}",
            offset=row,
        )
