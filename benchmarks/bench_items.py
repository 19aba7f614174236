"""Items moving: game ticks per second of a hopper item sorter, idle (nothing to move: the kernels run on
alone) and busy (a chest of items streaming through it: every tick a hopper may act, the world moves items in
Python), and of a 20-hopper chain passing a stack along; and of worlds holding item entities (every tick runs
the entity phase in Python): 50 items dropped onto a floor (falling, then mostly resting), and 20 items thrown
across blue ice into a row of hoppers.

Run: python benchmarks/bench_items.py
Rates are CPU time of this process. Prints figures only; nothing here is asserted by the test suite."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from timing import best

from scicraft_viz import World

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_rules_hopper import hopper_sorter  # noqa: E402  (the sorter the tests pin, built once here)

clock = time.process_time
TICKS = 20_000


def rate(make, ticks: int = TICKS) -> float:
    def go():
        make().step(ticks)

    return ticks / best(go, 3, clock)


def idle_sorter() -> World:
    w = hopper_sorter()
    w.step(10)
    return w


def busy_sorter() -> World:
    w = idle_sorter()
    w.set_items((0, 3, 0), [("bone", 64 * 13), ("cobblestone", 64 * 14)])
    return w


def chain() -> World:
    w = World()
    for x in range(20):
        w.set_block((x, 1, 0), "hopper[facing=east]")
    w.set_block((20, 1, 0), "chest")
    w.set_items((0, 1, 0), [("stone", 64 * 5)])
    return w


def items_resting() -> World:
    w = World.from_blocks([((x, 0, z), "stone") for x in range(10) for z in range(5)])
    for k in range(50):
        w.spawn_item("stick" if k % 2 else "redstone", 1 + k % 7, (0.5 + k % 10, 3.0 + k % 3, 0.5 + k // 10))
    return w


def items_on_ice() -> World:
    blocks = [((x, 0, z), "blue_ice") for x in range(30) for z in range(20)]
    blocks += [((30, 0, z), "hopper[facing=down]") for z in range(20)]
    blocks += [((30, -1, z), "chest") for z in range(20)]
    w = World.from_blocks(blocks)
    for z in range(20):
        w.spawn_item("iron_ingot", 1, (0.5, 1.0, z + 0.5), (1.0, 0.0, 0.0))
    return w


def main() -> None:
    rate(busy_sorter, 100)  # compile the kernels first
    print(f"idle hopper sorter:      {rate(idle_sorter):>14,.0f} gt/s")
    print(f"busy hopper sorter:      {rate(busy_sorter):>14,.0f} gt/s")
    print(f"20-hopper chain, busy:   {rate(chain):>14,.0f} gt/s")
    print(f"50 item entities, floor: {rate(items_resting, 1000):>14,.0f} gt/s")
    print(f"20 items on ice, hoppers:{rate(items_on_ice, 1000):>14,.0f} gt/s")


if __name__ == "__main__":
    main()
