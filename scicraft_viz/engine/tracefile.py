"""Trace files: a `Trace` written as one JSON object and read back, checked (schemas/trace.schema.json).

    >>> from scicraft_viz.engine import tracefile
    >>> tracefile.save(w.record(40), "door.trace.json")
    >>> tr = tracefile.load("door.trace.json")

A column holds [row, value] at each row where its value changes (0 before the first), so a long quiet
recording stays small. What a file claims is checked, not trusted: positions within the world, states the
engine parses, rows inside the trace, and, for the blocks a piston moved, that the moving_piston cells the
changes leave are exactly those said to carry a block, each carried block consistent with its direction.
A file without `blocks` (written before they were recorded, or of a world without pistons) loads with
`blocks` None, one without `items` (a world without item entities) with `items` None, and one without `carts`
(a world without minecarts) with `carts` None. Every refusal
is an InputError naming the file and the field.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.trace import COMPONENT_IDS, MAX_TRACE_BYTES, BlockRow, Trace
from scicraft_viz.errors import InputError
from scicraft_viz.safeio import atomic_write, json_text, read_regular, shown

FORMAT = "scicraft-trace"
VERSION = 1
MAX_FILE_BYTES = 256 * 2**20
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "trace.schema.json"
COMPONENT_KINDS = frozenset("minecraft:" + B.NAME_OF_ID[i] for i in COMPONENT_IDS)
PISTON_PARTS = ("piston", "sticky_piston", "piston_head")


def _changes(col: np.ndarray) -> list[list[int]]:
    v = np.asarray(col).astype(np.int64)
    at = np.flatnonzero(np.diff(v, prepend=0))
    return [[int(r), int(v[r])] for r in at]


def _moving_json(p, m) -> dict:
    return {"pos": list(p), "block": m.block, "direction": m.direction, "progress": m.progress,
            "extending": m.extending, "piston": m.piston}


def _item_json(e) -> dict:
    return {"id": e.id, "item": e.item, "count": e.count, "pos": list(e.pos), "velocity": list(e.velocity),
            "on_ground": e.on_ground, "age": e.age, "pickup_delay": e.pickup_delay}


def _cart_json(c) -> dict:
    out = {"id": c.id, "kind": c.kind, "pos": list(c.pos), "velocity": list(c.velocity), "on_rails": c.on_rails,
           "slots": [None if st is None else list(st) for st in c.slots]}
    if c.kind == "furnace_minecart":
        out.update(fuel=c.fuel, push=list(c.push))
    if not c.enabled:
        out["enabled"] = False
    return out


def _fireball_json(f) -> dict:
    out = {"id": f.id, "kind": f.kind, "pos": list(f.pos), "velocity": list(f.velocity)}
    out["power"] = f.power if f.power_vec is None else list(f.power_vec)
    return out


def to_json(tr: Trace) -> dict:
    """The trace as the file's JSON object."""
    out = {
        "format": FORMAT, "version": VERSION, "start_tick": tr.start_tick, "rows": len(tr),
        "lamps": [{"pos": list(p), "changes": _changes(tr.lamp_lit[:, j])} for j, p in enumerate(tr.lamp_positions)],
        "dust": [{"pos": list(p), "changes": _changes(tr.dust_power[:, j])} for j, p in enumerate(tr.dust_positions)],
        "components": [{"pos": list(p), "kind": k, "changes": _changes(tr.component_on[:, j])}
                       for j, (p, k) in enumerate(zip(tr.component_positions, tr.component_kinds))],
        "events": [{"tick": e.tick, "pos": list(e.pos), "block": e.block, "kind": e.kind, "old": e.old, "new": e.new}
                   for e in tr.events],
    }
    if tr.items is not None:
        out["items"] = [[_item_json(e) for e in row] for row in tr.items]
    if tr.carts is not None:
        out["carts"] = [[_cart_json(c) for c in row] for row in tr.carts]
    if getattr(tr, "fireballs", None) is not None:
        out["fireballs"] = [[_fireball_json(f) for f in row] for row in tr.fireballs]
    if tr.blocks is not None:
        out["blocks"] = [{"tick": r.tick, "changed": [{"pos": list(p), "state": s} for p, s in r.changed.items()],
                          "moving": [_moving_json(p, m) for p, m in r.moving.items()]} for r in tr.blocks]
    return out


