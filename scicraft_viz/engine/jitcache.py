"""The compiled engine's first use: a notice when numba compiles, and a warm-up that compiles everything.

The engine's kernels (`kernels.py`, `compiled.py`, `setblock_scan.py`) are compiled with
`numba.njit(cache=True)`: each is compiled the first time it runs with a given set of argument types and
written to numba's cache (next to the source in `__pycache__/`, or under `$NUMBA_CACHE_DIR`, or a
per-user folder when the source folder is read-only); later processes load it in milliseconds. With an
empty cache the first `set_block` takes about 20 s of compiling and the first `record` about 25 s more.

`announce_compiles()` (called when the kernels are loaded) writes one line on stderr the first time in a
process that numba really compiles one of the project's kernels, i.e. on a cache miss, never when the
kernels come from the cache. In a notebook that line shows under the cell that waits.

`drop_stale_kernels()` (called by `kernels.py` before any kernel is compiled or loaded) empties the cache of the
engine's kernels when the block tables they were compiled with have changed. Numba keys a cached kernel on its
own source file only, while the kernels bake in, as constants, tables built from `blocks.py`, `rules.py` and
`data/*.json`; a checkout that changed only those would otherwise keep running the old tables.

`scicraft_viz.tasks.warmup.warmup()` (`scicraft-viz warmup`; binder/postBuild runs it) exercises every
kernel with the argument types the project uses, so that the cache is full before the first real use.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from pathlib import Path

NOTICE = ("scicraft_viz: compiling the redstone engine with numba, first use only: about 20 s for each new part "
          "of the engine, a minute or two in all on a busy machine. It is cached for later runs{where}; "
          "'scicraft-viz warmup' compiles all of it at once.")

ENGINE = Path(__file__).resolve().parent
KERNEL_FILES = ("kernels", "compiled", "setblock_scan")  # the engine's modules that numba caches
STAMP = "scicraft_viz-tables.sha256"

_lock = threading.Lock()
_installed = False
_announced = False


def _project_dispatcher(dispatcher) -> bool:
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module.startswith("scicraft_viz.")


def _cache_folder(dispatcher) -> str:
    try:
        return str(dispatcher._cache._cache_path)  # numba's own record of where this kernel is cached
    except AttributeError:
        return ""


def announce_compiles(stream=None) -> None:
    """Write NOTICE once per process on stderr (or `stream`) when numba compiles a kernel of this
    project, i.e. when a kernel was not in the cache. Idempotent; costs nothing on cache hits."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    from numba.core import event

    class _Notice(event.Listener):
        def on_start(self, ev) -> None:
            global _announced
            data = ev.data or {}
            dispatcher = data.get("dispatcher") if isinstance(data, dict) else None
            if _announced or not _project_dispatcher(dispatcher):
                return
            _announced = True
            folder = _cache_folder(dispatcher)
            out = stream or sys.stderr
            try:
                out.write(NOTICE.format(where=f" in {folder}" if folder else "") + "\n")
                out.flush()
            except (OSError, ValueError):  # a closed or broken stream must not stop the compile
                pass

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", _Notice())


def tables_fingerprint() -> str:
    """A digest of every file the kernels' baked-in tables are built from."""
    digest = hashlib.sha256()
    for path in sorted([ENGINE / "blocks.py", ENGINE / "rules.py", *(ENGINE / "data").glob("*.json")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def drop_stale_kernels(probe) -> None:
    """Remove the engine's cached kernels from numba's cache folder when they were compiled against other tables
    than today's (see the module's text). `probe` is any function of `kernels.py`: numba's own cache object for it
    says which folder the kernels are cached in. A folder that cannot be read or written is left alone: numba then
    has no cache there either."""
    try:
        from numba.core.caching import FunctionCache

        folder = Path(FunctionCache(probe)._cache_path)  # numba's choice: __pycache__, NUMBA_CACHE_DIR or per user
    except Exception:  # noqa: BLE001 - a numba without this internal simply keeps its own invalidation
        return
    stamp, now = folder / STAMP, tables_fingerprint()
    try:
        if stamp.read_text() == now:
            return
    except OSError:
        pass
    try:
        for path in folder.iterdir():
            if path.suffix in (".nbi", ".nbc") and path.name.split(".", 1)[0] in KERNEL_FILES:
                path.unlink(missing_ok=True)
        part = folder / f"{STAMP}.{os.getpid()}"
        part.write_text(now)
        os.replace(part, stamp)  # whole or not at all, even with two processes starting at once
    except OSError:
        pass
