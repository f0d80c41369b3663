"""Shared fixtures: Figure 1 in plain Python (the reference every result is
checked against), keys that exercise it, and the golden vectors."""

import pathlib

import numpy as np
import pytest

GOLDEN = pathlib.Path(__file__).parents[3] / "testdata" / "golden.txt"


def figure1(key: int, n: int) -> int:
    """The paper's Figure 1, line for line: Python floats are IEEE doubles,
    and int() truncates toward zero as the C++ conversion does."""
    b, j = -1, 0
    while j < n:
        b = j
        key = (key * 2862933555777941757 + 1) % 2**64
        j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b


def reference(keys, n: int) -> np.ndarray:
    return np.array([figure1(int(k), n) for k in np.asarray(keys, dtype=np.uint64)], dtype=np.int32)


def golden(kind: str):
    """The rows of testdata/golden.txt starting with `kind`, split."""
    lines = GOLDEN.read_text().splitlines()
    return [line.split()[1:] for line in lines if line.startswith(kind + " ")]


@pytest.fixture(scope="session")
def keys() -> np.ndarray:
    """The 64-bit extremes, then random keys."""
    rng = np.random.default_rng(12)
    special = np.array([0, 1, 2**63 - 1, 2**63, 2**64 - 1], dtype=np.uint64)
    return np.concatenate([special, rng.integers(0, 2**64, size=300, dtype=np.uint64)])
