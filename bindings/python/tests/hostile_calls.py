"""The child interpreter of test_hostile.py: every public callable of one
module of the package (its functions, its classes and their methods,
enumerated from ``__all__``), each integer parameter given each hostile
count in turn, the others valid. One JSON line before each call (its index
and description) and one after (how it ended), flushed, so that the parent
can tell which call a crash killed.

Usage: python hostile_calls.py MODULE FIRST TMPDIR, runs the calls from
index FIRST on.
"""

import inspect
import json
import os
import sys
import typing

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HOSTILE = [0, -1, 2**31, 2**32, 2**63, 2**64, 2**100]

#: Parameters that take an int (a key, a count, a bucket, a cluster given as
#: its bucket count), and those that take a list of ints or numbers.
INTS = {
    "key",
    "keys",
    "n",
    "k",
    "bucket",
    "threads",
    "from_buckets",
    "to_buckets",
    "cluster",
    "before",
    "after",
    "from_cluster",
    "to_cluster",
    "replicas",
    "offset",
    "batch_rows",
    "bits",
    "to",
    "walk",
    "node",
}
LISTS = {"removals", "weights"}


def engine_frames(module, tmp):
    """Valid values of the frame parameters for the engine module's calls."""
    keys = pa.table({"key": pa.array(np.arange(8, dtype=np.uint64))})
    if module == "jumpshard.dask":
        import dask.dataframe as dd

        return {"df": dd.from_pandas(keys.to_pandas(), npartitions=1)}
    if module == "jumpshard.polars":
        import polars as pl

        return {"lf": pl.from_arrow(keys).lazy(), "expr": pl.col("key")}
    if module == "jumpshard.ray":
        import ray

        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        return {"ds": ray.data.from_arrow(keys)}
    if module == "jumpshard.spark":
        from pyspark.sql import SparkSession

        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        spark = (
            SparkSession.builder.master("local[1]")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("OFF")
        return {"df": spark.createDataFrame(keys.to_pandas()), "spark": spark}
    return {}


def valid(tmp, frames):
    """A valid value of every parameter name, by name."""
    import jumpshard

    source = os.path.join(tmp, "in")
    os.makedirs(source, exist_ok=True)
    pq.write_table(
        pa.table({"key": pa.array([1, 2, 3], pa.uint64())}), os.path.join(source, "part.parquet")
    )
    return {
        "keys": np.arange(4, dtype=np.uint64),
        "key": 5,
        "bits": np.arange(4, dtype=np.uint64),
        "n": 10,
        "k": 2,
        "bucket": 1,
        "threads": 1,
        "from_buckets": 10,
        "to_buckets": 12,
        "cluster": 10,
        "before": 10,
        "after": 12,
        "from_cluster": 10,
        "to_cluster": 12,
        "replicas": 1,
        "offset": 0,
        "batch_rows": 1000,
        "removals": [],
        "weights": [1.0, 2.0],
        "text": "a\nb\nc\n",
        "array": pa.array([1, 2], pa.uint64()),
        "data": pa.table({"key": pa.array([1, 2], pa.uint64())}),
        "key_type": pa.uint64(),
        "to": pa.array([1, 2], pa.int32()),
        "counts": {1: 2},
        "src": source,
        "dst": os.path.join(tmp, "out-dst"),
        "out": os.path.join(tmp, "out"),
        "role": "cluster",
        "fs": None,
        "files": [],
        "memento": jumpshard.Memento(10),
        "factor": 1.25,
        "walk": 8,
        "node": 1,
        "zone": "z",
        "nodes": ["d"],
        **frames,
    }


def instances():
    """Objects whose methods are called, by class name."""
    import jumpshard
    import jumpshard.arrow as ja

    return {
        "Memento": lambda: jumpshard.Memento(10),
        "NodeTable": lambda: jumpshard.NodeTable("a\nb\nc\n"),
        "Weights": lambda: jumpshard.Weights([1.0, 2.0]),
        "BoundedLoads": lambda: jumpshard.BoundedLoads(jumpshard.Memento(10), 1.25),
        "Placement": lambda: ja.Placement(10),
        "JumpshardExpr": lambda: __import__("polars").col("key").jumpshard,
    }


def callables(module):
    """(description, function, is_method, class name) of every public
    callable of ``module``."""
    mod = __import__(module, fromlist=["_"])
    found = []
    for name in mod.__all__:
        obj = getattr(mod, name)
        if typing.get_origin(obj) is not None or not callable(obj):
            continue  # a type alias, a constant
        found.append((f"{module}.{name}", obj, False, None))
        if inspect.isclass(obj):
            for meth, function in inspect.getmembers(obj):
                if meth.startswith("_") or not callable(function):
                    continue
                static = (
                    isinstance(inspect.getattr_static(obj, meth), staticmethod)
                    or meth == "from_removals"
                )
                found.append((f"{module}.{name}.{meth}", function, not static, name))
    return found


def parameters(function, is_method):
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None  # no signature: called with no argument
    if is_method and params and params[0].name == "self":
        params = params[1:]
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def calls(module, tmp):
    """Every (description, thunk): each callable, each hostile value in each
    of its integer parameters, the other parameters valid."""
    frames = engine_frames(module, tmp)
    values = valid(tmp, frames)
    makers = instances()
    out = []
    for description, function, is_method, owner in callables(module):
        params = parameters(function, is_method)
        if params is None:
            out.append((f"{description}()", lambda f=function: f()))
            continue
        required = [p for p in params if p.default is p.empty]
        hostile_params = [p for p in params if p.name in INTS or p.name in LISTS]
        if not hostile_params:
            hostile_params = [None]  # still called once, with valid arguments
        for target in hostile_params:
            for value in HOSTILE if target is not None else [None]:
                args, kwargs = [], {}
                for p in params:
                    if p is target:
                        given = [value] if p.name in LISTS else value
                    elif p.default is not p.empty and p not in required:
                        continue
                    else:
                        given = values[p.name]
                    if p.kind is p.POSITIONAL_ONLY:
                        args.append(given)
                    else:
                        kwargs[p.name] = given
                if target is not None and target.default is not target.empty:
                    kwargs[target.name] = [value] if target.name in LISTS else value
                what = f"{description}({target.name if target else ''}={value})"

                def thunk(
                    f=function, m=is_method, o=owner, a=tuple(args), k=dict(kwargs), d=description
                ):
                    # A fresh output directory per call, and a fresh object.
                    for name in ("out", "dst"):
                        if name in k:
                            k[name] = os.path.join(
                                tmp, f"{name}-{abs(hash(d))}-{len(os.listdir(tmp))}"
                            )
                    if m:
                        return f(makers[o](), *a, **k)
                    return f(*a, **k)

                out.append((what, thunk))
    return out


def main():
    module, first, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    planned = calls(module, tmp)
    print(json.dumps({"calls": len(planned)}), flush=True)
    for index, (what, thunk) in enumerate(planned):
        if index < first:
            continue
        print(json.dumps({"index": index, "call": what}), flush=True)
        try:
            thunk()
            outcome = "returned"
        except BaseException as error:  # noqa: BLE001 - PanicException is a BaseException
            outcome = type(error).__name__
            message = str(error)[:300]
        else:
            message = ""
        print(json.dumps({"index": index, "outcome": outcome, "message": message}), flush=True)
    print(json.dumps({"done": True}), flush=True)
    os._exit(0)  # no engine's shutdown hooks: the parent only needs the lines above


if __name__ == "__main__":
    main()
