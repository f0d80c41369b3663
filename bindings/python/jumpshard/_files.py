"""Parquet datasets on fsspec filesystems, for the engines'
``reshard_parquet``: the files of a source, the file and row of its first
bad key, and an output directory written whole or not at all.

A leaf of ``jumpshard.arrow``, which re-exports ``parquet_files``,
``locate`` and ``staging``; of the package it imports only the key reader.
"""

from __future__ import annotations

import os
import posixpath
import time
import uuid
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ._keys import keys


@contextmanager
def staging(fs: Any, dst: str) -> Iterator[str]:
    """A temporary sibling directory of ``dst`` (an fsspec filesystem path)
    to write into, renamed to ``dst`` when the block ends without error and
    removed when it raises: ``dst`` is complete or absent, never half
    written, and an existing ``dst`` (an input, say) is never replaced."""
    dst = dst.rstrip("/")
    if fs.exists(dst):
        raise FileExistsError(f"{dst} exists: give a new destination")
    parent, name = posixpath.split(dst)
    temporary = posixpath.join(parent, f".{name}.tmp-{uuid.uuid4().hex}")
    fs.makedirs(temporary, exist_ok=True)
    try:
        yield temporary
        if fs.exists(dst):
            raise FileExistsError(
                f"{dst} appeared while it was written: the result is not moved over it"
            )
        if getattr(fs, "protocol", None) in ("file", ("file", "local")) or "file" in getattr(
            fs, "protocol", ()
        ):
            os.rename(temporary, dst)
        else:
            fs.mv(temporary, dst, recursive=True)
    except BaseException:
        discard(lambda: fs.exists(temporary), lambda: fs.rm(temporary, recursive=True))
        raise


def discard(
    exists: Callable[[], bool],
    remove: Callable[[], Any],
    quiet: float = 0.1,
    checks: int = 3,
    patience: float = 30.0,
) -> bool:
    """Removes a failed run's staging directory (``exists`` and ``remove``
    test and delete it) even while tasks of that run still write into it:
    a removal that fails (a file appeared: "Directory not empty") or that a
    late writer undoes is tried again, until the directory has stayed absent
    over ``checks`` checks ``quiet`` seconds apart, or ``patience`` seconds
    have passed. Never raises, so that the error that failed the run is the
    one the caller sees; returns whether the directory is gone."""
    deadline = time.monotonic() + patience
    absent = 0
    while absent < checks:
        if time.monotonic() > deadline:
            return False
        try:
            if exists():
                absent = 0
                remove()
            else:
                absent += 1
        except Exception:  # noqa: BLE001 - a writer raced the removal: try again
            absent = 0
        time.sleep(quiet)
    return True


def parquet_files(
    src: str, storage_options: Optional[Dict[str, Any]] = None
) -> Tuple[Any, List[str]]:
    """(the fsspec filesystem, the Parquet files of ``src``): ``src`` itself
    when it is a file, else every file under it, recursively and sorted,
    but for hidden and ``_``-prefixed names (``_SUCCESS``, ``.crc``,
    temporary directories). A directory with none is a
    ``FileNotFoundError``."""
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(src, **(storage_options or {}))
    if fs.isfile(root):
        return fs, [root]
    if not fs.isdir(root):
        raise FileNotFoundError(f"{src}: no such file or directory")
    files = [
        path
        for path in fs.find(root)
        if not any(part.startswith((".", "_")) for part in posixpath.relpath(path, root).split("/"))
    ]
    if not files:
        # Every engine alike: an empty directory is more likely a wrong path
        # than a dataset of no keys.
        raise FileNotFoundError(f"{src}: no Parquet files")
    return fs, sorted(files)


def locate(
    fs: Any,
    files: Sequence[str],
    *,
    column: str = "key",
    key_type: str = "auto",
    nulls: str = "error",
) -> None:
    """Reads ``column`` of every file in batches and raises the error that
    ``keys`` gives for the first bad key, naming its file and row; returns
    when every key is good. Engines call it after a task failed, so that
    the error says where the bad key is on disk."""
    import pyarrow.parquet as pq

    for path in files:
        with fs.open(path, "rb") as f:
            reader = pq.ParquetFile(f)
            if column not in reader.schema_arrow.names:
                raise KeyError(
                    f"no column {column!r} in file {path}; its columns are {', '.join(reader.schema_arrow.names)}"
                )
            offset = 0
            for batch in reader.iter_batches(columns=[column]):
                keys(
                    batch.column(0),
                    column=column,
                    key_type=key_type,
                    nulls=nulls,
                    where=f"file {path}",
                    offset=offset,
                )
                offset += batch.num_rows
