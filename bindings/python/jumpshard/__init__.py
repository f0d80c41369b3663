"""Jump consistent hash (Lamping & Veach, Figure 1) for Python, bit-exact
with the paper's C++, on the jumpshard Rust library.

>>> import numpy as np, jumpshard
>>> jumpshard.bucket(1253737204188795044, 100)
86
>>> jumpshard.batch(np.array([0, 1, 2**64 - 1], dtype=np.uint64), 12)
array([ 0,  6, 10], dtype=int32)
>>> p = jumpshard.plan(np.arange(1000, dtype=np.uint64), 10, 12)
>>> bool((p.from_ < 10).all() and (p.to >= 10).all()), p.moved == int(p.per_destination.sum())
(True, True)
>>> jumpshard.bucket_bytes(b"user:42", 12) == jumpshard.bucket(jumpshard.prehash(b"user:42"), 12)
True

``keys`` may be any 1-D sequence of 64-bit integers: a numpy ``uint64`` or
``int64`` array (int64 bits read as uint64, as C casts) or any buffer
numpy can view, a pyarrow ``UInt64Array``/``Int64Array``/``ChunkedArray``
(through the Arrow C data interface), a pandas Series with a numpy or Arrow
dtype, or a polars Series. They are read in place when the layout allows.
Nulls, other dtypes, 2-D input, bucket counts outside 1..2**31-1, ``bool``
where an int is meant, a ``threads`` that does not fit and an ``out`` of the
wrong dtype or length raise ``TypeError`` or ``ValueError`` naming the
problem, and ``out`` is then left untouched. Batches and plans release the
GIL; ``threads`` (default 1, 0 for one per core) runs them on the library's
thread pool with identical results.

A ``Plan`` lists the moving keys as ``positions`` (in the keys), ``from_``
(their old buckets; ``from`` is a Python keyword) and ``to`` (their new
ones), as the CLI's ``key``, ``from`` and ``to`` columns; ``sources`` and
``destinations`` are the old names of ``from_`` and ``to``, kept for
compatibility (the same arrays).

Byte-string keys (``bytes``, ``str`` as UTF-8, lists of them, Arrow
binary/string arrays) go through the fixed pre-hash XXH3-64 with seed 0
(``prehash``), as in the Rust and C APIs and the CLI.

``Memento`` removes and restores any bucket, moving only its keys;
``replicas(keys, n, k)`` gives each key ``k`` distinct buckets, the first
its Figure 1 bucket (one int key: one list); ``Weights`` gives buckets
real-valued weights. A count (``n``, ``k``, a bucket) is checked before
anything is sized by it: out of range, whatever the int, it raises
``ValueError`` naming it and its limit.

>>> m = jumpshard.Memento(10)
>>> m.remove(3)
>>> m.bucket(1253737204188795044) != 3, m.working
(True, 9)
>>> jumpshard.replicas(np.array([7], dtype=np.uint64), 100, 3).shape
(1, 3)
>>> jumpshard.replicas(7, 100, 3)
[97, 82, 90]

``jumpshard.spark``, ``jumpshard.dask``, ``jumpshard.polars`` and
``jumpshard.ray`` (``pip install 'jumpshard[spark]'`` and so on) plan and
reshard DataFrames and Parquet datasets on those engines, all on the
Arrow-batch core ``jumpshard.arrow``.
"""

from ._jumpshard import (
    BoundedLoads,
    Memento,
    NodeTable,
    Plan,
    Weights,
    __version__,
    batch,
    bucket,
    bucket_bytes,
    kernel,
    kernels,
    plan,
    prehash,
    replicas,
)

__all__ = [
    "BoundedLoads",
    "Memento",
    "NodeTable",
    "Plan",
    "Weights",
    "__version__",
    "batch",
    "bucket",
    "bucket_bytes",
    "kernel",
    "kernels",
    "plan",
    "prehash",
    "replicas",
]
