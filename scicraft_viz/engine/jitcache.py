"""The compiled engine's first use: a notice when numba compiles, and a warm-up that compiles everything.

The engine's kernels (`kernels.py`, `compiled.py`, `setblock_scan.py`) are compiled with
`numba.njit(cache=True)`: each is compiled the first time it runs with a given set of argument types and
written to numba's cache (next to the source in `__pycache__/`, or under `$NUMBA_CACHE_DIR`, or a
per-user folder when the source folder is read-only); later processes load it in milliseconds. With an
empty cache the first `set_block` takes about 20 s of compiling and the first `record` about 25 s more.

`announce_compiles()` (called when the kernels are loaded) writes one line on stderr the first time in a
process that numba really compiles one of the project's kernels, i.e. on a cache miss, never when the
kernels come from the cache. In a notebook that line shows under the cell that waits.

`warmup()` (`scicraft-viz warmup`; binder/postBuild runs it) exercises every kernel with the argument
types the project uses, so that the cache is full before the first real use.
"""

from __future__ import annotations

import sys
import threading
import time

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


def warmup(progress=None) -> float:
    """Compile (or load from the cache) every kernel the project calls, with the argument types it uses:
    placement, stepping, recording and events on the reference engine (normal and replay worlds), build
    files read into arrays and placed in bulk, evaluations of every task family's reference builds and
    the compiled engine of long runs (the views, the diagnosis and the agents' environment call the
    same kernels with the same types). Returns the seconds it took; `progress(text)` is
    called before each part."""
    import os

    if os.environ.get("SCICRAFT_NOJIT") == "1":
        raise RuntimeError("SCICRAFT_NOJIT=1 is set: the kernels run as plain Python and there is nothing to compile")
    say = progress or (lambda text: None)
    t0 = time.perf_counter()

    from scicraft_viz.engine.world import World

    say("placing blocks, stepping, recording and reading events")
    w = World()
    for x in range(-1, 9):
        w.set_block((x, 0, 0), "stone")
    row = ("stone_button[face=floor]", "redstone_wire", "redstone_repeater[facing=west,delay=2]", "redstone_lamp",
           "redstone_wire", "glass", "redstone_torch")
    for x, state in enumerate(row):
        w.set_block((x, 1, 0), state)
    w.set_block((7, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((8, 1, 0), "redstone_block")
    w.set_block((5, 2, 0), "redstone_wire")
    w.use((0, 1, 0))
    w.get_block((1, 1, 0))
    w.events_since(0)
    trace = w.record(40)
    trace.first_on((3, 1, 0))
    w.record(10, dust=[(1, 1, 0)])
    w.record(10, lamps_only=True)
    w.use((7, 1, 0))
    w.use((2, 1, 0))
    w.use((1, 1, 0))
    w.step(200)
    w.remove_block((5, 2, 0))
    w.events_since(0)
    w.copy().step(1)

    say("comparators reading containers")
    c = World()
    for x in range(3):
        c.set_block((x, 0, 0), "stone")
    c.set_block((0, 1, 0), "barrel")
    c.set_block((1, 1, 0), "comparator[facing=west]")
    c.set_items((0, 1, 0), 64)
    c.use((1, 1, 0))
    c.step(4)

    say("replay worlds (blocks that pop off)")
    r = World(replay=True)
    r.set_block((0, 5, 0), "redstone_wire")
    r.set_block((0, 4, 0), "stone")
    r.remove_block((0, 4, 0))
    r.step(2)
    r.events_since(0)

    say("build files read into arrays, bulk placement, one evaluation per task family")
    from scicraft_viz import tasks
    from scicraft_viz.engine import mcfunction
    from scicraft_viz.tasks import evaluator

    solutions = tasks.tasks_dir() / "solutions"
    builds = []
    for tid in [t for t in tasks.task_ids() if t.endswith(("_L1", "_L5"))]:
        task = tasks.load_by_id(tid)
        path = solutions / f"{tid}.mcfunction"
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        mcfunction.read_setblocks(text)
        evaluator.evaluate(task, text)
        evaluator.evaluate_file(task, path)
        evaluator.evaluate_many(task, [text, text.replace("redstone_lamp", "glass", 1)])
        player = task.initial_world(replay=False)
        player.set_blocks(mcfunction.parse_mcfunction(text), skip_errors=True)
        player.step(5)
        World.from_mcfunction(text, replay=True).step(5)
        builds.append((task, text))

    say("the compiled engine of long runs")
    for task, text in builds[-2:]:
        for n_steps in (30, 5000):
            long_run = evaluator.build_world(task, text)
            long_run.log_events = False
            button = next(p for p, s in long_run.blocks().items() if "button" in s)
            for _ in range(20):
                long_run.use(button)
                long_run.step(n_steps)
            long_run.get_block(button)
            long_run.record(5)
    return time.perf_counter() - t0
