"""jumpshard.polars in Polars' streaming engine: bucket expressions, move
plans and resharding of Parquet files (4 files of 5,000 keys, the 64-bit
extremes and many keys above 2**63 among them), checked against
`jumpshard.plan`, the CLI when JUMPSHARD_CLI names one, and every bad input."""

import os
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import (
    NULLS_BEFORE_BAD,
    BAD_KEYS,
    assert_nothing_written,
    cli_reshard,
    write_parquet,
    write_parquet_keys,
)

pl = pytest.importorskip("polars")

import jumpshard  # noqa: E402
import jumpshard.arrow as ja  # noqa: E402
import jumpshard.polars as jp  # noqa: E402

FILES = 4


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, engine_keys):
    """(directory, keys): Parquet UINT_64 keys and their positions as `payload`."""
    root = tmp_path_factory.mktemp("polars") / "keys"
    write_parquet_keys(root, engine_keys, FILES)
    return root, engine_keys


def plan_rows(keys, before, after):
    plan = jumpshard.plan(keys, before, after)
    return {int(keys[p]): (int(f), int(t)) for p, f, t in zip(plan.positions, plan.from_, plan.to)}


def rows(table, *columns):
    """{key: (columns...)} of a pyarrow table or polars frame."""
    table = table.to_arrow() if isinstance(table, pl.DataFrame) else table
    keys = [int(k) for k in table.column("key").to_pylist()]
    return dict(zip(keys, zip(*(table.column(c).to_pylist() for c in columns))))


def test_bucket_expression(dataset):
    root, keys = dataset
    got = (
        pl.scan_parquet(root)
        .select("payload", pl.col("key").jumpshard.bucket(12).alias("b"))
        .collect(engine="streaming")
    )
    assert got.schema["b"] == pl.Int32
    np.testing.assert_array_equal(
        got["b"].to_numpy(), jumpshard.batch(keys[got["payload"].to_numpy()], 12)
    )
    # Int64 holding the same bits, and Decimal(20, 0): the same buckets.
    signed = pl.DataFrame({"key": keys.view(np.int64)})
    np.testing.assert_array_equal(
        signed.select(pl.col("key").jumpshard.bucket(100))["key"].to_numpy(),
        jumpshard.batch(keys, 100),
    )
    decimal = pl.DataFrame(
        {"key": pl.Series([Decimal(int(k)) for k in keys[:500]], dtype=pl.Decimal(20, 0))}
    )
    np.testing.assert_array_equal(
        decimal.select(pl.col("key").jumpshard.bucket(7))["key"].to_numpy(),
        jumpshard.batch(keys[:500], 7),
    )
    memento = jumpshard.Memento(10)
    memento.remove(3)
    got = signed.lazy().select(pl.col("key").jumpshard.bucket(memento)).collect(engine="streaming")
    np.testing.assert_array_equal(got["key"].to_numpy(), memento.batch(keys))


def test_moved_to_expression(dataset):
    root, keys = dataset
    got = (
        pl.scan_parquet(root)
        .select("payload", pl.col("key").jumpshard.moved_to(10, 12).alias("to"))
        .collect(engine="streaming")
    )
    plan = jumpshard.plan(keys, 10, 12)
    want = np.full(len(keys), -1)
    want[plan.positions.astype(np.intp)] = plan.to
    np.testing.assert_array_equal(
        got["to"].fill_null(-1).to_numpy(), want[got["payload"].to_numpy()]
    )


