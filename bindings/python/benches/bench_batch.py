"""batch and plan on 10^6 and 10^7 keys, from numpy and from pyarrow,
against the Rust library on the same keys (rust_same_keys, which also times
Figure 1, the C++ reference, on them), one thread, best of ROUNDS rounds
that alternate the Rust and the Python calls, so that both see the same load.

    python bindings/python/benches/bench_batch.py [ROUNDS]
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

import jumpshard
from bench_bucket import cpu

HERE = pathlib.Path(__file__).parent
N, FROM, TO = 1000, 10, 12
# Tries per round on each side: the Rust runner keeps the best of these.
REPEAT = 3


def rust_runner(keys: np.ndarray, tmp: pathlib.Path):
    """A function timing the Rust side on `keys` (written to a file): best
    of REPEAT in one process, so that its buffers are warm as in a long-lived
    Python process."""
    target = HERE.parents[0] / "target" / "benches"
    manifest = HERE / "rust_same_keys" / "Cargo.toml"
    build = [
        "cargo",
        "build",
        "-q",
        "--release",
        "--manifest-path",
        str(manifest),
        "--target-dir",
        str(target),
    ]
    subprocess.run(build, check=True)
    path = tmp / "keys.u64"
    keys.astype("<u8").tofile(path)
    args = [
        str(target / "release" / "rust-same-keys"),
        str(path),
        str(N),
        str(FROM),
        str(TO),
        str(REPEAT),
    ]
    return lambda: json.loads(
        subprocess.run(args, check=True, capture_output=True, text=True).stdout
    )


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(
        f"# {cpu()}; kernel {jumpshard.kernel()}; one thread; best of {rounds} interleaved rounds"
    )
    print("# ratio = Python time / Rust time on the same keys; xFig1 = Figure 1 time / this time")
    print(f"{'keys':>9} {'call':24} {'ms':>8} {'Mkeys/s':>8} {'ratio':>6} {'xFig1':>6}")
    rng = np.random.default_rng(1)
    for count in (10**6, 10**7):
        keys = rng.integers(0, 2**64, size=count, dtype=np.uint64)
        arrow = pa.array(keys)
        out = np.empty(count, dtype=np.int32)
        calls = {
            "numpy batch": lambda: jumpshard.batch(keys, N),
            "numpy batch out=": lambda: jumpshard.batch(keys, N, out=out),
            "pyarrow batch": lambda: jumpshard.batch(arrow, N),
            "numpy plan": lambda: jumpshard.plan(keys, FROM, TO),
            "pyarrow plan": lambda: jumpshard.plan(arrow, FROM, TO),
        }
        load = os.getloadavg()[0]
        best = {
            name: float("inf")
            for name in ["figure1_s", "batch_s", "batch_new_s", "plan_s", "plan_reused_s", *calls]
        }
        with tempfile.TemporaryDirectory() as tmp:
            rust = rust_runner(keys, pathlib.Path(tmp))
            for _ in range(rounds):
                for name, seconds in rust().items():
                    if name in best:
                        best[name] = min(best[name], seconds)
                # As many tries per round as the Rust side makes.
                for name, call in calls.items():
                    for _ in range(REPEAT):
                        start = time.perf_counter()
                        call()
                        best[name] = min(best[name], time.perf_counter() - start)
        # A new output array costs its page faults in both languages, so
        # the calls that make one are set against Rust's batch into a new
        # Vec, and `out=` against Rust's reused buffer.
        rows = [
            ("rust batch", "batch_s", "batch_s"),
            ("rust batch, new Vec", "batch_new_s", "batch_s"),
            ("numpy batch", None, "batch_new_s"),
            ("numpy batch out=", None, "batch_s"),
            ("pyarrow batch", None, "batch_new_s"),
            ("rust plan, reused plan", "plan_reused_s", "plan_s"),
            ("rust plan", "plan_s", "plan_s"),
            ("numpy plan", None, "plan_s"),
            ("pyarrow plan", None, "plan_s"),
        ]
        for name, key, against in rows:
            seconds = best[key or name]
            print(
                f"{count:>9} {name:24} {seconds * 1e3:8.2f} {count / seconds / 1e6:8.1f} "
                f"{seconds / best[against]:6.3f} {best['figure1_s'] / seconds:6.2f}"
            )
        print(
            f"# load {load:.2f} -> {os.getloadavg()[0]:.2f}; Figure 1: {best['figure1_s'] * 1e3:.2f} ms"
        )


if __name__ == "__main__":
    main()
