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
       python benchmarks/bench_mchprs_comparator.py MCHPRS_CMP_BINARY REDSTONE_TICKS random COUNT [SEED]
Prints, per circuit and MCHPRS backend (plain, redpiler), whether the traces are identical, and the
first differing lines if not. Without a binary it prints this engine's traces only. `random` runs COUNT
seeded random circuits instead (see `random_circuit`) and prints how many agree per backend.
"""

import random
import subprocess
import sys
import tempfile
from pathlib import Path

from scicraft_viz import World
from scicraft_viz.engine.blocks import vanilla_state
from scicraft_viz.errors import PlacementError

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
    for p in sorted(set(placed)):
        if w.get_block(p).startswith("minecraft:comparator"):
            # as main.rs does: every comparator gets a neighbour update, so one that /setblock placed with
            # no update after it (its stored output is block-entity data the state does not carry) reads
            # its inputs
            w._k.check(w.g, w._find(p), -1)
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


def compare(binary: str, path: Path, rts: int, backend: str) -> tuple[bool, str]:
    """Run one circuit on both engines: (identical?, a line saying so or naming the first differences)."""
    mine = ours(path, rts)
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
        return True, f"identical ({len(a)} changes over {span})"
    if [_side(x) for x in a] == [_side(x) for x in theirs]:
        return False, f"identical but for dust shown up/side ({len(a)} changes over {span})"
    diff = [(x, y) for x, y in zip(a, theirs) if x != y][:3]
    return False, f"DIFFERENT ({len(a)} vs {len(theirs)} lines); first: {diff}"


def _side(line: str) -> str:
    """A trace line with dust's `up` sides shown as `side`. MCHPRS connects dust to a source beside it
    (a redstone block) as `side` before it looks for dust on top of that block; vanilla (Java 1.20
    RedStoneWireBlock.getConnectingSide) and this engine look up first and show `up`. Both point into the
    block, so power and behaviour are the same."""
    return line.replace("=up", "=side") if "redstone_wire" in line else line


_DIRS = ("north", "east", "south", "west")
_POOL = ["air", "air", "stone", "redstone_wire", "redstone_wire", "redstone_wire", "redstone_wire", "redstone_lamp",
         "redstone_block", "lever[face=floor]", "barrel", "redstone_torch"]


def random_circuit(rnd: random.Random, size: int = 6, uses: int = 6, rts: int = 30) -> str | None:
    """A random circuit in the comparison's format: comparators (either mode), repeaters, dust, torches,
    lamps, levers, redstone blocks and barrels at random levels on the floor, with dust and stone on top,
    placed as a player would and run until nothing is pending; then random lever flips. None when it
    never settles (a clock: the states printed would not be a consistent start for /setblock) or when a
    comparator faces into a diode that faces back (MCHPRS ticks it at high priority, vanilla does not)."""
    w = World(log_events=False)
    w.set_blocks([((x, 3, z), "stone") for x in range(-10, 11) for z in range(-10, 11)])
    for y in (4, 5):
        for x in range(size):
            for z in range(size):
                r = rnd.random()
                if y == 4 and r < 0.22:
                    state = f"comparator[facing={rnd.choice(_DIRS)},mode={rnd.choice(['compare', 'subtract'])}]"
                elif y == 4 and r < 0.36:
                    state = f"redstone_repeater[facing={rnd.choice(_DIRS)},delay={rnd.randint(1, 4)}]"
                else:
                    state = rnd.choice(_POOL if y == 4 else ["air", "air", "air", "redstone_wire", "stone"])
                try:
                    w.set_block((x, y, z), state)
                except PlacementError:
                    pass
    blocks = w.blocks()
    levels = {p: rnd.randint(0, 15) for p, s in blocks.items() if s.startswith("minecraft:barrel")}
    for p, level in levels.items():
        w.set_items(p, count_for(level))
    for _ in range(100):
        if not w.scheduled():
            break
        w.step(2)
    if w.scheduled():
        return None
    blocks = w.blocks()
    facing = {p: s.split("facing=")[1].split(",")[0].rstrip("]") for p, s in blocks.items()
              if s.startswith(("minecraft:comparator", "minecraft:redstone_repeater"))}
    off = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}
    back = {"north": "south", "south": "north", "east": "west", "west": "east"}
    for p, f in facing.items():
        o = off[back[f]]  # a diode outputs away from its facing
        front = (p[0] + o[0], p[1] + o[1], p[2] + o[2])
        if blocks[p].startswith("minecraft:comparator") and facing.get(front) == back[f]:
            return None
    lines = [f"setblock {p[0]} {p[1]} {p[2]} {vanilla_state(s).removeprefix('minecraft:')}"
             for p, s in blocks.items() if p[1] > 3]
    lines += [f"items {p[0]} {p[1]} {p[2]} {level}" for p, level in levels.items() if level]
    levers = [p for p, s in blocks.items() if s.startswith("minecraft:lever")]
    if levers:
        lines += [f"use {rnd.randint(1, rts - 5)} {x} {y} {z}" for x, y, z in
                  (rnd.choice(levers) for _ in range(uses))]
    return "\n".join(lines) + "\n"


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else None
    rts = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    if len(sys.argv) > 3 and sys.argv[3] == "random":
        count = int(sys.argv[4]) if len(sys.argv) > 4 else 50
        rnd = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 0)
        agree = {"plain": 0, "rp": 0}
        shape = {"plain": 0, "rp": 0}
        made = skipped = 0
        with tempfile.TemporaryDirectory() as tmp:
            while made < count:
                text = random_circuit(rnd, rts=rts)
                if text is None:
                    skipped += 1
                    continue
                path = Path(tmp) / f"random_{made}.txt"
                path.write_text(text)
                made += 1
                for backend in agree:
                    same, line = compare(binary, path, rts, backend)
                    agree[backend] += same
                    shape[backend] += line.startswith("identical but")
                    if not same and not line.startswith("identical but"):
                        print(f"random circuit {made} MCHPRS {backend:5}: {line}")
                        print(text)
        print(f"{count} random comparator circuits ({skipped} drawn and skipped: never settled, or a comparator "
              f"facing a diode that faces back), {rts} rt each: identical with MCHPRS plain in {agree['plain']}, "
              f"with the redpiler (states only) in {agree['rp']}; identical but for dust that MCHPRS shows `side` "
              f"where vanilla shows `up` (beside a redstone block carrying dust): {shape['plain']} and {shape['rp']}")
        return
    for name in CIRCUITS:
        path = HERE / "circuits" / f"{name}.txt"
        if binary is None:
            mine = ours(path, rts)
            print(f"== {name}: this engine ({len(mine)} changes)")
            print("\n".join(mine))
            continue
        for backend in ("plain", "rp"):
            print(f"{name:10} MCHPRS {backend:5}: {compare(binary, path, rts, backend)[1]}")


if __name__ == "__main__":
    main()
