"""Traces: per-game-tick arrays recorded from a running world, for the evaluator and the views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine import kernels as sim

if TYPE_CHECKING:
    from scicraft_viz.engine.world import MovingBlock

Pos = tuple[int, int, int]
AIR = "minecraft:air"
COMPONENT_IDS = (B.REPEATER, B.TORCH, B.WALL_TORCH, B.BUTTON, B.LEVER, B.COMPARATOR, B.NOTE_BLOCK, B.OBSERVER)


class BlockRow(NamedTuple):
    """What the blocks did at one tick of a trace (`Trace.blocks`): the state now of every position whose
    block changed since the tick before other than in the values every trace row holds anyway (power, lit,
    powered, locked): a block placed, moved or gone ("minecraft:air"), a piston extended, dust reshaped;
    and every block in motion then (`engine.world.MovingBlock`, by the position of the moving_piston carrying it)."""

    tick: int
    changed: dict[Pos, str]
    moving: dict[Pos, MovingBlock]


@dataclass
class Trace:
    """What a world did over consecutive game ticks. Row i is the state after tick ticks[i].

    `blocks` is recorded when the world holds a piston (None otherwise, and in traces made before it
    existed): a `BlockRow` for each tick at which a block changed or was in motion, none for the others.
    With the blocks at the trace's start, it gives the arrangement at every tick (`blocks_at`). `items` lists the
    item entities at each row (a tuple of `engine.world.ItemInfo`) when the world held any during the trace."""

    ticks: np.ndarray
    lamp_positions: list[Pos]
    lamp_lit: np.ndarray
    dust_positions: list[Pos]
    dust_power: np.ndarray
    component_positions: list[Pos]
    component_kinds: list[str]
    component_on: np.ndarray
    events: list = field(default_factory=list)
    blocks: list[BlockRow] | None = None
    # the item entities at each row (World.item_entities), when the world held any during the trace; else None
    items: list[tuple] | None = None
    # the minecarts at each row (World.minecarts), when the world held any during the trace; else None
    carts: list[tuple] | None = None
    # the fireballs at each row (World.fireballs), when the world held any during the trace; else None
    fireballs: list[tuple] | None = None

    @property
    def start_tick(self) -> int:
        return int(self.ticks[0])

    def __len__(self) -> int:
        return len(self.ticks)

    def lamp_index(self, pos: Pos) -> int:
        try:
            return self.lamp_positions.index(tuple(pos))
        except ValueError:
            raise KeyError(f"no lamp at {tuple(pos)} in this trace") from None

    def series(self, pos: Pos) -> np.ndarray:
        """Per-tick values of any recorded block, one per row: a lamp's lit, a repeater's, torch's,
        button's or lever's on (bool), a dust's power (0-15, uint8). KeyError if pos was not recorded."""
        p = tuple(int(v) for v in pos)
        if p in self.lamp_positions:
            return self.lamp_lit[:, self.lamp_positions.index(p)]
        if p in self.component_positions:
            return self.component_on[:, self.component_positions.index(p)]
        if p in self.dust_positions:
            return self.dust_power[:, self.dust_positions.index(p)]
        raise KeyError(f"no lamp, dust, repeater, torch, button or lever at {p} in this trace")

    def changes(self, pos: Pos) -> list[tuple[int, int]]:
        """(tick, new value) each time the block at pos changed within the trace (see `series`)."""
        v = np.asarray(self.series(pos)).astype(np.int64)
        at = np.flatnonzero(v[1:] != v[:-1]) + 1
        return [(int(self.ticks[i]), int(v[i])) for i in at]

    def first_on(self, pos: Pos) -> int | None:
        """First tick at which the block at pos is on (a lamp lit, a torch lit, a repeater powered, dust
        above power 0), or None."""
        if tuple(pos) in self.lamp_positions:
            hits = np.nonzero(self.lamp_lit[:, self.lamp_index(pos)])[0]
        else:
            hits = np.nonzero(self.series(pos))[0]
        return int(self.ticks[hits[0]]) if hits.size else None

    def on_ticks(self) -> list[int | None]:
        """First lit tick of every lamp, in lamp_positions order."""
        return [self.first_on(p) for p in self.lamp_positions]

    def timeline(self, unit: str = "game", width: int | None = None) -> str:
        """A text timeline: one row per lamp, '#' lit and '.' dark, one column per tick
        (per redstone tick, sampled on its first game tick, when unit='redstone')."""
        step = 2 if unit == "redstone" else 1
        rows = range(0, len(self.ticks), step)
        if width is not None:
            rows = list(rows)[:width]
        label = "rt" if unit == "redstone" else "gt"
        head = f"{'lamp':>16}  {label} {self.start_tick // step}.."
        lines = [head]
        for j, p in enumerate(self.lamp_positions):
            cells = "".join("#" if self.lamp_lit[i, j] else "." for i in rows)
            lines.append(f"{str(p):>16}  {cells}")
        return "\n".join(lines)

    def blocks_at(self, start: dict[Pos, str], tick: int) -> tuple[dict[Pos, str], dict[Pos, MovingBlock]]:
        """The blocks at `tick` and those in motion then, given the blocks at the trace's
        start; ValueError when the trace did not record how its blocks moved (`blocks` is None)."""
        if self.blocks is None:
            raise ValueError("this trace did not record its blocks (the world held no piston when it was "
                             "recorded, or it was recorded with lamps_only)")
        self.row_of(tick)
        out = dict(start)
        moving: dict = {}
        for r in self.blocks:
            if r.tick > tick:
                break
            apply_changes(out, r.changed)
            moving = r.moving if r.tick == tick else {}
        return out, moving

    def row_of(self, tick: int) -> int:
        r = int(tick) - self.start_tick
        if not 0 <= r < len(self):
            raise IndexError(f"tick {tick} is not in this trace ({self.start_tick}..{self.start_tick + len(self) - 1})")
        return r