def test_byte_keys_nulls_and_bad_keys():
    words = [f"user:{i}" for i in range(500)]
    df = pl.DataFrame({"s": words, "b": [w.encode() for w in words]})
    got = df.select(pl.col("s").jumpshard.bucket(7), pl.col("b").jumpshard.bucket(7))
    want = jumpshard.bucket_bytes(words, 7)
    np.testing.assert_array_equal(got["s"].to_numpy(), want)
    np.testing.assert_array_equal(got["b"].to_numpy(), want)
    nulls = pl.DataFrame({"key": pl.Series([1, None, 2**64 - 1], dtype=pl.UInt64)})
    kept = nulls.select(
        pl.col("key").jumpshard.bucket(5, nulls="keep").alias("b"),
        pl.col("key").jumpshard.moved_to(1, 12, nulls="keep").alias("to"),
    )
    assert kept["b"].to_list() == [jumpshard.bucket(1, 5), None, jumpshard.bucket(2**64 - 1, 5)]
    # From one bucket to twelve, both keys leave bucket 0.
    assert kept["to"].to_list() == [jumpshard.bucket(1, 12), None, jumpshard.bucket(2**64 - 1, 12)]
    with pytest.raises(ValueError, match=r"column 'key', a polars batch, row 1: the key is null"):
        nulls.select(pl.col("key").jumpshard.bucket(5))
    negative = pl.DataFrame({"key": [1, -5]})
    with pytest.raises(ValueError, match=r"row 1: -5 is negative"):
        negative.select(pl.col("key").jumpshard.bucket(5, key_type="uint64"))
    with pytest.raises(TypeError, match=r"column 'key', a polars batch.*double"):
        pl.DataFrame({"key": [1.5]}).select(pl.col("key").jumpshard.bucket(5))
    # Clusters and options are checked when the expression is built.
    with pytest.raises(TypeError, match="a cluster is"):
        pl.col("key").jumpshard.bucket("ten")
    with pytest.raises(ValueError, match="to_buckets must be between"):
        pl.col("key").jumpshard.moved_to(10, 0)
    with pytest.raises(ValueError, match="key_type must be one of"):
        pl.col("key").jumpshard.bucket(10, key_type="u64")


@pytest.mark.parametrize("before, after", [(10, 12), (12, 10), (1, 5)])
def test_moves_equal_the_plan(dataset, before, after):
    root, keys = dataset
    got = jp.moves(pl.scan_parquet(root), before, after, keep_columns=True).collect(
        engine="streaming"
    )
    assert got.columns == ["key", "from", "to", "payload"]
    assert got.schema["key"] == pl.UInt64 and got.schema["to"] == pl.Int32
    plan = jumpshard.plan(keys, before, after)
    np.testing.assert_array_equal(got["key"].to_numpy(), keys[plan.positions.astype(np.intp)])
    np.testing.assert_array_equal(got["from"].to_numpy(), plan.from_)
    np.testing.assert_array_equal(got["to"].to_numpy(), plan.to)
    np.testing.assert_array_equal(got["payload"].to_numpy(), plan.positions.astype(np.int64))


def test_the_streaming_engine_plans_morsels(dataset, monkeypatch, tmp_path):
    """Every batch function sees a morsel, never the whole input."""
    root, keys = dataset
    sizes = []
    planner = ja.moves

    def counting(table, *args, **kwargs):
        sizes.append(table.num_rows)
        return planner(table, *args, **kwargs)

    monkeypatch.setattr(ja, "moves", counting)
    with pl.Config(streaming_chunk_size=1000):
        got = jp.moves(pl.scan_parquet(root), 10, 12).collect(engine="streaming")
        assert got.height == jumpshard.plan(keys, 10, 12).moved
        assert sum(sizes) == len(keys) and 1 < max(sizes) < len(keys)
        sizes.clear()
        jp.reshard_parquet(str(root), 10, 12, str(tmp_path / "out"))
        assert sum(sizes) == len(keys) and 1 < max(sizes) < len(keys)


