"""Resharding a Parquet dataset 10 -> 12 on every engine (the CLI, Spark,
Dask, Polars, Ray) with 1 and 2 workers, each split into read, plan and
write, and set against the CLI and Figure 1 measured in the same run.

    python bindings/python/benches/engines.py --keys 50000000
    python bindings/python/benches/engines.py --keys 2000000 --engines cli,dask --markdown engines.md

The dataset is N random 64-bit keys (a fixed seed, half of them above
2**63) in a uint64 column ``key`` of 16 Parquet files, written under
``--data`` and reused while its manifest matches. Each engine and worker
count runs in a fresh process, so that thread pools, the JVM and Ray start
clean with that many workers: Spark ``local[W]``, a Dask ``LocalCluster``
of W single-threaded worker processes, Polars with ``POLARS_MAX_THREADS=W``,
Ray with ``num_cpus=W``, and ``jumpshard reshard --threads W``. Start-up is
not timed: every variant first runs once on one file, then the variants
take turns ``--repeat`` times over all files (the best time counts), each
output deleted once timed. The variants:

- ``read``: the key column read and its rows counted, the way the engine's
  job reads it (Spark ``count(key)``, Polars ``col("key").count()``,
  Dask a task per file through ``pyarrow.parquet``, Ray ``map_batches``
  counting each batch), so that every key is decoded;
- ``noop``: the engine's ``jumpshard.<engine>.reshard_parquet`` with
  ``jumpshard.arrow.moves`` replaced by a stand-in that keeps the first
  sixth of every batch (10 -> 12 moves a sixth of the keys) with made-up
  buckets: the engine's own read, transfer and partitioned write;
- ``plan``: the real ``reshard_parquet``; for the CLI, ``reshard`` writing
  a Parquet move list. The CLI has no read-only mode, so it has no
  ``read`` or ``noop``; ``nowrite`` (``reshard`` without ``--output``, read
  and plan) stands in for both.

Derived per engine and worker count: keys/s of the job and per worker;
keys/s against 1 worker; read, plan (plan - noop) and write (noop - read)
seconds, "write" holding everything that is neither read nor jumpshard
(Arrow batches to and from the Python workers, the summary); jumpshard's
share of the task time, the single-thread time of ``jumpshard.arrow.moves``
on a sample of the keys (as ``decimal(20,0)`` for Spark, which reads Parquet
``UINT_64`` so; ``jumpshard.plan`` for the CLI), scaled to N, over wall x
workers, and for Dask also the tasks' own plan seconds from its summary;
the job over its no-op; keys/s against the CLI with as many threads; and a
worker's keys/s against Figure 1 (the paper's C++, one thread, N=10, from
``jumpshard bench``). Times are wall-clock: on a shared machine, quote
them with the load the header gives, or run ``--repeat 3``.

Each engine's own output (JVM and Ray logs included) goes to
``DATA/logs/ENGINE-wW.log``; an engine that fails is reported and skipped.
A warning follows the table when the engines' plans disagree, a read
misses rows, or a no-op moved what the plan moves (its stand-in never
reached the code that plans).

The engines and their variants are in engines_runners.py, the figures,
their checks and the table in engines_report.py, both beside this script.
"""

import argparse
import importlib
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import jumpshard.arrow as ja
from engines_report import (
    check,
    derive,
    fastest,
    figure1,
    lscpu,
    markdown,
    seconds_per_key,
    versions,
)
from engines_runners import CLI, ENGINES, FROM, PACKAGES, ROOT, TO, WRITERS, Engine

SEED = 2026


# ---------------------------------------------------------------- dataset