def apply_changes(blocks: dict[Pos, str], changed: dict[Pos, str]) -> None:
    """Apply one BlockRow's changes to a {pos: state} dict in place."""
    for p, st in changed.items():
        if st == AIR:
            blocks.pop(p, None)
        else:
            blocks[p] = st


@sim.jit
def _transitions(lit, out):
    for j in range(lit.shape[1]):
        on = off = again = -1
        for t in range(lit.shape[0]):
            if on < 0:
                if lit[t, j]:
                    on = t
            elif off < 0:
                if not lit[t, j]:
                    off = t
            elif lit[t, j]:
                again = t
                break
        out[0, j] = on
        out[1, j] = off
        out[2, j] = again


def lamp_transitions(lit: np.ndarray) -> np.ndarray:
    """(3, L) int64 for lit (T, L) bool: per lamp the first row it is lit, the first row after that
    it is dark, and the first row after that it is lit again; -1 for never."""
    lit = np.ascontiguousarray(lit, dtype=bool)
    if lit.ndim != 2:
        raise ValueError(f"expected lamp states of shape (ticks, lamps), got shape {lit.shape}")
    out = np.empty((3, lit.shape[1]), np.int64)
    _transitions(lit, out)
    return out


MAX_TRACE_BYTES = 2**30  # a trace bigger than this is refused before anything is run or allocated