def test_moves_of_placements_and_out_keys(dataset):
    root, keys = dataset
    df = pl.read_parquet(root)  # a DataFrame is planned lazily too
    table = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(10)))
    removed = jumpshard.NodeTable(
        "".join(f"n{i} removed=1\n" if i == 4 else f"n{i}\n" for i in range(10))
    )
    named = jp.moves(df, table, removed).collect(engine="streaming")
    assert named.columns == ["key", "from", "to", "from_node", "to_node"]
    assert set(named["from_node"]) == {"n4"} and set(named["from"]) == {4}
    memento = jumpshard.Memento(10)
    memento.remove(4)
    np.testing.assert_array_equal(named["to"].to_numpy(), memento.batch(named["key"].to_numpy()))
    assert named["to_node"].to_list() == [f"n{b}" for b in named["to"]]
    # Weights against a plain count: only bucket 2's keys leave.
    lighter = jp.moves(df, 5, jumpshard.Weights([1.0, 1.0, 0.25, 1.0, 1.0])).collect(
        engine="streaming"
    )
    assert lighter.height > 0 and set(lighter["from"]) == {2}
    # Replica sets: the moves jumpshard.arrow plans on the whole table.
    got = jp.moves(df, table, removed, replicas=3).collect(engine="streaming")
    assert got.rows() == pl.from_arrow(ja.moves(df.to_arrow(), table, removed, replicas=3)).rows()
    # The key column as the same bits in Int64, or as Decimal(20, 0).
    as_int = jp.moves(df, 10, 12, out_key="int64").collect(engine="streaming")
    assert as_int.schema["key"] == pl.Int64
    assert set(as_int["key"].to_numpy().view(np.uint64).tolist()) == set(plan_rows(keys, 10, 12))
    as_decimal = jp.moves(df, 10, 12, out_key="decimal").collect(engine="streaming")
    assert as_decimal.schema["key"] == pl.Decimal(20, 0)
    assert rows(as_decimal, "from", "to") == plan_rows(keys, 10, 12)
    with pytest.raises(KeyError, match="no column 'id'; the columns are key, payload"):
        jp.moves(df, 10, 12, "id")
    with pytest.raises(TypeError, match="column 'payload'.*double"):
        jp.moves(df.with_columns(pl.col("payload").cast(pl.Float64)), 10, 12, "payload")


def test_moves_of_signed_and_byte_keys(dataset):
    _, keys = dataset
    signed = pl.DataFrame({"key": keys.view(np.int64)})
    got = jp.moves(signed, 10, 12).collect(engine="streaming")
    assert got.schema["key"] == pl.Int64
    assert rows(
        got.with_columns(pl.col("key").reinterpret(signed=False)), "from", "to"
    ) == plan_rows(keys, 10, 12)
    with pytest.raises(ValueError, match="is negative, and the keys were declared unsigned"):
        jp.moves(signed, 10, 12, key_type="uint64").collect(engine="streaming")
    words = [f"user:{i}" for i in range(2000)]
    got = jp.moves(pl.DataFrame({"key": words}), 10, 12).collect(engine="streaming")
    old, new = jumpshard.bucket_bytes(words, 10), jumpshard.bucket_bytes(words, 12)
    assert got.rows() == [(w, int(f), int(t)) for w, f, t in zip(words, old, new) if f != t]


def test_reshard_parquet_equals_the_plan(dataset, tmp_path):
    root, keys = dataset
    out = tmp_path / "moves"
    summary = jp.reshard_parquet(str(root), 10, 12, str(out))
    plan = jumpshard.plan(keys, 10, 12)
    per_destination = {b: int(n) for b, n in enumerate(plan.per_destination) if n}
    assert summary == {
        "keys": len(keys),
        "moved": plan.moved,
        "from": 10,
        "to": 12,
        "per_destination": per_destination,
    }
    assert sorted(p.name for p in out.iterdir()) == sorted(f"to={b}" for b in per_destination)
    assert pq.read_table(next(out.glob("to=*/*.parquet"))).column_names == ["key", "from"]
    written = pq.read_table(out)
    got = rows(written, "from", "to")
    assert {k: (f, int(t)) for k, (f, t) in got.items()} == plan_rows(keys, 10, 12)
    assert any(k >= 2**63 for k in got)
    # One file with a `to` column instead.
    flat = jp.reshard_parquet(str(root), 10, 12, str(tmp_path / "flat"), by_destination=False)
    assert flat == summary
    assert [p.name for p in (tmp_path / "flat").iterdir()] == ["moves.parquet"]
    assert rows(pq.read_table(tmp_path / "flat"), "from", "to") == plan_rows(keys, 10, 12)


