"""The explorer's model: a world, everything recorded from it so far, and the edit history.

Views never simulate. They read `Session.frame(tick)` and `Session.trace`, which are rows of what
the engine recorded while the session stepped; moving the cursor (`Session.tick`) to an earlier
tick shows that recorded row again. Only `step` beyond the last recorded tick runs the engine.

    >>> s = Session(task=tasks.load("A_simultaneous_lights_L1"), build=solution_text)
    >>> s.press(); s.step(30)
    >>> s.trace.lamp_lit.shape          # (rows, lamps)
    >>> s.place((1, 4, 2), "redstone_lamp")   # Outcome(ok=True, message='placed ...')
    >>> s.undo()
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import traitlets as T

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.blocks import is_attached, split_state, static_state
from scicraft_viz.engine.trace import Trace, apply_changes
from scicraft_viz.engine.world import World, check_pos
from scicraft_viz.errors import InputError, list_positions
from scicraft_viz.views.frame import Frame, Layout, layout_from_blocks

Pos = tuple[int, int, int]
AIR = "minecraft:air"
_LAYOUT_EVENTS = {"popped", "placed", "removed", "shape", "delay"}


@dataclass(frozen=True)
class Outcome:
    """What an edit or action did; `ok` False means nothing changed and `message` says why."""

    ok: bool
    message: str


@dataclass(frozen=True)
class Edit:
    """One undoable change: the static state of every position it changed, before and after."""

    label: str
    before: dict[Pos, str]
    after: dict[Pos, str]


def placement_order(states: dict[Pos, str]) -> list[tuple[Pos, str]]:
    """Removals first (what hangs on others first, top down), then placements (free-standing
    blocks bottom up, then what hangs on them), so supports exist before what they carry."""
    rem = [(p, s) for p, s in states.items() if s == AIR]
    put = [(p, s) for p, s in states.items() if s != AIR]
    rem.sort(key=lambda ps: (0, -ps[0][1], ps[0]))
    put.sort(key=lambda ps: (1 if is_attached(ps[1]) else 0, ps[0][1], ps[0]))
    return rem + put


def player_mode(world: World) -> World:
    """Adapter: after a build has been placed as /setblock would (replay mode, as the evaluator
    does), interactive edits must follow a player's placement rules so that an unsupported
    placement is refused with its reason. The engine reads `replay` at each placement."""
    world.replay = False
    return world


def read_build(build) -> str | dict | list:
    """A build given as .mcfunction text, a path to one, a {pos: state} dict or (pos, state) pairs."""
    if isinstance(build, (str, os.PathLike)) and (isinstance(build, os.PathLike) or "setblock" not in build):
        path = Path(build)
        if not path.is_file():
            raise InputError(f"build file {build} does not exist")
        return path.read_text(encoding="utf-8")
    return build


class Recording:
    """Per-tick arrays of everything the views show, grown as the session steps.

    Columns are the union of every lamp, dust and component seen so far (a lamp placed later has
    False before it existed); each row also names the layout (block arrangement) it belongs to."""

    def __init__(self, start_tick: int):
        self.start = int(start_tick)
        self.n = 0
        self._cap = 0
        self.lamp_pos: list[Pos] = []
        self.dust_pos: list[Pos] = []
        self.comp_pos: list[Pos] = []
        self.comp_kind: list[str] = []
        self._col: dict[str, dict[Pos, int]] = {"lamp": {}, "dust": {}, "comp": {}}
        self.lamp_lit = np.zeros((0, 0), bool)
        self.dust_power = np.zeros((0, 0), np.uint8)
        self.comp_on = np.zeros((0, 0), bool)
        self.comp_locked = np.zeros((0, 0), bool)
        self.layout_of = np.zeros(0, np.int32)
        self.layouts: list[Layout] = []
        # the entities at each row, as the trace recorded them (Trace.carts, Trace.items): a tuple per row
        self.carts: list[tuple] = []
        self.items: list[tuple] = []
        self.fireballs: list[tuple] = []  # Trace.fireballs, drawn among the items
        self._gather: list[tuple[np.ndarray, ...]] = []
        self._maps: dict[str, tuple[list, np.ndarray]] = {}
        self._added = False

    @property
    def end(self) -> int:
        return self.start + self.n - 1

    # -- storage
    def _grow_rows(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(64, need, 2 * self._cap)
        for name in ("lamp_lit", "dust_power", "comp_on", "comp_locked"):
            old = getattr(self, name)
            new = np.zeros((cap, old.shape[1]), old.dtype)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)
        lo = np.zeros(cap, np.int32)
        lo[: self.n] = self.layout_of[: self.n]
        self.layout_of = lo
        self._cap = cap

    def _columns(self, group: str, positions: list[Pos], kinds: list[str] | None = None) -> np.ndarray:
        """Column of each position, adding new columns for positions never seen."""
        cached = self._maps.get(group)
        if cached is not None and cached[0] == positions:
            return cached[1]
        col = self._col[group]
        new = [p for p in positions if p not in col]
        if new:
            self._added = True
            arrays = {"lamp": ("lamp_lit",), "dust": ("dust_power",), "comp": ("comp_on", "comp_locked")}[group]
            plist = {"lamp": self.lamp_pos, "dust": self.dust_pos, "comp": self.comp_pos}[group]
            for p in new:
                col[p] = len(plist)
                plist.append(p)
                if group == "comp":
                    self.comp_kind.append(kinds[positions.index(p)] if kinds else "")
            for name in arrays:
                old = getattr(self, name)
                wide = np.zeros((old.shape[0], len(plist)), old.dtype)
                wide[:, : old.shape[1]] = old
                setattr(self, name, wide)
        idx = np.array([col[p] for p in positions], np.int64)
        self._maps[group] = (list(positions), idx)
        return idx

    def add_layout(self, layout: Layout) -> int:
        self.layouts.append(layout)
        self._gather.append(self._gather_for(layout))
        return len(self.layouts) - 1

    def _gather_for(self, lay: Layout) -> tuple[np.ndarray, ...]:
        """Which layout rows read which recorded columns (lamps, dust, components)."""
        out = []
        for group in ("lamp", "dust", "comp"):
            rows, cols = [], []
            col = self._col[group]
            for p, i in lay.index.items():
                c = col.get(p)
                if c is not None:
                    rows.append(i)
                    cols.append(c)
            out += [np.array(rows, np.int64), np.array(cols, np.int64)]
        return tuple(out)

    def write(self, tr: Trace, layout_id: int, locked_now: dict[Pos, bool]) -> None:
        """Store a recorded trace; its row 0 (the state now) replaces the last row."""
        first = tr.start_tick - self.start
        if first < 0 or first > self.n:
            raise ValueError(f"trace starts at tick {tr.start_tick}, recording covers {self.start}..{self.end}")
        rows = len(tr)
        self._grow_rows(first + rows)
        self._added = False
        lc = self._columns("lamp", list(tr.lamp_positions))
        dc = self._columns("dust", list(tr.dust_positions))
        cc = self._columns("comp", list(tr.component_positions), list(tr.component_kinds))
        sl = slice(first, first + rows)
        self.lamp_lit[sl] = False
        self.dust_power[sl] = 0
        self.comp_on[sl] = False
        self.comp_locked[sl] = False
        if len(lc):
            self.lamp_lit[sl, lc] = tr.lamp_lit
        if len(dc):
            self.dust_power[sl, dc] = tr.dust_power
        if len(cc):
            self.comp_on[sl, cc] = tr.component_on
            self._fill_locked(tr, first, cc, locked_now)
        self.layout_of[sl] = layout_id
        for name in ("carts", "items", "fireballs"):
            kept = getattr(self, name)
            del kept[first:]
            got = getattr(tr, name, None)
            kept.extend([()] * rows if got is None else [tuple(r) for r in got])
        self.n = first + rows
        if self._added:  # the layout's map was made before these columns existed
            self._gather[layout_id] = self._gather_for(self.layouts[layout_id])

    def _fill_locked(self, tr: Trace, first: int, cc: np.ndarray, locked_now: dict[Pos, bool]) -> None:
        """Repeater locking is not part of a Trace; rebuild it from the recording's 'locked'
        events, walking back from the state now."""
        pos = list(tr.component_positions)
        cols = {p: int(c) for p, c in zip(pos, cc)}
        changes = sorted((e.tick, e.pos, bool(e.new)) for e in tr.events if e.kind == "locked" and e.pos in cols)
        for p in pos:
            if not locked_now.get(p):
                continue
            self.comp_locked[first : first + len(tr), cols[p]] = True
        # events say when each value started; undo them from the end to find earlier values
        for tick, p, new in reversed(changes):
            row = first + (tick - tr.start_tick)
            self.comp_locked[first:row, cols[p]] = not new

    # -- reading
    def row(self, tick: int) -> int:
        r = int(tick) - self.start
        if not 0 <= r < self.n:
            raise IndexError(f"tick {tick} is not recorded (recorded: {self.start}..{self.end})")
        return r

    def frame(self, tick: int) -> Frame:
        r = self.row(tick)
        lid = int(self.layout_of[r])
        lay = self.layouts[lid]
        lr, lc, dr, dc, cr, cc = self._gather[lid]
        n = len(lay)
        on = np.zeros(n, bool)
        power = np.zeros(n, np.uint8)
        locked = np.zeros(n, bool)
        on[lr] = self.lamp_lit[r, lc]
        power[dr] = self.dust_power[r, dc]
        on[cr] = self.comp_on[r, cc]
        locked[cr] = self.comp_locked[r, cc]
        return Frame(lay, on, power, locked, int(tick), carts=self.carts[r],
                     items=self.items[r] + self.fireballs[r])

    def series(self, pos: Pos) -> dict[str, np.ndarray]:
        """Every recorded value of one block, one entry per row: 'lit' (lamp), 'power' (dust), 'on' and
        'locked' (repeater, torch, button, lever); empty when the block was never recorded."""
        p = tuple(int(v) for v in pos)
        n = self.n
        out: dict[str, np.ndarray] = {}
        if p in self._col["lamp"]:
            out["lit"] = self.lamp_lit[:n, self._col["lamp"][p]]
        if p in self._col["dust"]:
            out["power"] = self.dust_power[:n, self._col["dust"][p]]
        if p in self._col["comp"]:
            out["on"] = self.comp_on[:n, self._col["comp"][p]]
            if self.comp_kind[self._col["comp"][p]].endswith("repeater"):
                out["locked"] = self.comp_locked[:n, self._col["comp"][p]]
        return out

    def trace(self) -> Trace:
        n = self.n
        return Trace(
            ticks=np.arange(self.start, self.start + n, dtype=np.int64),
            lamp_positions=list(self.lamp_pos),
            lamp_lit=self.lamp_lit[:n].copy(),
            dust_positions=list(self.dust_pos),
            dust_power=self.dust_power[:n].copy(),
            component_positions=list(self.comp_pos),
            component_kinds=list(self.comp_kind),
            component_on=self.comp_on[:n].copy(),
            items=list(self.items[:n]) if any(self.items[:n]) else None,
            carts=list(self.carts[:n]) if any(self.carts[:n]) else None,
            fireballs=list(self.fireballs[:n]) if any(self.fireballs[:n]) else None,
        )


def recording_of_trial(build: dict[Pos, str], trace: Trace, locked_at_end: dict[Pos, bool] | None = None) -> Recording:
    """Per-tick frames of one recorded trial (a build and its trace), for the canvas and animations.
    Locking at the trace's last tick comes from `locked_at_end`, or else from the build's own states.

    `build` is every block at the trace's start. Where the trace recorded how its blocks moved
    (`Trace.blocks`: whenever the world held a piston), each tick is drawn with its own blocks, a block in
    motion between its two places, as the live session drew it; a trace without that record is drawn with
    the build's blocks throughout. InputError when the record does not fit the build (a block in motion
    where no moving_piston stands, or a moving_piston carrying nothing)."""
    rec = Recording(trace.start_tick)
    blocks = dict(build)
    first = trace.blocks[0] if trace.blocks else None
    start_moving = first.moving if first is not None and first.tick == trace.start_tick else {}
    if first is not None and first.tick == trace.start_tick:
        apply_changes(blocks, first.changed)
    lay, *_ = layout_from_blocks(blocks, start_moving)
    _check_moving(lay, start_moving, trace.start_tick)
    if locked_at_end is None:
        locked_at_end = {p: True for p, st in build.items() if "locked=true" in st}
    rec.write(trace, rec.add_layout(lay), locked_at_end)
    for r in trace.blocks or ():
        if r.tick == trace.start_tick:
            continue
        row = trace.row_of(r.tick)
        if r.changed:
            apply_changes(blocks, r.changed)
            lay, *_ = layout_from_blocks(blocks, r.moving)
        else:  # only moved on by half a block: the same arrays, as the live session shares them
            lay = rec.layouts[int(rec.layout_of[row - 1])].moved_on(r.moving)
        _check_moving(lay, r.moving, r.tick)
        rec.layout_of[row : rec.n] = rec.add_layout(lay)
    return rec


def _check_moving(lay: Layout, moving: dict, tick: int) -> None:
    """The moving_piston cells of a replayed tick and what the trace says they carry must be the same ones."""
    cells = {tuple(p) for p in lay.pos[lay.kind == B.MOVING_PISTON].tolist()}
    if cells != set(moving):
        stray = sorted(set(moving) - cells)
        empty = sorted(cells - set(moving))
        what = (f"a block in motion at {list_positions(stray)}, where no moving_piston stands"
                if stray else f"no block carried by the moving_piston at {list_positions(empty)}")
        raise InputError(f"the trace does not fit the build: at tick {tick} it records {what}")


class Session(T.HasTraits):
    """A world being explored: stepping, presses, edits with undo/redo, and what was recorded.

    Traits the views observe: `tick` (the tick every view shows), `end` (the last recorded tick,
    which is the live world's tick), `version` (bumped whenever recorded data or blocks change),
    `message` (the outcome of the last action, in words), `selected` (a highlighted position)."""

    tick = T.Int(0)
    start = T.Int(0)
    end = T.Int(0)
    version = T.Int(0)
    message = T.Unicode("")
    selected = T.Any(None, allow_none=True)

    def __init__(self, world: World | None = None, *, task=None, build=None, region=None, settle: int | None = None):
        super().__init__()
        self.task = task
        self._settle = settle
        if build is not None:
            world = self._build_world(build)
        elif world is not None:
            world = player_mode(world.copy())
        elif task is not None:
            world = task.initial_world(replay=False)
        else:
            world = World()
        self.world = world
        self.region = self._region(region)
        self.presses: list[int] = []
        self.undo_stack: list[Edit] = []
        self.redo_stack: list[Edit] = []
        self._base = world.copy()
        self._base_build = self.build()
        self._restart()

    # ------------------------------------------------------------------ construction helpers
    @property
    def settle_ticks(self) -> int:
        if self._settle is not None:
            return int(self._settle)
        return self.task.settle_game_ticks if self.task is not None else 0

    def _build_world(self, build) -> World:
        """Place a build as the evaluator does (as /setblock would), then let it settle."""
        build = read_build(build)
        if self.task is not None:
            from scicraft_viz.tasks.evaluator import build_world

            w = build_world(self.task, build)
        else:
            from scicraft_viz.engine.mcfunction import parse_mcfunction

            items = parse_mcfunction(build) if isinstance(build, str) else list(dict(build).items())
            w = World(replay=True)
            for p, s in placement_order({tuple(p): s for p, s in items}):
                w.set_block(p, s)
        w.step(self.settle_ticks)
        return player_mode(w)

    def _region(self, region) -> tuple[Pos, Pos]:
        if region is not None:
            lo, hi = region
            return tuple(int(v) for v in lo), tuple(int(v) for v in hi)  # type: ignore[return-value]
        if self.task is not None:
            a, r = self.task.anchor, self.task.radius
            return (a[0] - r, a[1] - r, a[2] - r), (a[0] + r, a[1] + r, a[2] + r)
        blocks = self.world.blocks()
        if not blocks:
            return (-6, 0, -6), (6, 8, 6)
        pos = np.array(list(blocks))
        lo, hi = pos.min(0) - 3, pos.max(0) + 3
        hi[1] = max(hi[1], lo[1] + 8)
        return tuple(int(v) for v in lo), tuple(int(v) for v in hi)  # type: ignore[return-value]

    def in_region(self, pos: Pos) -> bool:
        lo, hi = self.region
        return all(a <= p <= b for p, a, b in zip(pos, lo, hi))

    def _restart(self) -> None:
        """Start recording afresh from the world as it is now."""
        self.events: list = []  # every change the engine logged while recording, in its order
        self._causes = None
        self._ev_mark = self.world.events_total
        self.rec = Recording(self.world.tick)
        self._capture()
        with self.hold_trait_notifications():
            self.start = self.rec.start
            self.end = self.rec.end
            self.version += 1
            self.tick = self.rec.end

    # ------------------------------------------------------------------ recording
    def _locked_now(self, positions) -> dict[Pos, bool]:
        out = {}
        for p in positions:
            s = self.world.get_block(p)
            if "locked=true" in s:
                out[p] = True
        return out

    def _repeaters(self) -> list[Pos]:
        lay = self.rec.layouts[-1] if self.rec.layouts else None
        if lay is None:
            return []
        return [tuple(p) for p in lay.pos[lay.kind == B.REPEATER].tolist()]

    def _capture(self, new_layout: bool = True) -> None:
        """Record the state now into the last row (after an edit or an action)."""
        if new_layout or not self.rec.layouts:
            lay, *_ = layout_from_blocks(self.world.blocks(), self.world.moving())
            lid = self.rec.add_layout(lay)
        else:
            lid = len(self.rec.layouts) - 1
        tr = self.world.record(0)
        self._keep_events()
        self.rec.write(tr, lid, self._locked_now(self._repeaters()))

    def _simulate(self, n: int) -> None:
        if n <= 0:
            return
        if n > 1 and self._moves_blocks():
            # a piston can change the blocks in any tick: one layout per tick it does
            for _ in range(n):
                self._simulate(1)
            return
        tr = self.world.record(n)
        self._keep_events()
        lid = before = len(self.rec.layouts) - 1
        moving = self.world.moving() if n == 1 else {}  # n > 1 only while no piston has been seen
        if any(e.kind in _LAYOUT_EVENTS for e in tr.events):
            lay, *_ = layout_from_blocks(self.world.blocks(), moving)
            lid = self.rec.add_layout(lay)
        elif moving or (before >= 0 and self.rec.layouts[before].moving):
            # the same blocks, moved on by half a block: a layout sharing the last one's arrays, with only
            # what the moving_piston cells carry (and how far along) new, since geometry follows layouts
            lid = self.rec.add_layout(self.rec.layouts[before].moved_on(moving))
        self.rec.write(tr, lid, self._locked_now(self._repeaters()))
        if lid != before and before >= 0:  # the trace's first row is the tick before: its blocks were the old ones
            self.rec.layout_of[tr.start_tick - self.rec.start] = before

    def _moves_blocks(self) -> bool:
        """True once a piston has been in the world (the engine counts them)."""
        from scicraft_viz.engine import kernels as sim

        return int(self.world.g.meta[sim.M_PISTONS]) > 0

    def _keep_events(self) -> None:
        """Keep what the engine logged since the last call (presses and placements included)."""
        total = self.world.events_total
        if total != self._ev_mark:
            self.events.extend(self.world.events_since(self._ev_mark))
            self._ev_mark = total
            self._causes = None

    def causes(self, tick: int | None = None) -> list:
        """Why each logged change happened (`scicraft_viz.engine.causes.Cause`), in the engine's order:
        all of them, or those of one tick."""
        if self._causes is None:
            from scicraft_viz.engine.causes import explain

            self._causes = explain(self.events, self.world.blocks(), self.world.rules)
        if tick is None:
            return list(self._causes)
        return [c for c in self._causes if c.event.tick == tick]

    def _changed(self, tick: int | None = None) -> None:
        with self.hold_trait_notifications():
            self.end = self.rec.end
            self.version += 1
            self.tick = self.rec.end if tick is None else tick

    def _say(self, ok: bool, message: str) -> Outcome:
        jumped, self._jumped = getattr(self, "_jumped", None), None
        if jumped is not None:
            message += (f" (you were replaying tick {jumped[0]}: edits act on the live world, so the views "
                        f"jumped to the live tick {jumped[1]})")
        self.message = message
        return Outcome(ok, message)

    # ------------------------------------------------------------------ time
    @property
    def live(self) -> bool:
        """True when the views show the newest recorded tick (the world as it is now)."""
        return self.tick == self.end

    def step(self, n: int = 1) -> Outcome:
        """Advance the shown tick by n game ticks: through recorded rows while there are any,
        running the engine only for ticks never recorded."""
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            return self._say(False, f"step count must be a non-negative integer, got {n!r}")
        target = self.tick + int(n)
        if target > self.end:
            self._simulate(target - self.end)
            self._changed(target)
        else:
            self.tick = target
        return Outcome(True, f"tick {self.tick}")

    def seek(self, tick: int) -> Outcome:
        """Show a recorded tick (clamped to what was recorded); never simulates."""
        t = int(min(max(int(tick), self.start), self.end))
        self.tick = t
        return Outcome(True, f"tick {t}")

    def reset(self) -> Outcome:
        """Start again from the beginning with the current build: the starting world itself when the
        build is unchanged, otherwise the build placed afresh and settled as at the start."""
        if self.build() == self._base_build:
            self.world = self._base.copy()
        else:
            build = {p: s for p, s in self.build().items()}
            for p in self._initial_blocks():
                build.setdefault(p, AIR)
            self.world = self._build_world(build)
        self.presses = []
        self._restart()
        return self._say(True, f"reset to tick {self.world.tick}")

    def _initial_blocks(self) -> dict[Pos, str]:
        return self.task.initial_blocks() if self.task is not None else {}

    # ------------------------------------------------------------------ actions
    def buttons(self) -> list[Pos]:
        kinds = tuple(f"minecraft:{n}[" for n in (*B.BUTTONS, "lever"))
        return [p for p, s in self.world.blocks().items() if s.startswith(kinds)]

    def _go_live(self) -> None:
        """Edits and actions happen to the live world: from a replayed tick, jump to it, and say so in
        the next message (`_say` adds the note)."""
        if not self.live:
            self._jumped = (self.tick, self.end)
            self.tick = self.end

    def press(self, pos: Pos | None = None) -> Outcome:
        """Press the button (the only one, if pos is None) at the end of the current live tick."""
        if pos is None:
            found = [p for p in self.buttons() if self.world.get_block(p).startswith("minecraft:stone_button")]
            if len(found) != 1:
                return self._say(False, f"there are {len(found)} stone buttons: say which one to press"
                                 if found else "there is no stone button to press")
            pos = found[0]
        return self.use(pos)

    def use(self, pos) -> Outcome:
        """A right-click: press a button, flip a lever, cycle a repeater's delay, toggle a lone dust."""
        try:
            p = check_pos(pos)
        except InputError as e:
            return self._say(False, str(e))
        self._go_live()
        state = self.world.get_block(p)
        name = split_state(state)[0]
        before = {p: static_state(state)}
        if not self.world.use(p):
            if name == "air":
                return self._say(False, f"nothing to use at {p}")
            return self._say(False, f"{name} at {p} does nothing when used" + (
                " (the button is already pressed)" if name in B.BUTTONS else ""))
        t = self.world.tick
        if name in (*B.BUTTONS, "lever"):
            self.presses.append(t)
        after = {p: static_state(self.world.get_block(p))}
        if after != before:
            self.undo_stack.append(Edit(f"use {name} at {p}", before, after))
            self.redo_stack.clear()
        self._capture(new_layout=after != before)
        self._changed()
        verb = "pressed" if name in B.BUTTONS else {"lever": "flipped"}.get(name, "used")
        return self._say(True, f"{verb} {name} at {p} at tick {t}")

    def _apply(self, states: dict[Pos, str]) -> None:
        for p, s in placement_order(states):
            if s == AIR:
                self.world.remove_block(p)
            else:
                self.world.set_block(p, s)

    def _static(self) -> dict[Pos, str]:
        return {p: static_state(s) for p, s in self.world.blocks().items()}

    def _edit(self, label: str, states: dict[Pos, str]) -> Outcome:
        self._go_live()
        before_all = self._static()
        try:
            self._apply(states)
        except InputError as e:
            return self._say(False, str(e))
        after_all = self._static()
        keys = set(before_all) | set(after_all)
        before = {p: before_all.get(p, AIR) for p in keys if before_all.get(p, AIR) != after_all.get(p, AIR)}
        if not before:
            return self._say(False, f"nothing changed: {label}")
        after = {p: after_all.get(p, AIR) for p in before}
        self.undo_stack.append(Edit(label, before, after))
        self.redo_stack.clear()
        self._capture()
        self._changed()
        popped = len(before) - 1
        extra = f" ({popped} supported block{'s' if popped != 1 else ''} popped off)" if popped > 0 and all(
            after[p] == AIR for p in before) else ""
        return self._say(True, label + extra)

    def place(self, pos, state: str) -> Outcome:
        """Place a block as a player would; a refused placement leaves everything as it was."""
        try:
            p = check_pos(pos)
            from scicraft_viz.engine.blocks import parse_state

            st = parse_state(state)
        except InputError as e:
            return self._say(False, str(e))
        if not self.in_region(p):
            lo, hi = self.region
            return self._say(False, f"{p} is outside the build region {lo}..{hi}")
        if st.name == "air":
            return self.remove(p)
        current = self.world.get_block(p)
        if current != AIR and split_state(current)[0] != st.name:
            return self._say(False, f"{p} is taken by {split_state(current)[0]}: remove it first")
        cur_props = split_state(current)[1]
        if current != AIR and all(cur_props.get(k) == v for k, v in st.props if k in st.given):
            return self._say(False, f"there already is {st.name} at {p}")
        return self._edit(f"placed {st.name} at {p}", {p: str(st)})

    def remove(self, pos) -> Outcome:
        try:
            p = check_pos(pos)
        except InputError as e:
            return self._say(False, str(e))
        name = split_state(self.world.get_block(p))[0]
        if name == "air":
            return self._say(False, f"nothing to remove at {p}")
        if not self.in_region(p):
            return self._say(False, f"{p} is outside the build region: it cannot be edited here")
        return self._edit(f"removed {name} at {p}", {p: AIR})

    def undo(self) -> Outcome:
        return self._history(self.undo_stack, self.redo_stack, "before", "undo", "undid")

    def redo(self) -> Outcome:
        return self._history(self.redo_stack, self.undo_stack, "after", "redo", "redid")

    def _history(self, source: list, target: list, side: str, verb: str, done: str) -> Outcome:
        """Move the last edit of `source` to `target`, restoring its `side` ('before' or 'after')."""
        if not source:
            return self._say(False, f"nothing to {verb}")
        e = source.pop()
        self._go_live()
        try:
            self._apply(getattr(e, side))
        except InputError as err:
            source.append(e)
            return self._say(False, f"cannot {verb} '{e.label}': {err}")
        target.append(e)
        self._capture()
        self._changed()
        return self._say(True, f"{done}: {e.label}")

    def run_test(self) -> Outcome:
        """The task's test as the evaluator runs it: press the button, record the harness ticks."""
        if self.task is None:
            return self._say(False, "no task is loaded")
        out = self.press()
        if not out.ok:
            return out
        self._simulate(self.task.record_game_ticks)
        self._changed()
        return self._say(True, f"pressed at tick {self.presses[-1]} and recorded {self.task.record_game_ticks} ticks")

    # ------------------------------------------------------------------ reading
    def frame(self, tick: int | None = None) -> Frame:
        return self.rec.frame(self.tick if tick is None else tick)

    @property
    def trace(self) -> Trace:
        """Everything recorded so far as a Trace (rows start..end)."""
        return self.rec.trace()

    def build(self) -> dict[Pos, str]:
        """The current build: static state of every block (derived values left out)."""
        return self._static()

    def to_mcfunction(self) -> str:
        return self.world.to_mcfunction()

    def last_press(self, tick: int | None = None) -> int | None:
        """The latest press at or before `tick` (default: the end)."""
        t = self.end if tick is None else tick
        ps = [p for p in self.presses if p <= t]
        return ps[-1] if ps else None

    def evaluate(self):
        """The evaluator's verdict on the current build (it builds and runs its own copy)."""
        if self.task is None:
            raise ValueError("no task is loaded")
        from scicraft_viz.tasks.evaluator import evaluate

        build = self.build()
        for p in self._initial_blocks():
            build.setdefault(p, AIR)
        return evaluate(self.task, build, source="explorer build")

    def __repr__(self) -> str:
        return (f"Session(tick={self.tick}, recorded={self.start}..{self.end}, blocks={len(self.rec.layouts[-1])}, "
                f"task={self.task.id if self.task else None})")
