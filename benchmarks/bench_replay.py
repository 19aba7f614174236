"""Replay, diagnosis and trajectory reading speed on the shipped examples and the gallery.

    python benchmarks/bench_replay.py

Prints best-of-3 wall times: reading and validating each example file, replaying it (per step),
and diagnosing every gallery device."""

from __future__ import annotations

from pathlib import Path

from timing import best

from scicraft_viz import diagnose
from scicraft_viz.diagnose import gallery
from scicraft_viz.env import trajectory
from scicraft_viz.env.replay import Replay

ROOT = Path(__file__).resolve().parent.parent




def main() -> None:
    files = sorted((ROOT / "trajectories").glob("*.jsonl"))
    Replay(trajectory.read(files[0]))  # compile the engine's kernels once
    print(f"{'file':<34}{'steps':>6}{'read s':>9}{'replay s':>10}{'ms/step':>9}")
    for f in files:
        t = trajectory.read(f)
        r = best(lambda f=f: trajectory.read(f))
        p = best(lambda t=t: Replay(t))
        print(f"{f.name:<34}{len(t.steps):>6}{r:>9.3f}{p:>10.3f}{1000 * p / max(1, len(t.steps)):>9.2f}")
    print()
    for d in gallery.devices():
        w, task = d.world(), d.task()
        s = best(lambda w=w, task=task: diagnose.diagnose(w, task))
        print(f"diagnose {d.key:<22}{s * 1000:>8.1f} ms")


if __name__ == "__main__":
    main()
