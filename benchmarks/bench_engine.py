"""Engine speed: game ticks per second on a 64-lamp broadcast device and on an idle world.

Run: python benchmarks/bench_engine.py [--switches N]
Prints figures only; nothing here is asserted by the test suite."""

from __future__ import annotations

import argparse
import os
import statistics
import time

from scicraft_viz import World

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
    return w


def count(w: World, name: str) -> int:
    return sum(1 for s in w.blocks().values() if s.startswith(f"minecraft:{name}"))


def switching_run(w: World, switches: int, period: int = 30) -> float:
    """Press the button every `period` game ticks; returns game ticks per second."""
    t = time.perf_counter()
    for _ in range(switches):
        w.use(BUTTON)
        w.step(period)
    return switches * period / (time.perf_counter() - t)


def trials(make, switches: int, n: int = 5) -> tuple[float, float]:
    """Best and median game ticks/s over n trials (the machine may be shared: best is the engine's speed)."""
    w = make()
    switching_run(w, 50)  # warm-up
    rates = [switching_run(w, max(1, switches // n)) for _ in range(n)]
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

    best_log, med_log = trials(logged, args.switches // 4)
    print(f"    same, with event log on:       best {best_log:,.0f} game ticks/s (median {med_log:,.0f})")

    idle = broadcast_device()
    n = 100_000
    t = time.perf_counter()
    for _ in range(n):
        idle.step(1)
    idle_tps = n / (time.perf_counter() - t)
    t = time.perf_counter()
    idle.step(10**9)
    jump = time.perf_counter() - t
    print(f"(b) idle device, stepped one tick per call: {idle_tps:,.0f} game ticks/s "
          f"(step(10**9) with nothing scheduled: {jump * 1e6:.0f} us)")
    rec = broadcast_device()
    t = time.perf_counter()
    rec.use(BUTTON)
    tr = rec.record(20_000)
    rec_tps = 20_000 / (time.perf_counter() - t)
    print(f"    recording a trace (every tick):  {rec_tps:,.0f} game ticks/s "
          f"({tr.dust_power.shape[1]} dust + {tr.lamp_lit.shape[1]} lamps per row)")

    wp = broadcast_device(jit=False)
    wj = broadcast_device(jit=True)
    py_tps = switching_run(wp, args.python_switches)
    jit_tps = max(switching_run(wj, args.python_switches) for _ in range(5))
    print(f"(c) same device, {args.python_switches} presses: JIT {jit_tps:,.0f} gt/s, "
          f"pure Python {py_tps:,.1f} gt/s -> JIT is {jit_tps / py_tps:,.0f}x faster")


if __name__ == "__main__":
    main()