def save(tr: Trace, path: str | os.PathLike, overwrite: bool = True) -> None:
    """Write the trace to `path` whole or not at all."""
    atomic_write(path, json_text(to_json(tr)).encode("utf-8"), overwrite=overwrite)


def load(path: str | os.PathLike) -> Trace:
    """Read a trace file; InputError naming the file and what is wrong in it."""
    what = f"trace file {shown(os.fspath(path))}"
    try:
        data = read_regular(path, MAX_FILE_BYTES, "trace file")
        obj = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as e:  # UnsafeFile, JSONDecodeError, a bad constant
        raise InputError(f"{what}: {e}") from None
    return from_json(obj, what)


def _no_constant(name):
    raise ValueError(f"{name} is not valid JSON")


@cache
def _validator():
    from scicraft_viz.validation import jsonschema

    return jsonschema().Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def from_json(obj, what: str = "trace") -> Trace:
    """A Trace from the file's JSON object, every claim checked first."""
    err = next(iter(sorted(_validator().iter_errors(obj), key=lambda e: len(list(e.absolute_path)))), None)
    if err is not None:
        raise InputError(f"{what}: {_where(err.absolute_path)}: {err.message[:200]}")
    from scicraft_viz.engine.world import Event, check_pos

    rows, t0 = obj["rows"], obj["start_tick"]
    n_cols = len(obj["lamps"]) + len(obj["dust"]) + len(obj["components"])
    if rows * (8 + 2 * n_cols) > MAX_TRACE_BYTES:
        raise InputError(f"{what}: {rows:,} rows of {n_cols:,} columns exceed the {MAX_TRACE_BYTES // 2**30} GiB a "
                         "trace may take")

    def fail(where: str, message: str):
        raise InputError(f"{what}: {where}: {message}")

    def position(p, where: str):
        try:
            return check_pos(tuple(p))
        except InputError as e:
            fail(where, str(e))

    def column(group: str, dtype) -> tuple[list, np.ndarray]:
        items = obj[group]
        arr = np.zeros((rows, len(items)), np.uint8)
        seen: set = set()
        positions = []
        for j, c in enumerate(items):
            p = position(c["pos"], f"{group}[{j}].pos")
            if p in seen:
                fail(f"{group}[{j}].pos", f"{p} is listed twice")
            seen.add(p)
            positions.append(p)
            last = -1
            for k, (r, v) in enumerate(c["changes"]):
                if not last < r < rows:
                    fail(f"{group}[{j}].changes[{k}]", f"row {r} must come after row {last} and before row {rows} "
                                                      "(the trace's length)")
                arr[r:, j] = v
                last = r
        return positions, arr.view(dtype) if dtype is bool else arr

    lamps, lit = column("lamps", bool)
    dust, power = column("dust", np.uint8)
    comps, on = column("components", bool)
    kinds = []
    for j, c in enumerate(obj["components"]):
        if c["kind"] not in COMPONENT_KINDS:
            fail(f"components[{j}].kind", f"{shown(c['kind'])} is not a recorded component (one of "
                                          f"{', '.join(sorted(COMPONENT_KINDS))})")
        kinds.append(c["kind"])
    last_tick = t0 + rows - 1
    events = []
    for j, e in enumerate(obj.get("events", [])):
        if not t0 <= e["tick"] <= last_tick:
            fail(f"events[{j}].tick", f"{e['tick']} is outside the trace's ticks {t0}..{last_tick}")
        events.append(Event(e["tick"], position(e["pos"], f"events[{j}].pos"), e["kind"], e["block"], e["old"],
                            e["new"]))
    blocks = None if obj.get("blocks") is None else _block_rows(obj["blocks"], t0, last_tick, fail, position)
    items = None if obj.get("items") is None else _read_items(obj["items"], rows, fail)
    carts = None if obj.get("carts") is None else _read_carts(obj["carts"], rows, fail)
    balls = None if obj.get("fireballs") is None else _read_fireballs(obj["fireballs"], rows, fail)
    return Trace(ticks=np.arange(t0, t0 + rows, dtype=np.int64), lamp_positions=lamps, lamp_lit=lit,
                 dust_positions=dust, dust_power=power, component_positions=comps, component_kinds=kinds,
                 component_on=on, events=events, blocks=blocks, items=items, carts=carts,
                 fireballs=balls)


