"""BoundedLoads: the Memento bucket under the bound, the bound across
threads, counts kept across membership changes, batches of acquires and
releases against one call per key or node, and every refusal."""

import math
import threading

import numpy as np
import pytest

import jumpshard


def keys(n, seed=1):
    return [int(k) for k in np.random.default_rng(seed).integers(0, 2**64, n, dtype=np.uint64)]


def test_infinite_factor_is_the_memento_bucket():
    m = jumpshard.Memento(40)
    plain = jumpshard.BoundedLoads(m, math.inf)
    for k in keys(2000):
        assert plain.acquire(k) == m.bucket(k) == jumpshard.bucket(k, 40)
    m.remove(7)
    m.remove(20)
    removed = jumpshard.BoundedLoads(m, math.inf)
    for k in keys(2000, 2):
        assert removed.acquire(k) == m.bucket(k)
    assert removed.total == 2000 == sum(removed.loads)


def test_under_the_bound_is_the_bucket():
    m = jumpshard.Memento(30)
    router = jumpshard.BoundedLoads(m, 1.01)
    for k in keys(1000, 3):
        node = router.acquire(k)
        assert node == m.bucket(k)
        router.release(node)
    assert router.total == 0


def test_a_full_bucket_spills_down_the_walk():
    m = jumpshard.Memento(10)
    router = jumpshard.BoundedLoads(m, 1.5, walk=4)
    walk = m.replicas(99, 4)
    answers = [router.acquire(99) for _ in range(6)]
    assert answers[:2] == walk[:2]
    assert set(answers) <= set(walk)
    assert router.factor == 1.5 and router.walk == 4


def test_threads_keep_the_bound_and_the_counts():
    router = jumpshard.BoundedLoads(jumpshard.Memento(12), 1.25)
    held = [[] for _ in range(8)]

    def work(t):
        for k in keys(500, 10 + t):
            held[t].append(router.acquire(k))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    loads = router.loads
    assert router.total == sum(loads) == 4000
    assert max(loads) <= math.ceil(1.25 * 4000 / 12)
    for nodes in held:
        for node in nodes:
            router.release(node)
    assert router.total == 0 and not any(router.loads)


def test_membership_changes_keep_the_counts():
    router = jumpshard.BoundedLoads(jumpshard.Memento(6), 3.0)
    nodes = [router.acquire(k) for k in range(60)]
    before = router.loads
    router.remove(nodes[0])
    assert router.loads == before and router.cluster.is_removed(nodes[0])
    router.release(nodes[0])
    assert router.total == 59
    assert router.restore() == nodes[0]
    assert router.restore() == 6
    assert len(router.loads) == 7 and router.load(6) == 0


def test_bad_input():
    m = jumpshard.Memento(4)
    for bad in [1, 1.0, 0.5, -2, math.nan, -math.inf]:
        with pytest.raises(ValueError, match="load factor"):
            jumpshard.BoundedLoads(m, bad)
    for bad in [True, "2", None]:
        with pytest.raises(TypeError, match="factor"):
            jumpshard.BoundedLoads(m, bad)
    for bad in [0, 1025, -1, 2**70]:
        with pytest.raises(ValueError, match="walk"):
            jumpshard.BoundedLoads(m, 2.0, walk=bad)
    for bad in [True, 2.0]:
        with pytest.raises(TypeError, match="walk"):
            jumpshard.BoundedLoads(m, 2.0, walk=bad)
    for huge in [2**24 + 1, 2**31 - 1, jumpshard.Memento(2**31 - 1)]:
        with pytest.raises(ValueError, match="counter per bucket"):
            jumpshard.BoundedLoads(huge, 2.0)
    router = jumpshard.BoundedLoads(m, 2.0)
    with pytest.raises(ValueError, match="no load"):
        router.release(0)
    for bad in [-1, 4, 2**40, 2**70]:
        with pytest.raises(ValueError, match="does not exist"):
            router.release(bad)
    with pytest.raises(TypeError, match="bool"):
        router.release(False)
    with pytest.raises(TypeError, match="bool"):
        router.acquire(True)
    with pytest.raises(ValueError):
        router.acquire(-1)
    with pytest.raises(ValueError, match="does not exist"):
        router.remove(9)
    assert router.total == 0


