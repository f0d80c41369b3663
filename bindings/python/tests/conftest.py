"""Shared fixtures: Figure 1 in plain Python (the reference every result is
checked against), keys that exercise it, and the golden vectors."""

import json
import os
import pathlib
import subprocess
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = pathlib.Path(__file__).parents[3]

GOLDEN = ROOT / "testdata" / "golden.txt"


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


def cli_command():
    """The `jumpshard` CLI: the binary `JUMPSHARD_CLI` names (`make test`
    passes the one its Rust tests just built), else a release build of this
    checkout's, which the first call compiles (minutes, with Parquet)."""
    cli = os.environ.get("JUMPSHARD_CLI")
    if cli:
        return [cli]
    return ["cargo", "run", "-q", "--release", "-p", "jumpshard-cli", "--"]


def cli_reshard(source, args, tmp):
    """The CLI's `reshard --json` summary and move list (a pandas frame)
    for the keys in `source` (a u64le file or a Parquet file or directory)."""
    import pandas as pd

    moves = tmp / f"cli-moves-{len(list(tmp.glob('cli-moves-*')))}.csv"
    command = [
        *cli_command(),
        "reshard",
        *map(str, args),
        "--json",
        "--output",
        str(moves),
        str(source),
    ]
    summary = json.loads(
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    )
    return summary, pd.read_csv(moves, dtype={"key": np.uint64})


def write_parquet_keys(root: pathlib.Path, keys: np.ndarray, files: int) -> None:
    """`keys` as `files` Parquet files of a uint64 column `key` (Parquet
    UINT_64) and an int64 `payload`: each key's position."""
    root.mkdir(parents=True, exist_ok=True)
    for i, part in enumerate(np.array_split(np.arange(len(keys)), files)):
        table = pa.table({"key": keys[part], "payload": part.astype(np.int64)})
        pq.write_table(table, root / f"part-{i:02d}.parquet")


@pytest.fixture(scope="session")
def engine_keys() -> np.ndarray:
    """The keys the engine tests share: the 64-bit extremes and many keys
    above 2**63 among random ones."""
    rng = np.random.default_rng(30)
    special = np.array([0, 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 1], dtype=np.uint64)
    return np.concatenate([special, rng.integers(0, 2**64, size=19_994, dtype=np.uint64)])


#: (a Parquet table in a file named bad.parquet, options, the error, its
#: message): the bad inputs every engine refuses, naming column, file and row.
BAD_KEYS = [
    (
        pa.table({"key": pa.array([1, 2, None, 4], pa.uint64())}),
        {},
        ValueError,
        r"file \S*bad.parquet, row 2: the key is null",
    ),
    (
        pa.table({"key": pa.array([1, -5], pa.int64())}),
        {"key_type": "uint64"},
        ValueError,
        r"bad.parquet, row 1: -5 is negative",
    ),
    (
        pa.table({"key": pa.array([Decimal("1.00"), Decimal("2.50")], pa.decimal128(22, 2))}),
        {},
        ValueError,
        r"row 1: 2.50 has a fraction",
    ),
    (
        pa.table({"key": pa.array([2**64 - 1, 2**64], pa.decimal128(21, 0))}),
        {},
        ValueError,
        r"row 1: 18446744073709551616 is over 2\*\*64-1",
    ),
    # Kept nulls before a bad key: its row counts them.
    (
        pa.table({"key": pa.array([1, None, 3, -4], pa.int32())}),
        {"nulls": "keep"},
        ValueError,
        r"bad.parquet, row 3: -4 is negative",
    ),
    (
        pa.table({"key": pa.array([None, None, 1, -5], pa.int64())}),
        {"key_type": "uint64", "nulls": "keep"},
        ValueError,
        r"bad.parquet, row 3: -5 is negative",
    ),
    (
        pa.table({"key": pa.array([None, Decimal("1.00"), Decimal("2.50")], pa.decimal128(22, 2))}),
        {"nulls": "keep"},
        ValueError,
        r"row 2: 2.50 has a fraction",
    ),
    (
        pa.table({"key": pa.array([1.5, 2.0])}),
        {},
        TypeError,
        r"column 'key'.*double is not a key type",
    ),
    (pa.table({"id": pa.array([1, 2], pa.uint64())}), {}, KeyError, r"no column 'key'.*id"),
]


def write_parquet(path: pathlib.Path, table: pa.Table) -> pathlib.Path:
    """`table` as the Parquet file `path`, its directory made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def assert_nothing_written(out: pathlib.Path) -> None:
    """Neither the output nor a temporary sibling of it exists."""
    assert not out.exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.tmp-")]


#: (keys with nulls before a bad one, options, the row an error must name):
#: the row counts the nulls, in every front end's own batches.
NULLS_BEFORE_BAD = [
    (pa.array([1, None, 3, -4], pa.int32()), {}, 3),
    (pa.array([None, None, 7, -1], pa.int64()), {"key_type": "uint64"}, 3),
    (pa.array([None, Decimal(1), Decimal("2.5")], pa.decimal128(20, 1)), {}, 2),
]
