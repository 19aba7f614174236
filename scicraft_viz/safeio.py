"""Input and output that came from, or names, something untrusted: one rule for every reader and writer.

    >>> from scicraft_viz.safeio import read_regular, UnsafeFile, shown
    >>> try:
    ...     read_regular("/dev/zero", 1024, "log")
    ... except UnsafeFile as e:
    ...     print(e)
    log /dev/zero is not a regular file (a device, FIFO or socket)
    >>> shown("bad\\nPASS forged.mcfunction")
    'bad\\\\nPASS forged.mcfunction'

Files are opened only if they are regular files within a size limit: the open never blocks (a FIFO
without a writer is refused, not waited on), the checks run on the open descriptor (a file swapped
in after a check is still caught), and no more than the limit is ever read. A reader that walks a
folder may also require each file to lie inside it (`within`), so a link never leads out of the
folder a command was given.

Files are written whole or not at all (`atomic_path`, `atomic_write`): the new content goes to a
temporary file beside the target, is synced, and is renamed over the target, so a full disk or a
file-size limit leaves the old file as it was.

Text that came from input is made safe before it is printed or written (`shown`: one line, control
and separator characters escaped; `json_text`: JSON without NaN or Infinity), and a stream of lines
is read in bounded pieces (`bounded_lines`), so one endless line costs a fixed amount of memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class UnsafeFile(ValueError):
    """A path that names no readable regular file within the limit; the message says which and why.

    `reason` says which rule refused it, so that a caller can word its own message: "missing",
    "directory", "special" (a FIFO, device or socket), "too_large" (`limit` is set, and `size` unless
    the file grew while it was read), "outside" (a link out of the folder it had to stay in) or
    "unreadable" (`detail` is the system's reason); `mode` is the file's st_mode where it was seen."""

    def __init__(self, message: str, *, path: Any = None, reason: str = "unreadable", size: int | None = None,
                 limit: int | None = None, detail: str | None = None, mode: int | None = None):
        super().__init__(message)
        self.path, self.reason, self.size, self.limit, self.detail = path, reason, size, limit, detail
        self.mode = mode


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


# ------------------------------------------------------------------------------------------ text
def shown(text: object, limit: int | None = None) -> str:
    """`text` as it may be printed on one line: every character that is not printable (newlines, other
    control characters, U+2028 and other separators, the surrogates that stand for undecodable bytes
    in a file name) is written as a Python escape, and at most `limit` characters are kept."""
    s = text if isinstance(text, str) else str(text)
    n = len(s)
    if limit is not None:
        s = s[: limit + 1]
    if not s.isprintable():
        s = "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                    for c in s)
    if limit is not None and (n > limit or len(s) > limit):
        s = f"{s[:limit]}... ({n} characters)"
    return s


def json_safe(obj: Any) -> Any:
    """`obj` with every float that is not finite (NaN, Infinity) replaced by None, which JSON can hold."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def json_text(obj: Any, **kw) -> str:
    """json.dumps that always writes standard JSON: a non-finite float is written as null."""
    try:
        return json.dumps(obj, allow_nan=False, **kw)
    except ValueError:
        return json.dumps(json_safe(obj), allow_nan=False, **kw)


# ------------------------------------------------------------------------------------------ reading
def inside(path: str | os.PathLike, folder: str | os.PathLike) -> bool:
    """True if `path`, with every link resolved, lies in `folder` (also resolved)."""
    try:
        real = os.path.realpath(path)
        root = os.path.realpath(folder)
    except (OSError, ValueError):
        return False
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def open_regular(path: str | os.PathLike, limit: int, what: str = "file", *,
                 within: str | os.PathLike | None = None, follow: bool = True) -> int:
    """A descriptor on `path` if it is a regular file of at most `limit` bytes (and, given `within`,
    lies inside that folder once links are resolved; with `follow` False, `path` itself is not a
    link). Opened without blocking (a FIFO with no writer does not wait) and checked on the open
    descriptor. Raises UnsafeFile."""
    name = shown(os.fspath(path) if isinstance(path, os.PathLike) else path)
    if within is not None and not inside(path, within):
        raise UnsafeFile(f"{what} {name} is a link out of {shown(os.fspath(within))}; it is not followed",
                         path=path, reason="outside")
    try:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        fd = os.open(path, flags if follow else flags | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError as e:
        raise UnsafeFile(f"{what} {name} does not exist", path=path, reason="missing", detail=e.strerror) from None
    except IsADirectoryError as e:
        raise UnsafeFile(f"{what} {name} is a directory", path=path, reason="directory", detail=e.strerror) from None
    except (OSError, ValueError) as e:
        detail = getattr(e, "strerror", None) or str(e)
        raise UnsafeFile(f"cannot open {what} {name}: {detail}", path=path, reason="unreadable",
                         detail=detail) from None
    try:
        st = os.fstat(fd)
    except OSError as e:
        os.close(fd)
        raise UnsafeFile(f"cannot open {what} {name}: {e.strerror or e}", path=path, detail=e.strerror) from None
    problem = None
    if stat.S_ISDIR(st.st_mode):
        problem = UnsafeFile(f"{what} {name} is a directory", path=path, reason="directory", mode=st.st_mode)
    elif not stat.S_ISREG(st.st_mode):
        problem = UnsafeFile(f"{what} {name} is not a regular file (a device, FIFO or socket)", path=path,
                             reason="special", mode=st.st_mode)
    elif st.st_size > limit:
        problem = UnsafeFile(f"{what} {name} is {st.st_size:,} bytes; the limit is {_mib(limit)}", path=path,
                             reason="too_large", size=st.st_size, limit=limit)
    if problem:
        os.close(fd)
        raise problem
    return fd


def check_regular(path: str | os.PathLike, limit: int, what: str = "file", *,
                  within: str | os.PathLike | None = None, follow: bool = True) -> None:
    """Refuse anything but a regular file within `limit`, for a library that opens the path itself."""
    os.close(open_regular(path, limit, what, within=within, follow=follow))


def read_fd(fd: int, path: Any, limit: int, what: str = "file") -> bytes:
    """At most `limit` bytes from a descriptor `open_regular` gave (closed here); a file that grew past
    the limit while it was read is refused."""
    try:
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise UnsafeFile(f"cannot read {what} {shown(path)}: {e.strerror or e}", path=path, reason="unreadable",
                         detail=e.strerror or str(e)) from None
    if len(data) > limit:
        raise UnsafeFile(f"{what} {shown(path)} is more than {_mib(limit)}; the limit is {_mib(limit)}", path=path,
                         reason="too_large", limit=limit)
    return data


def read_regular(path: str | os.PathLike, limit: int, what: str = "file", *,
                 within: str | os.PathLike | None = None, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (refused if it grows past it while read)."""
    return read_fd(open_regular(path, limit, what, within=within, follow=follow), path, limit, what)


# ------------------------------------------------------------------------------------------ streams
@dataclass(frozen=True)
class LongLine:
    """What stands for a line longer than the limit: its size, and its first and last bytes (at most
    `keep` each), which is all that was kept of it."""

    size: int
    head: bytes
    tail: bytes


def bounded_lines(read: Callable[[int], bytes], limit: int, chunk: int = 65536,
                  keep: int = 4096) -> Iterator[bytes | LongLine]:
    """The lines of a byte stream (`read(n)` returns at most n bytes, b"" at the end), each with its
    newline, never holding more than about `limit` + `chunk` bytes: a line longer than `limit` is
    skipped as it arrives and a LongLine is yielded in its place."""
    buf = bytearray()
    skip: list | None = None  # a line being skipped: [size so far, its first bytes, its last bytes]
    while True:
        data = read(chunk)
        if not data:
            break
        start = 0
        while start < len(data):
            nl = data.find(b"\n", start)
            end = len(data) if nl < 0 else nl + 1
            piece = data[start:end]
            start = end
            if skip is None and len(buf) + len(piece) > limit:
                piece = bytes(buf) + piece
                skip = [0, piece[:keep], b""]
                buf.clear()
            if skip is not None:
                skip[0] += len(piece)
                skip[2] = (skip[2] + piece[-keep:])[-keep:]
                if nl >= 0:
                    yield LongLine(*skip)
                    skip = None
                continue
            buf += piece
            if nl >= 0:
                yield bytes(buf)
                buf.clear()
    if skip is not None:
        yield LongLine(*skip)
    elif buf:
        yield bytes(buf)


# ------------------------------------------------------------------------------------------ writing
def _new_file_mode(target: Path) -> int:
    """The mode for the new file: the old file's, else what a plain open() would give under the umask."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike, overwrite: bool = False) -> Iterator[Path]:
    """A temporary path beside `target` to write the new file to; on success it is synced and renamed
    over `target`, on any failure removed, so `target` is either the old file or the whole new one.
    Without `overwrite`, an existing target is refused (FileExistsError) before anything is written."""
    target = Path(target)
    if not overwrite and (target.exists() or target.is_symlink()):
        raise FileExistsError(17, "the file exists", str(target))
    mode = _new_file_mode(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp_path = target.parent / f".{target.name[:100]}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(tmp_path, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(17, "no free temporary name", str(target.parent))
    try:
        os.fchmod(fd, mode)
    except OSError:
        pass
    finally:
        os.close(fd)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        if not overwrite and (target.exists() or target.is_symlink()):
            raise FileExistsError(17, "the file exists", str(target))
        os.replace(tmp_path, target)
        _sync_folder(target.parent)
    finally:
        with contextlib.suppress(OSError):
            tmp_path.unlink()


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(target: str | os.PathLike, data: bytes, overwrite: bool = False) -> None:
    """Write `data` as the whole content of `target`, atomically (see `atomic_path`)."""
    with atomic_path(target, overwrite) as tmp, open(tmp, "wb") as f:
        f.write(data)
