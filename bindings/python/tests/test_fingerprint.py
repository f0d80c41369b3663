"""Node-table fingerprints: the golden values every front end prints, and
one meaning spelled two ways."""

from pathlib import Path

import pytest

import jumpshard

TESTDATA = Path(__file__).resolve().parents[3] / "testdata"


def golden():
    for line in (TESTDATA / "fingerprints.txt").read_text().splitlines():
        if not line.startswith("#"):
            want, path = line.split("  ", 1)
            yield want, path


@pytest.mark.parametrize("want,path", list(golden()))
def test_golden_fingerprints(want, path):
    table = jumpshard.NodeTable((TESTDATA / path).read_text(encoding="utf-8"))
    assert table.fingerprint == want


def test_spelling_keeps_and_meaning_changes_the_fingerprint():
    table = jumpshard.NodeTable("a weight=2\nb\n")
    assert table.fingerprint.startswith("jt1:") and len(table.fingerprint) == 36
    same = jumpshard.NodeTable("a\tweight=2.0   # heavier\r\nb weight=1e0")
    assert same.fingerprint == table.fingerprint
    assert jumpshard.NodeTable("a weight=3\nb\n").fingerprint != table.fingerprint
    assert jumpshard.NodeTable("b\na weight=2\n").fingerprint != table.fingerprint
