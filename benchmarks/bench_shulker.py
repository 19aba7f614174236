"""What a shulker box costs a redstone world it takes no part in: game ticks per second of the observer clock that
drives a piston (scicraft_viz.builds), with and without a box holding items a few blocks away from it, stepped in
one call; then the ratio of the two, measured in this run. A box the piston never reaches leaves the kernels to run
the ticks on their own: only the tick a push breaks a box ends their run, so that the box drops in its tick (docs/
redstone.md section 96). For scale, the same clock stepped one game tick per call, as a world that must see every
tick goes.

Run: python benchmarks/bench_shulker.py
Rates are CPU time of this process. Prints figures only; nothing here is asserted by the test suite."""

from __future__ import annotations

import time

from timing import best

from scicraft_viz import World, builds

clock = time.process_time
TICKS = 20_000
BOX = (8, 1, 6)  # on no line of the clock's piston, which pushes west from (-1, 1, 0)


def clock_world(box: bool) -> World:
    w = builds.observer_clock()
    if box:
        w.set_block(BOX, "lime_shulker_box[facing=up]")
        w.set_items(BOX, [("redstone", 64 * 3), ("repeater", 5)])
    builds.start_observer_clock(w)
    w.log_events = False
    return w


def rate(box: bool, ticks: int = TICKS, per_call: int | None = None) -> float:
    def go():
        w = clock_world(box)
        if per_call is None:
            w.step(ticks)
        else:
            for _ in range(ticks // per_call):
                w.step(per_call)

    return ticks / best(go, 3, clock)


def main() -> None:
    rate(True, 200)  # compile the kernels first
    plain = rate(False)
    boxed = rate(True)
    by_tick = rate(False, TICKS // 10, per_call=1)
    print(f"observer clock and piston:            {plain:>12,.0f} gt/s")
    print(f"the same with a shulker box aside:    {boxed:>12,.0f} gt/s")
    print(f"  ratio, without box / with box:      {plain / boxed:>12.2f}")
    print(f"the clock stepped one tick per call:  {by_tick:>12,.0f} gt/s")
    print(f"  ratio, one call / one tick a call:  {plain / by_tick:>12.1f}")


if __name__ == "__main__":
    main()