def test_a_cluster_given_as_its_bucket_count():
    router = jumpshard.BoundedLoads(12, math.inf)
    assert router.cluster.barray == 12 and router.cluster.removals == []
    assert [router.acquire(k) for k in range(50)] == [jumpshard.bucket(k, 12) for k in range(50)]
    for bad in [0, -1, 2**31, 2**100]:
        with pytest.raises(ValueError, match="cluster"):
            jumpshard.BoundedLoads(bad, 2.0)
    with pytest.raises(TypeError):
        jumpshard.BoundedLoads(True, 2.0)


def hot_keys(n, seed):
    """Random keys, one in three the same hot key: its bucket fills and its
    later requests walk on."""
    out = np.random.default_rng(seed).integers(0, 2**64, n, dtype=np.uint64)
    out[::3] = 77
    return out


def test_a_batch_is_each_acquire_in_turn():
    import pyarrow as pa

    m = jumpshard.Memento(40)
    m.remove(7)
    batch, one_by_one = jumpshard.BoundedLoads(m, 1.25), jumpshard.BoundedLoads(m, 1.25)
    long = hot_keys(300, 3)  # past the batch's blocks of 256
    strided = hot_keys(20, 5)[::2]  # copied
    signed = hot_keys(600, 4)
    listed = hot_keys(50, 6)
    arrow, first, second = hot_keys(40, 7), hot_keys(30, 8), hot_keys(270, 9)
    # Each input beside its keys as uint64.
    inputs = [
        (hot_keys(0, 1), hot_keys(0, 1)),
        (hot_keys(1, 2), hot_keys(1, 2)),
        (long, long),
        (signed.view(np.int64), signed),
        (strided, strided),
        ([int(k) for k in listed], listed),
        (pa.array(arrow), arrow),
        (pa.chunked_array([first, second]), np.concatenate([first, second])),
    ]
    for keys_in, plain in inputs:
        nodes = batch.acquire_batch(keys_in)
        assert isinstance(nodes, np.ndarray) and nodes.dtype == np.int32
        assert nodes.tolist() == [one_by_one.acquire(int(k)) for k in plain]
        if keys_in is long:
            hot = set(nodes[::3].tolist())
            assert len(hot) > 1 and m.bucket(77) in hot, "the hot key walked on"
    assert batch.total == one_by_one.total == sum(len(plain) for _, plain in inputs)
    assert batch.loads == one_by_one.loads and batch.load(7) == 0


def test_batches_on_threads_keep_the_counts():
    router = jumpshard.BoundedLoads(jumpshard.Memento(12), 1.25)
    held = [None] * 8

    def work(t):
        held[t] = router.acquire_batch(hot_keys(500, 20 + t))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert router.total == sum(router.loads) == 4000
    for nodes in held:
        for node in nodes:
            router.release(int(node))
    assert router.total == 0 and not any(router.loads)


def test_bad_batches_count_nothing():
    import pyarrow as pa

    router = jumpshard.BoundedLoads(jumpshard.Memento(8), 2.0)
    refused = [
        (np.array([1.5, 2.0]), TypeError, "64-bit"),
        (np.array([1, 2], dtype=np.uint32), TypeError, "64-bit"),
        (np.zeros((2, 2), dtype=np.uint64), ValueError, "1-D"),
        ([1, -1], ValueError, r"keys\[1\]"),
        ([1, 2**64], ValueError, r"keys\[1\]"),
        ([3, True], TypeError, "bool"),
        ([3, "4"], TypeError, "int"),
        (pa.array(["a", "b"]), TypeError, "byte strings"),
        (None, TypeError, "64-bit"),
    ]
    for keys_in, error, match in refused:
        with pytest.raises(error, match=match):
            router.acquire_batch(keys_in)
    assert router.total == 0 and not any(router.loads)


