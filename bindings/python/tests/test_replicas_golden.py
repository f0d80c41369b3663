"""testdata/replicas/golden.txt: replica sets (construction 2), plain and
under Memento removals, one key at a time and as one batch."""

from pathlib import Path

import numpy as np

import jumpshard

GOLDEN = Path(__file__).resolve().parents[3] / "testdata" / "replicas" / "golden.txt"


def records():
    for line in GOLDEN.read_text().splitlines():
        if not line.startswith("#"):
            kind, *numbers = line.split()
            yield kind, [int(x) for x in numbers]


def test_plain_sets():
    groups = {}
    for kind, v in records():
        if kind == "plain":
            key, n, k, members = v[0], v[1], v[2], v[3:]
            assert jumpshard.replicas(key, n, k) == members
            groups.setdefault((n, k), []).append((key, members))
    assert len(groups) > 40
    for (n, k), rows in groups.items():
        keys = np.array([key for key, _ in rows], dtype=np.uint64)
        got = jumpshard.replicas(keys, n, k)
        assert got.tolist() == [members for _, members in rows], (n, k)


def test_sets_under_removals():
    m, checked = None, 0
    for kind, v in records():
        if kind == "memento":
            m = jumpshard.Memento(v[0])
        elif kind == "remove":
            m.remove(v[0])
        elif kind == "set":
            key, k, members = v[0], v[1], v[2:]
            assert m.replicas(key, k) == members
            assert m.replicas(np.array([key], dtype=np.uint64), k).tolist() == [members]
            checked += 1
    assert checked > 200
