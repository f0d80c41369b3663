"""jumpshard.ray on a local Ray cluster of two CPUs, one for every test:
bucket columns, move plans and resharding of Parquet files (4 files of
5,000 keys, the 64-bit extremes and many keys above 2**63 among them),
checked against `jumpshard.plan`, the CLI when JUMPSHARD_CLI names one, and
every bad input."""

import os

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

ray = pytest.importorskip("ray")

import jumpshard  # noqa: E402
import jumpshard.arrow as ja  # noqa: E402
import jumpshard.ray as jr  # noqa: E402

pytestmark = pytest.mark.ray

FILES = 4


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, engine_keys):
    """(directory, keys): Parquet UINT_64 keys and their positions as `payload`."""
    root = tmp_path_factory.mktemp("ray") / "keys"
    write_parquet_keys(root, engine_keys, FILES)
    return root, engine_keys


def collect(ds):
    """A Dataset as one Arrow table, in `payload` order when it has one
    (Ray Data does not keep the input order by default)."""
    table = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    return table.sort_by("payload") if "payload" in table.column_names else table


def plan_rows(keys, before, after):
    plan = jumpshard.plan(keys, before, after)
    return {int(keys[p]): (int(f), int(t)) for p, f, t in zip(plan.positions, plan.from_, plan.to)}


def rows(table, *columns):
    """{key: (columns...)} of a table."""
    keys = [int(k) for k in table.column("key").to_pylist()]
    return dict(zip(keys, zip(*(table.column(c).to_pylist() for c in columns))))


def test_bucket_column(dataset):
    root, keys = dataset
    got = collect(jr.buckets(ray.data.read_parquet(str(root)), 12, name="b"))
    assert got.column_names == ["key", "payload", "b"] and got.schema.field("b").type == pa.int32()
    np.testing.assert_array_equal(got.column("b").to_numpy(), jumpshard.batch(keys, 12))
    # int64 holding the same bits, and string and binary keys through the pre-hash.
    words = [f"user:{i}" for i in range(500)]
    table = pa.table(
        {"key": keys[:500].view(np.int64), "s": words, "b": [w.encode() for w in words]}
    )
    ds = ray.data.from_arrow(table)
    got = collect(jr.buckets(jr.buckets(jr.buckets(ds, 100), 7, "s", name="s"), 7, "b", name="b"))
    np.testing.assert_array_equal(got.column("bucket").to_numpy(), jumpshard.batch(keys[:500], 100))
    np.testing.assert_array_equal(got.column("s").to_numpy(), jumpshard.bucket_bytes(words, 7))
    np.testing.assert_array_equal(got.column("b").to_numpy(), jumpshard.bucket_bytes(words, 7))
    nulls = ray.data.from_arrow(pa.table({"key": pa.array([1, None, 2**64 - 1], pa.uint64())}))
    assert collect(jr.buckets(nulls, 5, nulls="keep")).column("bucket").to_pylist() == [
        jumpshard.bucket(1, 5),
        None,
        jumpshard.bucket(2**64 - 1, 5),
    ]
    with pytest.raises(ray.exceptions.RayError, match="a Ray batch, row 1: the key is null"):
        jr.buckets(nulls, 5).materialize()
    # Known types are checked on the driver, before any task runs.
    with pytest.raises(TypeError, match=r"column 'key'.*double"):
        jr.buckets(ray.data.from_arrow(pa.table({"key": [1.5]})), 5)
    with pytest.raises(KeyError, match="no column 'id'"):
        jr.buckets(ds, 5, "id")


@pytest.mark.parametrize("before, after", [(10, 12), (1, 5)])
def test_moves_equal_the_plan(dataset, before, after):
    root, keys = dataset
    got = collect(jr.moves(ray.data.read_parquet(str(root)), before, after, keep_columns=True))
    assert got.column_names == ["key", "from", "to", "payload"]
    assert got.schema.field("key").type == pa.uint64()
    plan = jumpshard.plan(keys, before, after)
    np.testing.assert_array_equal(
        got.column("key").to_numpy(), keys[plan.positions.astype(np.intp)]
    )
    np.testing.assert_array_equal(got.column("from").to_numpy(), plan.from_)
    np.testing.assert_array_equal(got.column("to").to_numpy(), plan.to)
    np.testing.assert_array_equal(got.column("payload").to_numpy(), plan.positions.astype(np.int64))


def test_moves_of_placements_and_key_types(dataset):
    root, keys = dataset
    ds = ray.data.read_parquet(str(root))
    table = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(10)))
    removed = jumpshard.NodeTable(
        "".join(f"n{i} removed=1\n" if i == 4 else f"n{i}\n" for i in range(10))
    )
    named = collect(jr.moves(ds, table, removed, keep_columns=True))
    assert named.column_names == ["key", "from", "to", "from_node", "to_node", "payload"]
    assert set(named.column("from_node").to_pylist()) == {"n4"}
    memento = jumpshard.Memento(10)
    memento.remove(4)
    np.testing.assert_array_equal(
        named.column("to").to_numpy(), memento.batch(named.column("key").to_numpy())
    )
    assert named.column("to_node").to_pylist() == [f"n{b}" for b in named.column("to").to_pylist()]
    # Int64 keys above 2**63 read as the same bits; out_key gives them back unsigned.
    signed = ray.data.from_arrow(pa.table({"key": keys.view(np.int64)}))
    got = collect(jr.moves(signed, 10, 12, out_key="uint64"))
    assert got.schema.field("key").type == pa.uint64() and rows(got, "from", "to") == plan_rows(
        keys, 10, 12
    )
    with pytest.raises(
        ray.exceptions.RayError, match="is negative, and the keys were declared unsigned"
    ):
        jr.moves(signed, 10, 12, key_type="uint64").materialize()
    with pytest.raises(ValueError, match="out_key must be one of"):
        jr.moves(signed, 10, 12, out_key="u64")


