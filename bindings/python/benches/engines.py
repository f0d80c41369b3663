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
"""

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

import jumpshard
import jumpshard.arrow as ja

ROOT = pathlib.Path(__file__).parents[3]
CLI = ROOT / "target" / "release" / "jumpshard"
FROM, TO = 10, 12
SEED = 2026
#: The rows jumpshard.arrow.moves gets at a time in the sample: the batch
#: the Spark and Ray modules ask for.
SAMPLE_BATCH = 1 << 20
SAMPLE_ROWS = 1 << 22
#: The packages each engine needs (module and distribution names alike),
#: whose versions the report gives.
PACKAGES = {"spark": ("pyspark",), "dask": ("dask", "distributed"), "polars": ("polars",), "ray": ("ray",)}


# ---------------------------------------------------------------- dataset


def dataset(root: pathlib.Path, keys: int, files: int) -> pathlib.Path:
    """The directory of ``files`` Parquet files holding ``keys`` random
    keys, written unless a matching one is already there."""
    src, manifest = root / "keys", root / "keys.json"
    wanted = {"keys": keys, "files": files, "seed": SEED}
    if manifest.exists() and json.loads(manifest.read_text()) == wanted and len(list(src.glob("*.parquet"))) == files:
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


def _noop_moves(data: Any, before: ja.Cluster, after: ja.Cluster, *, column: str = "key", **_: Any) -> pa.Table:
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


# ---------------------------------------------------------------- engines


class Engine:
    """An engine's session or cluster with ``workers`` workers, started on
    entering (untimed), and its variants."""

    name = ""
    variants = ("read", "noop", "plan")
    #: The key type jumpshard.arrow.moves gets from this engine.
    key_type = "uint64"

    def __init__(self, workers: int):
        self.workers = workers

    def __enter__(self) -> "Engine":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    @staticmethod
    def environment(workers: int) -> Dict[str, str]:
        """Variables the engine's process needs before it imports anything."""
        return {}

    def stand_in(self, on: bool) -> None:
        _stand_in(self.name, on)

    def noop(self, src: pathlib.Path, out: pathlib.Path) -> Dict[str, Any]:
        self.stand_in(True)
        try:
            return self.plan(src, out)
        finally:
            self.stand_in(False)

    def plan(self, src: pathlib.Path, out: pathlib.Path) -> Dict[str, Any]:
        module = importlib.import_module(f"jumpshard.{self.name}")
        return module.reshard_parquet(str(src), FROM, TO, str(out))


class Cli(Engine):
    name = "cli"
    variants = ("nowrite", "plan")
    key_type = "kernel"

    def _reshard(self, src: pathlib.Path, *output: str) -> Dict[str, Any]:
        command = [str(CLI), "reshard", "--from", str(FROM), "--to", str(TO), "--column", "key"]
        command += ["--threads", str(self.workers), "--json", *output, str(src)]
        return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)

    def nowrite(self, src: pathlib.Path) -> Dict[str, Any]:
        return self._reshard(src)

    def plan(self, src: pathlib.Path, out: pathlib.Path) -> Dict[str, Any]:
        out.mkdir(parents=True)
        return self._reshard(src, "--output", str(out / "moves.parquet"), "--output-format", "parquet")


