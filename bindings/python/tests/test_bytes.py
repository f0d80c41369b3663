"""Byte-string keys: the fixed pre-hash (XXH3-64, seed 0) on every input."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import jumpshard
from conftest import golden

WORDS = ["", "a", "user:42", "x" * 12, "y" * 13, "é" * 40, "ключ"]


def test_known_values():
    assert jumpshard.prehash(b"") == 0x2D06800538D394C2
    assert jumpshard.prehash(b"a") == 0xE6C632B61E964E1F
    assert jumpshard.bucket_bytes(b"", 1000) == 241
    assert jumpshard.prehash("user:42") == jumpshard.prehash(b"user:42")
    assert jumpshard.prehash(bytearray(b"ab")) == jumpshard.prehash(b"ab")


def test_golden_vectors():
    rows = golden("bytes")
    assert rows
    for hexed, n, xxh3, bucket in rows:
        key = b"" if hexed == "-" else bytes.fromhex(hexed)
        assert jumpshard.prehash(key) == int(xxh3)
        assert jumpshard.bucket_bytes(key, int(n)) == int(bucket)
        assert jumpshard.bucket_bytes([key], int(n))[0] == int(bucket)


def reference(n):
    return np.array(
        [jumpshard.bucket(jumpshard.prehash(w.encode()), n) for w in WORDS], dtype=np.int32
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: list(WORDS),
        lambda: [w.encode() for w in WORDS],
        lambda: tuple(WORDS),
        lambda: pa.array(WORDS),
        lambda: pa.array(WORDS, pa.large_string()),
        lambda: pa.array([w.encode() for w in WORDS], pa.binary()),
        lambda: pa.array([w.encode() for w in WORDS], pa.large_binary()),
        lambda: pa.array(WORDS, pa.string_view()),
        lambda: pa.array(["pad"] + WORDS)[1:],
        lambda: pa.chunked_array([WORDS[:3], WORDS[3:]]),
        lambda: pd.Series(WORDS),
        lambda: pl.Series(WORDS),
    ],
)
def test_every_byte_input(make):
    keys = make()
    np.testing.assert_array_equal(jumpshard.bucket_bytes(keys, 12), reference(12))
    hashed = jumpshard.prehash(keys)
    assert hashed.dtype == np.uint64
    assert [int(h) for h in hashed] == [jumpshard.prehash(w) for w in WORDS]