def test_reshard_parquet_equals_the_plan(dataset, tmp_path):
    root, keys = dataset
    out = tmp_path / "moves"
    summary = jr.reshard_parquet(str(root), 10, 12, str(out))
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
    got = rows(pq.read_table(out), "from", "to")
    assert {k: (f, int(t)) for k, (f, t) in got.items()} == plan_rows(keys, 10, 12)
    assert any(k >= 2**63 for k in got)
    # One dataset with a `to` column instead, and node tables naming the nodes.
    flat = jr.reshard_parquet(str(root), 10, 12, str(tmp_path / "flat"), by_destination=False)
    assert flat == summary
    assert rows(pq.read_table(tmp_path / "flat"), "from", "to") == plan_rows(keys, 10, 12)
    old = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(10)))
    new = jumpshard.NodeTable("".join(f"n{i}\n" for i in range(12)))
    named = jr.reshard_parquet(str(root), old, new, str(tmp_path / "named"))
    assert named == summary | {"from": repr(old), "to": repr(new)}
    table = pq.read_table(tmp_path / "named")
    assert {k: (f"n{f}", f"n{t}") for k, (f, t) in rows(table, "from", "to").items()} == rows(
        table, "from_node", "to_node"
    )


@pytest.mark.skipif(not os.environ.get("JUMPSHARD_CLI"), reason="JUMPSHARD_CLI names no built CLI")
def test_reshard_parquet_equals_the_cli(dataset, tmp_path):
    root, _ = dataset
    summary = jr.reshard_parquet(str(root), 10, 12, str(tmp_path / "out"))
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


@pytest.mark.parametrize("table, options, error, message", BAD_KEYS)
def test_bad_input_names_the_place_and_writes_nothing(tmp_path, table, options, error, message):
    source = write_parquet(tmp_path / "in" / "bad.parquet", table)
    before = source.read_bytes()
    out = tmp_path / "out"
    with pytest.raises(error, match=message):
        jr.reshard_parquet(str(source.parent), 10, 12, str(out), **options)
    assert_nothing_written(out)
    assert source.read_bytes() == before


def test_a_bad_key_after_good_files(dataset, tmp_path):
    """A task fails while others write: the error names the last file and
    row, and neither the output nor its temporary sibling remain."""
    root, _ = dataset
    for good in root.iterdir():
        write_parquet(tmp_path / "in" / good.name, pq.read_table(good))
    keys = pa.array([*range(7), None, 8], pa.uint64())
    write_parquet(
        tmp_path / "in" / "z.parquet",
        pa.table({"key": keys, "payload": pa.array(range(9), pa.int64())}),
    )
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=r"file .*z.parquet, row 7: the key is null"):
        jr.reshard_parquet(str(tmp_path / "in"), 10, 12, str(out))
    assert_nothing_written(out)


def test_nulls_kept_empty_files_and_existing_outputs(tmp_path):
    source = write_parquet(
        tmp_path / "in" / "k.parquet",
        pa.table({"key": pa.array([1, None, 2**64 - 1], pa.uint64())}),
    )
    write_parquet(tmp_path / "in" / "empty.parquet", pa.table({"key": pa.array([], pa.uint64())}))
    summary = jr.reshard_parquet(str(source.parent), 1, 12, str(tmp_path / "out"), nulls="keep")
    assert summary == {
        "keys": 3,
        "moved": 2,
        "from": 1,
        "to": 12,
        "per_destination": {jumpshard.bucket(1, 12): 1, jumpshard.bucket(2**64 - 1, 12): 1},
        "null_keys": 1,
    }
    assert (tmp_path / "out" / "to=__HIVE_DEFAULT_PARTITION__").is_dir()
    # Nothing moves: `out` is an empty directory.
    empty = write_parquet(
        tmp_path / "empty" / "e.parquet", pa.table({"key": pa.array([], pa.uint64())})
    )
    summary = jr.reshard_parquet(str(empty.parent), 10, 12, str(tmp_path / "none"))
    assert summary == {"keys": 0, "moved": 0, "from": 10, "to": 12, "per_destination": {}}
    assert not list((tmp_path / "none").iterdir())
    # An existing output (the input itself, say) is never replaced.
    before = source.read_bytes()
    with pytest.raises(FileExistsError):
        jr.reshard_parquet(str(source.parent), 10, 12, str(source.parent))
    assert source.read_bytes() == before and sorted(p.name for p in source.parent.iterdir()) == [
        "empty.parquet",
        "k.parquet",
    ]
    with pytest.raises(TypeError, match="output comes last"):
        jr.reshard_parquet(str(source.parent), str(tmp_path / "x"), 10, 12)


def test_tasks_refuse_another_table(dataset, tmp_path):
    root, _ = dataset
    table = ja.placement(jumpshard.NodeTable("a\nb\nc\n"), "to")
    table.digest = "0" * 16  # as if the client's table were another one
    with pytest.raises(RuntimeError, match="differs from the client's"):
        jr.reshard_parquet(str(root), 3, table, str(tmp_path / "out"))
    assert_nothing_written(tmp_path / "out")


@pytest.mark.parametrize("bad, options, row", NULLS_BEFORE_BAD)
def test_a_bad_key_s_row_counts_the_nulls_before_it(bad, options, row):
    ds = ray.data.from_arrow(pa.table({"key": bad}))
    with pytest.raises(ray.exceptions.RayError, match=f"a Ray batch, row {row}: "):
        jr.moves(ds, 10, 12, nulls="keep", **options).materialize()
