"""Every public callable of the package, its classes' methods included,
with every integer parameter given 0, -1, 2**31, 2**32, 2**63, 2**64 and
2**100 (see hostile_calls.py), in child interpreters: each call returns or
raises ValueError, TypeError or OverflowError, never anything else (no
PanicException), and no call kills its interpreter (an abort, a signal).

A child runs one module's calls in order, announcing each: when it dies,
the call it announced last is the one that killed it, and a new child
goes on from the next."""

import json
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
ACCEPTED = {"returned", "ValueError", "TypeError", "OverflowError"}


def run_module(module, tmp_path, timeout=300):
    """{call: outcome} of every call of `module`; a crash or hang is an
    outcome too, named after what killed the child."""
    outcomes, messages, first = {}, {}, 0
    while True:
        child = subprocess.run(
            [sys.executable, str(HERE / "hostile_calls.py"), module, str(first), str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tmp_path,
        )
        lines = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
        total = next((line["calls"] for line in lines if "calls" in line), None)
        assert total is not None, f"{module}: the child listed no calls:\n{child.stderr[-3000:]}"
        names = {line["index"]: line["call"] for line in lines if "call" in line}
        for line in lines:
            if "outcome" in line:
                outcomes[names[line["index"]]] = line["outcome"]
                messages[names[line["index"]]] = line["message"]
        if any(line.get("done") for line in lines):
            return total, outcomes, messages
        # The child died during the call it announced last.
        last = max(names) if names else first
        outcomes[names.get(last, f"call {last}")] = (
            f"crashed (exit {child.returncode}): {child.stderr[-500:]}"
        )
        first = last + 1
        if first >= total:
            return total, outcomes, messages


@pytest.mark.parametrize(
    "module",
    [
        "jumpshard",
        "jumpshard.arrow",
        "jumpshard.dask",
        "jumpshard.polars",
        pytest.param("jumpshard.ray", marks=pytest.mark.ray),
        pytest.param("jumpshard.spark", marks=pytest.mark.spark),
    ],
)
def test_every_public_callable_refuses_hostile_counts(module, tmp_path):
    total, outcomes, messages = run_module(module, tmp_path)
    assert len(outcomes) == total > 0
    bad = {
        call: f"{outcome}: {messages.get(call, '')}"
        for call, outcome in outcomes.items()
        if outcome not in ACCEPTED
    }
    assert not bad, "\n".join(f"{call} -> {what}" for call, what in sorted(bad.items()))