@pytest.mark.skipif(not os.environ.get("JUMPSHARD_CLI"), reason="JUMPSHARD_CLI names no built CLI")
def test_reshard_parquet_equals_the_cli(dataset, tmp_path):
    root, _ = dataset
    summary = jp.reshard_parquet(str(root), 10, 12, str(tmp_path / "out"))
    cli, cli_moves = cli_reshard(root, ["--from", 10, "--to", 12, "--column", "key"], tmp_path)
    assert {k: cli[k] for k in ("keys", "moved", "from", "to")} == {
        k: summary[k] for k in ("keys", "moved", "from", "to")
    }
    assert {int(b): n for b, n in cli["per_destination"].items()} == summary["per_destination"]
    written = rows(pq.read_table(tmp_path / "out"), "from", "to")
    assert {
        int(k): (int(f), int(t))
        for k, f, t in zip(cli_moves["key"], cli_moves["from"], cli_moves["to"])
    } == {k: (f, int(t)) for k, (f, t) in written.items()}


def test_reshard_parquet_of_node_tables_and_key_types(dataset, tmp_path):
    root, keys = dataset
    old = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(10)))
    new = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(12)))
    summary = jp.reshard_parquet(str(root), old, new, str(tmp_path / "named"))
    assert summary["from"] == repr(old) and summary["moved"] == jumpshard.plan(keys, 10, 12).moved
    named = pq.read_table(tmp_path / "named")
    assert named.column_names == ["key", "from", "from_node", "to_node", "to"]
    assert {k: (f"n{f}", f"n{t}") for k, (f, t) in rows(named, "from", "to").items()} == rows(
        named, "from_node", "to_node"
    )
    # Int64 keys above 2**63 and Decimal(20, 0) keys: the moves of the same 64 bits.
    for name, key in [
        ("signed", pa.array(keys.view(np.int64))),
        ("decimal", pa.array(keys).cast(pa.decimal128(20, 0))),
    ]:
        source = write_parquet(tmp_path / name / "keys.parquet", pa.table({"key": key}))
        out = tmp_path / f"{name}-out"
        assert jp.reshard_parquet(str(source.parent), 10, 12, str(out), out_key="uint64") == {
            **summary,
            "from": 10,
            "to": 12,
        }
        written = pq.read_table(out)
        assert written.schema.field("key").type == pa.uint64()
        assert {k: (f, int(t)) for k, (f, t) in rows(written, "from", "to").items()} == plan_rows(
            keys, 10, 12
        )


@pytest.mark.parametrize("table, options, error, message", BAD_KEYS)
def test_bad_input_names_the_place_and_writes_nothing(tmp_path, table, options, error, message):
    source = write_parquet(tmp_path / "in" / "bad.parquet", table)
    before = source.read_bytes()
    out = tmp_path / "out"
    with pytest.raises(error, match=message):
        jp.reshard_parquet(str(source.parent), 10, 12, str(out), **options)
    assert_nothing_written(out)
    assert source.read_bytes() == before


@pytest.mark.parametrize(
    "keys, error, message",
    [
        (
            pa.array([*range(7), None, 8], pa.uint64()),
            ValueError,
            r"file .*z.parquet, row 7: the key is null",
        ),
        # A type other than the first file's: an error of Polars' own.
        (
            pa.array([float(i) for i in range(9)]),
            TypeError,
            r"column 'key', file .*z.parquet.*double",
        ),
    ],
)
def test_a_bad_file_after_good_files(dataset, tmp_path, keys, error, message):
    """Polars fails while writing: the error names the last file (and row),
    and neither the output nor its temporary sibling remain."""
    root, _ = dataset
    for good in root.iterdir():
        write_parquet(tmp_path / "in" / good.name, pq.read_table(good))
    write_parquet(
        tmp_path / "in" / "z.parquet",
        pa.table({"key": keys, "payload": pa.array(range(9), pa.int64())}),
    )
    out = tmp_path / "out"
    with pytest.raises(error, match=message):
        jp.reshard_parquet(str(tmp_path / "in"), 10, 12, str(out))
    assert_nothing_written(out)