def record(world, n: int, *, lamps_only: bool = False, dust=None) -> Trace:
    """Run `world` for n game ticks, returning its trace (n+1 rows, row 0 = current state).

    lamps_only: record the lamps only (no components, no events), as a verdict needs; `dust`: the
    positions of the dust to record (default: all dust, or none with lamps_only). In a world that holds a
    piston (and not lamps_only) the ticks run one at a time and the trace also says what the blocks did
    (`Trace.blocks`), its columns following blocks a piston moves (see `_record_moving`)."""
    n = world._tick_count(n, "tick count")
    t0 = world.tick
    before = world.events_total
    lamps = world.cells_of(B.LAMP)
    comps = world.cells_of(*COMPONENT_IDS) if not lamps_only else lamps[:0]
    dust_given = dust
    if dust is None:
        dust = lamps[:0] if lamps_only else world.cells_of(B.WIRE)
    else:
        from scicraft_viz.engine.world import check_pos

        dust = world._cells(np.array([check_pos(p) for p in dust], np.int64).reshape(-1, 3))
        dust = dust[dust >= 0]
        dust = dust[world.g.U[dust, sim.BT] == B.WIRE]
    on_cells = np.concatenate([lamps, comps])
    # ticks (int64), the uint8 rows and their bool copies
    need = (n + 1) * (8 + 2 * on_cells.size + dust.size)
    if need > MAX_TRACE_BYTES:
        raise ValueError(
            f"record({n}) would need {need / 2**30:,.1f} GiB for {on_cells.size + dust.size:,} lamps, components "
            f"and dust over {n + 1:,} ticks; a trace may take at most {MAX_TRACE_BYTES // 2**30} GiB: record fewer "
            "ticks at a time, or step() through the part you do not need"
        )
    rec_on = np.zeros((n + 1, on_cells.size), np.uint8)
    rec_pow = np.zeros((n + 1, dust.size), np.uint8)
    U = world.g.U
    rec_on[0] = U[on_cells, sim.ON]
    rec_pow[0] = U[dust, sim.POWER]
    kinds = ["minecraft:" + B.NAME_OF_ID[int(b)] for b in U[comps, sim.BT]]
    positions = world._positions(on_cells)
    dust_pos = world._positions(dust)
    start_items = tuple(world.item_entities())
    start_carts = tuple(world.minecarts())
    start_balls = tuple(world.fireballs())
    world._items_rec = None if lamps_only else {}
    try:
        if n and not lamps_only and int(world.g.meta[sim.M_PISTONS]):
            trace = _record_moving(world, n, before, None if dust_given is None else set(dust_pos))
            trace.items = _item_rows(trace.ticks, start_items, world._items_rec)
            trace.carts = _cart_rows(trace.ticks, start_carts, world._items_rec)
            trace.fireballs = _cart_rows(trace.ticks, start_balls, world._items_rec, "fireballs")
            return trace
        if n:
            world._run(t0 + n, (on_cells, dust, rec_on, rec_pow))
        item_rows = None if lamps_only else _item_rows(np.arange(t0, t0 + n + 1), start_items, world._items_rec)
        cart_rows = None if lamps_only else _cart_rows(np.arange(t0, t0 + n + 1), start_carts, world._items_rec)
        ball_rows = None if lamps_only else _cart_rows(np.arange(t0, t0 + n + 1), start_balls, world._items_rec,
                                                       "fireballs")
    finally:
        world._items_rec = None
    events = [] if lamps_only else world.events_since(before)
    nl = lamps.size
    lit = rec_on.view(bool)  # the engine writes 0 or 1
    return Trace(
        ticks=np.arange(t0, t0 + n + 1, dtype=np.int64),
        lamp_positions=positions[:nl],
        lamp_lit=lit[:, :nl],
        dust_positions=dust_pos,
        dust_power=rec_pow,
        component_positions=positions[nl:],
        component_kinds=kinds,
        component_on=lit[:, nl:],
        events=events,
        blocks=_at_rest(world) if not lamps_only and int(world.g.meta[sim.M_PISTONS]) else None,
        items=item_rows,
        carts=cart_rows,
        fireballs=ball_rows,
    )


def _item_rows(ticks, start: tuple, seen: dict) -> list[tuple] | None:
    """`Trace.items`: the item entities at each row (none at a tick the world ran through without any), or None
    when there were none at all."""
    if not start and not any(v for k, v in seen.items() if not isinstance(k, tuple)):
        return None
    return [start] + [seen.get(int(t), ()) for t in ticks[1:]]


def _cart_rows(ticks, start: tuple, seen: dict, group: str = "carts") -> list[tuple] | None:
    """`Trace.carts`: the minecarts at each row (World.minecarts), or None when the world held none; with `group`
    "fireballs", `Trace.fireballs` likewise."""
    if not start and not any(isinstance(k, tuple) and k[0] == group for k in seen):
        return None
    return [start] + [seen.get((group, int(t)), ()) for t in ticks[1:]]


