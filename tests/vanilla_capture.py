"""Run a structure in the engine and compare it, tick by tick, with a capture of what vanilla did with it.

A capture (the format of Nucleation's game-test harness, `tests/data/nucleation/`) lists for each tick every block
whose state changed, with its state before and after. Its tick k is the k-th game tick after the structure is
placed, counted from 0; a world loaded with `World.from_build_file` stands at tick 0, so vanilla's tick k is the
world's step k + 1, and an action at tick k is made before that step. With `inventories=True` the containers'
slot changes are compared too, keyed ("slot", position, slot index), a stack written as vanilla's "3x minecraft:id"
and an empty slot as ""."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.formats import decode_build
from scicraft_viz.engine.structure import placement_order as structure_order

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


def vanilla_changes(capture: dict, inventories: bool = False) -> dict[int, dict[tuple, str]]:
    """The capture's block changes, spelled as the engine spells them: tick -> {position: state after} (and
    {("slot", position, slot): stack after} with `inventories`); ticks with no such change are left out."""
    out = {}
    for t in capture["ticks"]:
        ch = {tuple(e["pos"]): spelled(e["to"]) for e in t["events"] if e["kind"] == "block_changed"}
        if inventories:
            ch.update({("slot", tuple(e["pos"]), e["slot"]): e["to"] for e in t["events"]
                       if e["kind"] == "inventory_changed"})
        if ch:
            out[t["tick"]] = ch
    return out


def _slots(world: World) -> dict[tuple, str]:
    """Every filled slot of every container: {("slot", position, slot): "Nx minecraft:id"}."""
    return {("slot", p, i): f"{s[1]}x minecraft:{s[0].removeprefix('minecraft:')}"
            for p, stacks in world.contents().items() for i, s in enumerate(stacks) if s is not None}


def engine_changes(world: World, actions: list[Action], ticks: int,
                   inventories: bool = False) -> dict[int, dict[tuple, str]]:
    """The engine's net block changes (and slot changes, with `inventories`) over `ticks` capture ticks, in the
    capture's numbering; ticks with no change are left out, as the capture leaves them out."""
    by_tick: dict[int, list[Action]] = {}
    for a in actions:
        by_tick.setdefault(a.tick, []).append(a)
    out = {}
    def snapshot():
        return {**world.blocks(), **(_slots(world) if inventories else {})}

    before = snapshot()
    for k in range(ticks):
        for a in by_tick.get(k, ()):
            if a.kind == "use":
                world.use(a.pos)
            elif a.kind == "place":
                world.set_block(a.pos, a.state)
            else:
                raise ValueError(f"unknown action kind {a.kind!r}")
        world.step(1)
        now = snapshot()
        changed = {p: now.get(p, "" if p[0] == "slot" else "minecraft:air") for p in before.keys() | now.keys()
                   if before.get(p) != now.get(p)}
        if changed:
            out[k] = changed
        before = now
    return out


def placement_order(path: Path) -> list[tuple[int, int, int]]:
    """The order vanilla places a structure file's blocks in (StructureTemplate's block list,
    `scicraft_viz.engine.structure.placement_order`): full blocks, then the others, then those with a block
    entity, each group by y, then x, then z. Air is left out."""
    return [p for p, _ in structure_order(decode_build(path.read_bytes(), None, str(path)))]


def differences(structure: str | Path, capture: str | Path, actions: list[Action] = (), ticks: int | None = None,
                world: World | None = None, inventories: bool = False,
                placement: bool = False, in_world: bool = False,
                placed: bool = False) -> list[tuple[int, dict, dict]]:
    """(tick, vanilla's changes, the engine's changes) for each tick where they differ, up to `ticks` (by
    default one past the capture's last tick). Files are named relative to tests/data/nucleation/; with
    `inventories` the containers' slot changes count as well; with `placement` the structure is placed as the
    game placed it for the capture, its update pass made (`World.structure_updates`, in vanilla's order); with
    `in_world` it is loaded as it stood in the world the capture ticked it in (`from_build_file(in_world=True)`:
    nothing pending), not pasted; with `placed` it is written as the game writes a structure it places
    (`from_build_file(placed=True)`). A capture that records where the structure stood in the game's world (`origin`)
    gives the world that hash origin (`World.set_hash_origin`)."""
    cap = json.loads((NUCLEATION / capture).read_text())
    want = vanilla_changes(cap, inventories)
    n = ticks if ticks is not None else max(want, default=0) + 1
    if world is not None and (in_world or placed):
        raise ValueError("differences: in_world and placed load the structure themselves; give no world with them")
    w = world if world is not None else World.from_build_file(NUCLEATION / structure, in_world=in_world,
                                                              placed=placed)
    if "origin" in cap:  # where the capture's (0, 0, 0) stood in the game's world
        w.set_hash_origin(cap["origin"])
    if placement:
        w.structure_updates(placement_order(NUCLEATION / structure))
    got = engine_changes(w, list(actions), n, inventories)
    return [(k, want.get(k, {}), got.get(k, {})) for k in range(n) if want.get(k, {}) != got.get(k, {})]


