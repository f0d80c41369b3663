"""jumpshard.dask on a LocalCluster of two worker processes, over a Parquet
dataset of 8 files, checked move for move against `plan` and against the
CLI's `reshard` on the same keys."""

import json
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import NULLS_BEFORE_BAD, BAD_KEYS, assert_nothing_written, cli_command
from conftest import cli_reshard as cli_reshard_args

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import jumpshard  # noqa: E402
import jumpshard.arrow  # noqa: E402
import jumpshard.dask  # noqa: E402

ROOT = pathlib.Path(__file__).parents[3]
FILES, PER_FILE = 8, 12_500
RESIZES = [(10, 12), (12, 10), (1, 5)]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """(directory, all keys in file order): 8 Parquet files of keys and a payload."""
    root = tmp_path_factory.mktemp("keys")
    rng = np.random.default_rng(2026)
    keys = rng.integers(0, 2**64, size=FILES * PER_FILE, dtype=np.uint64)
    for i in range(FILES):
        part = keys[i * PER_FILE : (i + 1) * PER_FILE]
        table = pa.table(
            {"key": part, "payload": np.arange(len(part), dtype=np.int64) + i * PER_FILE}
        )
        pq.write_table(table, root / f"part-{i}.parquet")
    return root, keys


def cli_reshard(keys, from_buckets, to_buckets, tmp):
    """The CLI's summary and move list (as {key: (from, to)}) for `keys`."""
    source = tmp / "keys.u64"
    keys.astype("<u8").tofile(source)
    moves = tmp / "moves.csv"
    command = [*cli_command(), "reshard"]
    command += ["--from", str(from_buckets), "--to", str(to_buckets), "--json"]
    command += ["--output", str(moves), str(source)]
    summary = json.loads(
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    )
    listed = pd.read_csv(moves, dtype={"key": np.uint64})
    return summary, dict(zip(listed["key"], zip(listed["from"], listed["to"])))


@pytest.mark.parametrize("from_buckets, to_buckets", RESIZES)
def test_moves(client, dataset, from_buckets, to_buckets):
    root, keys = dataset
    df = dd.read_parquet(str(root))
    assert df.npartitions >= FILES
    got = jumpshard.dask.moves(df, from_buckets, to_buckets, keep_columns=True).compute()
    plan = jumpshard.plan(keys, from_buckets, to_buckets)
    np.testing.assert_array_equal(got["key"].to_numpy(), keys[plan.positions.astype(np.intp)])
    np.testing.assert_array_equal(got["from"].to_numpy(), plan.from_)
    np.testing.assert_array_equal(got["to"].to_numpy(), plan.to)
    np.testing.assert_array_equal(got["payload"].to_numpy(), plan.positions.astype(np.int64))
    assert list(got.columns) == ["key", "from", "to", "payload"]


@pytest.mark.parametrize("from_buckets, to_buckets", RESIZES)
def test_reshard_parquet(client, dataset, tmp_path, from_buckets, to_buckets):
    root, keys = dataset
    dst = tmp_path / "moved"
    summary = jumpshard.dask.reshard_parquet(str(root), from_buckets, to_buckets, str(dst))
    assert set(summary.pop("seconds")) == {"read", "plan", "write"}
    plan = jumpshard.plan(keys, from_buckets, to_buckets)
    per_destination = {b: int(n) for b, n in enumerate(plan.per_destination) if n}
    assert summary == {
        "keys": len(keys),
        "moved": plan.moved,
        "from": from_buckets,
        "to": to_buckets,
        "per_destination": per_destination,
    }
    # The output: one directory per destination, the moves of the plan.
    written = pq.read_table(dst).to_pandas()
    assert sorted(p.name for p in dst.iterdir()) == sorted(f"to={b}" for b in per_destination)
    want = {int(keys[p]): (int(f), int(t)) for p, f, t in zip(plan.positions, plan.from_, plan.to)}
    got = {
        int(k): (int(f), int(t)) for k, f, t in zip(written["key"], written["from"], written["to"])
    }
    assert got == want
    # The CLI on the same keys: the same summary and the same moves.
    cli, cli_moves = cli_reshard(keys, from_buckets, to_buckets, tmp_path)
    assert {k: cli[k] for k in ("keys", "moved", "from", "to")} == {
        k: summary[k] for k in ("keys", "moved", "from", "to")
    }
    assert {int(b): n for b, n in cli["per_destination"].items()} == summary["per_destination"]
    assert {int(k): (int(f), int(t)) for k, (f, t) in cli_moves.items()} == want


