"""jumpshard.spark on Spark in local[2] (pip's pyspark, a Debian JRE), one
session for every test, bound to 127.0.0.1: bucket columns, move plans and
resharding of Parquet files, checked against `jumpshard.plan` and the CLI
on the same files, keys above 2**63 included, and every bad input."""

import os
import sys
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import (
    BAD_KEYS,
    assert_nothing_written,
    cli_reshard,
    write_parquet,
    write_parquet_keys,
)

pyspark = pytest.importorskip("pyspark")

import jumpshard  # noqa: E402
import jumpshard.arrow as ja  # noqa: E402
import jumpshard.spark as js  # noqa: E402

pytestmark = pytest.mark.spark

FILES = 4


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The workers run this interpreter, where the jumpshard under test is.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    session = (
        SparkSession.builder.master("local[2]")
        .appName("jumpshard-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    # Tasks that fail on purpose would log their traceback twice.
    session.sparkContext.setLogLevel("OFF")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, engine_keys):
    """(directory, keys): Parquet UINT_64 keys, which Spark reads as decimal(20,0)."""
    root = tmp_path_factory.mktemp("spark") / "keys"
    write_parquet_keys(root, engine_keys, FILES)
    return root, engine_keys


def plan_rows(keys, before, after):
    plan = jumpshard.plan(keys, before, after)
    return {int(keys[p]): (int(f), int(t)) for p, f, t in zip(plan.positions, plan.from_, plan.to)}


def test_spark_reads_uint64_as_decimal(spark, dataset):
    root, _ = dataset
    assert spark.read.parquet(str(root)).schema["key"].dataType.simpleString() == "decimal(20,0)"


def test_bucket_column(spark, dataset):
    root, keys = dataset
    df = spark.read.parquet(str(root))
    got = df.select("key", "payload", js.bucket("key", 12).alias("b")).toArrow()
    positions = got.column("payload").to_numpy()
    np.testing.assert_array_equal(got.column("b").to_numpy(), jumpshard.batch(keys[positions], 12))
    # int64 holding the same bits: the same buckets.
    signed = spark.createDataFrame(
        [(int(p), int(np.int64(keys[p].view(np.int64)))) for p in range(0, len(keys), 97)],
        "payload long, key long",
    )
    got = signed.select("payload", js.bucket("key", 100).alias("b")).toArrow()
    positions = got.column("payload").to_numpy()
    np.testing.assert_array_equal(got.column("b").to_numpy(), jumpshard.batch(keys[positions], 100))


def test_bucket_column_of_byte_keys_and_nulls(spark):
    words = [f"user:{i}" for i in range(500)]
    df = spark.createDataFrame([(w, w.encode()) for w in words], "s string, b binary")
    got = df.select(js.bucket("s", 7).alias("s"), js.bucket("b", 7).alias("b")).toArrow()
    want = jumpshard.bucket_bytes(words, 7)
    np.testing.assert_array_equal(got.column("s").to_numpy(), want)
    np.testing.assert_array_equal(got.column("b").to_numpy(), want)
    nulls = spark.createDataFrame([(1,), (None,), (3,)], "key long")
    assert nulls.select(js.bucket("key", 5, nulls="keep").alias("b")).toArrow().column(
        "b"
    ).to_pylist() == [
        jumpshard.bucket(1, 5),
        None,
        jumpshard.bucket(3, 5),
    ]
    with pytest.raises(Exception, match="Spark partition .*: the key is null"):
        nulls.select(js.bucket("key", 5)).collect()


@pytest.mark.parametrize("before, after", [(10, 12), (12, 10), (1, 5)])
def test_moves_equal_the_plan(spark, dataset, before, after):
    root, keys = dataset
    got = js.moves(spark.read.parquet(str(root)), before, after, keep_columns=True).toArrow()
    assert got.column_names == ["key", "from", "to", "payload"]
    assert got.schema.field("key").type == pa.decimal128(20, 0)
    rows = {
        int(k): (f, t)
        for k, f, t in zip(
            got.column("key").to_pylist(),
            got.column("from").to_pylist(),
            got.column("to").to_pylist(),
        )
    }
    assert rows == plan_rows(keys, before, after)
    positions = got.column("payload").to_numpy()
    np.testing.assert_array_equal(
        keys[positions], np.array([int(k) for k in got.column("key").to_pylist()], np.uint64)
    )


def test_moves_out_key_and_placements(spark, dataset):
    root, keys = dataset
    df = spark.read.parquet(str(root))
    as_int = js.moves(df, 10, 12, out_key="int64").toArrow()
    assert as_int.schema.field("key").type == pa.int64()
    assert {int(k) for k in as_int.column("key").to_numpy().view(np.uint64)} == set(
        plan_rows(keys, 10, 12)
    )
    with pytest.raises(ValueError, match="no unsigned 64-bit type"):
        js.moves(df, 10, 12, out_key="uint64")
    # A node table: the nodes named; a Memento removal: only its keys move.
    table = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(10)))
    removed = jumpshard.NodeTable(
        "".join(f"n{i} removed=1\n" if i == 4 else f"n{i}\n" for i in range(10))
    )
    named = js.moves(df, table, removed).toArrow()
    assert set(named.column("from_node").to_pylist()) == {"n4"}
    memento = jumpshard.Memento(10)
    memento.remove(4)
    assert (
        named.column("to").to_pylist()
        == memento.batch(
            np.array([int(k) for k in named.column("key").to_pylist()], np.uint64)
        ).tolist()
    )


