"""Run a structure in the engine and compare it, tick by tick, with a capture of what vanilla did with it.

A capture (the format of Nucleation's game-test harness, `tests/data/nucleation/`) lists for each tick every block
whose state changed, with its state before and after. Its tick k is the k-th game tick after the structure is
placed, counted from 0; a world loaded with `World.from_build_file` stands at tick 0, so vanilla's tick k is the
world's step k + 1, and an action at tick k is made before that step."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from scicraft_viz import World
from scicraft_viz.engine import blocks as B

NUCLEATION = Path(__file__).parent / "data" / "nucleation"


@dataclass(frozen=True)
class Action:
    """One thing done to the world at a capture tick: `use` a block (a player's right click) or `place` a state
    there (/setblock)."""
    tick: int
    kind: str  # "use" or "place"
    pos: tuple[int, int, int]
    state: str = ""


def spelled(state: str) -> str:
    """A vanilla state as the engine spells it (`minecraft:repeater` is `minecraft:redstone_repeater` here)."""
    name, bracket, props = state.partition("[")
    short = name.removeprefix("minecraft:")
    return f"minecraft:{B.ALIASES.get(short, short)}{bracket}{props}"


def vanilla_changes(capture: dict) -> dict[int, dict[tuple[int, int, int], str]]:
    """The capture's block changes: tick -> {position: state after}, spelled as the engine spells them."""
    return {t["tick"]: {tuple(e["pos"]): spelled(e["to"]) for e in t["events"] if e["kind"] == "block_changed"}
            for t in capture["ticks"]}


def engine_changes(world: World, actions: list[Action], ticks: int) -> dict[int, dict[tuple[int, int, int], str]]:
    """The engine's net block changes over `ticks` capture ticks, in the capture's numbering; ticks with no
    change are left out, as the capture leaves them out."""
    by_tick: dict[int, list[Action]] = {}
    for a in actions:
        by_tick.setdefault(a.tick, []).append(a)
    out = {}
    before = world.blocks()
    for k in range(ticks):
        for a in by_tick.get(k, ()):
            if a.kind == "use":
                world.use(a.pos)
            elif a.kind == "place":
                world.set_block(a.pos, a.state)
            else:
                raise ValueError(f"unknown action kind {a.kind!r}")
        world.step(1)
        now = world.blocks()
        changed = {p: now.get(p, "minecraft:air") for p in before.keys() | now.keys() if before.get(p) != now.get(p)}
        if changed:
            out[k] = changed
        before = now
    return out


def differences(structure: str | Path, capture: str | Path, actions: list[Action] = (), ticks: int | None = None,
                world: World | None = None) -> list[tuple[int, dict, dict]]:
    """(tick, vanilla's changes, the engine's changes) for each tick where they differ, up to `ticks` (by
    default one past the capture's last tick). Files are named relative to tests/data/nucleation/."""
    cap = json.loads((NUCLEATION / capture).read_text())
    want = vanilla_changes(cap)
    n = ticks if ticks is not None else max(want, default=0) + 1
    w = world if world is not None else World.from_build_file(NUCLEATION / structure)
    got = engine_changes(w, list(actions), n)
    return [(k, want.get(k, {}), got.get(k, {})) for k in range(n) if want.get(k, {}) != got.get(k, {})]