def vanilla_entities(capture: dict) -> dict[int, dict[tuple, tuple]]:
    """The capture's item entity events: tick -> {("entity", id): (position, velocity)} for a move (the state at
    the tick's end) and {("entity", id): None} for a removal; ticks without such events are left out."""
    out: dict[int, dict[tuple, tuple]] = {}
    for t in capture["ticks"]:
        for e in t["events"]:
            if e["kind"] == "entity_moved":
                out.setdefault(t["tick"], {})[("entity", e["id"])] = (tuple(e["pos"]), tuple(e["velocity"]))
            elif e["kind"] == "entity_removed":
                out.setdefault(t["tick"], {})[("entity", e["id"])] = None
    return out


MARGIN = 4  # how far past the structure's box the capture harness watches entities


def capture_window(size: tuple[int, int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The box the capture harness watches entities in, for a structure of `size`: the structure's box grown by
    MARGIN blocks (from -MARGIN to size + MARGIN + 1 on each axis). An entity whose box leaves it is logged as
    removed, and as moved again when it comes back."""
    return (-MARGIN,) * 3, tuple(n + MARGIN + 1 for n in size)


def _seen(pos, window, half: float, height: float) -> bool:
    if window is None:
        return True
    lo, hi = window
    box = (pos[0] - half, pos[1], pos[2] - half, pos[0] + half, pos[1] + height, pos[2] + half)
    return all(box[i] < hi[i] and box[i + 3] > lo[i] for i in range(3))


def engine_entities(world: World, actions: list[Action], ticks: int,
                    window: tuple | None = None) -> dict[int, dict[tuple, tuple]]:
    """The engine's item entity changes over `ticks` capture ticks in the capture's terms: an entity is listed at a
    tick when its position changed then (or it appeared), with its velocity, and None when it went (a resting item's
    velocity changes unseen, as in the capture). With a `window` (`capture_window`), an item outside it counts as
    gone, as the harness sees it."""
    by_tick: dict[int, list[Action]] = {}
    for a in actions:
        by_tick.setdefault(a.tick, []).append(a)

    def snapshot():
        return {("entity", e.id): (e.pos, e.velocity) for e in world.item_entities()
                if _seen(e.pos, window, 0.125, 0.25)}

    out: dict[int, dict[tuple, tuple]] = {}
    before = snapshot()
    for k in range(ticks):
        for a in by_tick.get(k, ()):
            world.use(a.pos) if a.kind == "use" else world.set_block(a.pos, a.state)
        world.step(1)
        now = snapshot()
        changed = {i: now.get(i) for i in before.keys() | now.keys()
                   if (before.get(i) or (None,))[0] != (now.get(i) or (None,))[0]}
        if changed:
            out[k] = changed
        before = now
    return out


def entity_differences(want: dict, got: dict, tolerance: float = 1e-9) -> list[tuple[int, dict, dict]]:
    """(tick, vanilla's, the engine's) for each tick whose entity events differ: the same entities moved or went,
    each position and velocity component within `tolerance` (the capture's world stood away from the origin, so
    its positions carry that offset's rounding, about 1e-14)."""
    def close(a, b):
        if a is None or b is None:
            return a is b
        return all(abs(x - y) <= tolerance for u, v in zip(a, b, strict=True) for x, y in zip(u, v, strict=True))

    out = []
    for k in sorted(want.keys() | got.keys()):
        w, g = want.get(k, {}), got.get(k, {})
        if w.keys() != g.keys() or not all(close(w[i], g[i]) for i in w):
            out.append((k, w, g))
    return out