def dataset(root: pathlib.Path, keys: int, files: int) -> pathlib.Path:
    """The directory of ``files`` Parquet files holding ``keys`` random
    keys, written unless a matching one is already there."""
    src, manifest = root / "keys", root / "keys.json"
    wanted = {"keys": keys, "files": files, "seed": SEED}
    if (
        manifest.exists()
        and json.loads(manifest.read_text()) == wanted
        and len(list(src.glob("*.parquet"))) == files
    ):
        print(f"# reusing {src}")
        return src
    shutil.rmtree(src, ignore_errors=True)
    manifest.unlink(missing_ok=True)
    src.mkdir(parents=True)
    rng = np.random.default_rng(SEED)
    for i in range(files):
        part = rng.integers(0, 2**64, size=keys // files + (i < keys % files), dtype=np.uint64)
        pq.write_table(pa.table({"key": part}), src / f"part-{i:03}.parquet")
    # Written last, so that a dataset cut short is never taken for whole.
    manifest.write_text(json.dumps(wanted))
    print(f"# wrote {keys} keys in {files} files to {src}")
    return src


def warm_page_cache(src: pathlib.Path) -> None:
    """Reads every file once, so that no engine pays for the disk."""
    for path in src.glob("*.parquet"):
        path.read_bytes()


# ---------------------------------------------------------------- the no-op
#
# Here and not in engines_runners: Spark's Python workers cannot import a
# module beside this script, and what is defined in the script (the main
# module) travels to workers by value.


def _noop_moves(
    data: Any, before: ja.Cluster, after: ja.Cluster, *, column: str = "key", **_: Any
) -> pa.Table:
    """Stands in for ``jumpshard.arrow.moves``: the first sixth of the rows
    (the share 10 -> 12 moves), with made-up buckets spread like the real
    ones, in the real schema, so that the engine writes as much data into
    as many ``to=B`` directories."""
    table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
    kept = table.num_rows * (TO - FROM) // TO
    keys = table.column(column).slice(0, kept)
    rows = np.arange(kept)
    from_ = pa.chunked_array([(rows % FROM).astype(np.int32)], pa.int32())
    to = pa.chunked_array([(FROM + rows % (TO - FROM)).astype(np.int32)], pa.int32())
    return pa.Table.from_arrays([keys, from_, to], schema=ja.moves_schema(keys.type, before, after))


class _NoopArrow:
    """``jumpshard.arrow`` but for ``moves``, the no-op. The engine modules
    reach the core through their global ``ja``; their batch functions are
    closures, pickled with that global by value, so pointing it at this
    object on the driver carries the no-op to Spark's and Ray's workers."""

    moves = staticmethod(_noop_moves)

    def __getattr__(self, name: str) -> Any:
        return getattr(ja, name)


def _stand_in(engine: str, on: bool) -> None:
    """Points ``jumpshard.<engine>.ja`` at the no-op core, or back."""
    importlib.import_module(f"jumpshard.{engine}").ja = _NoopArrow() if on else ja


# ---------------------------------------------------------------- one engine, in its own process


def timed(
    engine: Engine, variant: str, src: pathlib.Path, out: pathlib.Path, keep: bool
) -> Dict[str, Any]:
    """{seconds, result} of one variant; its output deleted unless ``keep``."""
    call = getattr(engine, variant)
    start = time.perf_counter()
    result = call(src, out) if variant in WRITERS else call(src)
    seconds = time.perf_counter() - start
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return {"seconds": seconds, "result": result}


def child(args: argparse.Namespace) -> None:
    """Runs one engine with ``args.workers`` workers and writes its timings
    to ``args.result``."""
    data = pathlib.Path(args.data)
    src, out = data / "keys", data / "out"
    name = f"{args.child}-w{args.workers}"
    runs: Dict[str, List[Dict[str, Any]]] = {}
    with ENGINES[args.child](args.workers, _stand_in) as engine:
        # Python workers, JIT and imports warm up on one file, untimed.
        first = sorted(src.glob("*.parquet"))[0]
        for variant in engine.variants:
            timed(engine, variant, first, out / f"{name}-warmup-{variant}", keep=False)
        for repeat in range(args.repeat):
            # Variants take turns, so that each sees the same load.
            for variant in engine.variants:
                run = timed(engine, variant, src, out / f"{name}-{variant}-{repeat}", args.keep)
                runs.setdefault(variant, []).append(run)
    pathlib.Path(args.result).write_text(json.dumps(runs))


# ---------------------------------------------------------------- the parent: run, then report (engines_report)


def missing(engine: str) -> Optional[str]:
    """Why ``engine`` cannot run here, or None."""
    if engine == "cli":
        return None if CLI.exists() else f"{CLI} is not built"
    for module in (*PACKAGES[engine], f"jumpshard.{engine}"):
        if importlib.util.find_spec(module) is None:
            return f"no module {module}"
    if engine == "spark" and shutil.which("java") is None:
        return "no Java runtime"
    return None


def run_child(args: argparse.Namespace, engine: str, workers: int) -> Dict[str, Any]:
    """Runs one engine in a fresh process; its timings, or raises with the
    tail of its log."""
    logs = pathlib.Path(args.data) / "logs"
    logs.mkdir(exist_ok=True)
    result, log = logs / f"{engine}-w{workers}.json", logs / f"{engine}-w{workers}.log"
    result.unlink(missing_ok=True)
    command = [
        sys.executable,
        __file__,
        "--child",
        engine,
        "--workers",
        str(workers),
        "--result",
        str(result),
    ]
    command += ["--data", args.data, "--repeat", str(args.repeat)] + (
        ["--keep"] if args.keep else []
    )
    env = dict(os.environ, **ENGINES[engine].environment(workers))
    with open(log, "w") as f:
        done = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise RuntimeError(f"exit status {done.returncode}; the end of {log}:\n{tail}")
    return json.loads(result.read_text())


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    summary = "\n\n".join(__doc__.split("\n\n")[:2])
    parser = argparse.ArgumentParser(
        description=summary, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--keys",
        type=lambda s: int(float(s)),
        default=5 * 10**7,
        help="keys in the dataset (default 5e7)",
    )
    parser.add_argument("--files", type=int, default=16, help="Parquet files (default 16)")
    parser.add_argument(
        "--data",
        default=str(ROOT / "target" / "bench-engines"),
        help="dataset and outputs (default target/bench-engines)",
    )
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help="comma-separated, of " + ", ".join(ENGINES)
    )
    parser.add_argument(
        "--workers", default="1,2", help="comma-separated worker counts (default 1,2)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each variant; the fastest counts"
    )
    parser.add_argument("--json", help="write every measurement and figure to this file")
    parser.add_argument("--markdown", help="write the table to this file")
    parser.add_argument(
        "--keep", action="store_true", help="keep the outputs under DATA/out (until the next run)"
    )
    parser.add_argument("--child", choices=list(ENGINES), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = set(args.engines.split(",")) - set(ENGINES)
    if unknown:
        parser.error(f"unknown engines: {', '.join(sorted(unknown))}")
    if not all(w.isdigit() and int(w) > 0 for w in args.workers.split(",")):
        parser.error(f"--workers takes positive counts, not {args.workers}")
    return args


def available(names: List[str]) -> Tuple[List[str], Dict[str, str]]:
    """(the engines that can run here, {engine: why not} for the others)."""
    engines, skipped = [], {}
    for engine in names:
        reason = missing(engine)
        if reason:
            skipped[engine] = reason
            print(f"# skipping {engine}: {reason}")
        else:
            engines.append(engine)
    return engines, skipped


def run_all(
    args: argparse.Namespace, engines: List[str], workers: List[int]
) -> Tuple[Dict[str, Dict[int, Dict]], Dict[str, str]]:
    """({engine: {workers: runs}}, {engine and workers: error}), each
    engine reported as it finishes."""
    measured: Dict[str, Dict[int, Dict]] = {}
    failed: Dict[str, str] = {}
    for engine in engines:
        for w in workers:
            name = f"{engine}, {w} worker{'s' if w > 1 else ''}"
            try:
                runs = run_child(args, engine, w)
            except Exception as error:  # one engine's failure must not end the others' runs
                failed[name] = str(error)
                print(f"# {name}: FAILED: {error}", file=sys.stderr)
                continue
            measured.setdefault(engine, {})[w] = runs
            times = ", ".join(
                f"{variant} {run['seconds']:.3g} s" for variant, run in fastest(runs).items()
            )
            print(f"# {name}: {times}", flush=True)
    return measured, failed


def main() -> None:
    args = parse()
    if args.child:
        args.workers = int(args.workers)
        child(args)
        return
    engines, skipped = available(args.engines.split(","))
    workers = [int(w) for w in args.workers.split(",")]
    data = pathlib.Path(args.data)
    src = dataset(data, args.keys, args.files)
    # Outputs of an earlier run (kept, or cut short) would be in the way.
    shutil.rmtree(data / "out", ignore_errors=True)
    warm_page_cache(src)
    load_before = os.getloadavg()[0]
    fig1 = None
    if "cli" in engines:
        try:
            fig1 = figure1()
        except (subprocess.CalledProcessError, ValueError) as error:
            print(f"# no Figure 1 figure: {error}", file=sys.stderr)
    per_key = seconds_per_key(src)
    measured, failed = run_all(args, engines, workers)
    env = {
        "date": time.strftime("%Y-%m-%d"),
        "cpu": lscpu(),
        "cores": os.cpu_count(),
        "load": [load_before, os.getloadavg()[0]],
        "keys": args.keys,
        "files": args.files,
        "repeat": args.repeat,
        "versions": versions(engines),
        "figure1_keys_per_s": fig1,
        "seconds_per_key": per_key,
    }
    rows = derive(measured, args.keys, per_key, fig1)
    table = markdown(rows, env)
    print(table)
    for problem in check(rows, measured, args.keys):
        print(f"# WARNING: {problem}", file=sys.stderr)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(table)
    if args.json:
        report = {
            "environment": env,
            "rows": rows,
            "runs": measured,
            "skipped": skipped,
            "failed": failed,
        }
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
