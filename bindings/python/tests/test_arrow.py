"""jumpshard.arrow, the core every engine module runs: key columns of every
type against `batch`, nulls, output key types, replica moves against a
per-key reading of the sets, placements checked on workers, staging."""

import pathlib
from decimal import Decimal

import fsspec
import numpy as np
import pyarrow as pa
import pytest

import jumpshard
import jumpshard.arrow as ja

from conftest import NULLS_BEFORE_BAD


def test_integer_and_decimal_columns_read_as_the_same_keys(keys):
    want = jumpshard.batch(keys, 1000)
    columns = [
        pa.array(keys),
        pa.array(keys.view(np.int64)),
        pa.array(keys).cast(pa.decimal128(20, 0)),
        pa.array([Decimal(int(k)) for k in keys], pa.decimal128(38, 0)),
        pa.array(
            [Decimal(int(k)).scaleb(-2).scaleb(2).quantize(Decimal("1.00")) for k in keys],
            pa.decimal128(24, 2),
        ),
        pa.chunked_array([pa.array(keys[:100]), pa.array(keys[100:])]),
    ]
    for column in columns:
        np.testing.assert_array_equal(
            ja.buckets(column, 1000).to_numpy(), want, err_msg=str(column.type)
        )
    small = np.arange(300, dtype=np.uint32)
    for t in (pa.uint8(), pa.int16(), pa.uint32(), pa.int32()):
        column = pa.array(small % 200).cast(t)
        np.testing.assert_array_equal(
            ja.buckets(column, 7).to_numpy(), jumpshard.batch((small % 200).astype(np.uint64), 7)
        )


def test_decimal_fast_path_on_slices_and_edges():
    edges = [0, 1, 2**32, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]
    column = pa.array([Decimal(v) for v in edges * 3], pa.decimal128(20, 0))
    for start in range(len(edges)):
        part = column.slice(start, 9)
        got, _ = ja.keys(part)
        np.testing.assert_array_equal(
            got, np.array((edges * 3)[start : start + 9], dtype=np.uint64)
        )
    for bad, problem in (
        (-1, "is negative"),
        (2**64, "is over 2\\*\\*64-1"),
        (-(2**64), "is negative"),
        (10**38 - 1, "is over 2\\*\\*64-1"),
    ):
        with pytest.raises(ValueError, match=f"row 2: {bad} {problem}"):
            ja.keys(pa.array([Decimal(3), Decimal(4), Decimal(bad)], pa.decimal128(38, 0)))
    with pytest.raises(ValueError, match="row 1: 2.5 has a fraction"):
        ja.keys(pa.array([Decimal("1.0"), Decimal("2.5")], pa.decimal128(10, 1)))


def test_byte_string_columns():
    words = [f"tenant-{i}" for i in range(200)]
    want = jumpshard.bucket_bytes(words, 9)
    for column in (
        pa.array(words),
        pa.array(words, pa.large_string()),
        pa.array([w.encode() for w in words]),
        pa.array(words).dictionary_encode(),
        pa.array(words, pa.string_view()),
        pa.array([w.encode() for w in words], pa.binary_view()),
    ):
        np.testing.assert_array_equal(
            ja.buckets(column, 9).to_numpy(), want, err_msg=str(column.type)
        )
    with pytest.raises(TypeError, match="key_type='bytes' or 'auto'"):
        ja.keys(pa.array(words), key_type="uint64")
    with pytest.raises(TypeError, match="is not binary or string"):
        ja.keys(pa.array([1], pa.uint64()), key_type="bytes")


def test_declared_types():
    negative = pa.array([5, -1], pa.int64())
    assert ja.keys(negative)[0][1] == 2**64 - 1  # the same bits
    with pytest.raises(
        ValueError, match="row 1: -1 is negative, and the keys were declared unsigned"
    ):
        ja.keys(negative, key_type="uint64")
    with pytest.raises(ValueError, match="row 0: -3 is negative; keys are unsigned"):
        ja.keys(pa.array([-3], pa.int32()))
    with pytest.raises(TypeError, match="is not int64"):
        ja.keys(pa.array([1], pa.uint64()), key_type="int64")
    for column in (pa.array([1.0]), pa.array([True]), pa.array([1], pa.date32())):
        with pytest.raises(TypeError, match="is not a key type"):
            ja.keys(column, column="k", where="file f.parquet")
    with pytest.raises(ValueError, match="key_type must be one of"):
        ja.keys(pa.array([1], pa.uint64()), key_type="u64")


