"""Memento removal, replica sets and weights: the golden vectors of the
MementoHash authors' engine, the Rust API's answers, and bad input."""

from pathlib import Path

import numpy as np
import pytest

import jumpshard

GOLDEN = Path(__file__).resolve().parents[3] / "testdata" / "memento" / "golden.txt"
WEIGHTS_GOLDEN = Path(__file__).resolve().parents[3] / "testdata" / "weights" / "golden.txt"


def test_golden_vectors_of_the_authors_engine():
    memento = None
    lookups = 0
    for number, line in enumerate(GOLDEN.read_text().splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        where = f"golden.txt line {number}: {line}"
        if words[0] == "scenario":
            memento = jumpshard.Memento(int(words[1]))
        elif words[0] == "remove":
            memento.remove(int(words[1]))
        elif words[0] == "add":
            assert memento.restore() == int(words[2]), where
        elif words[0] == "state":
            assert (memento.working, memento.barray) == (int(words[2]), int(words[4])), where
        elif words[0] == "lookup":
            key = b"" if words[1] == "-" else bytes.fromhex(words[1])
            assert memento.bucket_bytes(key) == int(words[2]), where
            lookups += 1
        else:
            raise AssertionError(f"unknown record: {where}")
    assert lookups > 1000


def test_removal_moves_only_the_removed_bucket_s_keys():
    keys = np.random.default_rng(5).integers(0, 2**64, 50_000, dtype=np.uint64)
    m = jumpshard.Memento(20)
    before = m.batch(keys)
    assert (before == jumpshard.batch(keys, 20)).all()
    m.remove(7)
    after = m.batch(keys)
    moved = before != after
    assert (before[moved] == 7).all() and not (after == 7).any()
    assert [m.bucket(int(k)) for k in keys[:100]] == list(after[:100])
    assert m.removals == [7] and m.working == 19 and m.barray == 20
    same = jumpshard.Memento.from_removals(20, m.removals)
    assert (same.batch(keys) == after).all()
    assert m.restore() == 7
    assert (m.batch(keys) == before).all()


def test_replicas_and_weights():
    keys = np.arange(1000, dtype=np.uint64)
    sets = jumpshard.replicas(keys, 50, 3)
    assert sets.shape == (1000, 3) and sets.dtype == np.int32
    assert (sets[:, 0] == jumpshard.batch(keys, 50)).all()
    assert all(len(set(row)) == 3 for row in sets.tolist())
    w = jumpshard.Weights([1.0] * 10)
    assert (w.batch(keys) == jumpshard.batch(keys, 10)).all()
    assert w.bucket(42) == jumpshard.bucket(42, 10) and len(w) == 10


def test_bad_input_is_refused():
    m = jumpshard.Memento(3)
    with pytest.raises(ValueError, match="does not exist"):
        m.remove(5)
    m.remove(0)
    with pytest.raises(ValueError, match="already removed"):
        m.remove(0)
    m.remove(1)
    with pytest.raises(ValueError, match="last working bucket"):
        m.remove(2)
    with pytest.raises(ValueError):
        m.remove(-1)
    with pytest.raises(TypeError):
        m.bucket_bytes(5)
    with pytest.raises(ValueError, match="replicas"):
        jumpshard.replicas(np.arange(3, dtype=np.uint64), 2, 3)
    with pytest.raises(ValueError, match="replicas"):
        jumpshard.replicas(np.arange(0, dtype=np.uint64), 2, 3)
    for weights in ([1.0, -1.0], [float("nan")], [0.0, 0.0], []):
        with pytest.raises(ValueError):
            jumpshard.Weights(weights)
    with pytest.raises(ValueError):
        jumpshard.Memento(0)


def test_replicas_under_removals_replace_only_the_member_hit():
    keys = np.arange(3000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    m = jumpshard.Memento(40)
    plain = m.replicas(keys, 3)
    np.testing.assert_array_equal(plain, jumpshard.replicas(keys, 40, 3))
    history = [plain]
    for bucket in [7, 0, 33, 12]:
        m.remove(bucket)
        sets = m.replicas(keys, 3)
        np.testing.assert_array_equal(sets[:, 0], m.batch(keys))
        for old, new in zip(history[-1].tolist(), sets.tolist()):
            gone = set(old) - set(new)
            assert gone == ({bucket} if bucket in old else set())
            assert len(set(new)) == 3 and bucket not in new
        history.append(sets)
    for _ in range(4):
        m.restore()
        history.pop()
        np.testing.assert_array_equal(m.replicas(keys, 3), history[-1])
    with pytest.raises(ValueError, match="replicas"):
        jumpshard.Memento.from_removals(4, [0, 1]).replicas(keys, 3)


def weights_golden():
    """The tables of testdata/weights/golden.txt (format in its README):
    each one's weights, keys and buckets."""
    tables = []
    for line in WEIGHTS_GOLDEN.read_text().splitlines():
        words = line.split()
        if words[0].startswith("#"):
            continue
        if words[:2] == ["table", "zeros"]:
            weights = [0.0] * int(words[2])
            for spot in words[3:]:
                index, weight = spot.split("=")
                weights[int(index)] = float(weight)
            tables.append((weights, [], []))
        elif words[0] == "table":
            tables.append(([float(w) for w in words[1:]], [], []))
        else:
            assert words[0] == "lookup", line
            tables[-1][1].append(int(words[1]))
            tables[-1][2].append(int(words[2]))
    return tables


def test_golden_vectors_of_weights_construction_2():
    tables = weights_golden()
    assert len(tables) == 12
    for weights, keys, want in tables:
        w = jumpshard.Weights(weights)
        assert [w.bucket(k) for k in keys] == want, weights
        np.testing.assert_array_equal(w.batch(np.array(keys, dtype=np.uint64)), want)


def test_placements_pickle_as_their_state():
    import pickle

    m = jumpshard.Memento(20)
    for b in (3, 9, 0):
        m.remove(b)
    w = jumpshard.Weights([1.0, 0.5, 2.0, 0.0])
    keys = np.arange(5000, dtype=np.uint64)
    for placement in (m, w):
        copy = pickle.loads(pickle.dumps(placement))
        assert repr(copy) == repr(placement)
        np.testing.assert_array_equal(copy.batch(keys), placement.batch(keys))
    assert pickle.loads(pickle.dumps(m)).removals == [3, 9, 0]
    assert w.weights == [1.0, 0.5, 2.0, 0.0]


def test_node_tables_place_keys_as_every_front_end():
    keys = np.arange(4000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    t = jumpshard.NodeTable("a\nb removed=1\nc\n+a\n")
    assert len(t) == 4 and t.slots == ["a", "b", "c", "a"] and t.removals == [1]
    m = jumpshard.Memento.from_removals(4, [1])
    np.testing.assert_array_equal(t.batch(keys), m.batch(keys))
    assert t.node(int(keys[0])) == t.slots[t.bucket(int(keys[0]))] != "b"
    w = jumpshard.NodeTable("a weight=2\nb\n")
    np.testing.assert_array_equal(w.batch(keys), jumpshard.Weights([2.0, 1.0]).batch(keys))
    import pickle

    assert pickle.loads(pickle.dumps(t)).to_text() == t.to_text()
    for text, line in [
        ("a\nb\na\n", "line 3"),
        ("a\nb removed=2\n", "removed=1"),
        ("a weight=-1\n", "line 1"),
    ]:
        with pytest.raises(ValueError, match=line):
            jumpshard.NodeTable(text)


def test_reprs_are_python():
    plain = jumpshard.NodeTable("a\nb\n")
    weighted = jumpshard.NodeTable("a weight=2\nb\n")
    assert repr(plain) == "NodeTable(slots=2, removals=[], weighted=False)"
    assert repr(weighted) == "NodeTable(slots=2, removals=[], weighted=True)"