def test_reshard_parquet_equals_the_cli(spark, dataset, tmp_path):
    root, keys = dataset
    out = tmp_path / "moves"
    summary = js.reshard_parquet(str(root), 10, 12, str(out))
    plan = jumpshard.plan(keys, 10, 12)
    per_destination = {b: int(n) for b, n in enumerate(plan.per_destination) if n}
    assert summary == {
        "keys": len(keys),
        "moved": plan.moved,
        "from": 10,
        "to": 12,
        "per_destination": per_destination,
    }
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("to=")) == [
        f"to={b}" for b in per_destination
    ]
    written = pq.read_table(out)
    got = {
        int(k): (f, int(t))
        for k, f, t in zip(
            written.column("key").to_pylist(),
            written.column("from").to_pylist(),
            written.column("to").to_pylist(),
        )
    }
    assert got == plan_rows(keys, 10, 12)
    assert 2**64 - 1 in got or 2**64 - 1 not in plan_rows(keys, 10, 12)
    assert any(k >= 2**63 for k in got)
    # The CLI on the same Parquet files.
    cli, cli_moves = cli_reshard(root, ["--from", 10, "--to", 12, "--column", "key"], tmp_path)
    assert {k: cli[k] for k in ("keys", "moved")} == {k: summary[k] for k in ("keys", "moved")}
    assert {int(b): n for b, n in cli["per_destination"].items()} == per_destination
    assert {
        int(k): (int(f), int(t))
        for k, f, t in zip(cli_moves["key"], cli_moves["from"], cli_moves["to"])
    } == got
    # One dataset with a `to` column instead.
    flat = js.reshard_parquet(str(root), 10, 12, str(tmp_path / "flat"), by_destination=False)
    assert flat == summary
    assert pq.read_table(tmp_path / "flat").num_rows == plan.moved


