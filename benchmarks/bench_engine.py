"""Engine speed: game ticks per second of the reference kernels on a 64-lamp broadcast device, on the
five 64-lamp reference solutions (L5) and on an idle world; the event log's cost; bulk loading.

Run: python benchmarks/bench_engine.py [--switches N]
Rates are CPU time of this process (the machine may be shared; other load does not count). The
compiled graph engine (engine/compiled.py) is kept out: this measures the kernels every world falls
back on. Prints figures only; nothing here is asserted by the test suite."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from timing import best as best_time

from scicraft_viz import World
from scicraft_viz.engine.blocks import is_attached
from scicraft_viz.engine.mcfunction import parse_mcfunction

clock = time.process_time

REAL_TIME_TPS = 20  # Minecraft runs 20 game ticks per second
BUTTON = (0, 1, 0)


def broadcast_device(jit: bool = True) -> World:
    """A button, a repeater-regenerated trunk along +x and 8 branches north and south with 4 lamp
    stubs each: 64 lamps, ~580 dust, 20 repeaters."""
    w = World(jit=jit, log_events=False)
    for x in range(-1, 36):
        for z in range(-34, 35):
            w.set_block((x, 0, z), "stone")
    w.set_block(BUTTON, "stone_button[face=floor,facing=east]")
    for x in range(1, 35):
        w.set_block((x, 1, 0), "redstone_repeater[facing=west]" if x in (6, 14, 22, 30) else "redstone_wire")
    for bx in range(4, 33, 4):
        for sign, facing in ((1, "north"), (-1, "south")):
            for dz in range(1, 33):
                z = sign * dz
                block = f"redstone_repeater[facing={facing}]" if dz in (10, 22) else "redstone_wire"
                w.set_block((bx, 1, z), block)
                if dz in (5, 15, 25, 32):
                    w.set_block((bx + 1, 1, z), "redstone_wire")
                    w.set_block((bx + 2, 1, z), "redstone_lamp")
    w.step(10)
    return reference(w)


def reference(w: World) -> World:
    """Keep the compiled engine from taking the world over (it does, for long log-free runs)."""
    w._cg_refused = True
    return w


SOLUTIONS = Path(__file__).resolve().parent.parent / "tasks" / "solutions"
L5 = ("A_simultaneous_lights_L5", "B_branch_reach_L5", "C_sequential_activation_L5", "D_equal_delay_distribution_L5",
      "E_pulse_shaping_L5")


def task_items(name: str) -> tuple[list, list]:
    """A task's initial world (stone floor at y=3, radius 10 around (0, 4, 0)) and its reference build,
    supports first."""
    floor = [((x, 3, z), "stone") for x in range(-10, 11) for z in range(-10, 11)]
    build = parse_mcfunction((SOLUTIONS / f"{name}.mcfunction").read_text())
    build.sort(key=lambda it: is_attached(it[1]))
    return floor, build


def solution(name: str, log: bool) -> tuple[World, tuple]:
    floor, build = task_items(name)
    w = World.from_blocks(floor + build, log_events=log)
    w.step(100)
    (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
    return reference(w), button


def count(w: World, name: str) -> int:
    return sum(1 for s in w.blocks().values() if s.startswith(f"minecraft:{name}"))


def switching_run(w: World, switches: int, period: int = 30, button=BUTTON) -> float:
    """Press the button every `period` game ticks; returns game ticks per second."""
    t = clock()
    for _ in range(switches):
        w.use(button)
        w.step(period)
    return switches * period / (clock() - t)


def trials(make, switches: int, n: int = 5, button=BUTTON) -> tuple[float, float]:
    """Best and median game ticks/s over n trials (the machine may be shared: best is the engine's speed)."""
    w = make()
    switching_run(w, 50, button=button)  # warm-up
    rates = [switching_run(w, max(1, switches // n), button=button) for _ in range(n)]
    return max(rates), statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--switches", type=int, default=20000, help="button presses for the JIT run")
    ap.add_argument("--python-switches", type=int, default=20, help="button presses for the non-JIT run")
    args = ap.parse_args()

    t = time.perf_counter()
    w = broadcast_device()
    build = time.perf_counter() - t
    print(f"device: {count(w, 'redstone_lamp')} lamps, {count(w, 'redstone_wire')} dust, "
          f"{count(w, 'redstone_repeater')} repeaters (built in {build:.2f} s incl. JIT load)")

    # correctness guard for the figures: every lamp must light on a press
    probe = w.copy()
    probe.use(BUTTON)
    tr = probe.record(30)
    lit = int(tr.lamp_lit.any(axis=0).sum())
    print(f"lamps lit by one press: {lit}/{len(tr.lamp_positions)}")

    print(f"load average before the runs: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    best, med = trials(lambda: w, args.switches)
    print(f"(a) switched every 30 gt, JIT:       best {best:,.0f} game ticks/s = {best / REAL_TIME_TPS:,.0f}x "
          f"real time (median {med:,.0f})")

    def logged() -> World:
        wl = broadcast_device()
        wl.log_events = True
        return wl

    best_log, med_log = trials(logged, args.switches)
    print(f"    same, with event log on:       best {best_log:,.0f} game ticks/s (median {med_log:,.0f}) "
          f"= {best_log / best:.2f} of the speed with the log off (goal: close to 1)")

    idle = broadcast_device()
    n = 100_000
    t = clock()
    for _ in range(n):
        idle.step(1)
    idle_tps = n / (clock() - t)
    t = time.perf_counter()
    idle.step(10**9)
    jump = time.perf_counter() - t
    print(f"(b) idle device, stepped one tick per call: {idle_tps:,.0f} game ticks/s "
          f"(step(10**9) with nothing scheduled: {jump * 1e6:.0f} us)")
    rec = broadcast_device()
    t = clock()
    rec.use(BUTTON)
    tr = rec.record(20_000)
    rec_tps = 20_000 / (clock() - t)
    print(f"    recording a trace (every tick):  {rec_tps:,.0f} game ticks/s "
          f"({tr.dust_power.shape[1]} dust + {tr.lamp_lit.shape[1]} lamps per row)")

    print("(c) the five 64-lamp reference solutions (L5), button pressed every 30 gt:")
    for name in L5:
        _, button = solution(name, False)
        off, _ = trials(lambda name=name: solution(name, False)[0], args.switches // 4, button=button)
        on, _ = trials(lambda name=name: solution(name, True)[0], args.switches // 4, button=button)
        print(f"    {name:<32} {off:>11,.0f} gt/s, log on {on:>11,.0f} gt/s ({on / off:.2f})")

    floor, build = task_items("D_equal_delay_distribution_L5")

    def one_by_one() -> World:
        w = World()
        for p, s in floor + build:
            w.set_block(p, s)
        return w

    loop_t, bulk_t = best_time(one_by_one, 7, clock), best_time(lambda: World.from_blocks(floor + build), 7, clock)
    template = World.from_blocks(floor)
    copy_t = best_time(template.copy, 50, clock)
    build_t = best_time(lambda: template.copy().set_blocks(build), 50, clock)
    assert World.from_blocks(floor + build).blocks() == one_by_one().blocks()
    print(f"(d) loading D_L5's initial world and build ({len(floor) + len(build)} blocks): one set_block each "
          f"{loop_t * 1e3:.2f} ms, set_blocks {bulk_t * 1e3:.2f} ms -> {loop_t / bulk_t:.0f}x faster; "
          f"copying the initial world {copy_t * 1e6:.0f} us, then the build with set_blocks {build_t * 1e6:.0f} us")

    wp = broadcast_device(jit=False)
    wj = broadcast_device(jit=True)
    py_tps = switching_run(wp, args.python_switches)
    jit_tps = max(switching_run(wj, args.python_switches) for _ in range(5))
    print(f"(e) broadcast device, {args.python_switches} presses: JIT {jit_tps:,.0f} gt/s, "
          f"pure Python {py_tps:,.1f} gt/s -> JIT is {jit_tps / py_tps:,.0f}x faster")


if __name__ == "__main__":
    main()
