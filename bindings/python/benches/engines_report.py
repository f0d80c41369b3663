"""What engines.py derives and reports: the machine, the versions, Figure 1
and jumpshard's single-thread seconds per key, then the figures of each
engine and worker count, the checks on them and the Markdown table.
"""

import importlib.metadata
import json
import pathlib
import platform
import subprocess
import time
from typing import Any, Callable, Dict, List, Optional

import pyarrow as pa
import pyarrow.dataset as pads

import jumpshard
import jumpshard.arrow as ja
from engines_runners import CLI, ENGINES, FROM, PACKAGES, TO

#: The rows jumpshard.arrow.moves gets at a time in the sample: the batch
#: the Spark and Ray modules ask for.
SAMPLE_BATCH = 1 << 20
SAMPLE_ROWS = 1 << 22


# ---------------------------------------------------------------- the machine, Figure 1, the sample


def lscpu() -> Dict[str, str]:
    """lscpu's model name, family, model and hypervisor."""
    fields = {
        "Model name": "model_name",
        "CPU family": "family",
        "Model": "model",
        "Hypervisor vendor": "hypervisor",
    }
    try:
        lines = subprocess.run(
            ["lscpu"], check=True, capture_output=True, text=True
        ).stdout.splitlines()
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
            found["cli"] = subprocess.run(
                [str(CLI), "--version"], capture_output=True, text=True
            ).stdout.split()[-1]
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


# ---------------------------------------------------------------- the figures, their checks, the table


def fastest(runs: Dict[str, List[Dict[str, Any]]]) -> Dict[str, Dict[str, Any]]:
    """Each variant's fastest run."""
    return {variant: min(tries, key=lambda r: r["seconds"]) for variant, tries in runs.items()}


def derive(
    measured: Dict[str, Dict[int, Dict]],
    keys: int,
    per_key: Dict[str, float],
    fig1: Optional[float],
) -> List[Dict[str, Any]]:
    """One row per engine and worker count: the figures of the table."""
    rate = {
        (e, w): keys / fastest(runs)["plan"]["seconds"]
        for e, by_w in measured.items()
        for w, runs in by_w.items()
    }
    rows = []
    for engine, by_workers in measured.items():
        for workers, runs in by_workers.items():
            best = fastest(runs)
            seconds = {variant: run["seconds"] for variant, run in best.items()}
            wall, kps = seconds["plan"], rate[engine, workers]
            row: Dict[str, Any] = {
                "engine": engine,
                "workers": workers,
                "seconds": seconds,
                "keys_per_s": kps,
            }
            row["per_worker"] = kps / workers
            row["vs_1_worker"] = (
                kps / rate[engine, 1] if workers != 1 and (engine, 1) in rate else None
            )
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
        problems.append(
            "engines disagree on the moves: "
            + ", ".join(f"{r['engine']} w{r['workers']} {r['moved']}" for r in rows)
        )
    for engine, by_workers in measured.items():
        for workers, runs in by_workers.items():
            name = f"{engine} with {workers} workers"
            read = [run["result"] for run in runs.get("read", []) if run["result"] != keys]
            if read:
                problems.append(f"{name} read {read[0]} rows, not {keys}")
            planned = {run["result"]["moved"] for run in runs["plan"]}
            if any(run["result"]["moved"] in planned for run in runs.get("noop", [])):
                problems.append(
                    f"{name}: the no-op moved what the plan moves; it did not stand in for jumpshard"
                )
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
        "Versions: "
        + ", ".join(f"{name} {version}" for name, version in env["versions"].items())
        + ".",
        "",
        "| engine | workers | Mkeys/s | per worker | vs 1 worker | read s | plan s | write s "
        "| jumpshard share | job / no-op | vs CLI | worker vs Figure 1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        split = row["split"]
        read = f"{split['read+plan']:.3g}*" if "read+plan" in split else f"{split['read']:.3g}"
        share = f"{row['share']:.0%}" + (
            f" (tasks {row['task_share']:.0%})" if row["task_share"] is not None else ""
        )
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
