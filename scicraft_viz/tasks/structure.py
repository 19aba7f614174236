"""The build's structure, checked before anything runs: palette, region, one button, N lamps, nothing
on a lamp, and the family's geometry (T-junctions, reach, off-axis lamps, distance buckets).

The checks read a `BlockTable`: a build's non-air blocks as arrays, made from a world (straight from
the engine's arrays, the evaluator's path) or from a {position: state} dict. Every check is a handful
of array operations, whatever the build's size; positions become tuples, in x, y, z order, only for
what a result reports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.blocks import split_state
from scicraft_viz.errors import fmt_pos, list_positions

if TYPE_CHECKING:
    from scicraft_viz.engine.world import World
    from scicraft_viz.tasks import Task
    from scicraft_viz.tasks.evaluator import Check

Pos = tuple[int, int, int]

_OPAQUE = (B.STONE, B.LAMP)  # full conductive blocks: they cut dust; glass does not
_DUST_LINKS = (B.BUTTON, B.LEVER, B.TORCH, B.WALL_TORCH, B.REDSTONE_BLOCK)
_PALETTE_ALIAS = {"redstone_wall_torch": "redstone_torch"}
_HDIRS = ("north", "east", "south", "west")  # B.DIRECTIONS order: a side's index is its facing value
_UP = np.array([0, 1, 0])


def _isin(a: np.ndarray, ids: tuple[int, ...]) -> np.ndarray:
    """a == any of a few ids (np.isin's set machinery costs more on arrays this small)."""
    m = np.zeros(a.shape, bool)
    for b in ids:
        m |= a == b
    return m


def _ids_of(state: str) -> tuple[int, int, int]:
    """(block id, facing index, on) of a state string; -1 for a name outside the engine's palette."""
    name, props = split_state(state)
    entry = B.PALETTE.get(B.ALIASES.get(name, name))
    facing = props.get("facing", "north")
    on = props.get("lit", props.get("powered", "false")) == "true"
    return (entry[0] if entry else -1, B.DIRECTIONS.index(facing) if facing in B.DIRECTIONS else 0, int(on))


class BlockTable:
    """A build's non-air blocks as arrays: `pos` (n, 3), `ids` (block ids; -1 for a name outside the
    engine's palette, which only a dict can hold), `facing` (B.DIRECTIONS index) and `on` (lit or
    powered). Rows are in no particular order; `rows_of` and `in_order` give rows in x, y, z order."""

    def __init__(self, pos: np.ndarray, ids: np.ndarray, facing: np.ndarray, on: np.ndarray,
                 rows_at: Callable[[np.ndarray], np.ndarray], names: list[str] | None = None,
                 ordered: bool = False):
        self.pos, self.ids, self.facing, self.on = pos, ids, facing, on
        self._ordered = ordered
        self._rows_at = rows_at  # (m, 3) positions -> row there, or -1 for air
        self._names = names  # per row, when some name is outside the palette
        # one extra entry for air, so that row -1 reads as air
        self._ids_air = np.append(ids, B.AIR)
        self._facing_air = np.append(facing, 0)

    @classmethod
    def of_world(cls, world: World) -> BlockTable:
        from scicraft_viz.engine import kernels as sim

        U, ncell = world.g.U, world._ncell
        cells = np.nonzero(U[:ncell, sim.BT])[0]
        row_of_cell = np.full(ncell + 1, -1, np.int64)  # the last entry answers for "no cell" (-1)
        row_of_cell[cells] = np.arange(len(cells))
        rows = U[cells][:, (sim.BT, sim.FACING, sim.ON)].T.astype(np.int64)
        # a vanilla full or partial block (concrete, a slab...) is outside the engine's palette, as of_blocks
        # reads it: id -1, with its own name
        vanilla = np.isin(rows[0], (B.STONE, B.GLASS, B.PARTIAL)) & ((U[cells, sim.FACING] | U[cells, sim.FACE]) != 0)
        names = None
        if vanilla.any():
            names = [split_state(world._state_at(c))[0] if v else B.NAME_OF_ID[b]
                     for c, v, b in zip(cells.tolist(), vanilla.tolist(), rows[0].tolist())]
            rows[0][vanilla] = -1
            rows[1][vanilla] = 0
        return cls(world.g.P[cells].astype(np.int64), rows[0], rows[1], rows[2],
                   lambda q: row_of_cell[world._cells(q)], names)

    @classmethod
    def of_blocks(cls, blocks: dict[Pos, str]) -> BlockTable:
        items = sorted((tuple(p), s) for p, s in blocks.items() if s is not None and split_state(s)[0] != "air")
        memo: dict[str, tuple[int, int, int]] = {}
        a = np.array([memo[s] if s in memo else memo.setdefault(s, _ids_of(s)) for _, s in items],
                     np.int64).reshape(-1, 3)
        where = {p: i for i, (p, _) in enumerate(items)}
        names = [split_state(s)[0] for _, s in items] if (a[:, 0] < 0).any() else None
        return cls(np.array([p for p, _ in items], np.int64).reshape(-1, 3), a[:, 0], a[:, 1], a[:, 2],
                   lambda q: np.array([where.get(p, -1) for p in map(tuple, q.tolist())], np.int64),
                   names, ordered=True)

    def __len__(self) -> int:
        return len(self.ids)

    def name(self, i: int) -> str:
        """The block name at row i (-1: air)."""
        if i < 0:
            return "air"
        return self._names[i] if self._names is not None else B.NAME_OF_ID[int(self.ids[i])]

    def positions(self, rows: np.ndarray) -> list[Pos]:
        return [tuple(p) for p in self.pos[rows].tolist()]

    def in_order(self, rows: np.ndarray) -> np.ndarray:
        """rows sorted by position (x, then y, then z)."""
        if self._ordered or len(rows) < 2:
            return rows
        p = self.pos[rows]
        return rows[np.lexsort((p[:, 2], p[:, 1], p[:, 0]))]

    def rows_of(self, *ids: int) -> np.ndarray:
        """Rows holding any of the given block ids, in x, y, z order."""
        return self.in_order(np.nonzero(_isin(self.ids, ids))[0])

    def rows_at(self, q: np.ndarray) -> np.ndarray:
        """The row at each position of q (m, 3), -1 where there is air."""
        return self._rows_at(q) if len(q) else np.zeros(0, np.int64)

    def ids_at(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Block id and facing at each position of q (air: 0)."""
        r = self.rows_at(q)
        return self._ids_air[r], self._facing_air[r]


def table_of(blocks) -> BlockTable:
    """A BlockTable for a BlockTable, a World or a {position: state} dict."""
    if isinstance(blocks, BlockTable):
        return blocks
    if isinstance(blocks, dict):
        return BlockTable.of_blocks(blocks)
    return BlockTable.of_world(blocks)


def _table(ids: tuple[int, ...]) -> np.ndarray:
    """A lookup over block ids (and -1, the last entry): True for the given ids."""
    t = np.zeros(max(B.NAME_OF_ID) + 2, bool)  # every engine id, then -1 (no block) last
    t[list(ids)] = True
    return t


_IS_OPAQUE = _table(_OPAQUE)
_IS_DIRECT = _table((B.WIRE,) + _DUST_LINKS)
# what dust_links reads around a dust: above it, then per side (north, east, south, west) the block
# beside it, the one above that and the one below that
_AROUND = np.array([(0, 1, 0)] + [(dx, dy, dz) for dx, _, dz in B.OFFSETS[:4] for dy in (0, 1, -1)], np.int64)
_SIDE_AXIS = (np.arange(4) % 2)[:, None]


def dust_links(table: BlockTable, dust: np.ndarray) -> np.ndarray:
    """(m, 4) bool: the sides (north, east, south, west) on which each dust at positions `dust` (m, 3)
    connects (docs/redstone.md): to dust beside it or one block up (unless cut by an opaque block
    above) or down (unless the side block is opaque), to buttons, levers, torches and redstone blocks,
    and to a repeater's front or back."""
    m = len(dust)
    if not m:
        return np.zeros((0, 4), bool)
    ids, facing = table.ids_at((_AROUND[:, None, :] + dust[None, :, :]).reshape(-1, 3))
    ids, facing = ids.reshape(13, m), facing.reshape(13, m)
    side, up, down = ids[1::3], ids[2::3], ids[3::3]  # (4, m) each
    rep = side == B.REPEATER
    aligned = rep & (facing[1::3] % 2 == _SIDE_AXIS)  # a repeater links at its front and back only
    stairs = ~rep & ((~_IS_OPAQUE[ids[0]] & (up == B.WIRE)) | (~_IS_OPAQUE[side] & (down == B.WIRE)))
    return (_IS_DIRECT[side] | aligned | stairs).T


def dust_connections(blocks: dict[Pos, str], pos: Pos) -> list[str]:
    """Sides on which the dust at pos connects (see dust_links)."""
    links = dust_links(table_of(blocks), np.array([pos], np.int64))[0]
    return [side for side, on in zip(_HDIRS, links.tolist()) if on]


def t_junctions(blocks, dust: np.ndarray | None = None) -> list[Pos]:
    """Dust connected on three or four sides (fan-out nodes of the dust graph), in x, y, z order.
    `blocks`: a BlockTable, World or {position: state} dict."""
    t = table_of(blocks)
    rows = np.nonzero(t.ids == B.WIRE)[0]
    hit = dust_links(t, t.pos[rows]).sum(axis=1) >= 3
    return t.positions(t.in_order(rows[hit]))


def structural_checks(task: Task, blocks) -> tuple[list[Check], dict]:
    """Palette, region, one button, N lamps, nothing on lamps, plus B/D geometry checks. `blocks`: a
    BlockTable, a World or a {position: state} dict. `info` holds the buttons and lamps (positions in
    x, y, z order) and, by family, the T-junctions and each lamp's distance from the button."""
    from scicraft_viz.tasks.evaluator import Check

    t = table_of(blocks)
    checks: list[Check] = []
    info: dict[str, Any] = {}
    allowed = {b.removeprefix("minecraft:") for b in task.allowed_blocks}
    present = np.nonzero(np.bincount(t.ids + 1, minlength=1))[0] - 1
    refused_ids = tuple(b for b in present.tolist()
                        if b < 0 or _PALETTE_ALIAS.get(B.NAME_OF_ID[b], B.NAME_OF_ID[b]) not in allowed)
    bad_rows = t.rows_of(*refused_ids)
    bad = [(p, t.name(i)) for p, i in zip(t.positions(bad_rows), bad_rows.tolist())]
    checks.append(Check(
        "palette", not bad,
        None if not bad else f"{len(bad)} block(s) not in the allowed palette: "
        + "; ".join(f"minecraft:{n} at {fmt_pos(p)}" for p, n in bad[:6])
        + (f" and {len(bad) - 6} more" if len(bad) > 6 else "")
        + f" (allowed: {', '.join(sorted(allowed - {'air'}))})",
        {"offending": [[list(p), n] for p, n in bad]}))

    anchor, r = np.array(task.anchor), task.radius
    far = np.zeros(0, np.int64)
    if len(t) and np.abs(t.pos - anchor).max() > r:
        far = t.in_order(np.nonzero((np.abs(t.pos - anchor) > r).any(axis=1))[0])
    outside = t.positions(far)
    checks.append(Check(
        "region", not outside,
        None if not outside else f"{len(outside)} block(s) outside the radius-{task.radius} cube around the anchor "
        f"{fmt_pos(task.anchor)}: " + "; ".join(f"{t.name(i)} at {fmt_pos(p)}" for p, i in
                                                 zip(outside[:6], far[:6].tolist())),
        {"outside": [list(p) for p in outside]}))

    button_rows = t.rows_of(B.BUTTON)
    buttons = t.positions(button_rows)
    info["buttons"] = buttons
    checks.append(Check(
        "one_button", len(buttons) == 1,
        None if len(buttons) == 1 else (
            "there is no stone_button to press" if not buttons
            else f"{len(buttons)} stone_buttons at {list_positions(buttons)}; exactly one is allowed"),
        {"buttons": [list(p) for p in buttons]}))

    lamp_rows = t.rows_of(B.LAMP)
    lamps = t.positions(lamp_rows)
    info["lamps"] = lamps
    info["lamps_lit"] = t.on[lamp_rows].astype(bool).tolist()
    info["button_pressed"] = bool(t.on[button_rows[0]]) if len(buttons) == 1 else None
    n = task.n
    checks.append(Check(
        "lamp_count", len(lamps) == n,
        None if len(lamps) == n else f"{len(lamps)} redstone_lamps placed, the task needs exactly {n}",
        {"lamps": len(lamps), "required": n}))

    above = t.pos[lamp_rows] + _UP
    top = t.rows_at(above)
    covered = [(lamps[i], tuple(above[i].tolist()), t.name(r)) for i, r in enumerate(top.tolist()) if r >= 0]
    checks.append(Check(
        "nothing_on_lamps", not covered,
        None if not covered else "; ".join(
            f"{name} at {fmt_pos(q)} sits directly on top of the lamp at {fmt_pos(p)}" for p, q, name in covered[:6])
        + (f" and {len(covered) - 6} more" if len(covered) > 6 else ""),
        {"covered_lamps": [list(p) for p, _, _ in covered]}))

    c = task.contract
    button = buttons[0] if len(buttons) == 1 else None
    lamp_pos = t.pos[lamp_rows]
    if task.contract_type == "branch_reach":
        if c.get("require_t_junction", True):
            js = t_junctions(t)
            info["t_junctions"] = js
            checks.append(Check(
                "t_junction", bool(js),
                None if js else "no redstone dust is connected on 3 or more sides: the wiring has no T-junction "
                "(fan-out node)", {"junctions": [list(p) for p in js]}))
        if button is not None:
            dists = np.abs(lamp_pos - np.array(button)).sum(axis=1)
            far_lamp = int(dists.max()) if len(dists) else 0
            need = c["max_reach_blocks"]
            checks.append(Check(
                "reach", far_lamp >= need,
                None if far_lamp >= need else f"the farthest lamp is {far_lamp} blocks (Manhattan) from the button; "
                f"the task requires a reach of at least {need}", {"max_reach": far_lamp, "required": need}))
            if c.get("require_off_axis", True):
                on_axis = [p for p in lamps if p[0] == button[0] or p[2] == button[2]]
                checks.append(Check(
                    "off_axis", not on_axis,
                    None if not on_axis else f"lamp(s) at {list_positions(on_axis)} share the button's x or z "
                    f"coordinate (button at {fmt_pos(button)}); every lamp must be off the button's axes",
                    {"on_axis": [list(p) for p in on_axis]}))
        if c.get("require_repeater"):
            reps = len(t.rows_of(B.REPEATER))
            checks.append(Check(
                "repeater_used", bool(reps),
                None if reps else "no redstone_repeater is used; this level requires one", {"repeaters": reps}))
    if task.contract_type == "equal_delay" and button is not None:
        targets = c["target_distances"]
        tol = c["distance_tolerance_blocks"]
        want = c["lamps_per_distance"]
        d = np.abs(lamp_pos - np.array(button)).sum(axis=1)
        near = np.abs(d[:, None] - np.array(targets)[None, :]) <= tol  # (lamps, targets)
        hit = near.any(axis=1)
        counts = np.bincount(near.argmax(axis=1)[hit], minlength=len(targets)).tolist()
        dl = d.tolist()
        stray = [(lamps[i], dl[i]) for i in np.nonzero(~hit)[0].tolist()]
        problems = []
        if stray:
            problems.append("; ".join(f"lamp at {fmt_pos(p)} is {dd} blocks from the button" for p, dd in stray[:4])
                            + (f" and {len(stray) - 4} more" if len(stray) > 4 else "")
                            + f", not within +/-{tol} of any of {targets}")
        wrong = [(tt, k, w) for tt, k, w in zip(targets, counts, want) if k != w]
        if wrong:
            problems.append("; ".join(f"distance {tt}: {k} lamp(s), expected {w}" for tt, k, w in wrong))
        info["distances"] = dict(zip(lamps, dl))
        checks.append(Check(
            "distance_buckets", not problems, "; ".join(problems) or None,
            {"targets": targets, "counts": counts, "expected": want}))
    return checks, info