def test_placements_on_the_workers(client, dataset, tmp_path):
    """Memento removals and weights pickled to the worker processes: the
    moves are those of the placements on the client, and the Memento
    removal's equal the CLI's between the two node tables."""
    root, keys = dataset
    df = dd.read_parquet(str(root))
    before = jumpshard.Memento(10)
    before.remove(4)
    after = jumpshard.Memento.from_removals(10, [4, 7])
    got = jumpshard.dask.moves(df, before, after).compute()
    old, new = before.batch(keys), after.batch(keys)
    moving = np.flatnonzero(old != new)
    np.testing.assert_array_equal(got["key"].to_numpy(), keys[moving])
    assert (got["from"] == 7).all() and (got["to"] != 7).all()
    np.testing.assert_array_equal(got["to"].to_numpy(), new[moving])
    # Weights against a plain count: only bucket 2's keys leave.
    lighter = jumpshard.Weights([1.0, 1.0, 0.25, 1.0, 1.0])
    got = jumpshard.dask.moves(df, 5, lighter).compute()
    assert len(got) > 0 and (got["from"] == 2).all()
    # reshard_parquet with the removal, against the CLI's node tables.
    dst = tmp_path / "removed"
    summary = jumpshard.dask.reshard_parquet(str(root), before, after, str(dst))
    assert summary["moved"] == len(moving) and summary["keys"] == len(keys)
    names = [f"n{i}" for i in range(10)]
    old_table, new_table = tmp_path / "old.txt", tmp_path / "new.txt"
    old_table.write_text(
        "".join(f"{n} removed=1\n" if i == 4 else f"{n}\n" for i, n in enumerate(names))
    )
    new_table.write_text(
        "".join(
            f"{n} removed=1\n" if i == 4 else f"{n} removed=2\n" if i == 7 else f"{n}\n"
            for i, n in enumerate(names)
        )
    )
    source = tmp_path / "keys.u64"
    keys.astype("<u8").tofile(source)
    listed = tmp_path / "moves.csv"
    command = [
        *cli_command(),
        "reshard",
        "--from-nodes",
        str(old_table),
        "--to-nodes",
        str(new_table),
    ]
    command += ["--output", str(listed), str(source)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    cli = pd.read_csv(listed, dtype={"key": np.uint64})
    written = pq.read_table(dst).to_pandas()
    want = {
        int(k): (f"n{f}", f"n{t}")
        for k, f, t in zip(written["key"], written["from"], written["to"])
    }
    assert {int(k): (f, t) for k, f, t in zip(cli["key"], cli["from_node"], cli["to_node"])} == want
    # Node tables: the same moves, named.
    named = jumpshard.dask.moves(
        df, jumpshard.NodeTable(old_table.read_text()), jumpshard.NodeTable(new_table.read_text())
    ).compute()
    np.testing.assert_array_equal(named["key"].to_numpy(), keys[moving])
    assert (named["from_node"] == "n7").all()
    assert {
        int(k): (f, t) for k, f, t in zip(named["key"], named["from_node"], named["to_node"])
    } == want
    with pytest.raises(TypeError, match="a cluster is"):
        jumpshard.dask.moves(df, 10, "ten")


def test_reshard_parquet_refuses_an_existing_destination(client, dataset, tmp_path):
    root, _ = dataset
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError):
        jumpshard.dask.reshard_parquet(str(root), 10, 12, str(tmp_path / "taken"))
    assert list((tmp_path / "taken").iterdir()) == []
    with pytest.raises(ValueError, match="to_buckets must be between"):
        jumpshard.dask.reshard_parquet(str(root), 10, 0, str(tmp_path / "new"))
    assert not (tmp_path / "new").exists()


def test_docstring_examples(client):
    import doctest

    assert doctest.testmod(jumpshard.dask).failed == 0


def test_pyarrow_dtypes_and_out_key(client, dataset):
    root, keys = dataset
    df = dd.read_parquet(str(root), dtype_backend="pyarrow")
    got = jumpshard.dask.moves(df, 10, 12, keep_columns=True).compute()
    assert [str(t) for t in got.dtypes] == [
        "uint64[pyarrow]",
        "int32[pyarrow]",
        "int32[pyarrow]",
        "int64[pyarrow]",
    ]
    plan = jumpshard.plan(keys, 10, 12)
    np.testing.assert_array_equal(
        got["key"].to_numpy(np.uint64), keys[plan.positions.astype(np.intp)]
    )
    signed = jumpshard.dask.moves(df, 10, 12, out_key="int64").compute()
    assert str(signed["key"].dtype) == "int64[pyarrow]"
    np.testing.assert_array_equal(
        signed["key"].to_numpy(np.int64).view(np.uint64), got["key"].to_numpy(np.uint64)
    )