def _entity_rows(rows_in: list, rows: int, group: str, noun: str, fail, read) -> list[tuple]:
    """A file's entities of one kind (`group`, "items" or "carts"), a list per row, each read by `read(entity,
    where)`; the file must hold one list per row of the trace and an id at most once in a row."""
    if len(rows_in) != rows:
        fail(group, f"holds {len(rows_in)} rows, the trace {rows}")
    out = []
    for r, row in enumerate(rows_in):
        seen: set = set()
        infos = []
        for k, e in enumerate(row):
            where = f"{group}[{r}][{k}]"
            if e["id"] in seen:
                fail(f"{where}.id", f"{noun} {e['id']} is listed twice in row {r}")
            seen.add(e["id"])
            infos.append(read(e, where))
        out.append(tuple(infos))
    return out


def _read_items(rows_in: list, rows: int, fail) -> list[tuple]:
    """The recorded item entities, a list per row, checked as `World.spawn_item` checks a new one: known items,
    counts within a stack, finite positions and velocities in range; an id at most once in a row."""
    from scicraft_viz.engine.world import ItemInfo, check_item_entity

    def read(e, where):
        try:
            name, n, at, vel, delay, age = check_item_entity(e["item"], e["count"], e["pos"], e["velocity"],
                                                              e["pickup_delay"], e["age"], "item entity")
        except InputError as err:
            fail(where, str(err))
        return ItemInfo(e["id"], name, n, at, vel, e["on_ground"], age, delay)

    return _entity_rows(rows_in, rows, "items", "item entity", fail, read)


def _read_carts(rows_in: list, rows: int, fail) -> list[tuple]:
    """The recorded minecarts, a list per row, each checked as `World.spawn_minecart` checks a new one (its kind,
    a finite position and velocity in range, a container cart's items as its slots take them, none in a plain
    one, a furnace cart's fuel and push); an id at most once in a row."""
    from scicraft_viz.engine.carts import CartInfo, check_cart

    def read(c, where):
        try:
            spec = check_cart(c["kind"], c["pos"], c["velocity"], c["slots"] or None, "minecart",
                              fuel=c.get("fuel", 0), push=tuple(c.get("push", (0.0, 0.0))),
                              enabled=c.get("enabled", True))
        except InputError as err:
            fail(where, str(err))
        if spec.slots and len(c["slots"]) != len(spec.slots):
            fail(f"{where}.slots", f"holds {len(c['slots'])} slots, a {spec.kind} {len(spec.slots)}")
        return CartInfo(c["id"], spec.kind, spec.pos, spec.motion, c["on_rails"], spec.slots, spec.fuel, spec.push,
                        spec.enabled)

    return _entity_rows(rows_in, rows, "carts", "minecart", fail, read)


def _read_fireballs(rows_in: list, rows: int, fail) -> list[tuple]:
    """The recorded fireballs, a list per row, each checked as `World.spawn_fireball` checks a new one (its kind, a
    finite position and velocity in range, a finite power or power vector); an id at most once in a row."""
    from scicraft_viz.engine.fireballs import FireballInfo, check_fireball

    def read(f, where):
        try:
            spec = check_fireball(f["kind"], f["pos"], f["velocity"], f["power"], "fireball")
        except InputError as err:
            fail(where, str(err))
        return FireballInfo(f["id"], spec.kind, spec.pos, spec.motion, None if spec.power_vec else spec.power,
                            spec.power_vec)

    return _entity_rows(rows_in, rows, "fireballs", "fireball", fail, read)


