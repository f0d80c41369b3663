"""Jump consistent hash (Lamping & Veach, Figure 1) for numpy arrays of
64-bit keys, bit-exact with the paper's C++, through the jumpshard C library.

>>> import numpy as np, jumpshard
>>> jumpshard.bucket(1253737204188795044, 100)
86
>>> jumpshard.batch(np.array([0, 1, 2**64 - 1], dtype=np.uint64), 12)
array([ 0,  6, 10], dtype=int32)
>>> key = jumpshard.prehash_bytes(b"user:42")
>>> jumpshard.bucket_bytes(b"user:42", 12) == jumpshard.bucket(key, 12)
True

Arrays are never copied: ``keys`` must already be a C-contiguous, aligned
array of native-endian ``uint64`` (any shape), and anything else raises
``TypeError`` (wrong type or dtype) or ``ValueError`` (layout) rather than
being converted behind your back; ``np.ascontiguousarray(keys,
dtype=np.uint64)`` converts explicitly. Results are a new ``int32`` array of
the same shape, or the ``out=`` array given. Bad arguments raise
``ValueError`` (``JumpshardError``, a ``ValueError``, for what the C library
refuses). The batch functions release the GIL while they run.

The C library is loaded from ``$JUMPSHARD_LIB`` when set; otherwise from
next to this package, then the repository's ``target/release``, then the
system loader's path.
"""

from __future__ import annotations

import ctypes
import operator

import numpy as np

from . import _library

__all__ = [
    "KERNELS",
    "JumpshardError",
    "batch",
    "batch_parallel",
    "bucket",
    "bucket_bytes",
    "kernel_name",
    "prehash_bytes",
    "set_kernel",
    "version",
]

__version__ = "0.1.0"

_lib = _library.load()

#: Every kernel name the library knows (this CPU may run only some).
KERNELS = ("scalar", "avx2", "avx512", "neon")

_MAX_BUCKETS = 2**31 - 1
_STATUS_NAMES = {
    1: "NULL_POINTER",
    2: "INVALID_BUCKET_COUNT",
    3: "UNKNOWN_KERNEL",
    4: "UNSUPPORTED_KERNEL",
    5: "PANIC",
    6: "MISALIGNED_POINTER",
    7: "INVALID_LENGTH",
    8: "OVERLAPPING_BUFFERS",
    9: "INVALID_OFFSETS",
}


class JumpshardError(ValueError):
    """A call the C library refused: ``status`` is its jumpshard_status code,
    ``name`` the code's name without the JUMPSHARD_ERROR_ prefix."""

    def __init__(self, status: int):
        self.status = status
        self.name = _STATUS_NAMES.get(status, "UNKNOWN_STATUS")
        message = _lib.jumpshard_status_message(status).decode()
        super().__init__(f"{message} (JUMPSHARD_ERROR_{self.name})")


def _check(status: int) -> None:
    if status != 0:
        raise JumpshardError(status)


def _num_buckets(num_buckets) -> int:
    n = operator.index(num_buckets)
    if not 1 <= n <= _MAX_BUCKETS:
        raise ValueError(
            f"invalid bucket count {n}: it must be between 1 and {_MAX_BUCKETS}"
        )
    return n


def bucket(key: int, num_buckets: int) -> int:
    """The bucket of one 64-bit ``key`` among ``num_buckets`` (1 to 2**31-1).

    Figure 1 returns -1 for ``num_buckets <= 0``; this raises ``ValueError``,
    as it does for a key outside 0..2**64-1.
    """
    key = operator.index(key)
    if not 0 <= key < 2**64:
        raise ValueError(f"key {key} is not an unsigned 64-bit integer")
    return _lib.jumpshard_bucket(key, _num_buckets(num_buckets))


def _byte_key(key) -> bytes:
    if isinstance(key, (bytearray, memoryview)):
        return bytes(key)
    if not isinstance(key, bytes):
        hint = "; encode a str first, e.g. key.encode()" if isinstance(key, str) else ""
        raise TypeError(f"a byte key must be bytes-like, not {type(key).__name__}{hint}")
    return key


