"""Every count a caller passes (k, n, buckets, thread counts, removals,
``replicas=``, ``offset``) is checked before anything is sized by it: the
extremes 0, -1, 2**31, 2**32, 2**63, 2**64 and 2**100 raise ValueError or
TypeError naming the value and its limit, or are served, never an abort;
and the one-key replica calls, ``Memento.batch_bytes``, ``Memento.remove``'s
range and bool weights."""

import numpy as np
import pyarrow as pa
import pytest

import jumpshard
import jumpshard.arrow as ja

EXTREMES = [0, -1, 2**31, 2**32, 2**63, 2**64, 2**100]
KEYS = np.arange(5, dtype=np.uint64)


def refused_or_served(call, value, limit_text=None):
    """Runs `call(value)`: a refusal must be ValueError/TypeError/OverflowError,
    and, when `limit_text` is given, name the value and the limit."""
    try:
        return call(value)
    except (ValueError, TypeError, OverflowError) as error:
        if limit_text is not None:
            assert str(value) in str(error) and limit_text in str(error), str(error)
        return error


@pytest.mark.parametrize("k", EXTREMES)
def test_replica_counts_are_checked_before_any_allocation(k):
    m = jumpshard.Memento(10)
    m.remove(4)
    table = jumpshard.NodeTable("a\nb\nc\n")
    calls = [
        (lambda k: jumpshard.replicas(KEYS, 10, k), "10"),
        (lambda k: jumpshard.replicas(7, 10, k), "10"),
        (lambda k: m.replicas(KEYS, k), "9"),
        (lambda k: m.replicas(7, k), "9"),
        (lambda k: table.replicas(KEYS, k), "3"),
        (lambda k: table.replicas(7, k), "3"),
    ]
    for call, limit in calls:
        result = refused_or_served(call, k, None if k == 0 else limit)
        if k == 0 and not isinstance(result, Exception):
            assert len(result) in (0, 5)
        elif k != 0:
            assert isinstance(result, ValueError), result


def test_replica_counts_legal_against_huge_clusters_are_capped():
    """k below a count of 2**31 - 1 buckets but past the most members a
    set may have (1024) is refused by value, not left to exhaust memory."""
    huge = jumpshard.Memento(2**31 - 1)
    for call in (
        lambda k: jumpshard.replicas(KEYS, 2**31 - 1, k),
        lambda k: jumpshard.replicas(7, 2**31 - 1, k),
        lambda k: huge.replicas(KEYS, k),
        lambda k: huge.replicas(7, k),
    ):
        for k in (1025, 2**20, 2**31 - 1):
            with pytest.raises(ValueError, match="at most 1024"):
                call(k)
    assert len(jumpshard.replicas(7, 2**31 - 1, 1024)) == 1024


@pytest.mark.parametrize("k", EXTREMES + [2**40])
def test_arrow_replica_moves_refuse_huge_counts(k):
    table = pa.table({"key": pa.array(KEYS)})
    with pytest.raises(ValueError, match="replicas|k must"):
        ja.moves(table, 10, 12, replicas=k)


@pytest.mark.parametrize("value", EXTREMES)
def test_bucket_counts_and_threads(value):
    valid_n = 1 <= value <= 2**31 - 1
    for call in (
        lambda v: jumpshard.bucket(1, v),
        lambda v: jumpshard.batch(KEYS, v),
        lambda v: jumpshard.plan(KEYS, v, 12),
        lambda v: jumpshard.plan(KEYS, 10, v),
        lambda v: jumpshard.bucket_bytes(b"a", v),
        lambda v: jumpshard.Memento(v),
        lambda v: jumpshard.Memento.from_removals(v, []),
        lambda v: jumpshard.replicas(KEYS, v, 1),
        lambda v: ja.buckets(pa.array(KEYS), v),
        lambda v: ja.moves(pa.table({"key": pa.array(KEYS)}), v, 12),
    ):
        result = refused_or_served(call, value, None if valid_n else "2147483647")
        assert isinstance(result, Exception) != valid_n
    threads_ok = 0 <= value < 2**64
    for call in (
        lambda v: jumpshard.batch(KEYS, 10, threads=v),
        lambda v: jumpshard.plan(KEYS, 10, 12, threads=v),
    ):
        result = refused_or_served(call, value)
        assert isinstance(result, Exception) != threads_ok


