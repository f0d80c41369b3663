"""The engines that engines.py measures, one class each: its session or
cluster, started untimed, and its variants (read, noop, plan), with the
constants the bench's modules share.

engines.py runs them, one engine in a process, and keeps the no-op core
that the noop variant points the engine module at (see there for why).
"""

import importlib
import json
import logging
import pathlib
import subprocess
import sys
from typing import Any, Callable, Dict

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import jumpshard.arrow as ja

ROOT = pathlib.Path(__file__).parents[3]
CLI = ROOT / "target" / "release" / "jumpshard"
FROM, TO = 10, 12
#: The packages each engine needs (module and distribution names alike),
#: whose versions the report gives.
PACKAGES = {
    "spark": ("pyspark",),
    "dask": ("dask", "distributed"),
    "polars": ("polars",),
    "ray": ("ray",),
}


class Engine:
    """An engine's session or cluster with ``workers`` workers, started on
    entering (untimed), and its variants."""

    name = ""
    variants = ("read", "noop", "plan")
    #: The key type jumpshard.arrow.moves gets from this engine.
    key_type = "uint64"

    def __init__(self, workers: int, switch: Callable[[str, bool], None]):
        self.workers = workers
        #: switch(engine, on) points ``jumpshard.<engine>.ja`` at the no-op
        #: core, or back: engines.py's, which travels to workers by value.
        self.switch = switch

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
        self.switch(self.name, on)

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
        return json.loads(
            subprocess.run(command, check=True, capture_output=True, text=True).stdout
        )

    def nowrite(self, src: pathlib.Path) -> Dict[str, Any]:
        return self._reshard(src)

    def plan(self, src: pathlib.Path, out: pathlib.Path) -> Dict[str, Any]:
        out.mkdir(parents=True)
        return self._reshard(
            src, "--output", str(out / "moves.parquet"), "--output-format", "parquet"
        )


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
        return int(
            dd.from_map(_file_rows, files, meta=meta, enforce_metadata=False)
            .compute()["rows"]
            .sum()
        )

    def stand_in(self, on: bool) -> None:
        # A task is a jumpshard.dask class, pickled by name: its `ja` is the
        # worker's own, so the stand-in goes to every worker.
        super().stand_in(on)
        self.client.run(self.switch, self.name, on)


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
        return (
            pl.scan_parquet(files).select(pl.col("key").count()).collect(engine="streaming").item()
        )


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
        counted = ds.map_batches(
            _batch_rows, batch_format="pyarrow", batch_size=jumpshard.ray.BATCH_ROWS
        )
        return sum(
            pc.sum(counts["rows"]).as_py()
            for counts in counted.iter_batches(batch_format="pyarrow", batch_size=None)
        )


ENGINES = {engine.name: engine for engine in (Cli, Spark, Dask, Polars, Ray)}
#: The variants that write (and so get an output path).
WRITERS = ("noop", "plan")
