"""`plan` against the plain check: evaluate every key twice and compare."""

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

import jumpshard

RESIZES = [(10, 12), (12, 10), (1, 7), (7, 1), (1000, 1001), (2**31 - 1, 3), (100, 100_000)]


@pytest.fixture(scope="module")
def many_keys():
    return np.random.default_rng(7).integers(0, 2**64, size=200_003, dtype=np.uint64)


@pytest.mark.parametrize("from_buckets, to_buckets", RESIZES)
def test_plan_matches_two_evaluations(many_keys, from_buckets, to_buckets):
    before = jumpshard.batch(many_keys, from_buckets)
    after = jumpshard.batch(many_keys, to_buckets)
    moving = np.flatnonzero(before != after)
    for threads in (1, 2):
        plan = jumpshard.plan(many_keys, from_buckets, to_buckets, threads=threads)
        assert plan.positions.dtype == np.uint64
        assert plan.from_.dtype == plan.to.dtype == np.int32
        assert plan.per_destination.dtype == np.int64
        assert len(plan.per_destination) == to_buckets
        np.testing.assert_array_equal(plan.positions, moving)
        np.testing.assert_array_equal(plan.from_, before[moving])
        np.testing.assert_array_equal(plan.to, after[moving])
        counts = np.bincount(after[moving], minlength=to_buckets)
        np.testing.assert_array_equal(plan.per_destination, counts)
        assert plan.moved == len(plan) == len(moving)
        assert plan.keys == len(many_keys)
        assert (plan.from_buckets, plan.to_buckets) == (from_buckets, to_buckets)


def test_chunked_plan_numbers_positions_across_chunks(many_keys):
    whole = jumpshard.plan(many_keys, 10, 12)
    chunks = pa.chunked_array([many_keys[:1000], many_keys[1000:1001], many_keys[1001:]])
    joined = jumpshard.plan(chunks, 10, 12)
    for column in ("positions", "from_", "to", "per_destination"):
        np.testing.assert_array_equal(getattr(joined, column), getattr(whole, column))


def test_old_names_are_the_same_arrays(many_keys):
    """`sources` and `destinations`, the names before `from_` and `to`, still
    work: they are the same arrays, not copies."""
    plan = jumpshard.plan(many_keys, 10, 12)
    assert plan.sources is plan.from_ and plan.destinations is plan.to
    chunked = jumpshard.plan(pa.chunked_array([many_keys[:1000], many_keys[1000:]]), 10, 12)
    assert chunked.sources is chunked.from_ and chunked.destinations is chunked.to
    np.testing.assert_array_equal(chunked.sources, plan.from_)
    np.testing.assert_array_equal(chunked.destinations, plan.to)


def test_plan_arrays_outlive_the_plan(many_keys):
    positions = jumpshard.plan(many_keys, 10, 12).positions
    want = np.flatnonzero(jumpshard.batch(many_keys, 12) >= 10)
    np.testing.assert_array_equal(positions, want)


def test_empty_plan():
    plan = jumpshard.plan(np.empty(0, np.uint64), 3, 4)
    assert plan.moved == 0 and len(plan.positions) == 0
    assert repr(plan) == "Plan(keys=0, from_buckets=3, to_buckets=4, moved=0)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_plan_into_every_bucket_count_fits_in_little_memory():
    """Destination counts are sparse: a plan into 2^31-1 buckets runs with
    1 GiB of address space to spare, and only the dense view, which would
    take 16 GiB, is refused."""
    script = """
import resource, numpy as np, jumpshard
size = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:"))
limit = size * 1024 + (1 << 30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
p = jumpshard.plan(np.arange(1000, dtype=np.uint64), 10, 2**31 - 1)
buckets, counts = p.destination_counts
assert int(counts.sum()) == p.moved == len(p.to)
try:
    p.per_destination
except ValueError as e:
    print("refused" if "destination_counts" in str(e) else e)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused"


def test_reused_buffers_never_change_a_live_array(many_keys):
    """A plan's buffers are reused only once every array over them is gone."""
    first = jumpshard.plan(many_keys, 10, 12)
    positions, to = first.positions, first.to
    want = positions.copy(), to.copy()
    del first
    other_keys = many_keys[::-1].copy()
    for _ in range(3):
        other = jumpshard.plan(other_keys, 12, 10)
        np.testing.assert_array_equal(
            other.positions, np.flatnonzero(jumpshard.batch(other_keys, 12) >= 10)
        )
        del other
    np.testing.assert_array_equal(positions, want[0])
    np.testing.assert_array_equal(to, want[1])
    del positions, to
    again = jumpshard.plan(many_keys, 10, 12)
    np.testing.assert_array_equal(again.positions, want[0])
    np.testing.assert_array_equal(again.to, want[1])


def test_destination_counts_stay_sparse_for_huge_bucket_counts():
    import resource

    keys = np.random.default_rng(3).integers(0, 2**64, size=20_000, dtype=np.uint64)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    p = jumpshard.plan(keys, 1, 10**9)
    buckets, counts = p.destination_counts
    assert p.moved == len(keys) == int(counts.sum())
    assert buckets.dtype == np.int32 and counts.dtype == np.int64
    assert (np.diff(buckets) > 0).all()
    np.testing.assert_array_equal(np.unique(p.to), buckets)
    with pytest.raises(ValueError, match="use destination_counts"):
        p.per_destination
    # ru_maxrss is in KiB on Linux: well under the 8 GB of a dense array.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 512 * 1024
    small = jumpshard.plan(keys, 10, 12)
    dense = small.per_destination
    b, c = small.destination_counts
    assert len(dense) == 12 and (dense[b] == c).all() and dense.sum() == small.moved