class Spark(Engine):
    name = "spark"
    key_type = "decimal"

    @staticmethod
    def environment(workers: int) -> Dict[str, str]:
        # The Python workers run this interpreter, where the jumpshard under test is.
        return {"PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}

    def start(self) -> None:
        from pyspark.sql import SparkSession

        self.session = (
            SparkSession.builder.master(f"local[{self.workers}]")
            .appName("jumpshard-bench")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            # The summary's group-by would otherwise run 200 tiny tasks.
            .config("spark.sql.shuffle.partitions", str(self.workers))
            .getOrCreate()
        )
        self.session.sparkContext.setLogLevel("ERROR")

    def stop(self) -> None:
        self.session.stop()

    def read(self, src: pathlib.Path) -> int:
        from pyspark.sql import functions as F

        # count(key), not count(): that one is answered without decoding a key.
        return self.session.read.parquet(str(src)).select(F.count("key")).first()[0]

    def plan(self, src: pathlib.Path, out: pathlib.Path) -> Dict[str, Any]:
        import jumpshard.spark

        return jumpshard.spark.reshard_parquet(str(src), FROM, TO, str(out), spark=self.session)


def _file_rows(path: str) -> Any:
    """One file's keys read as jumpshard.dask's task reads them, counted."""
    import pandas as pd

    with open(path, "rb") as f:
        rows = pq.ParquetFile(f).read(columns=["key"]).num_rows
    return pd.DataFrame({"rows": [rows]})


class Dask(Engine):
    name = "dask"

    def start(self) -> None:
        from distributed import Client, LocalCluster

        self.cluster = LocalCluster(
            n_workers=self.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        self.client = Client(self.cluster)

    def stop(self) -> None:
        self.client.close()
        self.cluster.close()

    def read(self, src: pathlib.Path) -> int:
        import dask.dataframe as dd
        import pandas as pd

        _, files = ja.parquet_files(str(src))
        meta = pd.DataFrame({"rows": pd.Series([], dtype="int64")})
        return int(dd.from_map(_file_rows, files, meta=meta, enforce_metadata=False).compute()["rows"].sum())

    def stand_in(self, on: bool) -> None:
        # A task is a jumpshard.dask class, pickled by name: its `ja` is the
        # worker's own, so the stand-in goes to every worker.
        super().stand_in(on)
        self.client.run(_stand_in, self.name, on)


class Polars(Engine):
    name = "polars"

    @staticmethod
    def environment(workers: int) -> Dict[str, str]:
        # Polars sizes its thread pool once, on import.
        return {"POLARS_MAX_THREADS": str(workers)}

    def start(self) -> None:
        import polars as pl

        assert pl.thread_pool_size() == self.workers, pl.thread_pool_size()

    def read(self, src: pathlib.Path) -> int:
        import polars as pl

        # col.count(), not len(): that one is answered from the footers.
        _, files = ja.parquet_files(str(src))
        return pl.scan_parquet(files).select(pl.col("key").count()).collect(engine="streaming").item()


def _batch_rows(batch: pa.Table) -> pa.Table:
    return pa.table({"rows": [batch.num_rows]})


class Ray(Engine):
    name = "ray"

    def start(self) -> None:
        import ray

        ray.init(num_cpus=self.workers, include_dashboard=False, logging_level=logging.ERROR)
        ray.data.DataContext.get_current().enable_progress_bars = False

    def stop(self) -> None:
        import ray

        ray.shutdown()

    def read(self, src: pathlib.Path) -> int:
        import ray

        import jumpshard.ray

        # Counted in tasks, as the job plans: Ray answers count() from the
        # footers, and its sum() adds an aggregation (a second, at any size).
        ds = ray.data.read_parquet(str(src)).select_columns(["key"])
        counted = ds.map_batches(_batch_rows, batch_format="pyarrow", batch_size=jumpshard.ray.BATCH_ROWS)
        return sum(pc.sum(counts["rows"]).as_py() for counts in counted.iter_batches(batch_format="pyarrow", batch_size=None))


ENGINES = {engine.name: engine for engine in (Cli, Spark, Dask, Polars, Ray)}
#: The variants that write (and so get an output path).
WRITERS = ("noop", "plan")


# ---------------------------------------------------------------- one engine, in its own process


def timed(engine: Engine, variant: str, src: pathlib.Path, out: pathlib.Path, keep: bool) -> Dict[str, Any]:
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
    with ENGINES[args.child](args.workers) as engine:
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


# ---------------------------------------------------------------- the machine, Figure 1, the sample


def lscpu() -> Dict[str, str]:
    """lscpu's model name, family, model and hypervisor."""
    fields = {"Model name": "model_name", "CPU family": "family", "Model": "model", "Hypervisor vendor": "hypervisor"}
    try:
        lines = subprocess.run(["lscpu"], check=True, capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return {"model_name": platform.processor() or platform.machine()}
    found = dict(line.split(":", 1) for line in lines if ":" in line)
    return {ours: found[theirs].strip() for theirs, ours in fields.items() if theirs in found}


def versions(engines: List[str]) -> Dict[str, str]:
    found = {
        "python": platform.python_version(),
        "jumpshard": f"{jumpshard.__version__} ({jumpshard.kernel()})",
        "pyarrow": pa.__version__,
    }
    for engine in engines:
        if engine == "cli":
            found["cli"] = subprocess.run([str(CLI), "--version"], capture_output=True, text=True).stdout.split()[-1]
        for package in PACKAGES.get(engine, ()):
            found[package] = importlib.metadata.version(package)
        if engine == "spark":
            # `openjdk version "17.0.15" 2025-04-15`, on standard error.
            java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
            found["java"] = java.split('"')[1] if java.count('"') >= 2 else java.strip()
    return found


def figure1() -> float:
    """Figure 1's keys/s, one thread, N=10, from ``jumpshard bench``."""
    command = [str(CLI), "bench", "--keys", str(1 << 20), "--repeat", "5", "--json"]
    rows = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    (row,) = [r for r in rows if r["kernel"] == "reference" and r["buckets"] == FROM]
    return row["mkeys_per_s"] * 1e6


def best_seconds(call: Callable[[], Any], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def seconds_per_key(src: pathlib.Path) -> Dict[str, float]:
    """Single-thread seconds per key, in this process, on the first keys
    of the dataset: ``jumpshard.arrow.moves`` in batches as the engines give
    them (uint64; decimal(20,0) as Spark reads Parquet UINT_64), and
    ``jumpshard.plan`` alone (the CLI's share)."""
    table = pads.dataset(src).head(SAMPLE_ROWS, columns=["key"]).combine_chunks()
    decimal = table.cast(pa.schema([("key", pa.decimal128(20, 0))]))
    keys = table.column("key").to_numpy()

    def moves(t: pa.Table) -> None:
        for batch in t.to_batches(max_chunksize=SAMPLE_BATCH):
            ja.moves(batch, FROM, TO)

    return {
        "uint64": best_seconds(lambda: moves(table)) / table.num_rows,
        "decimal": best_seconds(lambda: moves(decimal)) / table.num_rows,
        "kernel": best_seconds(lambda: jumpshard.plan(keys, FROM, TO)) / table.num_rows,
    }


# ---------------------------------------------------------------- the parent: run, derive, report


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
    command = [sys.executable, __file__, "--child", engine, "--workers", str(workers), "--result", str(result)]
    command += ["--data", args.data, "--repeat", str(args.repeat)] + (["--keep"] if args.keep else [])
    env = dict(os.environ, **ENGINES[engine].environment(workers))
    with open(log, "w") as f:
        done = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise RuntimeError(f"exit status {done.returncode}; the end of {log}:\n{tail}")
    return json.loads(result.read_text())


def fastest(runs: Dict[str, List[Dict[str, Any]]]) -> Dict[str, Dict[str, Any]]:
    """Each variant's fastest run."""
    return {variant: min(tries, key=lambda r: r["seconds"]) for variant, tries in runs.items()}


def derive(measured: Dict[str, Dict[int, Dict]], keys: int, per_key: Dict[str, float], fig1: Optional[float]) -> List[Dict[str, Any]]:
    """One row per engine and worker count: the figures of the table."""
    rate = {(e, w): keys / fastest(runs)["plan"]["seconds"] for e, by_w in measured.items() for w, runs in by_w.items()}
    rows = []
    for engine, by_workers in measured.items():
        for workers, runs in by_workers.items():
            best = fastest(runs)
            seconds = {variant: run["seconds"] for variant, run in best.items()}
            wall, kps = seconds["plan"], rate[engine, workers]
            row: Dict[str, Any] = {"engine": engine, "workers": workers, "seconds": seconds, "keys_per_s": kps}
            row["per_worker"] = kps / workers
            row["vs_1_worker"] = kps / rate[engine, 1] if workers != 1 and (engine, 1) in rate else None
            if engine == "cli":
                row["split"] = {"read+plan": seconds["nowrite"], "write": wall - seconds["nowrite"]}
                row["job_over_noop"] = None
            else:
                read, noop = seconds["read"], seconds["noop"]
                row["split"] = {"read": read, "plan": wall - noop, "write": noop - read}
                row["job_over_noop"] = wall / noop
            row["share"] = per_key[ENGINES[engine].key_type] * keys / (wall * workers)
            # Only Dask's summary times its tasks (the CLI's `seconds` is its wall).
            tasks = best["plan"]["result"]["seconds"]["plan"] if engine == "dask" else None
            row["task_share"] = tasks / (wall * workers) if tasks is not None else None
            row["vs_cli"] = kps / rate["cli", workers] if ("cli", workers) in rate else None
            row["vs_figure1"] = row["per_worker"] / fig1 if fig1 else None
            row["moved"] = best["plan"]["result"]["moved"]
            rows.append(row)
    return rows


def check(rows: List[Dict[str, Any]], measured: Dict[str, Dict[int, Dict]], keys: int) -> List[str]:
    """What would make the figures wrong: plans that disagree, a read that
    misses rows, a no-op that planned for real (the stand-in never reached
    the code that plans, so noop measured the job)."""
    problems = []
    if len({row["moved"] for row in rows}) > 1:
        problems.append("engines disagree on the moves: " + ", ".join(f"{r['engine']} w{r['workers']} {r['moved']}" for r in rows))
    for engine, by_workers in measured.items():
        for workers, runs in by_workers.items():
            name = f"{engine} with {workers} workers"
            read = [run["result"] for run in runs.get("read", []) if run["result"] != keys]
            if read:
                problems.append(f"{name} read {read[0]} rows, not {keys}")
            planned = {run["result"]["moved"] for run in runs["plan"]}
            if any(run["result"]["moved"] in planned for run in runs.get("noop", [])):
                problems.append(f"{name}: the no-op moved what the plan moves; it did not stand in for jumpshard")
    return problems


def cell(value: Optional[float], form: str) -> str:
    return "—" if value is None else format(value, form)


def markdown(rows: List[Dict[str, Any]], env: Dict[str, Any]) -> str:
    cpu = env["cpu"]
    machine = f"{cpu.get('model_name', '?')}, family {cpu.get('family', '?')}, model {cpu.get('model', '?')}"
    if cpu.get("model", "").isdigit():
        machine += f" (0x{int(cpu['model']):02X})"
    if "hypervisor" in cpu:
        machine += f", under {cpu['hypervisor']}"
    fig1 = env["figure1_keys_per_s"]
    lines = [
        f"Engines benchmark, {env['date']}: {machine}; {env['cores']} cores; load {env['load'][0]:.2f} -> "
        f"{env['load'][1]:.2f}. {env['keys']:,} keys (uint64, random) in {env['files']} Parquet files, "
        f"{FROM} -> {TO}, best of {env['repeat']}."
        + (f" Figure 1 (C++, one thread, N={FROM}): {fig1 / 1e6:.1f} Mkeys/s." if fig1 else ""),
        "",
        "Versions: " + ", ".join(f"{name} {version}" for name, version in env["versions"].items()) + ".",
        "",
        "| engine | workers | Mkeys/s | per worker | vs 1 worker | read s | plan s | write s "
        "| jumpshard share | job / no-op | vs CLI | worker vs Figure 1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        split = row["split"]
        read = f"{split['read+plan']:.3g}*" if "read+plan" in split else f"{split['read']:.3g}"
        share = f"{row['share']:.0%}" + (f" (tasks {row['task_share']:.0%})" if row["task_share"] is not None else "")
        lines.append(
            f"| {row['engine']} | {row['workers']} | {row['keys_per_s'] / 1e6:.3g} | {row['per_worker'] / 1e6:.3g} "
            f"| {cell(row['vs_1_worker'], '.2f')} | {read} | {cell(split.get('plan'), '.3g')} | {split['write']:.3g} "
            f"| {share} | {cell(row['job_over_noop'], '.2f')} | {cell(row['vs_cli'], '.2f')} "
            f"| {cell(row['vs_figure1'], '.2f')} |"
        )
    lines += [
        "",
        "Mkeys/s: keys over the wall time of `reshard_parquet` (CLI: `reshard` to a Parquet file), start-up "
        "excluded. read s: the key column read and counted; plan s: the job less its no-op (`jumpshard.arrow.moves` "
        "replaced by keeping a sixth of each batch); write s: the no-op less the read (the write, and the "
        "batches' trips to and from the Python workers). \\* CLI: read and plan together (`reshard` without "
        "`--output`; it has no read-only mode). jumpshard share: single-thread `jumpshard.arrow.moves` on the same "
        "keys (CLI: `jumpshard.plan`) over wall x workers; tasks: from Dask's task timings. worker vs Figure 1: "
        "keys/s per worker over Figure 1's keys/s on one thread.",
    ]
    return "\n".join(lines) + "\n"


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    summary = "\n\n".join(__doc__.split("\n\n")[:2])
    parser = argparse.ArgumentParser(description=summary, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=lambda s: int(float(s)), default=5 * 10**7, help="keys in the dataset (default 5e7)")
    parser.add_argument("--files", type=int, default=16, help="Parquet files (default 16)")
    parser.add_argument("--data", default=str(ROOT / "target" / "bench-engines"), help="dataset and outputs (default target/bench-engines)")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, of " + ", ".join(ENGINES))
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each variant; the fastest counts")
    parser.add_argument("--json", help="write every measurement and figure to this file")
    parser.add_argument("--markdown", help="write the table to this file")
    parser.add_argument("--keep", action="store_true", help="keep the outputs under DATA/out (until the next run)")
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


def run_all(args: argparse.Namespace, engines: List[str], workers: List[int]) -> Tuple[Dict[str, Dict[int, Dict]], Dict[str, str]]:
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
            times = ", ".join(f"{variant} {run['seconds']:.3g} s" for variant, run in fastest(runs).items())
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
        report = {"environment": env, "rows": rows, "runs": measured, "skipped": skipped, "failed": failed}
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
