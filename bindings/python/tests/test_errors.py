"""Every bad input raises TypeError or ValueError naming the problem, and
`out` is left untouched."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import jumpshard

KEYS = np.arange(10, dtype=np.uint64)


@pytest.mark.parametrize(
    "n, error, message",
    [
        (0, ValueError, "n must be between 1 and 2147483647, got 0"),
        (-1, ValueError, "got -1"),
        (2**31, ValueError, "got 2147483648"),
        (2**64 + 1, ValueError, "got 18446744073709551617"),
        (True, TypeError, "n must be an int, not bool"),
        (1.5, TypeError, "n must be an int, not float"),
        ("3", TypeError, "n must be an int, not str"),
    ],
)
def test_bad_bucket_counts(n, error, message):
    out = np.full(10, -7, dtype=np.int32)
    with pytest.raises(error, match=message):
        jumpshard.bucket(1, n)
    with pytest.raises(error, match=message):
        jumpshard.batch(KEYS, n, out=out)
    with pytest.raises(error, match=message):
        jumpshard.bucket_bytes(b"x", n)
    with pytest.raises(error, match=message.replace("n must", "to_buckets must")):
        jumpshard.plan(KEYS, 10, n)
    with pytest.raises(error, match=message.replace("n must", "from_buckets must")):
        jumpshard.plan(KEYS, n, 10)
    assert (out == -7).all()


@pytest.mark.parametrize(
    "key, error, message",
    [
        (-1, ValueError, r"key must be between 0 and 2\*\*64-1, got -1"),
        (2**64, ValueError, "got 18446744073709551616"),
        (True, TypeError, "key must be an int, not bool"),
        (1.0, TypeError, "key must be an int, not float"),
    ],
)
def test_bad_keys(key, error, message):
    with pytest.raises(error, match=message):
        jumpshard.bucket(key, 10)


@pytest.mark.parametrize(
    "threads, error, message",
    [
        (
            2**64 + 1,
            ValueError,
            "threads must be between 0 and 18446744073709551615, got 18446744073709551617",
        ),
        (-1, ValueError, "threads must be between"),
        (True, TypeError, "threads must be an int, not bool"),
        (2.0, TypeError, "threads must be an int, not float"),
    ],
)
def test_bad_threads(threads, error, message):
    out = np.full(10, -7, dtype=np.int32)
    with pytest.raises(error, match=message):
        jumpshard.batch(KEYS, 10, out=out, threads=threads)
    with pytest.raises(error, match=message):
        jumpshard.plan(KEYS, 10, 12, threads=threads)
    assert (out == -7).all()


@pytest.mark.parametrize(
    "keys, error, message",
    [
        (
            np.arange(10, dtype=np.uint32),
            TypeError,
            "keys must be 64-bit integers .* got dtype uint32",
        ),
        (np.arange(10, dtype=np.float64), TypeError, "got dtype float64"),
        (np.ones(10, dtype=bool), TypeError, "got dtype bool"),
        (np.arange(10, dtype=">u4"), TypeError, "got dtype >u4"),
        (np.zeros((2, 5), dtype=np.uint64), ValueError, "keys must be 1-D, got 2 dimension"),
        (np.uint64(3), ValueError, "keys must be 1-D, got 0 dimension"),
        (pa.array([1, None] + [3] * 8, pa.uint64()), ValueError, "keys contain 1 null"),
        (pa.chunked_array([[1] * 5, [None] * 5], pa.int64()), ValueError, "keys contain 5 null"),
        (pd.Series([1, None] + [3] * 8, dtype="UInt64"), ValueError, "keys contain 1 null"),
        (
            pa.array(range(10), pa.int32()),
            TypeError,
            'keys must be an Arrow array of uint64 or int64, got Arrow format "i"',
        ),
        (pa.array([str(i) for i in range(10)]), TypeError, "got Arrow byte strings"),
        ([1, 2, True] + [0] * 7, TypeError, r"keys\[2\] must be an int, not bool"),
        ([1, 2.5] + [0] * 8, TypeError, r"keys\[1\] must be an int, not float"),
        (
            [2**64] + [0] * 9,
            ValueError,
            r"keys\[0\] must be between 0 and 2\*\*64-1, got 18446744073709551616",
        ),
        # A Python int is a key's value, in a list as in bucket(-1).
        ([0, -1] + [0] * 8, ValueError, r"keys\[1\] must be between 0 and 2\*\*64-1, got -1"),
        ("0123456789", TypeError, "keys must be 64-bit integers"),
    ],
)
def test_bad_key_arrays(keys, error, message):
    out = np.full(10, -7, dtype=np.int32)
    with pytest.raises(error, match=message):
        jumpshard.batch(keys, 10, out=out)
    with pytest.raises(error, match=message):
        jumpshard.plan(keys, 10, 12)
    assert (out == -7).all()


def test_bad_out():
    readonly = np.full(10, -7, dtype=np.int32)
    readonly.flags.writeable = False
    cases = [
        (np.full(10, -7, dtype=np.int64), TypeError, "out must have dtype int32, got int64"),
        (np.full(10, 7, dtype=np.uint32), TypeError, "out must have dtype int32, got uint32"),
        ([-7] * 10, TypeError, "out must be a numpy int32 array, not list"),
        (np.full(9, -7, dtype=np.int32), ValueError, "out has length 9, keys 10"),
        (np.full((2, 5), -7, dtype=np.int32), ValueError, "out must be 1-D"),
        (np.full(20, -7, dtype=np.int32)[::2], ValueError, "C-contiguous"),
        (readonly, ValueError, "out is read-only"),
    ]
    for bad, error, message in cases:
        before = np.array(bad, copy=True)
        with pytest.raises(error, match=message):
            jumpshard.batch(KEYS, 10, out=bad)
        np.testing.assert_array_equal(np.asarray(bad), before)
    keys = np.arange(10, dtype=np.uint64)
    with pytest.raises(ValueError, match="out overlaps keys"):
        jumpshard.batch(keys[:5], 10, out=keys.view(np.int32)[:5])
    np.testing.assert_array_equal(keys, np.arange(10))


def test_same_bucket_count_plan():
    with pytest.raises(ValueError, match="10"):
        jumpshard.plan(KEYS, 10, 10)


def test_bad_byte_keys():
    with pytest.raises(TypeError, match="byte keys must be bytes, str"):
        jumpshard.prehash(42)
    with pytest.raises(TypeError, match=r"keys\[1\] must be bytes or str, not int"):
        jumpshard.prehash([b"a", 1])
    with pytest.raises(ValueError, match="null"):
        jumpshard.bucket_bytes(pa.array(["a", None]), 10)
    with pytest.raises(TypeError, match="got 64-bit integers"):
        jumpshard.prehash(pa.array([1, 2], pa.uint64()))
    with pytest.raises(TypeError, match="Arrow format"):
        jumpshard.prehash(pa.array([1.0]))


def test_bucket_arguments():
    with pytest.raises(TypeError, match=r"takes 2 positional arguments \(key, n\), got 1"):
        jumpshard.bucket(1)
    with pytest.raises(TypeError, match="keyword"):
        jumpshard.bucket(key=1, n=2)


def test_dictionary_arrays_are_refused_not_read_as_their_indices():
    # With 64-bit indices, the indices would pass for keys.
    values = pa.array([2**64 - 1, 12345, 7], pa.uint64())
    for index_type in (pa.int64(), pa.uint64(), pa.int32()):
        d = pa.DictionaryArray.from_arrays(pa.array([2, 0, 1, 1], index_type), values)
        for keys in (d, pa.chunked_array([d])):
            with pytest.raises(TypeError, match="dictionary-encoded"):
                jumpshard.batch(keys, 1000)
            with pytest.raises(TypeError, match="dictionary-encoded"):
                jumpshard.Memento(1000).batch(keys)


def test_integers_out_of_range_are_value_errors_whatever_their_type():
    for bad in (-1, np.int64(-1), np.int32(-3)):
        with pytest.raises(ValueError, match="between 0 and 2\\*\\*64-1"):
            jumpshard.batch([5, bad], 10)


def test_numbers_past_the_floats_range_are_value_errors():
    with pytest.raises(ValueError, match="weights\\[1\\] is too large"):
        jumpshard.Weights([1.0, 2**1100])
    with pytest.raises(ValueError, match="factor is too large"):
        jumpshard.BoundedLoads(jumpshard.Memento(10), 10**400)
