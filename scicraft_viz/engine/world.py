"""The World: block storage in NumPy arrays, placement rules and the public stepping API."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine import kernels as sim
from scicraft_viz.engine.blocks import BlockState, parse_state
from scicraft_viz.errors import PlacementError, PositionError

Pos = tuple[int, int, int]

MARGIN = 5  # air kept around every block so kernels never index outside the arrays (they reach 4 cells)
SLACK = 3  # extra room added when the grid grows (plus a quarter of the span)
MAX_SPAN = 1024
EVENT_HISTORY = 100_000

EVENT_KINDS = ("state", "power", "shape", "locked", "popped", "delay", "burnout", "placed", "removed")
_STATE_PROP = {B.LAMP: "lit", B.TORCH: "lit", B.WALL_TORCH: "lit"}


@dataclass(frozen=True)
class Event:
    """One change of the world: `state` (lit/powered), `power` (dust), `shape` (dust sides),
    `locked`, `delay`, `burnout`, `popped` (an unsupported block fell off), `placed`, `removed`."""

    tick: int
    pos: Pos
    kind: str
    block: str
    old: int
    new: int

    def describe(self) -> str:
        name = self.block.removeprefix("minecraft:")
        if self.kind == "state":
            prop = _STATE_PROP.get(B.PALETTE[name][0], "powered")
            return f"tick {self.tick}: {name} at {self.pos} {prop}={'true' if self.new else 'false'}"
        if self.kind == "power":
            return f"tick {self.tick}: dust at {self.pos} power {self.old} -> {self.new}"
        if self.kind == "popped":
            return f"tick {self.tick}: {name} at {self.pos} popped off (no support)"
        if self.kind == "burnout":
            return f"tick {self.tick}: torch at {self.pos} burnt out"
        if self.kind in ("placed", "removed"):
            return f"tick {self.tick}: {self.kind} {name} at {self.pos}"
        return f"tick {self.tick}: {name} at {self.pos} {self.kind} {self.old} -> {self.new}"


def check_pos(pos: object) -> Pos:
    """Validate a position: three integers (bools and floats are refused)."""
    if isinstance(pos, (str, bytes)) or not isinstance(pos, Iterable):
        raise PositionError(f"position must be three integers (x, y, z), got {pos!r}")
    items = list(pos)
    if len(items) != 3 or not all(isinstance(v, Integral) and not isinstance(v, bool) for v in items):
        raise PositionError(f"position must be three integers (x, y, z), got {pos!r}")
    p = tuple(int(v) for v in items)
    if any(abs(v) > 30_000_000 for v in p):
        raise PositionError(f"position {p} is outside the Minecraft world (|coordinate| <= 30,000,000)")
    return p  # type: ignore[return-value]


def _support_of(st: BlockState, p: Pos) -> tuple[Pos, str] | None:
    """Where a block needs a solid block, and a phrase for messages; None if it needs none."""
    x, y, z = p
    name = st.name
    if name in ("redstone_wire", "redstone_repeater", "redstone_torch"):
        return (x, y - 1, z), "a solid block below"
    if name == "redstone_wall_torch" or (name in ("stone_button", "lever") and st.get("face") == "wall"):
        dx, dy, dz = B.OFFSETS[B.DIRECTIONS.index(st.get("facing"))]
        return (x - dx, y - dy, z - dz), f"a solid block behind it (facing={st.get('facing')})"
    if name in ("stone_button", "lever"):
        if st.get("face") == "floor":
            return (x, y - 1, z), "a solid block below (face=floor)"
        return (x, y + 1, z), "a solid block above (face=ceiling)"
    return None


class World:
    """A redstone world stepped in game ticks, faithful to Java Edition 1.20 for its palette.

    `replay=True` follows /setblock instead of a player's placement: nothing is refused for lack of
    support; an unsupported block pops off at its first neighbour update."""

    def __init__(self, replay: bool = False, jit: bool = True, log_events: bool = True):
        self.replay = replay
        self._k = sim if jit else _python_kernels()
        self.jit = jit and self._k.JIT
        # Events are kept as int64 rows (tick, x, y, z, kind, block id, old, new) and turned into
        # Event objects only when read: logging stays cheap while the engine runs.
        self._ev_chunks: deque[np.ndarray] = deque()
        self._ev_kept = 0
        self._ev_notes: list[tuple[int, ...]] = []
        self._events_total = 0
        self._origin = np.zeros(3, dtype=np.int64)
        self._dims = np.zeros(3, dtype=np.int64)
        self.g: sim.Grid | None = None
        self._tick0 = 0
        self._log = log_events

    # ------------------------------------------------------------------ grid management
    def _alloc(self, origin: np.ndarray, dims: np.ndarray) -> sim.Grid:
        nx, ny, nz = (int(v) for v in dims)
        n = nx * ny * nz
        sx, sy = ny * nz, nz
        off = np.array([-1, sx, 1, -sx, sy, -sy], dtype=np.int64)
        near = [0]
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                for dz in range(-2, 3):
                    if 0 < abs(dx) + abs(dy) + abs(dz) <= 2:
                        near.append(dx * sx + dy * sy + dz)
        heap = 2 * n + 1024
        ev = (1 << 16) + 4 * n
        U = np.zeros((n, sim.NU), np.uint8)
        U[:, sim.DELAY] = 1
        T = np.zeros((n, sim.NT), np.int64)
        T[:, sim.PTIME] = -1
        T[:, sim.TOG0 :] = -(10**9)
        return sim.Grid(
            off=off,
            near=np.array(near, dtype=np.int64),
            U=U,
            T=T,
            H=np.zeros((heap, 4), np.int64),
            E=np.zeros((ev, 6), np.int64),
            meta=np.zeros(8, dtype=np.int64),
            queue=np.zeros(n + 1, np.int64),
            comp=np.zeros(n, np.int64),
            chg=np.zeros(4 * n + 64, np.int64),
            notify=np.zeros(n, np.int64),
        )

    def _ensure(self, p: Pos) -> None:
        """Grow the arrays so that p lies at least MARGIN cells inside them."""
        pa = np.array(p, dtype=np.int64)
        if self.g is not None:
            lo = self._origin + MARGIN
            hi = self._origin + self._dims - MARGIN - 1
            if np.all(pa >= lo) and np.all(pa <= hi):
                return
            extra = SLACK + (hi - lo) // 4
            new_lo = np.where(pa < lo, np.minimum(lo, pa - extra), lo)
            new_hi = np.where(pa > hi, np.maximum(hi, pa + extra), hi)
        else:
            new_lo, new_hi = pa - SLACK, pa + SLACK
        span = new_hi - new_lo + 1
        if np.any(span - 2 * SLACK > MAX_SPAN):
            axis = "xyz"[int(np.argmax(span))]
            raise PositionError(
                f"position {p} would make the world span more than {MAX_SPAN} blocks along {axis}; "
                "keep builds within a 1024-block box"
            )
        origin = new_lo - MARGIN
        dims = span + 2 * MARGIN
        g = self._alloc(origin, dims)
        if self.g is not None:
            self._copy_into(g, origin, dims)
        else:
            g.meta[sim.M_TICK] = self._tick0
            g.meta[sim.M_LOG] = 1 if self._log else 0
        self.g, self._origin, self._dims = g, origin, dims
        self._lo = tuple(int(v) + 1 for v in origin)
        self._hi = tuple(int(o + d) - 1 for o, d in zip(origin, dims))

    def _copy_into(self, g: sim.Grid, origin: np.ndarray, dims: np.ndarray) -> None:
        old, (ox, oy, oz) = self.g, self._origin - origin
        nx, ny, nz = (int(v) for v in self._dims)
        sl = (slice(ox, ox + nx), slice(oy, oy + ny), slice(oz, oz + nz))
        shape_new = tuple(int(v) for v in dims)
        g.U.reshape(*shape_new, sim.NU)[sl] = old.U.reshape(nx, ny, nz, sim.NU)
        g.T.reshape(*shape_new, sim.NT)[sl] = old.T.reshape(nx, ny, nz, sim.NT)
        g.U[:, sim.MK0] = 0
        g.U[:, sim.MK1] = 0
        h = int(old.meta[sim.M_HEAP])
        cells = old.H[:h, sim.HCELL]
        x, rem = np.divmod(cells, ny * nz)
        y, z = np.divmod(rem, nz)
        g.H[:h] = old.H[:h]
        g.H[:h, sim.HCELL] = ((x + ox) * shape_new[1] + (y + oy)) * shape_new[2] + (z + oz)
        self._drain()
        g.meta[:] = old.meta
        g.meta[sim.M_EVN] = 0
        g.meta[sim.M_GEN] = 0

    def _cell(self, p: Pos) -> int:
        lo = self._lo
        _, ny, nz = self._dims.tolist()
        return ((p[0] - lo[0] + 1) * ny + (p[1] - lo[1] + 1)) * nz + (p[2] - lo[2] + 1)

    def _inside(self, p: Pos) -> bool:
        if self.g is None:
            return False
        lo, hi = self._lo, self._hi
        return lo[0] <= p[0] < hi[0] and lo[1] <= p[1] < hi[1] and lo[2] <= p[2] < hi[2]

    def _pos(self, c: int) -> Pos:
        _, ny, nz = (int(v) for v in self._dims)
        x, rem = divmod(int(c), ny * nz)
        y, z = divmod(rem, nz)
        return (x + int(self._origin[0]), y + int(self._origin[1]), z + int(self._origin[2]))

    def _xyz(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World coordinates of flat cell indices, as three arrays."""
        _, ny, nz = (int(v) for v in self._dims)
        x, rem = np.divmod(cells, ny * nz)
        y, z = np.divmod(rem, nz)
        o = self._origin
        return x + o[0], y + o[1], z + o[2]

    def _positions(self, cells: np.ndarray) -> list[Pos]:
        x, y, z = self._xyz(cells)
        return list(zip(x.tolist(), y.tolist(), z.tolist(), strict=True))

    def _reserve(self) -> None:
        """Keep room in the tick heap for one pending tick per cell plus stale entries."""
        g = self.g
        need = int(g.meta[sim.M_HEAP]) + g.U.shape[0] + 64
        if need > g.H.shape[0]:
            H = np.zeros((2 * need, 4), np.int64)
            H[: g.H.shape[0]] = g.H
            self.g = g._replace(H=H)

    # ------------------------------------------------------------------ events
    def _drain(self) -> None:
        self._flush_notes()
        g = self.g
        n = int(g.meta[sim.M_EVN])
        if n:
            ev = g.E[:n]
            x, y, z = self._xyz(ev[:, 1])
            rows = np.column_stack((ev[:, 0], x, y, z, ev[:, 2], ev[:, 5], ev[:, 3:5]))
            self._keep(rows)
            g.meta[sim.M_EVN] = 0
        if g.meta[sim.M_OVERFLOW]:
            g.meta[sim.M_OVERFLOW] = 0
            raise RuntimeError("engine buffer overflow: a single tick changed more than the engine can track")

    def _keep(self, rows: np.ndarray) -> None:
        self._ev_chunks.append(rows)
        self._ev_kept += len(rows)
        self._events_total += len(rows)
        while self._ev_kept - len(self._ev_chunks[0]) >= EVENT_HISTORY:
            self._ev_kept -= len(self._ev_chunks.popleft())

    def _flush_notes(self) -> None:
        if self._ev_notes:
            self._keep(np.array(self._ev_notes, dtype=np.int64))
            self._ev_notes = []

    def _note(self, kind: str, p: Pos, name: str) -> None:
        if self._log:
            self._ev_notes.append((self.tick, *p, EVENT_KINDS.index(kind), B.PALETTE[name][0], 0, 0))

    def events_since(self, total: int) -> list[Event]:
        """Events after the first `total` ever logged (see events_total), as far as they are kept."""
        self._flush_notes()
        want = self._events_total - total
        if want <= 0 or not self._ev_chunks:
            return []
        rows = np.concatenate(self._ev_chunks)[-min(want, EVENT_HISTORY):]
        return [
            Event(t, (x, y, z), EVENT_KINDS[k], "minecraft:" + B.NAME_OF_ID[b], o, n)
            for t, x, y, z, k, b, o, n in rows.tolist()
        ]

    @property
    def events(self) -> list[Event]:
        """The most recent events (up to 100,000), oldest first."""
        return self.events_since(max(0, self._events_total - EVENT_HISTORY))

    @property
    def events_total(self) -> int:
        """How many events were logged since the world was made (including ones no longer kept)."""
        self._flush_notes()
        return self._events_total

    @property
    def log_events(self) -> bool:
        return self._log

    @log_events.setter
    def log_events(self, on: bool) -> None:
        self._log = bool(on)
        if self.g is not None:
            self.g.meta[sim.M_LOG] = 1 if on else 0

    # ------------------------------------------------------------------ public API
    @property
    def tick(self) -> int:
        return int(self.g.meta[sim.M_TICK]) if self.g is not None else self._tick0

    def get_block(self, pos: object) -> str:
        """The canonical full block state at pos, e.g. 'minecraft:redstone_lamp[lit=true]'."""
        p = check_pos(pos)
        if not self._inside(p):
            return "minecraft:air"
        return self._state_at(self._cell(p))

    def _state_at(self, c: int) -> str:
        g = self.g
        b = int(g.U[c, sim.BT])
        name = B.NAME_OF_ID[b]
        tf = ("false", "true")
        if b == B.WIRE:
            s = int(g.U[c, sim.SIDES])
            side = [B.WIRE_SIDES[(s >> (2 * h)) & 3] for h in range(4)]
            props = f"east={side[1]},north={side[0]},power={int(g.U[c, sim.POWER])},south={side[2]},west={side[3]}"
        elif b == B.REPEATER:
            props = (
                f"delay={int(g.U[c, sim.DELAY])},facing={B.DIRECTIONS[g.U[c, sim.FACING]]},"
                f"locked={tf[int(g.U[c, sim.LOCKED])]},powered={tf[int(g.U[c, sim.ON])]}"
            )
        elif b in (B.TORCH, B.LAMP):
            props = f"lit={tf[int(g.U[c, sim.ON])]}"
        elif b == B.WALL_TORCH:
            props = f"facing={B.DIRECTIONS[g.U[c, sim.FACING]]},lit={tf[int(g.U[c, sim.ON])]}"
        elif b in (B.BUTTON, B.LEVER):
            face, facing = B.FACES[g.U[c, sim.FACE]], B.DIRECTIONS[g.U[c, sim.FACING]]
            props = f"face={face},facing={facing},powered={tf[int(g.U[c, sim.ON])]}"
        else:
            return f"minecraft:{name}"
        return f"minecraft:{name}[{props}]"

    def set_block(self, pos: object, state: object) -> None:
        """Place a block as a player would (or as /setblock would, in replay mode).

        Derived properties (dust shape and power, lit, powered, locked) come from the surroundings;
        neighbours are updated at once and delays run as scheduled ticks. Raises a ValueError
        subclass, leaving the world unchanged, for bad positions, states or unsupported placements."""
        p = check_pos(pos)
        st = parse_state(state)
        if st.id == B.AIR:
            self.remove_block(p)
            return
        if not self.replay:
            need = _support_of(st, p)
            if need is not None:
                sp, phrase = need
                below = self.get_block(sp)
                if B.PALETTE[below.removeprefix("minecraft:").split("[")[0]][0] not in (
                    B.STONE,
                    B.GLASS,
                    B.LAMP,
                    B.REDSTONE_BLOCK,
                ):
                    raise PlacementError(
                        f"cannot place {st.name} at {p}: it needs {phrase} at {sp}, but there is {below}"
                    )
        self._ensure(p)
        g = self.g
        c = self._cell(p)
        old = int(g.U[c, sim.BT])
        if old != B.AIR and self._same_static(c, st):
            return
        self._reserve()
        g = self.g
        props = dict(st.props)
        g.U[c, sim.BT] = st.id
        g.U[c, sim.FACING] = B.DIRECTIONS.index(props["facing"]) if "facing" in props else 0
        g.U[c, sim.FACE] = B.FACES.index(props["face"]) if "face" in props else 0
        g.U[c, sim.DELAY] = int(props.get("delay", 1))
        sides = ("north", "east", "south", "west")
        # A dust starts as a cross (a player's placement) unless it is asked for as a dot; /setblock
        # starts from the given sides, whose default is a dot.
        dot = st.name == "redstone_wire" and all(
            props[k] == "none" and (self.replay or k in st.given) for k in sides
        )
        g.U[c, sim.SIDES] = 0 if dot else 0x55
        g.U[c, sim.POWER] = 0
        g.U[c, sim.LOCKED] = 0
        given_on = props.get("lit", props.get("powered", "false")) == "true"
        if self.replay:
            g.U[c, sim.ON] = given_on
        else:
            g.U[c, sim.ON] = st.id in (B.TORCH, B.WALL_TORCH) or (st.id == B.LEVER and given_on)
        g.T[c, sim.TOG0 :] = -(10**9)
        if old != B.AIR:
            self._note("removed", p, B.NAME_OF_ID[old])
        self._note("placed", p, st.name)
        self._k.place(g, c, old, c if self.replay else -1, not self.replay)
        self._drain()

    def _same_static(self, c: int, st: BlockState) -> bool:
        """True when the block at c already is `st` up to derived properties (placing it is a no-op)."""
        g = self.g
        if int(g.U[c, sim.BT]) != st.id:
            return False
        props = dict(st.props)
        checks = {
            "facing": lambda v: B.DIRECTIONS[g.U[c, sim.FACING]] == v,
            "face": lambda v: B.FACES[g.U[c, sim.FACE]] == v,
            "delay": lambda v: int(g.U[c, sim.DELAY]) == int(v),
        }
        if st.id == B.LEVER and (props["powered"] == "true") != bool(g.U[c, sim.ON]):
            return False
        return all(checks[k](v) for k, v in props.items() if k in checks)

    def remove_block(self, pos: object) -> None:
        """Replace the block at pos with air; blocks it supported pop off."""
        p = check_pos(pos)
        if not self._inside(p):
            return
        g = self.g
        c = self._cell(p)
        old = int(g.U[c, sim.BT])
        if old == B.AIR:
            return
        self._reserve()
        g = self.g
        self._note("removed", p, B.NAME_OF_ID[old])
        g.U[c, sim.BT] = B.AIR
        g.U[c, sim.ON] = 0
        g.U[c, sim.POWER] = 0
        g.U[c, sim.SIDES] = 0
        g.U[c, sim.LOCKED] = 0
        self._k.place(g, c, old, -1, not self.replay)
        self._drain()

    def use(self, pos: object) -> bool:
        """A player's right-click at pos: press a button, toggle a lever, cycle a repeater's delay,
        or toggle unconnected dust between cross and dot. Returns True if anything changed."""
        p = check_pos(pos)
        if not self._inside(p):
            return False
        self._reserve()
        done = bool(self._k.use(self.g, self._cell(p)))
        self._drain()
        return done

    def step(self, n: int = 1) -> None:
        """Advance n game ticks, running the ticks scheduled for each."""
        if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
            raise ValueError(f"step count must be a non-negative integer, got {n!r}")
        self._run(self.tick + int(n))

    def _run(self, until: int, rec: tuple | None = None) -> None:
        if self.g is None:  # nothing placed yet: time passes, nothing happens
            self._tick0 = until
            return
        row = 1
        while self.tick < until:
            self._reserve()
            g = self.g
            margin = g.U.shape[0] + 256
            if rec is None:
                self._k.run(g, until, _NO_CELLS, _NO_CELLS, _NO_ROWS, _NO_ROWS, 0, margin)
            else:
                start = self.tick
                self._k.run(g, until, rec[0], rec[1], rec[2], rec[3], row, margin)
                row += self.tick - start
            self._drain()

    def blocks(self) -> dict[Pos, str]:
        """Every non-air block as {position: canonical state}, in x, y, z order."""
        if self.g is None:
            return {}
        cells = np.nonzero(self.g.U[:, sim.BT])[0]
        return {p: self._state_at(int(c)) for p, c in zip(self._positions(cells), cells, strict=True)}

    def cells_of(self, *ids: int) -> np.ndarray:
        """Flat indices of the cells holding any of the given block ids (engine use)."""
        if self.g is None:
            return np.zeros(0, np.int64)
        return np.nonzero(np.isin(self.g.U[:, sim.BT], ids))[0].astype(np.int64)

    def copy(self) -> World:
        """An independent copy: same blocks, tick, pending ticks and recent events."""
        w = World.__new__(World)
        w.__dict__.update(self.__dict__)
        w._ev_chunks = deque(self._ev_chunks)
        w._ev_notes = list(self._ev_notes)
        if self.g is not None:
            w.g = sim.Grid(*(a.copy() for a in self.g))
            w._origin, w._dims = self._origin.copy(), self._dims.copy()
        return w

    def record(self, n: int):
        """Run n game ticks and return a Trace with n+1 rows (row 0 is the state now)."""
        from scicraft_viz.engine.trace import record

        return record(self, n)

    # ------------------------------------------------------------------ build files
    def to_mcfunction(self) -> str:
        from scicraft_viz.engine.mcfunction import to_mcfunction

        return to_mcfunction(self.blocks())

    @classmethod
    def from_mcfunction(cls, text: str, replay: bool = False, source: str = "<string>") -> World:
        from scicraft_viz.engine.mcfunction import build_world

        return build_world(text, replay=replay, source=source)

    def __repr__(self) -> str:
        n = 0 if self.g is None else int(np.count_nonzero(self.g.U[:, sim.BT]))
        return f"World(tick={self.tick}, blocks={n}, replay={self.replay})"


_PY_KERNELS = None
_NO_CELLS = np.zeros(0, np.int64)
_NO_ROWS = np.zeros((0, 0), np.uint8)


def _python_kernels():
    global _PY_KERNELS
    if _PY_KERNELS is None:
        _PY_KERNELS = sim.python_kernels()
    return _PY_KERNELS
