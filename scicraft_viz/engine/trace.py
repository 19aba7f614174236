"""Traces: per-game-tick arrays recorded from a running world, for the evaluator and the views."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine import kernels as sim

Pos = tuple[int, int, int]
COMPONENT_IDS = (B.REPEATER, B.TORCH, B.WALL_TORCH, B.BUTTON, B.LEVER, B.COMPARATOR, B.NOTE_BLOCK, B.OBSERVER)


@dataclass
class Trace:
    """What a world did over consecutive game ticks. Row i is the state after tick ticks[i]."""

    ticks: np.ndarray
    lamp_positions: list[Pos]
    lamp_lit: np.ndarray
    dust_positions: list[Pos]
    dust_power: np.ndarray
    component_positions: list[Pos]
    component_kinds: list[str]
    component_on: np.ndarray
    events: list = field(default_factory=list)

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
    positions of the dust to record (default: all dust, or none with lamps_only)."""
    n = world._tick_count(n, "tick count")
    t0 = world.tick
    before = world.events_total
    lamps = world.cells_of(B.LAMP)
    comps = world.cells_of(*COMPONENT_IDS) if not lamps_only else lamps[:0]
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
    if n:
        world._run(t0 + n, (on_cells, dust, rec_on, rec_pow))
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
    )
