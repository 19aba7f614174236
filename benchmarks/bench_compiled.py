"""Compiled component graph against the reference engine, on the five 64-lamp reference solutions.

Each device is built as the evaluator builds it, settled, then driven through World's own API as the
MCHPRS comparison harness does: `use(button); step(30)` repeated, event log off. The reference figure
comes from the same World with the compiled engine held off, measured in the same run; compile time
is that of `compile_world` on the settled world. Figures are printed, never asserted.

usage: python benchmarks/bench_compiled.py [GAME_TICKS] [TRIALS]
"""

import sys
import time
from pathlib import Path

from scicraft_viz import evaluator, tasks
from scicraft_viz.engine import compiled

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["A_simultaneous_lights_L5", "B_branch_reach_L5", "C_sequential_activation_L5",
         "D_equal_delay_distribution_L5", "E_pulse_shaping_L5"]
PERIOD = 30
REDPILER_O = "14-19 M"  # MCHPRS redpiler with optimisations, issue figures (run the shared harness for one run)


def device(name: str):
    task = tasks.load(name)
    w = evaluator.build_world(task, (ROOT / "tasks" / "solutions" / f"{name}.mcfunction").read_text())
    w.step(task.settle_game_ticks)
    (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
    w.log_events = False
    return w, button


def rate(name: str, total: int, graph: bool) -> float:
    """Game ticks per second of use(button); step(30) through World (best of the caller's trials)."""
    w, button = device(name)
    if not graph:
        w._cg_after_calls = w._cg_after_ticks = 1 << 62  # never switch: the reference engine throughout
    for _ in range(50):  # warm-up: the World switches to the graph here when allowed
        w.use(button)
        w.step(PERIOD)
    assert (w._cg is not None) == graph
    presses = total // PERIOD
    t = time.perf_counter()
    for _ in range(presses):
        w.use(button)
        w.step(PERIOD)
    return presses * PERIOD / (time.perf_counter() - t)


def compile_ms(name: str, trials: int) -> float:
    w, _ = device(name)
    best = float("inf")
    for _ in range(trials):
        t = time.perf_counter()
        compiled.compile_world(w)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rate(NAMES[0], 3000, True)  # load the compiled kernels before timing
    print(f"button every {PERIOD} gt through World.use/step, event log off; best of {trials}; "
          f"{total:,} gt compiled, {total // 10:,} gt reference")
    print(f"goal: faster than MCHPRS redpiler -O ({REDPILER_O} gt/s on these devices)")
    print(f"{'device':32} {'compile':>9} {'reference gt/s':>15} {'compiled gt/s':>14} {'ratio':>7}")
    for name in NAMES:
        ref = max(rate(name, total // 10, False) for _ in range(trials))
        fast = max(rate(name, total, True) for _ in range(trials))
        print(f"{name:32} {compile_ms(name, trials):7.1f}ms {ref:15,.0f} {fast:14,.0f} {fast / ref:6.0f}x")


if __name__ == "__main__":
    main()