def test_a_release_batch_is_each_release_in_turn():
    import pyarrow as pa

    m = jumpshard.Memento(40)
    m.remove(7)
    batch, one_by_one = jumpshard.BoundedLoads(m, 1.25), jumpshard.BoundedLoads(m, 1.25)
    held = batch.acquire_batch(hot_keys(1200, 11))
    assert one_by_one.acquire_batch(hot_keys(1200, 11)).tolist() == held.tolist()
    batch.remove(int(held[0]))
    one_by_one.remove(int(held[0]))  # a node that dies while it serves
    # Every input type, lengths around the blocks of 256, nodes repeated.
    parts = np.split(held, [0, 1, 256, 512, 769, 850, 900, 950])
    inputs = [
        parts[0],
        parts[1].astype(np.uint32),
        parts[2],  # int32, as acquire_batch answers
        parts[3].astype(np.int64),
        parts[4].astype(np.uint64)[::-1],
        [int(n) for n in parts[5]],
        tuple(int(n) for n in parts[6]),
        pa.array(parts[7]),
    ]
    for nodes in inputs:
        batch.release_batch(nodes)
        for node in np.asarray(nodes).tolist():
            one_by_one.release(node)
        assert batch.loads == one_by_one.loads
        assert batch.total == one_by_one.total
    rest = parts[8]
    assert batch.total == len(rest)
    batch.release_batch(rest)
    assert batch.total == 0 and not any(batch.loads)


def test_refused_release_batches_change_no_load():
    router = jumpshard.BoundedLoads(jumpshard.Memento(8), 2.0)
    router.remove(5)  # never acquired: its load stays 0
    held = router.acquire_batch(hot_keys(400, 12))
    loads, total = router.loads, router.total
    refused = [
        (np.insert(held, 0, 5), ValueError, "no load"),
        (np.insert(held, 300, 5), ValueError, "no load"),  # the second block
        (np.append(held, 5), ValueError, "no load"),
        (np.append(held, held[0]), ValueError, "no load"),  # one too many
        (np.append(held, 8), ValueError, "bucket 8 does not exist"),
        (np.insert(held.astype(np.int64), 9, -1), ValueError, r"nodes\[9\]: node -1 does not"),
        (np.array([1, 2**32], dtype=np.uint64), ValueError, r"nodes\[1\]: node 4294967296"),
        ([1, -1], ValueError, r"nodes\[1\]: node -1 does not exist"),
        ([1, 2**70], ValueError, r"nodes\[1\]: node 1180591620717411303424"),
        ([1, True], TypeError, "bool"),
        ([1, "2"], TypeError, r"nodes\[1\] must be an int"),
        (np.array([1.0, 2.0]), TypeError, "integers"),
        (np.array([True]), TypeError, "integers"),
        (np.zeros((2, 2), dtype=np.int32), ValueError, "1-D"),
        (None, TypeError, "integers"),
    ]
    for nodes, error, match in refused:
        with pytest.raises(error, match=match):
            router.release_batch(nodes)
        assert router.loads == loads and router.total == total
    router.release_batch([])
    router.release_batch(held)
    assert router.total == 0 and not any(router.loads)


def test_acquire_then_release_batches_on_threads_leave_nothing():
    router = jumpshard.BoundedLoads(jumpshard.Memento(12), 1.25)

    def work(t):
        for round in range(20):
            router.release_batch(router.acquire_batch(hot_keys(300, 100 * t + round)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for round in range(20):
        router.remove(round % 12)
        router.restore()
    for t in threads:
        t.join()
    assert router.total == 0 and not any(router.loads)