def test_nulls_error_or_travel_through():
    column = pa.array([7, None, 2**64 - 1, None], pa.uint64())
    with pytest.raises(ValueError, match="file x.parquet, row 101: the key is null"):
        ja.keys(column, where="file x.parquet", offset=100)
    got = ja.buckets(column, 12, nulls="keep").to_pylist()
    assert got == [jumpshard.bucket(7, 12), None, jumpshard.bucket(2**64 - 1, 12), None]
    moved = ja.moves(
        pa.table({"key": column, "n": pa.array([0, 1, 2, 3])}),
        1,
        12,
        nulls="keep",
        keep_columns=True,
    )
    # Rows in input order: null keys where they were, with null buckets.
    assert moved.column("n").to_pylist() == [0, 1, 2, 3]
    assert moved.column("from").to_pylist() == [0, None, 0, None]
    signed = ja.moves(pa.table({"key": column}), 1, 12, nulls="keep", out_key="int64")
    assert signed.column("key").to_pylist() == [7, None, -1, None]


@pytest.mark.parametrize(
    "out_key, arrow_type",
    [
        ("same", pa.decimal128(20, 0)),
        ("uint64", pa.uint64()),
        ("int64", pa.int64()),
        ("decimal", pa.decimal128(20, 0)),
    ],
)
def test_out_key(keys, out_key, arrow_type):
    table = pa.table({"key": pa.array(keys).cast(pa.decimal128(20, 0))})
    moved = ja.moves(table, 10, 12, out_key=out_key)
    assert moved.schema.field("key").type == arrow_type
    plan = jumpshard.plan(keys, 10, 12)
    got = moved.column("key").to_pylist()
    as_u64 = [int(v) % 2**64 for v in got]
    assert as_u64 == [int(k) for k in keys[plan.positions.astype(np.intp)]]


def naive_replica_moves(keys, old_sets, new_sets, old_names, new_names):
    rows = []
    for i, key in enumerate(keys):
        old = [old_names[b] for b in old_sets[i]]
        new = [new_names[b] for b in new_sets[i]]
        lost = [n for n in old if n not in new]
        gained = [n for n in new if n not in old]
        rows += [(int(key), a, b) for a, b in zip(lost, gained)]
    return rows


@pytest.mark.parametrize(
    "old_text, new_text",
    [
        ("a\nb\nc\nd\ne\n", "a\nb removed=1\nc\nd\ne\n"),  # b dies
        ("a\nb\nc\nd\ne\n", "a\nb\nc\nd\ne\nf\n"),  # f joins
        ("a\nb removed=1\nc\nd\ne\n", "a\nb\nc\nd\ne\n"),  # b is restored
    ],
)
def test_replica_moves_match_the_sets(keys, old_text, new_text):
    old, new = jumpshard.NodeTable(old_text), jumpshard.NodeTable(new_text)
    moved = ja.moves(pa.table({"key": keys}), old, new, replicas=3)
    want = naive_replica_moves(
        keys, old.replicas(keys, 3), new.replicas(keys, 3), old.slots, new.slots
    )
    got = list(
        zip(
            [int(k) for k in moved.column("key").to_pylist()],
            moved.column("from_node").to_pylist(),
            moved.column("to_node").to_pylist(),
        )
    )
    assert got == want and got


def test_replica_moves_of_bucket_counts(keys):
    moved = ja.moves(pa.table({"key": keys}), 10, 12, replicas=2)
    names = list(range(12))
    want = naive_replica_moves(
        keys, jumpshard.replicas(keys, 10, 2), jumpshard.replicas(keys, 12, 2), names, names
    )
    assert (
        list(
            zip(
                [int(k) for k in moved.column("key").to_pylist()],
                moved.column("from").to_pylist(),
                moved.column("to").to_pylist(),
            )
        )
        == want
    )
    with pytest.raises(TypeError, match="no replica sets"):
        ja.moves(pa.table({"key": keys}), 3, jumpshard.Weights([1.0, 2.0, 3.0]), replicas=2)
    with pytest.raises(ValueError, match="replicas must be a positive int"):
        ja.moves(pa.table({"key": keys}), 3, 4, replicas=0)


def test_placements_prove_their_state():
    table = ja.placement(jumpshard.NodeTable("a\nb weight=2\n"), "to")
    table.check()
    assert ja.placement(table) is table
    table.digest = "0" * 16
    with pytest.raises(RuntimeError, match="differs from the client's"):
        table.check()
    other = ja.placement(10, "from")
    other.version = "0.0.0"
    with pytest.raises(RuntimeError, match="install the same wheel everywhere"):
        other.check()
    with pytest.raises(ValueError, match="to_buckets must be between 1 and 2147483647, got 0"):
        ja.placement(0, "to")
    with pytest.raises(TypeError, match="a cluster is"):
        ja.placement("ten", "from")
    with pytest.raises(TypeError, match="a cluster is"):
        ja.placement(True, "from")


