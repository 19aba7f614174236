"""The compiled engine's first use: a notice when numba compiles, and a warm-up that compiles everything.

The engine's kernels (`kernels.py`, `compiled.py`, `setblock_scan.py`) are compiled with
`numba.njit(cache=True)`: each is compiled the first time it runs with a given set of argument types and
written to numba's cache (next to the source in `__pycache__/`, or under `$NUMBA_CACHE_DIR`, or a
per-user folder when the source folder is read-only); later processes load it in milliseconds. With an
empty cache the first `set_block` takes about 20 s of compiling and the first `record` about 25 s more.

`announce_compiles()` (called when the kernels are loaded) writes one line on stderr the first time in a
process that numba really compiles one of the project's kernels, i.e. on a cache miss, never when the
kernels come from the cache. In a notebook that line shows under the cell that waits.

`scicraft_viz.tasks.warmup.warmup()` (`scicraft-viz warmup`; binder/postBuild runs it) exercises every
kernel with the argument types the project uses, so that the cache is full before the first real use.
"""

from __future__ import annotations

import sys
import threading

NOTICE = ("scicraft_viz: compiling the redstone engine with numba, first use only: about 20 s for each new part "
          "of the engine, a minute or two in all on a busy machine. It is cached for later runs{where}; "
          "'scicraft-viz warmup' compiles all of it at once.")

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