def test_nulls_kept_on_request(tmp_path):
    source = write_parquet(
        tmp_path / "in" / "k.parquet",
        pa.table({"key": pa.array([1, None, 2**64 - 1], pa.uint64())}),
    )
    summary = jp.reshard_parquet(str(source.parent), 1, 12, str(tmp_path / "out"), nulls="keep")
    assert summary == {
        "keys": 3,
        "moved": 2,
        "from": 1,
        "to": 12,
        "per_destination": {jumpshard.bucket(1, 12): 1, jumpshard.bucket(2**64 - 1, 12): 1},
        "null_keys": 1,
    }
    assert (tmp_path / "out" / "to=__HIVE_DEFAULT_PARTITION__").is_dir()
    got = jp.moves(pl.scan_parquet(source), 1, 12, nulls="keep").collect(engine="streaming")
    assert got.rows() == [
        (1, 0, jumpshard.bucket(1, 12)),
        (None, None, None),
        (2**64 - 1, 0, jumpshard.bucket(2**64 - 1, 12)),
    ]


def test_empty_files_and_existing_outputs(tmp_path):
    source = write_parquet(
        tmp_path / "in" / "empty.parquet", pa.table({"key": pa.array([], pa.uint64())})
    )
    summary = jp.reshard_parquet(str(source.parent), 10, 12, str(tmp_path / "out"))
    assert summary == {"keys": 0, "moved": 0, "from": 10, "to": 12, "per_destination": {}}
    assert (tmp_path / "out").is_dir() and not list((tmp_path / "out").iterdir())
    assert (
        jp.reshard_parquet(
            str(source.parent), 10, 12, str(tmp_path / "flat"), by_destination=False
        )["moved"]
        == 0
    )
    # An existing output (the input itself, say) is never replaced.
    before = source.read_bytes()
    with pytest.raises(FileExistsError):
        jp.reshard_parquet(str(source.parent), 10, 12, str(source.parent))
    assert source.read_bytes() == before and [p.name for p in source.parent.iterdir()] == [
        "empty.parquet"
    ]
    with pytest.raises(TypeError, match="output comes last"):
        jp.reshard_parquet(str(source.parent), str(tmp_path / "x"), 10, 12)
    (tmp_path / "none").mkdir()
    with pytest.raises(FileNotFoundError, match="no Parquet files"):
        jp.reshard_parquet(str(tmp_path / "none"), 10, 12, str(tmp_path / "out2"))


def test_a_changed_table_is_refused(dataset, tmp_path):
    root, _ = dataset
    table = ja.placement(jumpshard.NodeTable("a\nb\nc\n"), "to")
    table.digest = "0" * 16  # as if the client's table were another one
    with pytest.raises(RuntimeError, match="differs from the client's"):
        jp.moves(pl.scan_parquet(root), 3, table).collect(engine="streaming")
    with pytest.raises(RuntimeError, match="differs from the client's"):
        jp.reshard_parquet(str(root), 3, table, str(tmp_path / "out"))
    assert_nothing_written(tmp_path / "out")


def test_docstring_examples():
    import doctest

    assert doctest.testmod(jp).failed == 0


@pytest.mark.parametrize("bad, options, row", NULLS_BEFORE_BAD)
def test_a_bad_key_s_row_counts_the_nulls_before_it(bad, options, row):
    # An eager select hands the whole column over as one batch (a LazyFrame's
    # batches are morsels, whose rows the errors count from the morsel's
    # start; reshard_parquet names the file and row instead).
    df = pl.from_arrow(pa.table({"key": bad}))
    for expression in (
        pl.col("key").jumpshard.bucket(10, nulls="keep", **options),
        pl.col("key").jumpshard.moved_to(10, 12, nulls="keep", **options),
    ):
        with pytest.raises(ValueError, match=f"a polars batch, row {row}: "):
            df.select(expression)
