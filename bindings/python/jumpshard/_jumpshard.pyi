"""Type stubs of the jumpshard extension module (see the package docstring)."""

from typing import Any, List, Optional, Sequence, Tuple, Union, overload

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
    @property
    def per_destination(self) -> npt.NDArray[np.int64]:
        """Moves per new bucket, to_buckets long (up to 2**24 buckets)."""
    @property
    def destination_counts(self) -> Tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """(buckets, counts) of the destinations that receive keys."""
    moved: int
    keys: int
    from_buckets: int
    to_buckets: int
    def __len__(self) -> int: ...

class Memento:
    """A jump-hash cluster from which any bucket can be removed and
    restored (MementoHash): only the removed bucket's keys move."""

    barray: int
    working: int
    removals: List[int]
    def __init__(self, n: int) -> None: ...
    @staticmethod
    def from_removals(n: int, removals: Sequence[int]) -> "Memento": ...
    def is_removed(self, bucket: int) -> bool: ...
    def remove(self, bucket: int) -> None: ...
    def restore(self) -> int: ...
    def bucket(self, key: int) -> int: ...
    def bucket_bytes(self, key: ByteKey) -> int: ...
    def batch(self, keys: Keys) -> npt.NDArray[np.int32]: ...
    def batch_bytes(self, keys: Union[Sequence[ByteKey], Any]) -> npt.NDArray[np.int32]:
        """bucket_bytes of every byte key (a list of bytes/str, or an Arrow
        binary or string array)."""
    @overload
    def replicas(self, keys: int, k: int) -> List[int]: ...
    @overload
    def replicas(self, keys: Keys, k: int) -> npt.NDArray[np.int32]:
        """k distinct working buckets per key, shape (len(keys), k), the first
        bucket(key) (one int key: a list of k); each removal replaces only
        the member it hits; k above the working buckets raises ValueError."""

class BoundedLoads:
    """A router with bounded loads over a copy of a Memento: acquire(key)
    answers the first node of the key's preference list (its bucket, then
    its replica walk of up to `walk` nodes) whose load stays at most
    ceil(factor * (total + 1) / live), or the least loaded of the walk when
    all of it is full, and counts it; release(node) takes it back. Safe to
    share between threads; acquire, acquire_batch and release_batch release
    the GIL. A cluster of more than 2**24 buckets is a ValueError: the
    router keeps a counter per bucket."""

    factor: float
    walk: int
    total: int
    loads: List[int]
    next_bound: int
    cluster: Memento
    def __init__(
        self, cluster: Union[Memento, int], factor: float, walk: Optional[int] = None
    ) -> None: ...
    def acquire(self, key: int) -> int: ...
    def acquire_batch(self, keys: Keys) -> npt.NDArray[np.int32]:
        """acquire of each key in turn, as one call: an int32 array of nodes,
        each counted; the keys' buckets from one Memento batch on the SIMD
        lanes, with the GIL released. Bad keys raise before any is counted."""
    def release(self, node: int) -> None: ...
    def release_batch(self, nodes: Union[Sequence[int], Any]) -> None:
        """release of each node in turn, as one call with the GIL released:
        a list or tuple of ints or a 1-D integer array (numpy uint32, int32,
        int64..., Arrow arrays, pandas and polars Series). Raises ValueError,
        changing no load, for an id that is no node (checked first) and for
        more releases of a node than its load (the releases made are undone;
        other threads may briefly see the lower loads)."""
    def load(self, node: int) -> int: ...
    def remove(self, bucket: int) -> None: ...
    def restore(self) -> int: ...

class NodeTable:
    """A node table from its file's text: slots named by nodes, keys placed by
    Figure 1, Memento (removed=K) or weights (weight=W)."""

    def __init__(self, text: str) -> None: ...
    def __len__(self) -> int: ...
    @property
    def slots(self) -> List[str]: ...
    @property
    def removals(self) -> List[int]: ...
    @property
    def fingerprint(self) -> str:
        """jt1: and 32 hex digits, the same for every spelling of the table."""
    @property
    def overrides(self) -> List[Tuple[int, str]]:
        """The (key, node) pairs of the override lines, in key order."""
    def bucket(self, key: int) -> int: ...
    def node(self, key: int) -> str: ...
    def batch(self, keys: Keys) -> npt.NDArray[np.int32]: ...
    @overload
    def replicas(self, keys: int, k: int) -> List[int]: ...
    @overload
    def replicas(self, keys: Keys, k: int) -> npt.NDArray[np.int32]:
        """k slots of distinct working nodes per key, shape (len(keys), k),
        the first bucket(key) (one int key: a list of k); on a zoned table,
        k live nodes in distinct zones, each as its node's first working slot (the
        first bucket(key)'s node, not always its slot)."""
    @property
    def zones(self) -> List[str]:
        """The zones the table names (zone=NAME), in order; [] without zones."""
    def zone_of(self, node: str) -> Optional[str]: ...
    def with_node_added(self, node: str, zone: str, rack: Optional[str] = None) -> "NodeTable": ...
    def with_zone_lost(self, zone: str) -> "NodeTable": ...
    def with_zone_added(self, zone: str, nodes: Sequence[str]) -> "NodeTable": ...
    def to_text(self) -> str: ...

class Weights:
    """Buckets with real-valued weights over Figure 1: heavy buckets hold several slots of its axis."""

    def __init__(self, weights: Sequence[float]) -> None:
        """Weights are real numbers (a bool is refused with TypeError)."""
    @property
    def weights(self) -> List[float]: ...
    def bucket(self, key: int) -> int: ...
    def batch(self, keys: Keys) -> npt.NDArray[np.int32]: ...
    def __len__(self) -> int: ...

@overload
def replicas(keys: int, n: int, k: int) -> List[int]: ...
@overload
def replicas(keys: Keys, n: int, k: int) -> npt.NDArray[np.int32]:
    """k distinct buckets per key, shape (len(keys), k), the first Figure 1's
    (one int key: a list of k); k above n raises ValueError."""

def bucket(key: int, n: int, /) -> int:
    """The bucket of one 64-bit key among n (1 to 2**31-1)."""

def batch(
    keys: Keys,
    n: int,
    *,
    out: Optional[npt.NDArray[np.int32]] = None,
    threads: Optional[int] = None,
) -> npt.NDArray[np.int32]:
    """The bucket of every key among n, into out (int32, as long as keys) or
    a new array; threads=None (or 1) runs on the calling thread, 0 uses one
    thread per core."""

def plan(keys: Keys, from_buckets: int, to_buckets: int, *, threads: Optional[int] = None) -> Plan:
    """Which keys move when from_buckets becomes to_buckets, and where;
    threads as for batch."""

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