@pytest.mark.parametrize("value", EXTREMES)
def test_buckets_of_a_memento_name_its_own_range(value):
    m = jumpshard.Memento(5)
    assert m.is_removed(value) is False
    if value == 0:
        return  # a bucket of the cluster
    with pytest.raises(
        ValueError, match=f"bucket {value} does not exist: the cluster has buckets 0 to 4"
    ):
        m.remove(value)
    with pytest.raises(ValueError, match=f"removals\\[0\\]: bucket {value} does not exist"):
        jumpshard.Memento.from_removals(5, [value])


@pytest.mark.parametrize("value", EXTREMES)
def test_keys_and_offsets(value):
    key_ok = 0 <= value < 2**64
    for call in (
        lambda v: jumpshard.bucket(v, 10),
        lambda v: jumpshard.Memento(10).bucket(v),
        lambda v: jumpshard.replicas(v, 10, 2),
    ):
        assert isinstance(refused_or_served(call, value), Exception) != key_ok
    # An offset only numbers rows in messages.
    assert len(ja.buckets(pa.array(KEYS), 10, offset=value)) == 5


def test_one_key_replica_sets_are_lists():
    m = jumpshard.Memento(10)
    m.remove(2)
    assert jumpshard.replicas(5, 10, 3) == jumpshard.replicas([5], 10, 3)[0].tolist()
    assert jumpshard.replicas(np.uint64(5), 10, 3) == jumpshard.replicas(5, 10, 3)
    assert m.replicas(5, 3) == m.replicas(np.array([5], np.uint64), 3)[0].tolist()
    table = jumpshard.NodeTable("a\nb\nc\nd\n")
    assert table.replicas(5, 2) == table.replicas([5], 2)[0].tolist()
    assert jumpshard.replicas(5, 10, 0) == []
    with pytest.raises(ValueError, match="key"):
        jumpshard.replicas(-1, 10, 2)
    with pytest.raises(TypeError, match="bool"):
        m.replicas(True, 2)


def test_replica_rows_span_pieces_and_runs():
    keys = pa.chunked_array(
        [pa.array(np.arange(70_000, dtype=np.uint64)), pa.array(np.arange(5, dtype=np.uint64))]
    )
    sets = jumpshard.replicas(keys, 1000, 3)
    assert sets.shape == (70_005, 3)
    assert sets[69_999].tolist() == jumpshard.replicas(69_999, 1000, 3)
    assert sets[70_004].tolist() == jumpshard.replicas(4, 1000, 3)


def test_memento_batch_bytes_is_bucket_bytes_of_each():
    m = jumpshard.Memento(30)
    for b in (3, 17):
        m.remove(b)
    words = [b"", b"a", "bob", bytearray(b"carol"), "a longer key than twelve bytes"]
    want = [m.bucket_bytes(w) for w in words]
    assert m.batch_bytes(words).tolist() == want
    assert m.batch_bytes(tuple(words)).dtype == np.int32
    text = [w.decode() if isinstance(w, (bytes, bytearray)) else w for w in words]
    for t in (pa.string(), pa.large_binary(), pa.string_view()):
        assert m.batch_bytes(pa.array(text, t)).tolist() == want
    assert (
        m.batch_bytes(pa.chunked_array([pa.array(text[:2]), pa.array(text[2:])])).tolist() == want
    )
    assert m.batch_bytes(pa.array(text).slice(2)).tolist() == want[2:]
    assert m.batch_bytes([]).tolist() == []
    with pytest.raises(TypeError, match=r"keys\[1\] must be bytes or str, not int"):
        m.batch_bytes([b"a", 5])
    with pytest.raises(ValueError, match="null"):
        m.batch_bytes(pa.array(["a", None]))
    with pytest.raises(TypeError):
        m.batch_bytes(pa.array([1, 2], pa.uint64()))


def test_a_bool_is_not_a_weight():
    for weights in ([True, 1], [1.0, False], [np.bool_(True), 2.0]):
        with pytest.raises(TypeError, match="must be a number, not bool"):
            jumpshard.Weights(weights)
    with pytest.raises(TypeError, match=r"weights\[1\] must be a number, not str"):
        jumpshard.Weights([1.0, "2"])
    assert jumpshard.Weights([1, 2.5, np.float32(1), np.int64(3)]).weights == [1.0, 2.5, 1.0, 3.0]
