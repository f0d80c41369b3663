"""Jump consistent hash on Polars (tested with 2.1): bucket expressions, the
move plan of a LazyFrame, and the resharding of a Parquet dataset, all on
Arrow data through ``jumpshard.arrow`` (the code every engine module
shares), lazy, and run in Polars' streaming engine: a file larger than
memory is planned a morsel at a time.

Importing this module registers the ``jumpshard`` expression namespace:

>>> import polars as pl, jumpshard, jumpshard.polars
>>> df = pl.DataFrame({"key": pl.Series([0, 1, 2**63, 2**64 - 1], dtype=pl.UInt64)})
>>> df.select(pl.col("key").jumpshard.bucket(12))["key"].to_list()
[0, 6, 5, 10]
>>> df.select(pl.col("key").jumpshard.moved_to(10, 12))["key"].to_list()
[None, None, None, 10]
>>> jumpshard.polars.moves(df, 10, 12).collect(engine="streaming").rows()
[(18446744073709551615, 9, 10)]

Keys may be ``UInt64``, ``Int64`` (the same 64 bits, so keys above 2**63
stored signed round-trip), ``Decimal(20, 0)``, the other integer types
when not negative, or ``String``/``Binary`` (the fixed XXH3 pre-hash);
see ``jumpshard.arrow`` for ``key_type``, ``nulls`` and ``out_key``. A
cluster is a bucket count, a ``jumpshard.Memento``, a ``jumpshard.Weights``
or a ``jumpshard.NodeTable`` (whose moves also name the nodes in
``from_node`` and ``to_node``), checked when the expression or plan is
built. Errors raised in a batch name the column and the row in that
batch; ``reshard_parquet`` names the file and the row instead.

    >>> jumpshard.polars.reshard_parquet("keys/", 10, 12, "moves/")  # doctest: +SKIP
    {'keys': ..., 'moved': ..., 'from': 10, 'to': 12, 'per_destination': {...}}
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Union

import numpy as np
import polars as pl
import pyarrow as pa
from fsspec.core import url_to_fs

from . import arrow as ja

__all__ = ["JumpshardExpr", "moves", "reshard_parquet"]

#: Where a batch function's errors say the bad key is (Polars does not tell
#: a function which file or rows a morsel comes from).
_WHERE = "a polars batch"


def _options(key_type: str, nulls: str) -> None:
    ja._choice("key_type", key_type, ja.KEY_TYPES)
    ja._choice("nulls", nulls, ja.NULLS)


@pl.api.register_expr_namespace("jumpshard")
class JumpshardExpr:
    """``expr.jumpshard``: jump hash of the keys ``expr`` gives, a batch of
    keys per call (``Expr.map_batches``, elementwise, so that Polars runs it
    on morsels in the streaming engine)."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def bucket(
        self, cluster: ja.Cluster, *, key_type: str = "auto", nulls: str = "error"
    ) -> pl.Expr:
        """The bucket of every key, ``Int32``; null where the key is null
        and ``nulls="keep"``."""
        placement = ja.placement(cluster)
        _options(key_type, nulls)

        def buckets(keys: pl.Series) -> pl.Series:
            placement.check()
            found = ja.buckets(
                keys.to_arrow(),
                placement,
                column=keys.name,
                key_type=key_type,
                nulls=nulls,
                where=_WHERE,
            )
            return pl.from_arrow(found)

        return self._expr.map_batches(buckets, return_dtype=pl.Int32, is_elementwise=True)

    def moved_to(
        self,
        from_cluster: ja.Cluster,
        to_cluster: ja.Cluster,
        *,
        key_type: str = "auto",
        nulls: str = "error",
    ) -> pl.Expr:
        """The bucket a key moves to when ``from_cluster`` becomes
        ``to_cluster``, ``Int32``; null where it stays (and where the key is
        null and ``nulls="keep"``)."""
        before, after = ja.placement(from_cluster, "from"), ja.placement(to_cluster, "to")
        _options(key_type, nulls)

        def moved(keys: pl.Series) -> pl.Series:
            before.check()
            after.check()
            bits, valid = ja.keys(
                keys.to_arrow(), column=keys.name, key_type=key_type, nulls=nulls, where=_WHERE
            )
            new = after.batch(bits)
            to = np.zeros(len(keys), np.int32)
            stays = np.ones(len(keys), bool)  # a null key stays null
            rows = slice(None) if valid is None else valid
            to[rows], stays[rows] = new, before.batch(bits) == new
            return pl.from_arrow(pa.array(to, mask=stays))

        return self._expr.map_batches(moved, return_dtype=pl.Int32, is_elementwise=True)


def moves(
    lf: Union[pl.LazyFrame, pl.DataFrame],
    from_buckets: ja.Cluster,
    to_buckets: ja.Cluster,
    column: str = "key",
    *,
    key_type: str = "auto",
    nulls: str = "error",
    keep_columns: bool = False,
    out_key: str = "same",
    replicas: int = 1,
) -> pl.LazyFrame:
    """The rows of ``lf`` (a LazyFrame or a DataFrame) whose key moves when
    ``from_buckets`` becomes ``to_buckets``, as a LazyFrame: ``key``,
    ``from``, ``to``, then ``from_node`` and ``to_node`` for node tables,
    then ``lf``'s other columns when ``keep_columns``; in input order, and
    null keys kept with null buckets when ``nulls="keep"``. Each morsel is
    planned by ``jumpshard.arrow.moves`` (``LazyFrame.map_batches``,
    streamable); ``replicas=k`` plans replica sets of ``k`` members."""
    options = dict(
        column=column,
        key_type=key_type,
        nulls=nulls,
        keep_columns=keep_columns,
        out_key=out_key,
        replicas=replicas,
    )
    return _moves(lf, from_buckets, to_buckets, options)