def test_staging_is_complete_or_absent(tmp_path):
    fs = fsspec.filesystem("file")
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="boom"):
        with ja.staging(fs, str(out)) as temporary:
            (tmp_path / temporary).joinpath("half.parquet").write_bytes(b"PAR1")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with ja.staging(fs, str(out)) as temporary:
        fs.pipe(f"{temporary}/done.parquet", b"PAR1")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    with pytest.raises(FileExistsError):
        with ja.staging(fs, str(out)):
            pass
    assert (out / "done.parquet").read_bytes() == b"PAR1"


def test_staging_goes_even_while_writers_still_add_to_it(tmp_path):
    """The failure raised is the block's own, never the removal's "Directory
    not empty", and no writer's late directory survives."""
    import threading
    import time

    fs = fsspec.filesystem("file")
    out = tmp_path / "out"
    stop = threading.Event()

    def writer(root):
        for i in range(10**6):
            if stop.is_set():
                return
            try:
                directory = pathlib.Path(root) / f"to={i % 7}"
                directory.mkdir(parents=True, exist_ok=True)
                (directory / f"part-{i}.parquet").write_bytes(b"PAR1")
            except OSError:
                pass

    with pytest.raises(ValueError, match="the task's own error"):
        with ja.staging(fs, str(out)) as temporary:
            threads = [threading.Thread(target=writer, args=(temporary,)) for _ in range(2)]
            for t in threads:
                t.start()
            threading.Timer(0.4, stop.set).start()
            time.sleep(0.1)
            raise ValueError("the task's own error")
    for t in threads:
        t.join()
    assert list(tmp_path.iterdir()) == []


def test_locate_names_the_file_and_row(tmp_path):
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"key": pa.array([1, 2], pa.uint64())}), tmp_path / "a.parquet")
    pq.write_table(
        pa.table({"key": pa.array([3, None], pa.uint64())}),
        tmp_path / "b.parquet",
        row_group_size=1,
    )
    fs, files = ja.parquet_files(str(tmp_path))
    with pytest.raises(ValueError, match=r"file \S*b.parquet, row 1: the key is null"):
        ja.locate(fs, files)
    ja.locate(fs, files, nulls="keep")


@pytest.mark.parametrize("bad, options, row", NULLS_BEFORE_BAD)
def test_a_bad_key_s_row_counts_the_nulls_before_it(bad, options, row):
    with pytest.raises(ValueError, match=f"column 'key', file f.parquet, row {100 + row}: "):
        ja.keys(bad, nulls="keep", where="file f.parquet", offset=100, **options)
    with pytest.raises(ValueError, match=f"row {row}: "):
        ja.moves(pa.table({"key": bad}), 10, 12, nulls="keep", **options)
    with pytest.raises(ValueError, match=f"row {row}: "):
        ja.buckets(bad, 10, nulls="keep", **options)


def test_buckets_take_what_batch_takes():
    import pandas as pd
    import polars as pl

    keys = np.arange(50, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    want = jumpshard.batch(keys, 7).tolist()
    for column in (
        keys,
        keys.view(np.int64),
        pd.Series(keys),
        pd.Series(keys, dtype="uint64[pyarrow]"),
        pl.Series(keys),
        [int(k) for k in keys],
    ):
        assert ja.buckets(column, 7).to_pylist() == want, type(column)
    assert ja.moves(pd.DataFrame({"key": keys}), 7, 9).equals(
        ja.moves(pa.table({"key": keys}), 7, 9)
    )
    for bad in (5, "abc", {1: 2}):
        with pytest.raises(
            TypeError, match="keys must be a pyarrow Array or ChunkedArray, a 1-D numpy array"
        ):
            ja.buckets(bad, 7)
    with pytest.raises(ValueError, match="1-D"):
        ja.buckets(np.zeros((2, 2), np.uint64), 7)
    with pytest.raises(TypeError, match=r"keys\[1\] must be an int, not float"):
        ja.buckets([1, 1.5], 7)
    with pytest.raises(ValueError, match="from 0 to 2\\*\\*64-1"):
        ja.buckets([1, -1], 7)
    with pytest.raises(TypeError, match="bool is not a key type"):
        ja.buckets(np.array([True]), 7)
    with pytest.raises(TypeError, match="data must be a pyarrow Table"):
        ja.moves(5, 7, 9)
