"""Comparator circuits on this engine and on MCHPRS, compared redstone tick by redstone tick.

The circuits are in benchmarks/mchprs_comparator/circuits/ (`setblock` lines, `items X Y Z LEVEL` for a
barrel's fill level, `use RT X Y Z` for a right-click RT redstone ticks after the start). The MCHPRS side
is benchmarks/mchprs_comparator/main.rs, built as a second binary of the bench crate of MCHPRS's offline
build (see the README of the shared MCHPRS harness): copy it to `bench/src/bin/mchprs_cmp.rs` of that
workspace and `cargo build --release --offline -p mchprs_bench`.

Both sides: a stone floor at y=3 (x, z in -10..10), the blocks placed as /setblock places them, the
barrels filled, 40 game ticks to settle; then for each redstone tick the uses due run and every block
that changed is printed (`GT X Y Z STATE [out=N]`, vanilla ids, a comparator's stored output as out=N).
MCHPRS counts redstone ticks, so only even game ticks are compared; every delay here is even.

usage: python benchmarks/bench_mchprs_comparator.py [MCHPRS_CMP_BINARY] [REDSTONE_TICKS]
Prints, per circuit and MCHPRS backend (plain, redpiler), whether the traces are identical, and the
first differing lines if not. Without a binary it prints this engine's traces only.
"""

import subprocess
import sys
from pathlib import Path

from scicraft_viz import World
from scicraft_viz.engine.blocks import vanilla_state

HERE = Path(__file__).resolve().parent / "mchprs_comparator"
CIRCUITS = ("clock", "subtract", "container")


def count_for(level: int) -> int:
    """The fewest stone (a 64-stack) that give a barrel (27 slots) this fill level."""
    return 0 if level == 0 else max(1, -(-(level - 1) * 27 * 64 // 14))


def ours(path: Path, rts: int) -> list[str]:
    w = World(replay=True)
    w.set_blocks([((x, 3, z), "stone") for x in range(-10, 11) for z in range(-10, 11)])
    items, uses, placed = [], [], []
    for line in path.read_text().splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "setblock":
            p = (int(f[1]), int(f[2]), int(f[3]))
            w.set_block(p, f[4])
            placed.append(p)
        elif f[0] == "items":
            items.append(((int(f[1]), int(f[2]), int(f[3])), int(f[4])))
        elif f[0] == "use":
            uses.append((int(f[1]), (int(f[2]), int(f[3]), int(f[4]))))
    for p, level in items:
        w.set_items(p, count_for(level))
        assert w.fill_level(p) == level
    w.step(40)
    out, last = [], {}
    for rt in range(rts + 1):
        if rt:
            w.step(2)
        for t, p in uses:
            if t == rt:
                w.use(p)
        for p in sorted(set(placed)):
            s = vanilla_state(w.get_block(p))
            if s.startswith("minecraft:comparator"):
                s += f" out={w.output_signal(p)}"
            if last.get(p) != s:
                out.append(f"{2 * rt} {p[0]} {p[1]} {p[2]} {s}")
                last[p] = s
    return out


def comparator_uses(path: Path) -> list[tuple[int, tuple[int, int, int]]]:
    """The `use` lines of a circuit that click a comparator: (redstone tick, position)."""
    text = path.read_text()
    comps = {tuple(f[1:4]) for f in (ln.split() for ln in text.splitlines()) if f[:1] == ["setblock"]
             and f[4].startswith("comparator")}
    return [(int(f[1]), tuple(map(int, f[2:5]))) for f in (ln.split() for ln in text.splitlines())
            if f[:1] == ["use"] and tuple(f[2:5]) in comps]


def _states_only(lines: list[str]) -> list[str]:
    """The lines without the comparators' out=N, and without lines that then repeat the state before."""
    out, last = [], {}
    for line in lines:
        gt, x, y, z, state = line.split(" out=")[0].split(" ", 4)
        if last.get((x, y, z)) != state:
            out.append(f"{gt} {x} {y} {z} {state}")
            last[(x, y, z)] = state
    return out


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else None
    rts = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for name in CIRCUITS:
        path = HERE / "circuits" / f"{name}.txt"
        mine = ours(path, rts)
        if binary is None:
            print(f"== {name}: this engine ({len(mine)} changes)")
            print("\n".join(mine))
            continue
        for backend in ("plain", "rp"):
            theirs = subprocess.run([binary, str(path), backend, str(rts)], capture_output=True, text=True,
                                    check=True).stdout.splitlines()
            a, span = mine, f"{2 * rts} gt"
            if backend == "rp":
                # the redpiler writes no comparator block entity back (states only), and its use acts on
                # buttons and levers only: compared up to the first use of a comparator
                end = min((2 * t for t, p in comparator_uses(path)), default=2 * rts + 1)
                a, theirs = (_states_only([x for x in lines if int(x.split()[0]) < end]) for lines in (a, theirs))
                span = f"{min(end - 1, 2 * rts)} gt, states only"
            if theirs == a:
                print(f"{name:10} MCHPRS {backend:5}: identical ({len(a)} changes over {span})")
            else:
                diff = [(x, y) for x, y in zip(a, theirs) if x != y][:3]
                print(f"{name:10} MCHPRS {backend:5}: DIFFERENT ({len(a)} vs {len(theirs)} lines); first: {diff}")


if __name__ == "__main__":
    main()
