"""The first use of the compiled engine is not silent: with an empty numba cache, the process that has
to compile says so in one line on stderr (once, when the compile starts, not at import); a second
process finds the kernels in the cache and says nothing. This test compiles the kernels of a first
set_block in a fresh cache folder once for the module, which takes about 20 s (longer on a loaded machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scicraft_viz.engine import jitcache

ROOT = Path(__file__).resolve().parents[1]
FIRST_USE = """
import sys
import scicraft_viz.engine.kernels  # loading the kernels compiles nothing yet
from scicraft_viz import World
print("imported", file=sys.stderr, flush=True)
w = World()
w.set_block((0, 0, 0), "stone")
w.set_block((0, 1, 0), "redstone_lamp")
print(w.get_block((0, 1, 0)))
"""
MARK = jitcache.NOTICE.split("{where}")[0][:60]


def run(cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("SCICRAFT_NOJIT", None)
    return subprocess.run([sys.executable, "-c", FIRST_USE], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=900)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A cache folder filled by one cold first use, and what that use printed; tests that change the folder
    work on a copy."""
    cache = tmp_path_factory.mktemp("jit") / "numba-cache"
    return cache, run(cache)


def test_a_compile_says_so_once_and_a_cached_engine_says_nothing(compiled):
    cache, cold = compiled
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.strip() == "minecraft:redstone_lamp[lit=false]"
    lines = cold.stderr.splitlines()
    notes = [i for i, line in enumerate(lines) if line.startswith(MARK)]
    assert len(notes) == 1, cold.stderr
    assert notes[0] > lines.index("imported"), "the notice came at import, before anything was compiled"
    assert str(cache) in lines[notes[0]] and "first use only" in lines[notes[0]]

    warm = run(cache)
    assert warm.returncode == 0 and warm.stdout == cold.stdout, warm.stderr
    assert MARK not in warm.stderr, warm.stderr


def test_the_notice_is_for_the_projects_kernels_only():
    import numba

    seen = []

    class Stream:
        def write(self, text):
            seen.append(text)

        def flush(self):
            pass

    jitcache._installed, jitcache._announced = False, False
    try:
        jitcache.announce_compiles(stream=Stream())

        @numba.njit
        def not_ours(x):
            return x + 1

        assert not_ours(1) == 2
        assert seen == []
    finally:
        jitcache._announced = True  # this process already has its listener from the engine's import


def test_cached_kernels_built_on_other_block_tables_are_dropped_and_compiled_again(compiled, tmp_path):
    """Numba keys a cached kernel on its own source file; the tables the kernels bake in come from other files.
    A cache whose stamp names other tables is emptied of the engine's kernels before they load, so the next use
    compiles them again (and says so), and a cache with today's stamp is kept."""
    assert compiled[1].returncode == 0, compiled[1].stderr
    cache = tmp_path / "numba-cache"
    shutil.copytree(compiled[0], cache)
    stamps = list(cache.rglob(jitcache.STAMP))
    assert len(stamps) == 1 and stamps[0].read_text() == jitcache.tables_fingerprint()
    folder = stamps[0].parent
    cached = sorted(p.name for p in folder.iterdir() if p.suffix == ".nbc")
    assert cached and all(name.split(".")[0] in jitcache.KERNEL_FILES for name in cached)
    stranger = folder / "unrelated.f-1.py311.nbi"  # not the engine's: kept
    stranger.write_bytes(b"x")

    stamps[0].write_text("tables of another checkout")
    again = run(cache)
    assert again.returncode == 0 and again.stdout.strip() == "minecraft:redstone_lamp[lit=false]", again.stderr
    assert MARK in again.stderr  # compiled again, not loaded from the stale files
    assert stamps[0].read_text() == jitcache.tables_fingerprint() and stranger.exists()

    warm = run(cache)
    assert MARK not in warm.stderr, warm.stderr
