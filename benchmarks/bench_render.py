"""Headless rendering speed (render-view) on the 25 reference solutions, lamps lit mid-trial.

    python benchmarks/bench_render.py [--size 640x480] [--camera iso]

Prints, per task, the blocks drawn, the best-of-10 wall time of one picture (`views.render.render`,
PNG encoding separate) and of the trial's lamp timeline. The target is under 50 ms for a 64-lamp
build (the L5 levels of families A, B and D)."""

from __future__ import annotations

import argparse

from timing import best

from scicraft_viz import tasks
from scicraft_viz.engine.blocks import is_attached
from scicraft_viz.tasks.solutions import solution_blocks
from scicraft_viz.views.render import render, render_timeline


def world_with_solution(t):
    w = t.initial_world(replay=True)
    for p, s in sorted(solution_blocks(t).items(), key=lambda it: (is_attached(it[1]), it[0][1], it[0][0], it[0][2])):
        w.set_block(p, s)
    w.step(4)
    return w


def bench_one(t, size, camera) -> tuple[int, float, float, float]:
    """Blocks, and milliseconds for the picture, its PNG and the lamp timeline, mid-trial on the solution."""
    w = world_with_solution(t)
    button = next(p for p, s in w.blocks().items() if "stone_button" in s and t.in_region(p))
    press = w.tick
    w.use(button)
    trace = w.record(t.record_game_ticks)
    blocks = w.blocks()
    r, (ax, ay, az) = t.radius, t.anchor
    region = ((ax - r, ay - r, az - r), (ax + r, ay + r, az + r))
    pic = render(blocks, camera=camera, size=size, region=region)
    ms = 1000 * best(lambda: render(blocks, camera=camera, size=size, region=region), 10)
    png = 1000 * best(lambda: pic.png, 5)
    tl = 1000 * best(lambda: render_timeline(trace, press, task=t, width=size[0]), 5)
    return len(blocks), ms, png, tl


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--camera", default="iso")
    a = ap.parse_args()
    size = tuple(int(v) for v in a.size.split("x"))
    ids = tasks.canonical_ids()
    print(f"{'task':<34}{'lamps':>6}{'blocks':>7}{'render ms':>10}{'png ms':>8}{'timeline ms':>12}")
    worst64 = 0.0
    for tid in ids:
        t = tasks.load(tid)
        n_blocks, ms, png, tl = bench_one(t, size, a.camera)
        if t.n == 64:
            worst64 = max(worst64, ms)
        print(f"{tid:<34}{t.n:>6}{n_blocks:>7}{ms:>10.1f}{png:>8.1f}{tl:>12.1f}")
    print(f"slowest 64-lamp picture: {worst64:.1f} ms (target < 50 ms)")


if __name__ == "__main__":
    main()