def prehash_bytes(key: bytes) -> int:
    """The 64-bit key of the byte string ``key``: XXH3-64 with seed 0, the
    ``xxh3_64`` of the xxHash libraries.

    >>> import jumpshard
    >>> hex(jumpshard.prehash_bytes(b""))
    '0x2d06800538d394c2'
    """
    key = _byte_key(key)
    out = ctypes.c_uint64()
    _check(_lib.jumpshard_prehash_bytes(key, len(key), ctypes.byref(out)))
    return out.value


def bucket_bytes(key: bytes, num_buckets: int) -> int:
    """The bucket of the byte string ``key`` (``bytes``, ``bytearray`` or
    ``memoryview``) among ``num_buckets``: ``bucket(prehash_bytes(key),
    num_buckets)``, as in the Rust API, the C API and ``jumpshard reshard
    --key-format bytes``.

    >>> import jumpshard
    >>> jumpshard.bucket_bytes(b"", 1000)
    241
    """
    key = _byte_key(key)
    return _lib.jumpshard_bucket_bytes(key, len(key), _num_buckets(num_buckets))


def _keys(keys) -> np.ndarray:
    if not isinstance(keys, np.ndarray):
        raise TypeError(
            f"keys must be a numpy.ndarray of uint64, not {type(keys).__name__}; "
            "convert with np.asarray(keys, dtype=np.uint64)"
        )
    if keys.dtype != np.dtype(np.uint64):
        raise TypeError(
            f"keys must have dtype uint64 (native byte order), not {keys.dtype}; "
            "convert explicitly with keys.astype(np.uint64)"
        )
    if not (keys.flags.c_contiguous and keys.flags.aligned):
        raise ValueError(
            "keys must be C-contiguous and aligned (it would otherwise need a copy); "
            "copy explicitly with np.ascontiguousarray(keys)"
        )
    return keys


def _out(out, keys: np.ndarray) -> np.ndarray:
    if out is None:
        return np.empty(keys.shape, dtype=np.int32)
    if not isinstance(out, np.ndarray) or out.dtype != np.dtype(np.int32):
        raise TypeError("out must be a numpy.ndarray of int32 (native byte order)")
    if out.shape != keys.shape:
        raise ValueError(f"out has shape {out.shape}, keys {keys.shape}")
    if not (out.flags.c_contiguous and out.flags.aligned and out.flags.writeable):
        raise ValueError("out must be C-contiguous, aligned and writeable")
    return out


def batch(keys: np.ndarray, num_buckets: int, *, out: np.ndarray | None = None) -> np.ndarray:
    """The bucket of every key, as an ``int32`` array of ``keys``' shape, on
    the calling thread. ``keys`` is read in place; with ``out`` the results
    go there (same shape, ``int32``) and ``out`` is returned. On error
    nothing is written."""
    keys = _keys(keys)
    n = _num_buckets(num_buckets)
    out = _out(out, keys)
    _check(_lib.jumpshard_batch(keys.ctypes.data, keys.size, n, out.ctypes.data))
    return out


def batch_parallel(
    keys: np.ndarray, num_buckets: int, threads: int = 0, *, out: np.ndarray | None = None
) -> np.ndarray:
    """``batch`` on up to ``threads`` threads of the library's pool (0: one
    per core). The results are identical to ``batch``'s."""
    keys = _keys(keys)
    n = _num_buckets(num_buckets)
    threads = operator.index(threads)
    if threads < 0:
        raise ValueError(f"threads must be 0 (every core) or positive, not {threads}")
    out = _out(out, keys)
    status = _lib.jumpshard_batch_parallel(
        keys.ctypes.data, keys.size, n, out.ctypes.data, threads
    )
    _check(status)
    return out


def kernel_name() -> str:
    """The kernel the batch functions use now: one of ``KERNELS``."""
    return _lib.jumpshard_kernel_name().decode()


def set_kernel(name: str) -> None:
    """Makes later batches (in every thread) use kernel ``name``. Raises
    ``JumpshardError`` for an unknown kernel or one this CPU cannot run, and
    then changes nothing."""
    if not isinstance(name, str):
        raise TypeError(f"kernel name must be a str, not {type(name).__name__}")
    if "\0" in name:
        raise ValueError("kernel name must not contain NUL")
    _check(_lib.jumpshard_set_kernel(name.encode()))


def version() -> str:
    """The version of the loaded C library, "MAJOR.MINOR.PATCH"."""
    return _lib.jumpshard_version().decode()