def _at_rest(world) -> list[BlockRow]:
    """`Trace.blocks` of a trace of one row: the blocks in motion now, if any."""
    moving = world.moving()
    return [BlockRow(world.tick, {}, moving)] if moving else []


def _drawn(state: str) -> str:
    """A state without the values a trace row records (so a change in them alone is no block change)."""
    if "[" not in state:
        return state
    name, props = B.split_state(state)
    keep = sorted((k, v) for k, v in props.items() if k not in _ROW_VALUES)
    return f"minecraft:{name}[" + ",".join(f"{k}={v}" for k, v in keep) + "]"


_ROW_VALUES = frozenset({"power", "lit", "powered", "locked"})


def _record_moving(world, n: int, before: int, dust_at: set[Pos] | None) -> Trace:
    """`record` for a world holding a piston: n ticks run one at a time, since a piston can move a lamp,
    dust or a component, or change the blocks, at any tick. Each row holds the values of the blocks where
    they stand at that tick (a column per position ever held: a block moved in starts a new one; where it
    is not, a column reads off / 0); `blocks` says what the blocks did. A drawn block changes only with an
    engine event at its position or at a moving_piston's, so only those positions are read again."""
    t0 = world.tick
    U = world.g.U
    groups = ("lamp", "comp", "dust")
    cols: dict[str, dict[Pos, int]] = {g: {} for g in groups}
    kinds: dict[Pos, str] = {}
    samples: list[tuple] = []
    cells: dict[str, np.ndarray] = {}

    def sample() -> None:
        if not cells or placed:
            cells["lamp"] = world.cells_of(B.LAMP)
            cells["comp"] = world.cells_of(*COMPONENT_IDS)
            cells["dust"] = world.cells_of(B.WIRE)
            for g in groups:
                pos = world._positions(cells[g])
                keep = [i for i, p in enumerate(pos) if g != "dust" or dust_at is None or p in dust_at]
                cells[g] = cells[g][keep]
                col = cols[g]
                idx = []
                for i in keep:
                    p = pos[i]
                    if p not in col:
                        col[p] = len(col)
                    idx.append(col[p])
                    if g == "comp":
                        kinds.setdefault(p, "minecraft:" + B.NAME_OF_ID[int(U[cells[g][len(idx) - 1], sim.BT])])
                cells[g + "_col"] = np.array(idx, np.int64)
        samples.append(tuple((cells[g + "_col"], U[cells[g], sim.POWER if g == "dust" else sim.ON].copy())
                             for g in groups))

    known = {p: _drawn(s) for p, s in world.blocks().items()}
    moving = world.moving()
    rows = _at_rest(world)
    mark = world.events_total
    placed = True
    sample()
    for i in range(n):
        world._run(t0 + i + 1)
        events = world.events_since(mark)
        mark = world.events_total
        placed = any(e.kind in ("placed", "removed", "popped") for e in events)
        now = world.moving()
        changed = {}
        for p in sorted({e.pos for e in events} | moving.keys() | now.keys()):
            st = world.get_block(p)
            key = _drawn(st)
            if key != known.get(p, AIR):
                changed[p] = st
                known[p] = key
        if changed or now:
            rows.append(BlockRow(t0 + i + 1, changed, now))
        moving = now
        sample()
    out = {}
    for k, g in enumerate(groups):
        order = sorted(cols[g])  # x, y, z order, as record() lists them
        where = np.empty(len(order), np.int64)
        where[[cols[g][p] for p in order]] = np.arange(len(order))
        arr = np.zeros((n + 1, len(order)), np.uint8)
        for r, smp in enumerate(samples):
            c, v = smp[k]
            arr[r, where[c]] = v
        out[g] = (order, arr)
    return Trace(
        ticks=np.arange(t0, t0 + n + 1, dtype=np.int64),
        lamp_positions=out["lamp"][0],
        lamp_lit=out["lamp"][1].view(bool),
        dust_positions=out["dust"][0],
        dust_power=out["dust"][1],
        component_positions=out["comp"][0],
        component_kinds=[kinds[p] for p in out["comp"][0]],
        component_on=out["comp"][1].view(bool),
        events=world.events_since(before),
        blocks=rows,
    )
