"""Key columns and frames at their edges, through the core calls and the
engines alike: masked, byte-swapped and object arrays, small decimals,
output columns that clash, a lazy plan's placement, Dask's index."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import jumpshard
import jumpshard.arrow as ja

KEYS = np.array([5, 7, 99, 2**63, 2**64 - 1, 12345678901234567890], np.uint64)


def test_masked_keys_are_refused_by_every_core_call():
    masked = np.ma.masked_array(KEYS, mask=[0, 0, 1, 0, 0, 0])
    for call in (
        lambda: jumpshard.batch(masked, 12),
        lambda: jumpshard.plan(masked, 10, 12),
        lambda: jumpshard.replicas(masked, 12, 3),
        lambda: jumpshard.Memento(12).batch(masked),
    ):
        with pytest.raises(ValueError, match=r"keys\[2\] is masked"):
            call()
    with pytest.raises(ValueError, match="null"):
        ja.buckets(masked, 12)
    unmasked = np.ma.masked_array(KEYS, mask=False)
    np.testing.assert_array_equal(jumpshard.batch(unmasked, 12), jumpshard.batch(KEYS, 12))


def test_byte_swapped_keys_are_their_values():
    want = jumpshard.batch(KEYS, 1000)
    for dtype in (">u8", ">i8"):
        swapped = KEYS.astype(">u8").view(dtype)
        np.testing.assert_array_equal(jumpshard.batch(swapped, 1000), want)
        assert ja.buckets(swapped, 1000).to_pylist() == want.tolist()
        assert ja.buckets(pd.Series(swapped), 1000).to_pylist() == want.tolist()
    assert jumpshard.plan(KEYS.astype(">u8"), 10, 12).positions.tolist() == (
        jumpshard.plan(KEYS, 10, 12).positions.tolist()
    )


def test_object_ints_are_values_as_in_a_list():
    objects = np.array([int(k) for k in KEYS], dtype=object)
    want = jumpshard.batch(KEYS, 1000).tolist()
    assert ja.buckets(objects, 1000).to_pylist() == want
    assert ja.buckets(pd.Series(objects), 1000).to_pylist() == want
    with_none = pd.Series([5, None, 7, float("nan")], dtype=object)
    assert ja.buckets(with_none, 1000, nulls="keep").to_pylist() == [
        jumpshard.bucket(5, 1000),
        None,
        jumpshard.bucket(7, 1000),
        None,
    ]
    for bad in ([1, -2, 3], [1, 2**64]):
        for column in (np.array(bad, dtype=object), pd.Series(bad, dtype=object)):
            with pytest.raises(ValueError, match=r"keys\[1\] is .*0 to 2\*\*64-1"):
                ja.buckets(column, 12)
    with pytest.raises(TypeError, match=r"keys\[1\] must be an int"):
        ja.buckets(np.array([1, "a"], dtype=object), 12)
    strings = np.array(["a", "b"], dtype=object)
    assert ja.buckets(strings, 12).to_pylist() == ja.buckets(pa.array(["a", "b"]), 12).to_pylist()


@pytest.mark.parametrize("make", ["decimal32", "decimal64"])
def test_small_decimals_are_keys(make):
    if not hasattr(pa, make):
        pytest.skip(f"pyarrow {pa.__version__} has no {make}")
    small = pa.array([5, 1000, 0], getattr(pa, make)(9, 0))
    want = jumpshard.batch(np.array([5, 1000, 0], np.uint64), 12).tolist()
    assert ja.buckets(small, 12).to_pylist() == want
    moves = ja.moves(pa.table({"key": small}), 10, 12)
    assert moves.column("from").to_pylist() == [
        jumpshard.bucket(int(k), 10) for k in moves.column("key").to_pylist()
    ]
    with pytest.raises(ValueError, match="-5 is negative"):
        ja.buckets(pa.array([5, -5], getattr(pa, make)(9, 0)), 12)


@pytest.mark.parametrize("name", ["key", "from", "to", "from_node", "to_node"])
def test_a_kept_column_named_as_an_output_column_is_refused(name):
    table = pa.table({"id": pa.array([5, 7], pa.uint64()), name: ["a", "b"]})
    tables = jumpshard.NodeTable("a\nb\nc\n"), jumpshard.NodeTable("a\nb\nc\nd\n")
    with pytest.raises(ValueError, match=f"column '{name}' of the input"):
        ja.moves(table, *tables, column="id", keep_columns=True)
    assert ja.moves(table, 3, 4, column="id").column_names == ["key", "from", "to"]


def test_a_lazy_plan_keeps_the_memento_it_was_given():
    pl = pytest.importorskip("polars")
    import jumpshard.polars as jp

    keys = np.arange(2000, dtype=np.uint64)
    m = jumpshard.Memento(10)
    lazy = jp.moves(pl.DataFrame({"key": keys}), 10, m)
    want = ja.moves(pa.table({"key": keys}), 10, jumpshard.Memento(10))
    m.remove(3)
    got = lazy.collect().to_arrow()
    assert got.column("key").to_pylist() == want.column("key").to_pylist()


def test_dask_moves_have_no_divisions_of_the_input():
    dd = pytest.importorskip("dask.dataframe")
    import dask
    import jumpshard.dask as jd

    frame = pd.DataFrame(
        {"key": np.arange(1000, dtype=np.uint64), "v": np.arange(1000)},
        index=pd.RangeIndex(5000, 6000, name="rid"),
    )
    with dask.config.set(scheduler="synchronous"):
        moves = jd.moves(dd.from_pandas(frame, npartitions=4), 10, 12, keep_columns=True)
        assert not moves.known_divisions
        got = moves.compute()
    want = ja.moves(pa.table({"key": frame["key"]}), 10, 12)
    assert got["key"].tolist() == want.column("key").to_pylist()
    with pytest.raises(ValueError, match="column 'to' of the input"):
        jd.moves(
            dd.from_pandas(frame.rename(columns={"v": "to"}), npartitions=2),
            10,
            12,
            keep_columns=True,
        )


def test_integer_column_names_of_pandas_frames():
    frame = pd.DataFrame({0: KEYS, 1: np.arange(len(KEYS))})
    want = ja.moves(pa.table({"key": KEYS}), 10, 12)
    got = ja.moves(frame, 10, 12, column=0)
    assert got.column("key").to_pylist() == want.column("key").to_pylist()


def test_a_directory_without_parquet_files_is_refused_alike(tmp_path):
    pytest.importorskip("dask.dataframe")
    import jumpshard.dask as jd

    (tmp_path / "none").mkdir()
    with pytest.raises(FileNotFoundError, match="no Parquet files"):
        jd.reshard_parquet(str(tmp_path / "none"), 10, 12, str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_polars_types_arrow_lacks_or_cannot_take():
    pl = pytest.importorskip("polars")
    categorical = pl.Series(["a", "b", "a"], dtype=pl.Categorical)
    assert (
        ja.buckets(categorical, 12).to_pylist()
        == ja.buckets(pa.array(["a", "b", "a"]), 12).to_pylist()
    )
    if hasattr(pl, "Int128"):
        with pytest.raises(TypeError, match="Arrow cannot read this Series"):
            ja.buckets(pl.Series([5], dtype=pl.Int128), 12)


def test_messages_name_the_real_problem():
    # Too large is not the negative value an int64 array would take.
    with pytest.raises(ValueError) as too_large:
        jumpshard.batch([2**64], 12)
    assert "got 18446744073709551616" in str(too_large.value)
    assert "int64 array" not in str(too_large.value)
    with pytest.raises(ValueError, match="int64 array"):
        jumpshard.batch([-2], 12)
    # Past 1024 members the set's own limit binds, whatever n.
    with pytest.raises(ValueError, match=r"between 0 and 1024 \(the most members"):
        jumpshard.replicas(7, 2**31 - 1, 2**64)
    with pytest.raises(ValueError, match=r"between 0 and 1024"):
        jumpshard.Memento(5000).replicas(7, 2**64)
    # A null among node ids is named, not read as a float dtype.
    router = jumpshard.BoundedLoads(8, 1.25)
    with pytest.raises(TypeError, match="1 null"):
        router.release_batch(pa.array([1, None], pa.int32()))
    # The view types a byte-key call takes are listed when refused.
    with pytest.raises(TypeError, match="binary_view or string_view"):
        jumpshard.prehash(pa.array([1], pa.int32()))
