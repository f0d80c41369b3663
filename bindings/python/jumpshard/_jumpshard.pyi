"""Type stubs of the jumpshard extension module (see the package docstring)."""

from typing import Any, List, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

#: Anything holding 64-bit integer keys: numpy arrays and buffers, pyarrow
#: arrays and chunked arrays, pandas and polars Series.
Keys = Any
ByteKey = Union[bytes, bytearray, str]

class Plan:
    """The keys that move when the bucket count changes, and where to."""

    positions: npt.NDArray[np.uint64]
    #: The moving keys' old buckets: ``from_``, as ``from`` is a Python keyword.
    from_: npt.NDArray[np.int32]
    #: Their new buckets.
    to: npt.NDArray[np.int32]
    #: ``from_`` and ``to`` under their old names, kept for compatibility:
    #: the same arrays.
    sources: npt.NDArray[np.int32]
    destinations: npt.NDArray[np.int32]
    per_destination: npt.NDArray[np.int64]
    moved: int
    keys: int
    from_buckets: int
    to_buckets: int
    def __len__(self) -> int: ...

def bucket(key: int, n: int, /) -> int:
    """The bucket of one 64-bit key among n (1 to 2**31-1)."""

def batch(
    keys: Keys,
    n: int,
    *,
    out: Optional[npt.NDArray[np.int32]] = None,
    threads: int = 1,
) -> npt.NDArray[np.int32]:
    """The bucket of every key among n, into out (int32, as long as keys) or
    a new array; threads=0 uses one thread per core."""

def plan(keys: Keys, from_buckets: int, to_buckets: int, *, threads: int = 1) -> Plan:
    """Which keys move when from_buckets becomes to_buckets, and where."""

@overload
def prehash(keys: ByteKey, /) -> int: ...
@overload
def prehash(keys: Union[Sequence[ByteKey], Any], /) -> npt.NDArray[np.uint64]: ...
@overload
def bucket_bytes(keys: ByteKey, n: int, /) -> int: ...
@overload
def bucket_bytes(keys: Union[Sequence[ByteKey], Any], n: int, /) -> npt.NDArray[np.int32]: ...
def kernel() -> str:
    """The kernel batches use now."""

def kernels() -> List[str]:
    """The kernels this CPU runs."""