def _state(s: str, where: str, fail) -> str:
    from scicraft_viz.engine.blocks import parse_state

    try:
        st = parse_state(s)
    except InputError as e:
        fail(where, str(e))
    return str(st)


def _block_rows(items: list, t0: int, last_tick: int, fail, position) -> list[BlockRow]:
    """The recorded block rows, checked: ticks in order inside the trace, states the engine parses, and the
    moving_piston cells after each row's changes exactly the positions said to carry a block."""
    from scicraft_viz.engine.world import MovingBlock

    out: list[BlockRow] = []
    cells: set = set()  # moving_piston positions as the rows leave them
    prev = None
    for i, r in enumerate(items):
        t = r["tick"]
        where = f"blocks[{i}]"
        if not t0 <= t <= last_tick or (prev is not None and t <= prev):
            fail(f"{where}.tick", f"{t} must be inside the trace's ticks {t0}..{last_tick} and after the row before")
        if cells and t != prev + 1:
            fail(f"{where}.tick", f"blocks were in motion at tick {prev}, so tick {prev + 1} must have a row")
        if t == t0 and r["changed"]:
            fail(f"{where}.changed", "the trace's first tick has no changes: the blocks then are the build's")
        changed: dict = {}
        for k, c in enumerate(r["changed"]):
            p = position(c["pos"], f"{where}.changed[{k}].pos")
            if p in changed:
                fail(f"{where}.changed[{k}].pos", f"{p} is listed twice")
            changed[p] = st = _state(c["state"], f"{where}.changed[{k}].state", fail)
            if st.startswith("minecraft:moving_piston"):
                cells.add(p)
            else:
                cells.discard(p)
        moving: dict = {}
        for k, m in enumerate(r["moving"]):
            w = f"{where}.moving[{k}]"
            p = position(m["pos"], f"{w}.pos")
            if p in moving:
                fail(f"{w}.pos", f"{p} is listed twice")
            block = _state(m["block"], f"{w}.block", fail)
            name = block.removeprefix("minecraft:").split("[")[0]
            if name in ("air", "moving_piston"):
                fail(f"{w}.block", f"a moving_piston carries a block, not {name}")
            if m["piston"] and name not in PISTON_PARTS:
                fail(f"{w}.block", f"a piston's own part moving is a piston, sticky_piston or piston_head, not {name}")
            d = B.DIRECTIONS.index(m["direction"])
            step = (0, 0, 0) if m["piston"] and not m["extending"] else B.OFFSETS[d]
            source = (p[0] - step[0], p[1] - step[1], p[2] - step[2])
            moving[p] = MovingBlock(block, source, m["direction"], float(m["progress"]), m["extending"], m["piston"])
        if t == t0:
            cells = set(moving)  # the build's own moving_piston cells (recording_of_trial checks them)
        if set(moving) != cells:
            stray, empty = sorted(set(moving) - cells), sorted(cells - set(moving))
            fail(f"{where}.moving", f"at tick {t} "
                 + (f"{stray[0]} is said to carry a block, but no moving_piston stands there" if stray
                    else f"the moving_piston at {empty[0]} is said to carry nothing"))
        if not changed and not moving and t != t0:
            fail(where, f"tick {t} has neither a change nor a block in motion: such ticks have no row")
        out.append(BlockRow(t, changed, moving))
        prev = t
    if cells and prev != last_tick:
        fail(f"blocks[{len(items) - 1}]", f"blocks were in motion at tick {prev}, so tick {prev + 1} must have a row")
    return out


__all__ = ["FORMAT", "VERSION", "from_json", "load", "save", "to_json"]
