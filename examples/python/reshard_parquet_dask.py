"""Reshard a Parquet dataset of keys on a Dask cluster: the moving keys are
written to DST partitioned by their new shard, and the summary printed.

    pip install './bindings/python[dask]'
    python examples/python/reshard_parquet_dask.py SRC FROM TO DST [SCHEDULER]

SRC and DST are paths or fsspec URLs (s3://, gs://, ...); without
SCHEDULER, a LocalCluster of two worker processes runs it. With SRC
`--generate`, a dataset of 8 files of random keys is made in DST.src first.
"""

import json
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from distributed import Client, LocalCluster

import jumpshard.dask


def generate(root: str, files: int = 8, per_file: int = 100_000) -> str:
    import os

    os.makedirs(root)
    rng = np.random.default_rng(0)
    for i in range(files):
        keys = rng.integers(0, 2**64, size=per_file, dtype=np.uint64)
        pq.write_table(pa.table({"key": keys}), f"{root}/part-{i}.parquet")
    return root


def main() -> None:
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    src, from_buckets, to_buckets, dst = (
        sys.argv[1],
        int(sys.argv[2]),
        int(sys.argv[3]),
        sys.argv[4],
    )
    if src == "--generate":
        src = generate(dst + ".src")
    if len(sys.argv) == 6:
        client = Client(sys.argv[5])
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None))
    with client:
        summary = jumpshard.dask.reshard_parquet(src, from_buckets, to_buckets, dst)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
