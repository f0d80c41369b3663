"""batch and plan on 10^6 and 10^7 keys, from numpy and from pyarrow,
against the Rust library on the same keys (rust_same_keys, which also times
Figure 1, the C++ reference, on them), one thread, best of REPEAT.

    python bindings/python/benches/bench_batch.py [REPEAT]
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


def best(repeat, f) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def rust(keys: np.ndarray, repeat: int) -> dict:
    target = HERE.parents[0] / "target" / "benches"
    manifest = HERE / "rust_same_keys" / "Cargo.toml"
    build = ["cargo", "build", "-q", "--release", "--manifest-path", str(manifest), "--target-dir", str(target)]
    subprocess.run(build, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "keys.u64"
        keys.astype("<u8").tofile(path)
        args = [str(target / "release" / "rust-same-keys"), str(path), str(N), str(FROM), str(TO), str(repeat)]
        return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"# {cpu()}; kernel {jumpshard.kernel()}; one thread; best of {repeat}")
    print("# ratio = Python time / Rust time on the same keys; xFig1 = Figure 1 time / this time")
    print(f"{'keys':>9} {'call':24} {'ms':>8} {'Mkeys/s':>8} {'ratio':>6} {'xFig1':>6}")
    rng = np.random.default_rng(1)
    for count in (10**6, 10**7):
        keys = rng.integers(0, 2**64, size=count, dtype=np.uint64)
        arrow = pa.array(keys)
        out = np.empty(count, dtype=np.int32)
        load = os.getloadavg()[0]
        r = rust(keys, repeat)
        rows = [
            ("rust batch", r["batch_s"], r["batch_s"]),
            ("numpy batch", best(repeat, lambda: jumpshard.batch(keys, N)), r["batch_s"]),
            ("numpy batch out=", best(repeat, lambda: jumpshard.batch(keys, N, out=out)), r["batch_s"]),
            ("pyarrow batch", best(repeat, lambda: jumpshard.batch(arrow, N)), r["batch_s"]),
            ("rust plan, reused plan", r["plan_reused_s"], r["plan_s"]),
            ("rust plan", r["plan_s"], r["plan_s"]),
            ("numpy plan", best(repeat, lambda: jumpshard.plan(keys, FROM, TO)), r["plan_s"]),
            ("pyarrow plan", best(repeat, lambda: jumpshard.plan(arrow, FROM, TO)), r["plan_s"]),
        ]
        for name, seconds, rust_seconds in rows:
            print(
                f"{count:>9} {name:24} {seconds * 1e3:8.2f} {count / seconds / 1e6:8.1f} "
                f"{seconds / rust_seconds:6.3f} {r['figure1_s'] / seconds:6.2f}"
            )
        print(f"# load {load:.2f} -> {os.getloadavg()[0]:.2f}; Figure 1: {r['figure1_s'] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
