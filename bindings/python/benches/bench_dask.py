"""jumpshard.dask.reshard_parquet on 5x10^7 keys in 16 Parquet files, on a
LocalCluster of 2 worker processes, next to the CLI's reshard of the same
keys (a u64le file, every core), and the share of the Dask task time spent
in jumpshard.plan.

    python bindings/python/benches/bench_dask.py [KEYS] [FILES]

The share is the single-thread time of jumpshard.plan over every file's
keys, measured in this process, over the compute time of all Dask tasks
(from the task stream).
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
import pyarrow.parquet as pq
from distributed import Client, LocalCluster, get_task_stream

import jumpshard
import jumpshard.dask
from bench_bucket import cpu

ROOT = pathlib.Path(__file__).parents[3]
FROM, TO = 10, 12


def main() -> None:
    count = int(float(sys.argv[1])) if len(sys.argv) > 1 else 5 * 10**7
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    with tempfile.TemporaryDirectory(dir=ROOT / "target") as tmp:
        tmp = pathlib.Path(tmp)
        src = tmp / "keys"
        src.mkdir()
        keys = np.random.default_rng(5).integers(0, 2**64, size=count, dtype=np.uint64)
        parts = np.array_split(keys, files)
        for i, part in enumerate(parts):
            pq.write_table(pa.table({"key": part}), src / f"part-{i:02}.parquet")
        keys.astype("<u8").tofile(tmp / "keys.u64")
        plan_s = 0.0
        for part in parts:
            start = time.perf_counter()
            jumpshard.plan(part, FROM, TO)
            plan_s += time.perf_counter() - start

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster):
                load = os.getloadavg()[0]
                with get_task_stream() as stream:
                    start = time.perf_counter()
                    summary = jumpshard.dask.reshard_parquet(str(src), str(tmp / "moved"), FROM, TO)
                    dask_s = time.perf_counter() - start
                task_s = sum(
                    part["stop"] - part["start"]
                    for task in stream.data
                    for part in task["startstops"]
                    if part["action"] == "compute"
                )

        cli = ROOT / "target" / "release" / "jumpshard"
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "jumpshard-cli"], cwd=ROOT, check=True)
        command = [str(cli), "reshard", "--from", str(FROM), "--to", str(TO), "--json"]
        command += ["--output", str(tmp / "moves.csv"), str(tmp / "keys.u64")]
        start = time.perf_counter()
        result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        cli_s = time.perf_counter() - start

    assert result["moved"] == summary["moved"] and result["keys"] == summary["keys"] == count
    print(f"# {cpu()}; {count} keys in {files} Parquet files, {FROM} -> {TO}; load {load:.2f}")
    print(f"dask reshard_parquet, 2 workers: {dask_s:7.2f} s  {count / dask_s / 1e6:7.2f} Mkeys/s")
    print(f"CLI reshard (u64le, CSV out):    {cli_s:7.2f} s  {count / cli_s / 1e6:7.2f} Mkeys/s")
    print(f"task time {task_s:.2f} s, of which jumpshard.plan {plan_s:.2f} s ({100 * plan_s / task_s:.1f}%)")
    print(f"moved {summary['moved']} ({summary['moved'] / count:.4f})")


if __name__ == "__main__":
    main()
