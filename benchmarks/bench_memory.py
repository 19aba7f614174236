"""Engine memory: bytes per block for a build packed tightly and the same build spread out, and the
peak resident memory of a world of a million components, each measured in a fresh process.

Run: python benchmarks/bench_memory.py [--components N]
Prints figures next to their goals; nothing here is asserted by the test suite."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

GOAL_BYTES = 4 * 2**30  # 10**6 components within 4 GB
SPREAD = 700  # the spread build covers SPREAD x SPREAD blocks


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def unit(x: int, z: int) -> list:
    """One component on its support: a lamp, dust or repeater on stone (3 kinds in turn)."""
    top = ("redstone_lamp", "redstone_wire", "redstone_repeater[facing=west]")[(x + z) % 3]
    return [((x, 0, z), "stone"), ((x, 1, z), top)]


def warm_up() -> None:
    """Load the compiled kernels, so that what is measured next is the world alone."""
    from scicraft_viz import World

    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "lever[face=floor]"), ((1, 0, 0), "redstone_lamp")])
    w.use((0, 1, 0))
    w.record(5)


def child_build(layout: str, n: int) -> dict:
    """A world of n components (2n blocks), laid out packed or spread; its memory."""
    from scicraft_viz import World

    warm_up()
    side = int(n**0.5 + 0.999)
    step = SPREAD // side if layout == "spread" else 2
    base = rss_mb()
    w = World()
    items = [b for i in range(n) for b in unit(step * (i % side), step * (i // side))]
    w.set_blocks(items)
    return {"blocks": len(w.blocks()), "arrays": w.memory_bytes(), "rss_mb": rss_mb() - base,
            "span": step * (side - 1) + 1}


def child_million(n: int) -> dict:
    """Rows of a lever, dust with a repeater every 15 blocks, and a lamp, each on stone: n components.
    Built in chunks (as a loader would stream a big build), then one row is switched and run."""
    from scicraft_viz import World

    warm_up()
    base = rss_mb()
    length = 1000
    rows = max(1, n // length)
    w = World(log_events=False)
    t = time.perf_counter()
    for r in range(rows):
        z = 2 * r
        items = [((x, 0, z), "stone") for x in range(length)]
        items.append(((0, 1, z), "lever[face=floor]"))
        items += [((x, 1, z), "redstone_repeater[facing=west]" if x % 15 == 0 else "redstone_wire")
                  for x in range(1, length - 1)]
        items.append(((length - 1, 1, z), "redstone_lamp"))
        w.set_blocks(items)
    build = time.perf_counter() - t
    comps = rows * length
    w.use((0, 1, 0))
    t = time.perf_counter()
    w.step(200)
    run = time.perf_counter() - t
    lit = w.get_block((length - 1, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
    dark = w.get_block((length - 1, 1, 2)) == "minecraft:redstone_lamp[lit=false]" if rows > 1 else True
    return {"components": comps, "blocks": 2 * comps, "arrays": w.memory_bytes(), "rss_mb": rss_mb() - base,
            "peak_mb": peak_mb(), "base_mb": base, "build_s": build, "step200_s": run, "correct": lit and dark}


def in_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--components", type=int, default=10**6, help="components in the large world")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind = args.child[0]
        res = child_million(int(args.child[1])) if kind == "million" else child_build(kind, int(args.child[1]))
        print(json.dumps(res))
        return

    print("(a) a 1,000-component build (2,000 blocks), each layout in a fresh process")
    figs = {}
    for layout in ("packed", "spread"):
        r = in_child(layout, "1000")
        figs[layout] = r
        print(f"    {layout:>6}: {r['blocks']:,} blocks over {r['span']}x{r['span']}: "
              f"arrays {r['arrays'] / 2**20:.2f} MB ({r['arrays'] / 1000:,.0f} B per component), "
              f"resident +{r['rss_mb']:.1f} MB")
    ratio = figs["spread"]["arrays"] / figs["packed"]["arrays"]
    print(f"    spread / packed = {ratio:.2f} (goal: about 1; a dense grid would cost the bounding box, "
          f"{SPREAD}x{SPREAD} columns)")

    r = in_child("million", str(args.components))
    print(f"(b) {r['components']:,} components ({r['blocks']:,} blocks) in rows of 1,000: "
          f"built in {r['build_s']:.1f} s, 200 ticks after a switch in {r['step200_s'] * 1e3:.0f} ms, "
          f"row lit and neighbour dark: {r['correct']}")
    print(f"    arrays {r['arrays'] / 2**30:.2f} GB ({r['arrays'] / r['components']:,.0f} B per component); "
          f"peak resident {r['peak_mb'] / 1024:.2f} GB for the whole process "
          f"(interpreter and imports {r['base_mb']:.0f} MB) -> goal 10^6 components within 4 GB: "
          f"{'met' if r['peak_mb'] * 2**20 <= GOAL_BYTES else 'NOT met'}")


if __name__ == "__main__":
    main()
