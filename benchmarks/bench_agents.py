"""Memory and speed of long agent runs: what a trial costs an environment and a replay, bounded
against unbounded in the same run, and how fast the report reads runs.

    python benchmarks/bench_agents.py [TRIALS]

Prints figures; nothing is asserted."""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from scicraft_viz import tasks
from scicraft_viz.env import replay as replay_mod
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.experiments import report
from scicraft_viz.tasks import solutions
from scicraft_viz.tasks.evaluator import _order_key

TASK = tasks.load("A_simultaneous_lights_L1")


def run(path: Path, trials: int, keep: int) -> tuple[float, float, float]:
    """(bytes per trial after the first 20, trials per second, set-block calls per second)."""
    env = SciCraftEnv.recording(TASK, path, budget=1000, keep_trials=keep)
    blocks = [kv for _, kv in sorted(enumerate(solutions.solution_blocks(TASK).items()), key=_order_key)]
    t = time.perf_counter()
    for p, s in blocks:
        env.set_block(p, s)
    set_rate = len(blocks) / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(20):  # timed without tracemalloc, which slows allocation-heavy code down
        env.activate_button()
        env.set_block((9, 4, 9), "stone")
    rate = 20 / (time.perf_counter() - t)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(trials - 20):
        env.activate_button()
        env.set_block((9, 4, 9), "stone")
    grew = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    env.close()
    return grew / (trials - 20), rate, set_rate


def replay_peak(path: Path, full: int) -> tuple[float, float]:
    """(peak MiB, seconds under tracemalloc) of replaying `path` holding `full` trials' traces."""
    old = replay_mod.FULL_TRIALS
    replay_mod.FULL_TRIALS = full
    try:
        tracemalloc.start()
        t = time.perf_counter()
        rp = replay_mod.replay_file(path)
        dt = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert rp.matches
    finally:
        replay_mod.FULL_TRIALS = old
    return peak / 2**20, dt


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        run(d / "warmup.jsonl", 21, keep=4)  # compiles the engine's kernels
        (d / "warmup.jsonl").unlink()
        bounded, rate, set_rate = run(d / "bounded.jsonl", trials, keep=4)
        unbounded, _, _ = run(d / "unbounded.jsonl", trials, keep=trials)
        print(f"environment, {trials} trials of {TASK.id} (200 gt observed each):")
        print(f"  kept trials 4:    {bounded / 1024:8.1f} KiB per trial, {rate:7.0f} trials/s, "
              f"{set_rate:7.0f} set-block/s (recorded)")
        print(f"  kept trials all:  {unbounded / 1024:8.1f} KiB per trial")
        size = (d / "bounded.jsonl").stat().st_size
        peak_b, t_b = replay_peak(d / "bounded.jsonl", replay_mod.FULL_TRIALS)
        peak_u, t_u = replay_peak(d / "bounded.jsonl", trials)
        print(f"replay of that trajectory ({size / 2**20:.1f} MiB):")
        print(f"  {replay_mod.FULL_TRIALS} full trials held: peak {peak_b:7.1f} MiB, {t_b:5.2f} s")
        print(f"  every trial held:  peak {peak_u:7.1f} MiB, {t_u:5.2f} s  ({peak_u / peak_b:.1f}x the memory)")
        t = time.perf_counter()
        runs = report.load_runs(d, progress=False)
        print(f"report: {len(runs)} run(s) read and replayed in {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