def _moves(
    lf: Union[pl.LazyFrame, pl.DataFrame],
    from_buckets: ja.Cluster,
    to_buckets: ja.Cluster,
    options: Dict[str, Any],
    failures: Optional[List[Exception]] = None,
) -> pl.LazyFrame:
    """``moves``; with a ``failures`` list, a batch that fails appends its
    error there and yields no rows, as every later batch does, so that a
    sink still ends normally (see ``reshard_parquet``)."""
    before, after = ja.placement(from_buckets, "from"), ja.placement(to_buckets, "to")
    column = options["column"]
    lf = lf.lazy()
    schema = lf.collect_schema()
    if column not in schema:
        raise KeyError(f"no column {column!r}; the columns are {', '.join(schema.names())}")
    if not options["keep_columns"]:
        lf = lf.select(column)
    # The empty frame gives the output schema, and refuses bad types and options now.
    empty = pl.from_arrow(
        ja.moves(pl.DataFrame(schema=lf.collect_schema()).to_arrow(), before, after, **options)
    )

    def plan(batch: pl.DataFrame) -> pl.DataFrame:
        if failures:
            return empty
        try:
            before.check()
            after.check()
            return pl.from_arrow(ja.moves(batch.to_arrow(), before, after, where=_WHERE, **options))
        except (ValueError, TypeError, KeyError, RuntimeError) as error:
            if failures is None:
                raise
            failures.append(error)
            return empty

    return lf.map_batches(plan, schema=empty.schema, streamable=True)


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
) -> Dict[str, Any]:
    """Reads the Parquet dataset ``src`` (a file, or a directory read
    recursively as ``jumpshard.arrow.parquet_files`` lists it; local or an
    fsspec URL Polars also reads), plans it in the streaming engine and
    writes the moving keys to ``out`` as Parquet: ``out/to=B/*.parquet``
    holding ``key`` and ``from`` (and the node names for node tables) when
    ``by_destination``, else ``out/moves.parquet`` with a ``to`` column.
    Returns the summary of the CLI's ``reshard --json``: ``keys``,
    ``moved``, ``from``, ``to``, ``per_destination`` (bucket -> keys,
    buckets receiving none left out), and ``null_keys`` when ``nulls="keep"``
    carried some through.

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
    _options(key_type, nulls)
    ja._choice("out_key", out_key, ja.OUT_KEYS)
    fs, files = ja.parquet_files(src)
    urls = [fs.unstrip_protocol(path) for path in files]
    out_fs, root = url_to_fs(out)
    # A failed sink returns while its writers still close their files (Polars
    # 2.1), which then land in the temporary directory after its removal. So a
    # bad batch only records its error (later batches are read, not planned)
    # and the sink ends normally; after an error of Polars' own (a file of
    # another schema, say) its writers are waited for.
    failures: List[Exception] = []
    options = dict(
        column=column,
        key_type=key_type,
        nulls=nulls,
        keep_columns=False,
        out_key=out_key,
        replicas=replicas,
    )
    try:
        planned = _moves(pl.scan_parquet(urls), before, after, options, failures)
        with ja.staging(out_fs, root) as staging:
            target = out_fs.unstrip_protocol(staging)
            try:
                if by_destination:
                    planned.sink_parquet(
                        pl.PartitionBy(target, key="to", include_key=False), engine="streaming"
                    )
                else:
                    planned.sink_parquet(f"{target}/moves.parquet", engine="streaming")
            except pl.exceptions.PolarsError:
                _settle(out_fs, staging)
                raise
            if failures:
                raise failures[0]
    except (ValueError, TypeError, KeyError, RuntimeError, pl.exceptions.PolarsError):
        # Polars reads morsels of files it does not name: find the bad key on disk.
        ja.locate(fs, files, column=column, key_type=key_type, nulls=nulls)
        raise
    counts = _written(out_fs, root, by_destination)
    keys = pl.scan_parquet(urls).select(pl.len()).collect(engine="streaming").item()
    return ja.summary(keys, counts, before, after)


def _settle(fs: Any, root: str, quiet: float = 0.25) -> None:
    """Returns once nothing under ``root`` has changed for ``quiet`` seconds."""
    seen = None
    while True:
        now = sorted(
            (path, info.get("size"))
            for path, info in fs.find(root, withdirs=True, detail=True).items()
        )
        if now == seen:
            return
        seen = now
        time.sleep(quiet)


def _written(fs: Any, root: str, by_destination: bool) -> Dict[Any, int]:
    """{bucket (None for null keys): moves} of the dataset written at ``root``."""
    if not fs.find(root):
        return {}  # no moves, so no to=B directory
    scan = pl.scan_parquet(
        fs.unstrip_protocol(root) + "/",
        hive_partitioning=by_destination,
        hive_schema={"to": pl.Int32} if by_destination else None,
    )
    counts = scan.group_by("to").len().collect(engine="streaming")
    return {to: int(n) for to, n in counts.iter_rows()}