def test_reshard_parquet_replicas_equal_the_cli(spark, dataset, tmp_path):
    root, keys = dataset
    names = [f"n{i}" for i in range(6)]
    old_text = "".join(f"{n}\n" for n in names)
    new_text = "".join(f"{n} removed=1\n" if n == "n2" else f"{n}\n" for n in names)
    (tmp_path / "old.txt").write_text(old_text)
    (tmp_path / "new.txt").write_text(new_text)
    cli, cli_moves = cli_reshard(
        root,
        [
            "--from-nodes",
            tmp_path / "old.txt",
            "--to-nodes",
            tmp_path / "new.txt",
            "--replicas",
            3,
            "--column",
            "key",
        ],
        tmp_path,
    )
    want = sorted(zip(cli_moves["key"].tolist(), cli_moves["from_node"], cli_moves["to_node"]))
    old, new = jumpshard.NodeTable(old_text), jumpshard.NodeTable(new_text)
    got = js.moves(spark.read.parquet(str(root)), old, new, replicas=3).toArrow()
    assert cli["moved"] == got.num_rows
    rows = zip(
        [int(k) for k in got.column("key").to_pylist()],
        got.column("from_node").to_pylist(),
        got.column("to_node").to_pylist(),
    )
    assert sorted(rows) == want
    summary = js.reshard_parquet(str(root), old, new, str(tmp_path / "out"), replicas=3)
    assert summary["moved"] == cli["moved"] and summary["keys"] == len(keys)


@pytest.mark.parametrize("table, options, error, message", BAD_KEYS)
def test_bad_input_names_the_place_and_writes_nothing(
    spark, tmp_path, table, options, error, message
):
    source = write_parquet(tmp_path / "in" / "bad.parquet", table)
    before = source.read_bytes()
    out = tmp_path / "out"
    with pytest.raises(error, match=message):
        js.reshard_parquet(str(source.parent), 10, 12, str(out), **options)
    assert_nothing_written(out)
    assert source.read_bytes() == before


def test_nulls_kept_on_request(spark, tmp_path):
    source = write_parquet(
        tmp_path / "in" / "k.parquet",
        pa.table({"key": pa.array([1, None, 2**64 - 1], pa.uint64())}),
    )
    summary = js.reshard_parquet(str(source.parent), 1, 12, str(tmp_path / "out"), nulls="keep")
    assert summary["null_keys"] == 1 and summary["keys"] == 3 and summary["moved"] == 2


def test_empty_files_and_existing_outputs(spark, tmp_path):
    source = write_parquet(
        tmp_path / "in" / "empty.parquet", pa.table({"key": pa.array([], pa.uint64())})
    )
    write_parquet(tmp_path / "in" / "one.parquet", pa.table({"key": pa.array([7], pa.uint64())}))
    assert js.reshard_parquet(str(source.parent), 10, 12, str(tmp_path / "out"))["keys"] == 1
    write_parquet(
        tmp_path / "empty" / "empty.parquet", pa.table({"key": pa.array([], pa.uint64())})
    )
    summary = js.reshard_parquet(str(tmp_path / "empty"), 10, 12, str(tmp_path / "out2"))
    assert (summary["keys"], summary["moved"]) == (0, 0)
    # A directory without Parquet files: a clear error, not Spark's.
    (tmp_path / "none").mkdir()
    with pytest.raises(FileNotFoundError, match="no Parquet files"):
        js.reshard_parquet(str(tmp_path / "none"), 10, 12, str(tmp_path / "out3"))
    assert_nothing_written(tmp_path / "out3")
    # An existing output (the input itself, say) is never replaced.
    with pytest.raises(FileExistsError):
        js.reshard_parquet(str(source.parent), 10, 12, str(source.parent))
    assert source.exists()
    with pytest.raises(TypeError, match="output comes last"):
        js.reshard_parquet(str(source.parent), str(tmp_path / "x"), 10, 12)


def test_workers_refuse_another_table(spark, dataset):
    root, _ = dataset
    table = ja.placement(jumpshard.NodeTable("a\nb\nc\n"), "to")
    table.digest = "0" * 16  # as if the client's table were another one
    with pytest.raises(Exception, match="differs from the client's"):
        js.moves(spark.read.parquet(str(root)), 3, table).collect()
