"""BoundedLoads: the Memento bucket under the bound, the bound across
threads, counts kept across membership changes, and every refusal."""

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
