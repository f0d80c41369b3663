"""Finding and loading the jumpshard C library, and declaring its functions."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

#: The environment variable naming the shared library file to load.
LIB_ENV = "JUMPSHARD_LIB"


def _file_name() -> str:
    if sys.platform == "darwin":
        return "libjumpshard.dylib"
    if sys.platform == "win32":
        return "jumpshard.dll"
    return "libjumpshard.so"


def candidates() -> list[str]:
    """Where the library is looked for when $JUMPSHARD_LIB is not set, in order:
    next to this package (an installed wheel), the target/release directory of
    the repository this package sits in (a source checkout after
    `cargo build --release`), then the system loader's search path
    (LD_LIBRARY_PATH, the ld.so cache, ...), by file name."""
    name = _file_name()
    here = Path(__file__).resolve().parent
    places = [here / name]
    if here.parent.parent.name == "bindings":  # <repo>/bindings/python/jumpshard
        places.append(here.parents[2] / "target" / "release" / name)
    return [str(p) for p in places] + [name]


def load() -> ctypes.CDLL:
    explicit = os.environ.get(LIB_ENV)
    if explicit:
        try:
            return _declare(ctypes.CDLL(explicit))
        except OSError as e:
            raise ImportError(f"jumpshard: cannot load ${LIB_ENV}={explicit}: {e}") from e
    errors = []
    for candidate in candidates():
        # A bare file name goes to the system loader; a path must exist.
        if os.sep in candidate and not os.path.exists(candidate):
            errors.append(f"{candidate}: no such file")
            continue
        try:
            return _declare(ctypes.CDLL(candidate))
        except OSError as e:
            errors.append(f"{candidate}: {e}")
    raise ImportError(
        "jumpshard: cannot find the jumpshard C library; build it with "
        f"`cargo build --release` or set ${LIB_ENV} to its path. Tried:\n  "
        + "\n  ".join(errors)
    )


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Gives every function its C prototype (include/jumpshard.h), so that
    ctypes converts arguments exactly and never guesses."""
    c = ctypes
    status = c.c_int32
    signatures = {
        "jumpshard_bucket": ([c.c_uint64, c.c_int32], c.c_int32),
        "jumpshard_batch": ([c.c_void_p, c.c_size_t, c.c_int32, c.c_void_p], status),
        "jumpshard_batch_parallel": (
            [c.c_void_p, c.c_size_t, c.c_int32, c.c_void_p, c.c_size_t],
            status,
        ),
        "jumpshard_kernel_name": ([], c.c_char_p),
        "jumpshard_set_kernel": ([c.c_char_p], status),
        "jumpshard_status_message": ([c.c_int32], c.c_char_p),
        "jumpshard_version": ([], c.c_char_p),
        "jumpshard_prehash_bytes": (
            [c.c_char_p, c.c_size_t, c.POINTER(c.c_uint64)],
            status,
        ),
        "jumpshard_bucket_bytes": ([c.c_char_p, c.c_size_t, c.c_int32], c.c_int32),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = restype
    return lib