def test_replicas_equal_the_cli(client, dataset, tmp_path):
    root, keys = dataset
    old_text = "".join(f"n{i}\n" for i in range(6))
    new_text = "".join(f"n{i} removed=1\n" if i == 2 else f"n{i}\n" for i in range(6))
    (tmp_path / "old.txt").write_text(old_text)
    (tmp_path / "new.txt").write_text(new_text)
    old, new = jumpshard.NodeTable(old_text), jumpshard.NodeTable(new_text)
    got = jumpshard.dask.moves(dd.read_parquet(str(root)), old, new, replicas=3).compute()
    cli, cli_moves = cli_reshard_args(
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
    assert len(got) == cli["moved"] > 0
    want = sorted(zip(cli_moves["key"].tolist(), cli_moves["from_node"], cli_moves["to_node"]))
    assert (
        sorted(zip(got["key"].to_numpy(np.uint64).tolist(), got["from_node"], got["to_node"]))
        == want
    )
    summary = jumpshard.dask.reshard_parquet(str(root), old, new, str(tmp_path / "out"), replicas=3)
    assert summary["moved"] == cli["moved"] and summary["keys"] == len(keys)


@pytest.mark.parametrize("table, options, error, message", BAD_KEYS)
def test_bad_input_names_the_place_and_writes_nothing(
    client, tmp_path, table, options, error, message
):
    source = tmp_path / "in" / "bad.parquet"
    source.parent.mkdir()
    pq.write_table(table, source)
    before = source.read_bytes()
    with pytest.raises(error, match=message):
        jumpshard.dask.reshard_parquet(str(source.parent), 10, 12, str(tmp_path / "out"), **options)
    assert_nothing_written(tmp_path / "out")
    assert source.read_bytes() == before


def test_nulls_empty_files_and_argument_order(client, tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    pq.write_table(
        pa.table({"key": pa.array([1, None, 2**64 - 1], pa.uint64())}), source / "a.parquet"
    )
    pq.write_table(pa.table({"key": pa.array([], pa.uint64())}), source / "b.parquet")
    summary = jumpshard.dask.reshard_parquet(
        str(source), 1, 12, str(tmp_path / "out"), nulls="keep"
    )
    assert (summary["keys"], summary["moved"], summary["null_keys"]) == (3, 2, 1)
    # Hive's directory for a null partition value.
    nulls = pq.read_table(tmp_path / "out" / "to=__HIVE_DEFAULT_PARTITION__")
    assert nulls.column("key").to_pylist() == [None]
    df = dd.from_pandas(pd.DataFrame({"key": pd.array([5, None], dtype="UInt64")}), npartitions=1)
    with pytest.raises(ValueError, match="Dask partition 0, row 1: the key is null"):
        jumpshard.dask.moves(df, 10, 12).compute()
    with pytest.raises(TypeError, match="destination now comes last"):
        jumpshard.dask.reshard_parquet(str(source), str(tmp_path / "x"), 10, 12)


def test_workers_refuse_another_table(client, dataset):
    root, _ = dataset
    table = jumpshard.arrow.placement(jumpshard.NodeTable("a\nb\nc\n"), "to")
    table.digest = "0" * 16  # as if the client's table were another one
    with pytest.raises(RuntimeError, match="differs from the client's"):
        jumpshard.dask.moves(dd.read_parquet(str(root)), 3, table).compute()


@pytest.mark.parametrize("bad, options, row", NULLS_BEFORE_BAD)
def test_a_bad_key_s_row_counts_the_nulls_before_it(client, bad, options, row):
    df = dd.from_pandas(
        pd.DataFrame({"key": pd.Series(bad.to_pylist(), dtype=pd.ArrowDtype(bad.type))}),
        npartitions=1,
    )
    with pytest.raises(ValueError, match=f"Dask partition 0, row {row}: "):
        jumpshard.dask.moves(df, 10, 12, nulls="keep", **options).compute()


@pytest.mark.parametrize("bad_at", [0, 11, 23])
def test_a_bad_file_among_many_on_the_distributed_scheduler(client, dataset, tmp_path, bad_at):
    """Other tasks still write when one fails: the task's own error, naming
    the file and row, and neither the output nor a staging directory left."""
    root, _ = dataset
    source = tmp_path / "in"
    source.mkdir()
    good = sorted(root.iterdir())
    for i in range(24):
        name = f"part-{i:02d}.parquet"
        if i == bad_at:
            pq.write_table(
                pa.table(
                    {
                        "key": pa.array([5, None, 7, -3], pa.int64()),
                        "payload": pa.array([0, 1, 2, 3], pa.int64()),
                    }
                ),
                source / name,
            )
        else:
            (source / name).write_bytes(good[i % len(good)].read_bytes())
    out = tmp_path / "out"
    with pytest.raises(
        ValueError, match=rf"file \S*part-{bad_at:02d}.parquet, row 3: -3 is negative"
    ):
        jumpshard.dask.reshard_parquet(
            str(source), 10, 12, str(out), key_type="uint64", nulls="keep"
        )
    assert_nothing_written(out)
