"""Files from untrusted names: open only regular files, bounded; write whole files atomically.

    >>> from scicraft_viz.safeio import read_regular, UnsafeFile
    >>> try:
    ...     read_regular("/dev/zero", 1024, "log")
    ... except UnsafeFile as e:
    ...     print(e)
    log /dev/zero is not a regular file (a device, FIFO or socket)

Every reader of a path a user or a file names goes through here, so a FIFO never blocks, a device
never streams forever, a huge file is refused before it is read, and a writer never leaves a
truncated file or destroys a good one: the new file is written beside the target, synced, then
renamed over it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


class UnsafeFile(ValueError):
    """A path that names no readable regular file within the limit; the message says which and why."""


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


def open_regular(path: str | os.PathLike, limit: int, what: str = "file") -> int:
    """A descriptor on `path` if it is a regular file of at most `limit` bytes. Opened without
    blocking (a FIFO with no writer does not wait) and checked on the open descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UnsafeFile(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise UnsafeFile(f"{what} {path} is a directory") from None
    except (OSError, ValueError) as e:
        raise UnsafeFile(f"cannot open {what} {path}: {getattr(e, 'strerror', None) or e}") from None
    st = os.fstat(fd)
    problem = None
    if stat.S_ISDIR(st.st_mode):
        problem = f"{what} {path} is a directory"
    elif not stat.S_ISREG(st.st_mode):
        problem = f"{what} {path} is not a regular file (a device, FIFO or socket)"
    elif st.st_size > limit:
        problem = f"{what} {path} is {st.st_size:,} bytes; the limit is {_mib(limit)}"
    if problem:
        os.close(fd)
        raise UnsafeFile(problem)
    return fd


def check_regular(path: str | os.PathLike, limit: int, what: str = "file") -> None:
    """Refuse anything but a regular file within `limit`, for a library that opens the path itself."""
    os.close(open_regular(path, limit, what))


def read_regular(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes (refused if it grows past it while read)."""
    with os.fdopen(open_regular(path, limit, what), "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnsafeFile(f"{what} {path} is more than {_mib(limit)}; the limit is {_mib(limit)}")
    return data


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike, overwrite: bool = False) -> Iterator[Path]:
    """A temporary path beside `target` to write the new file to; on success it is synced and renamed
    over `target`, on any failure removed, so `target` is either the old file or the whole new one.
    Without `overwrite`, an existing target is refused (FileExistsError) before anything is written."""
    target = Path(target)
    if not overwrite and target.exists():
        raise FileExistsError(17, "the file exists", str(target))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        if not overwrite and target.exists():
            raise FileExistsError(17, "the file exists", str(target))
        os.replace(tmp_path, target)
    finally:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
