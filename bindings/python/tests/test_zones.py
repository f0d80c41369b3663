"""testdata/zones/: zoned replica sets through NodeTable.replicas, one key
at a time and as one batch, zones and zone changes, and the refusals."""

from pathlib import Path

import numpy as np
import pytest

import jumpshard

ZONES = Path(__file__).resolve().parents[3] / "testdata" / "zones"


def rows():
    for line in (ZONES / "sets.txt").read_text().splitlines():
        if not line.startswith("#"):
            name, key, k, members = line.split()
            yield name, int(key), int(k), members.split(",")


def test_golden_sets():
    tables = {}
    groups = {}
    count = 0
    for name, key, k, members in rows():
        if name not in tables:
            tables[name] = jumpshard.NodeTable((ZONES / name).read_text())
        table = tables[name]
        assert [table.slots[s] for s in table.replicas(key, k)] == members
        groups.setdefault((name, k), []).append((key, members))
        count += 1
    assert count == 160
    for (name, k), group in groups.items():
        table = tables[name]
        keys = np.array([key for key, _ in group], dtype=np.uint64)
        got = table.replicas(keys, k)
        assert got.shape == (len(group), k)
        for row, (_, members) in zip(got, group):
            assert [table.slots[s] for s in row] == members


def test_sets_sit_in_distinct_zones():
    table = jumpshard.NodeTable((ZONES / "three.txt").read_text())
    assert table.zones == ["east", "central", "west"]
    assert table.zone_of("b2") == "central"
    keys = np.arange(5000, dtype=np.uint64)
    sets = table.replicas(keys, 3)
    zones = np.vectorize(lambda s: table.zone_of(table.slots[s]))(sets)
    assert all(len(set(row)) == 3 for row in zones)
    assert (sets[:, 0] == table.batch(keys)).all()


def test_zone_changes():
    table = jumpshard.NodeTable((ZONES / "three.txt").read_text())
    lost = table.with_zone_lost("west")
    assert lost.zones == table.zones
    assert lost.removals == [2, 5, 8]
    grown = table.with_node_added("d1", "east")
    assert grown.slots[-1] == "d1" and grown.zone_of("d1") == "east"
    added = table.with_zone_added("north", ["n1", "n2"])
    assert added.zones[-1] == "north"
    # Beside removals a slot appended would move other nodes' keys.
    with pytest.raises(ValueError, match="3 removals"):
        lost.with_zone_added("north", ["n1", "n2"])
    with pytest.raises(ValueError, match="restore them first"):
        lost.with_node_added("d1", "east")
    with pytest.raises(TypeError, match="sequence of node names"):
        table.with_zone_added("north", "n1")
    keys = np.arange(2000, dtype=np.uint64)
    before, after = table.replicas(keys, 3), lost.replicas(keys, 3)
    for old, new in zip(before, after):
        kept = [s for s in old if table.zone_of(table.slots[s]) != "west"]
        assert set(kept) <= set(new)


def test_refusals():
    table = jumpshard.NodeTable((ZONES / "three.txt").read_text())
    with pytest.raises(ValueError, match="10"):
        table.replicas(1, 10)
    with pytest.raises(ValueError, match="nowhere"):
        table.with_zone_lost("nowhere")
    with pytest.raises(ValueError, match="nowhere"):
        table.with_node_added("d1", "nowhere")
    with pytest.raises(ValueError, match="east"):
        table.with_zone_added("east", ["e9"])
    # A name a slot line would read as a node and an attribute.
    with pytest.raises(ValueError, match="whitespace"):
        table.with_node_added("d1 weight=5", "east")
    with pytest.raises(ValueError, match="zz"):
        table.zone_of("zz")
    plain = jumpshard.NodeTable("a\nb\nc\n")
    assert plain.zones == [] and plain.zone_of("a") is None
    with pytest.raises(ValueError, match="line 2"):
        jumpshard.NodeTable("a zone=x\nb\n")
    solo = jumpshard.NodeTable("a zone=x\nb zone=y\n").with_zone_lost("x")
    with pytest.raises(ValueError, match="y"):
        solo.with_zone_lost("y")
