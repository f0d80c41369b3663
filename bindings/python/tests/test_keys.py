"""Every kind of key input against Figure 1, read in place where it can be."""

import jump
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import jumpshard
from conftest import figure1, golden, reference

COUNTS = [1, 2, 12, 1000, 65536, 2**31 - 1]


def test_golden_vectors():
    rows = golden("u64")
    assert rows
    for key, n, bucket in rows:
        assert jumpshard.bucket(int(key), int(n)) == int(bucket)
        assert jumpshard.batch(np.array([int(key)], np.uint64), int(n))[0] == int(bucket)


def test_bucket_matches_figure1_and_the_c_extension(keys):
    for n in COUNTS:
        for k in keys[:50]:
            assert jumpshard.bucket(int(k), n) == figure1(int(k), n) == jump.hash(int(k), n)
    assert jumpshard.bucket(1253737204188795044, 100) == 86
    assert jumpshard.bucket(np.uint64(2**64 - 1), np.int32(12)) == 10


@pytest.mark.parametrize("n", COUNTS)
def test_every_length_and_offset(keys, n):
    want = reference(keys, n)
    for length in range(0, 70):
        for start in (0, 1, 3):
            got = jumpshard.batch(keys[start : start + length], n)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, want[start : start + length])


def test_misaligned_and_strided_buffers(keys):
    want = reference(keys, 1000)
    raw = np.zeros(keys.nbytes + 1, dtype=np.uint8)
    misaligned = raw[1:].view(np.uint64)
    misaligned[:] = keys
    assert misaligned.ctypes.data % 8 != 0
    np.testing.assert_array_equal(jumpshard.batch(misaligned, 1000), want)
    np.testing.assert_array_equal(jumpshard.batch(np.repeat(keys, 2)[::2], 1000), want)


def inputs(keys):
    """(name, object) for every accepted input type holding `keys`."""
    signed = keys.view(np.int64)
    chunked = pa.chunked_array(
        [pa.array(keys[:100]), pa.array(keys[100:200]), pa.array(keys[200:])]
    )
    return [
        ("numpy uint64", keys),
        ("numpy int64", signed),
        ("memoryview", memoryview(keys)),
        ("bytes buffer", np.frombuffer(keys.tobytes(), dtype=np.uint64)),
        ("list", [int(k) for k in keys]),
        ("list of int64 values", [int(k) for k in signed.astype(np.uint64)]),
        ("pyarrow UInt64Array", pa.array(keys)),
        ("pyarrow Int64Array", pa.array(signed)),
        ("pyarrow slice", pa.array(np.concatenate([keys[:7], keys]))[7:]),
        ("pyarrow ChunkedArray", chunked),
        ("pandas numpy", pd.Series(keys)),
        ("pandas int64", pd.Series(signed)),
        ("pandas arrow", pd.Series(keys, dtype="uint64[pyarrow]")),
        ("pandas masked", pd.Series(keys, dtype="UInt64")),
        ("polars UInt64", pl.Series(keys)),
        ("polars Int64", pl.Series(signed)),
    ]


@pytest.mark.parametrize("index", range(16))
def test_every_input_type(keys, index):
    name, obj = inputs(keys)[index]
    for n in (12, 2**31 - 1):
        want = reference(keys, n)
        np.testing.assert_array_equal(jumpshard.batch(obj, n), want, err_msg=name)
        np.testing.assert_array_equal(jumpshard.batch(obj, n, threads=2), want, err_msg=name)
        plan = jumpshard.plan(obj, 10, n)
        np.testing.assert_array_equal(plan.positions, np.flatnonzero(want >= 10), err_msg=name)


def test_numpy_keys_are_read_in_place(keys):
    # A read-only array works: nothing is written to the keys.
    view = keys.copy()
    view.flags.writeable = False
    np.testing.assert_array_equal(jumpshard.batch(view, 7), reference(keys, 7))


def test_out_is_filled_and_returned(keys):
    out = np.full(len(keys), -1, dtype=np.int32)
    assert jumpshard.batch(keys, 12, out=out) is out
    np.testing.assert_array_equal(out, reference(keys, 12))


def test_threads_give_identical_results():
    keys = np.arange(300_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    one = jumpshard.batch(keys, 1000)
    for threads in (0, 2, 7, 2**63):
        np.testing.assert_array_equal(jumpshard.batch(keys, 1000, threads=threads), one)
    np.testing.assert_array_equal(one[:1000], reference(keys[:1000], 1000))


def test_kernels():
    assert jumpshard.kernel() in jumpshard.kernels()
    assert "scalar" in jumpshard.kernels()


def test_batches_release_the_gil():
    # The worker notes when its call starts and ends. Holding the GIL, it
    # would let this thread (waiting for `started`) run again only after the
    # call; releasing it, this thread runs again early in the call.
    import threading
    import time

    keys = np.arange(10**7, dtype=np.uint64)
    for call in (lambda: jumpshard.batch(keys, 1000), lambda: jumpshard.plan(keys, 10, 12)):
        started, times = threading.Event(), []

        def work():
            times.append(time.perf_counter())
            started.set()
            call()
            times.append(time.perf_counter())

        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        back = time.perf_counter()
        worker.join()
        start, end = times
        assert back - start < (end - start) / 2


def test_keys_are_read_in_place():
    # An `out` laid over the keys' own memory is refused as overlapping
    # exactly when the keys are read where they lie, not from a copy.
    base = np.arange(1000, dtype=np.uint64)
    over = base.view(np.int32)[:1000]
    for name, obj in [
        ("numpy", base),
        ("numpy int64", base.view(np.int64)),
        ("memoryview", memoryview(base)),
        ("pyarrow", pa.array(base)),
        ("pyarrow ChunkedArray", pa.chunked_array([pa.array(base)])),
        ("pandas numpy", pd.Series(base, copy=False)),
        ("pandas arrow", pd.Series(pa.array(base), dtype=pd.ArrowDtype(pa.uint64()))),
        ("polars", pl.Series(base)),
    ]:
        with pytest.raises(ValueError, match="out overlaps keys"):
            jumpshard.batch(obj, 10, out=over)
        assert (base == np.arange(1000)).all(), name
