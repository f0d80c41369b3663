"""Override lines of a node table: bucket, node and batch answer pinned
keys first; a bad override raises ValueError naming its line."""

import numpy as np
import pytest

import jumpshard


def test_pinned_keys_are_answered_first():
    plain = jumpshard.NodeTable("a\nb\nc\n")
    keys = np.arange(1000, dtype=np.uint64)
    pinned_keys = [k for k in range(0, 1000, 7)]
    text = "a\nb\nc\n" + "".join(f"override {k} b\n" for k in pinned_keys)
    table = jumpshard.NodeTable(text)
    assert table.overrides == [(k, "b") for k in pinned_keys]
    want = plain.batch(keys)
    want[pinned_keys] = 1
    assert (table.batch(keys) == want).all()
    assert table.bucket(7) == 1 and table.node(7) == "b"
    assert table.bucket(8) == plain.bucket(8)
    assert table.fingerprint != plain.fingerprint
    assert jumpshard.NodeTable(table.to_text()).fingerprint == table.fingerprint
    assert plain.overrides == []


def test_bad_overrides_name_their_line():
    with pytest.raises(ValueError, match='line 3: node "z" is not in the table'):
        jumpshard.NodeTable("a\nb\noverride 1 z\n")
    with pytest.raises(ValueError, match="line 4: key 1 is already overridden on line 3"):
        jumpshard.NodeTable("a\nb\noverride 1 a\noverride 0x1 b\n")
