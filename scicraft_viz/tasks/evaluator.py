"""The SciCrafter evaluator: apply the stimulus, record the trace, check the contract.

    >>> from scicraft_viz import tasks, evaluator
    >>> task = tasks.load("A_simultaneous_lights_L1")
    >>> result = evaluator.evaluate_file(task, "tasks/solutions/A_simultaneous_lights_L1.mcfunction")
    >>> result.passed, [c.name for c in result.checks if not c.passed]
    (True, [])

Procedure (paper Appendix A.1): the build is placed on the task's initial world (a stone floor)
as a player would place it (derived states recomputed, so the result does not depend on line
order); the world is left to settle (`harness.settle_game_ticks`; no lamp may be lit then); a
copy is recorded without any press (no lamp may light on its own); the single button is pressed
with `World.use` at tick t_press and `harness.record_game_ticks` game ticks are recorded. Lamp
on/off ticks come from the trace; the
family's temporal contract (eqs. 7-11) and the constraints are checked in game ticks and
reported in the task's unit. Every check is listed with pass/fail, its numbers and, when it
fails, a plain-language reason.

Speed (about 0.5-0.7 ms for a 64-lamp build): build text is read into arrays by a compiled scanner
(`mcfunction.read_setblocks`), deduplicated and ordered as arrays, and placed with one
`World.set_block_arrays` call on a copy of a template of the task's initial world; the structural
checks read the world's arrays (`structure.BlockTable`); the press records the lamps alone (plus the
T-junction dust of family B); and when nothing is scheduled after settling, the no-press control run
is read off the settled state instead of simulated. `evaluate_many(task, builds)` scores a list of
builds with the verdicts `evaluate` gives one by one; `scicraft_viz.tasks.batch` spreads build files
over processes or a Dask cluster.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scicraft_viz.engine.blocks import ATTACHED, is_attached, split_state
from scicraft_viz.errors import fmt_pos, list_positions
from scicraft_viz.tasks import Task
from scicraft_viz.tasks.structure import BlockTable, structural_checks
from scicraft_viz.tasks.structure import dust_connections as dust_connections  # the evaluator's API too
from scicraft_viz.tasks.structure import t_junctions as t_junctions

if TYPE_CHECKING:
    from scicraft_viz.engine.world import World

Pos = tuple[int, int, int]



class BuildError(ValueError):
    """A build that cannot be used at all (unparsable line, impossible block state, bad position)."""


class TrialBudgetExceeded(RuntimeError):
    """Every verification trial of the attempt has been used."""


def block_name(state: str | None) -> str:
    return "air" if state is None else _parts(state)[0]


_PARTS: dict[str, tuple[str, dict[str, str]]] = {}


def _parts(state: str) -> tuple[str, dict[str, str]]:
    """split_state, remembered: a build has few distinct states but many blocks. Read-only result."""
    got = _PARTS.get(state)
    if got is None:
        got = split_state(state)
        if len(_PARTS) < 8192:
            _PARTS[state] = got
    return got


def manhattan(a: Pos, b: Pos) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2])


# ---------------------------------------------------------------------------------------- results
@dataclass
class Check:
    """One verdict: `reason` says in plain words why it failed (None when it passed)."""

    name: str
    passed: bool
    reason: str | None = None
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "passed": self.passed, "reason": self.reason, "details": self.details}


@dataclass
class Result:
    task_id: str
    passed: bool
    checks: list[Check]
    measured: dict
    tick_unit: str
    trials: dict
    build: str | None = None
    warnings: list[str] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)

    def check(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def to_dict(self) -> dict:
        return {
            "task_id": self.task_id,
            "build": self.build,
            "passed": self.passed,
            "tick_unit": self.tick_unit,
            "checks": [c.to_dict() for c in self.checks],
            "metrics": self.metrics,
            "measured": self.measured,
            "trials": self.trials,
            "warnings": self.warnings,
        }

    def report(self) -> str:
        """A human-readable summary."""
        lines = [f"{self.task_id}: {'PASS' if self.passed else 'FAIL'}" + (f" ({self.build})" if self.build else "")]
        for c in self.checks:
            mark = "ok  " if c.passed else "FAIL"
            lines.append(f"  [{mark}] {c.name}" + (f": {c.reason}" if c.reason else ""))
        m = self.measured
        u = m.get("unit", self.tick_unit)
        if m.get("lamps"):
            ons = [x["on"] for x in m["lamps"] if x["on"] is not None]
            if ons:
                lines.append(f"  on-ticks after the press ({u}): min {min(ons)}, max {max(ons)}")
        for key in ("skew", "delays", "pulse_widths"):
            if m.get(key) is not None:
                val = m[key]
                if isinstance(val, list) and len(val) > 12:
                    val = f"{val[:12]} ... ({len(val)} values)"
                lines.append(f"  {key} ({u}): {val}")
        lines.append(f"  verification trials: {self.trials['used']} of {self.trials['budget']}")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------- trials
class Attempt:
    """Verification-trial accounting (paper Appendix D): every button press of an attempt counts
    against a budget (default: the task's `harness.trial_budget`, 50)."""

    def __init__(self, task: Task, budget: int | None = None, used: int = 0):
        self.task = task
        self.budget = task.trial_budget if budget is None else int(budget)
        if self.budget < 1:
            raise ValueError(f"trial budget must be at least 1, got {self.budget}")
        if used < 0:
            raise ValueError(f"trials used cannot be negative, got {used}")
        self.used = int(used)

    @property
    def remaining(self) -> int:
        return max(0, self.budget - self.used)

    def _spend(self) -> int:
        self.used += 1
        return self.used

    def press(self, world, pos: Pos | None = None) -> bool:
        """An exploration trial: press a button (the single one by default), counted."""
        if self.used >= self.budget:
            raise TrialBudgetExceeded(f"all {self.budget} verification trials of this attempt are used")
        if pos is None:
            buttons = [p for p, s in world.blocks().items() if block_name(s) == "stone_button"]
            if len(buttons) != 1:
                raise ValueError(f"expected exactly one button to press, found {len(buttons)}")
            pos = buttons[0]
        self._spend()
        return world.use(pos)

    def evaluate(self, build, source: str | None = None) -> Result:
        """Score the build. The evaluator's own test press is not one of the agent's trials."""
        return evaluate(self.task, build, source=source, attempt=self)

    def to_dict(self) -> dict:
        return {"used": self.used, "budget": self.budget, "remaining": self.remaining}


# ---------------------------------------------------------------------------------------- building
_TEMPLATES: dict[str, World] = {}
_TEMPLATES_LOCK = threading.Lock()
_TEMPLATES_MAX = 32


_BUILD_ROOM = 2048  # cells of headroom in a template world: well above an L5 reference build


def _template(task: Task) -> World:
    key = task.world_key
    tpl = _TEMPLATES.get(key)
    if tpl is None:
        from scicraft_viz.engine.world import World

        # task.initial_world(replay=False), in one call
        tpl = World.from_blocks(task.initial_blocks().items(), rules=task.rules)
        tpl._reserve_cells(_BUILD_ROOM)  # copies keep the room, so a typical build is placed without a regrid
        with _TEMPLATES_LOCK:
            while len(_TEMPLATES) >= _TEMPLATES_MAX:
                _TEMPLATES.pop(next(iter(_TEMPLATES)))
            _TEMPLATES[key] = tpl
    return tpl


def initial_world(task: Task) -> World:
    """The task's initial world (player placement), copied from a template built once per world spec.

    Building the floor block by block costs far more than copying its arrays, and every evaluation
    starts from the same floor."""
    tpl = _template(task)
    with _TEMPLATES_LOCK:  # copying moves the template's pending events into its history: one thread at a time
        return tpl.copy()


_SCRATCH = threading.local()  # per thread: {world key: the world its last evaluation used}


def _scratch_world(task: Task) -> World:
    """The task's initial world for an evaluation, in the arrays this thread's last evaluation of the
    same world used (copying into them beats allocating a copy); the world is the evaluation's alone."""
    tpl = _template(task)
    worlds = _SCRATCH.__dict__.setdefault("worlds", {})
    w = worlds.get(task.world_key)
    with _TEMPLATES_LOCK:
        if w is None or not w._become_copy_of(tpl):
            w = tpl.copy()
    if len(worlds) >= _TEMPLATES_MAX:
        worlds.clear()
    worlds[task.world_key] = w
    return w


def _order_key(item: tuple[int, tuple[Pos, str]]) -> tuple:
    """_order_of for an (index, (pos, state)) item of enumerate(): file order breaks ties."""
    num, pos_state = item
    return (*_order_of(pos_state), num)


def parse_build(build, source: str = "<build>") -> list[tuple[Pos, str]]:
    """A build as (pos, state) pairs in file order: .mcfunction text, a list of (pos, state) or a
    {pos: state} dict. Raises BuildError for text that cannot be parsed."""
    from scicraft_viz.engine.mcfunction import parse_mcfunction
    from scicraft_viz.errors import InputError

    if isinstance(build, str):
        try:
            return parse_mcfunction(build, source)
        except InputError as e:
            raise BuildError(str(e)) from None
        except Exception:  # a parser crash on odd input: name the first line it cannot take
            for num, line in enumerate(build.splitlines(), start=1):
                try:
                    parse_mcfunction(line, source)
                except Exception:
                    raise BuildError(f"{source}:{num}: expected 'setblock X Y Z STATE', got {line.strip()[:80]!r}") \
                        from None
            raise
    if isinstance(build, dict):
        return list(build.items())
    return list(build)


def build_world(task: Task, build, source: str = "<build>", warnings: list[str] | None = None) -> World:
    """The task's initial world with the build placed on it. `build` is .mcfunction text, a list
    of (pos, state) or a {pos: state} dict. Raises BuildError for unusable input.

    Blocks are placed as a player would place them (supports first, every derived property -
    lit, powered, dust shape and power - recomputed from the surroundings), so the state at the
    press does not depend on the order of the lines: /setblock order can leave a lamp unlit next
    to a powered block until some update reaches it, which a circuit must not rely on. A later
    line for the same position wins. A block without support (floating dust, a torch on air) is
    not placed - in the game it would pop off - and is reported in `warnings`."""
    return _build(task, build, source, warnings)[0]


def _build(task: Task, build, source: str, warnings: list[str] | None,
           scratch: bool = False) -> tuple[World, np.ndarray, np.ndarray, list[str]]:
    """build_world, also returning the blocks placed (not air): their positions (n, 3) and, for each,
    the index of its block name in a list of names. scratch: build in this thread's reusable world
    (for a caller that keeps no reference to it once done)."""
    from scicraft_viz.errors import PlacementError

    start = _scratch_world if scratch else initial_world
    if isinstance(build, str):  # text: read into arrays, deduplicated and ordered there
        from scicraft_viz.engine.mcfunction import read_setblocks
        from scicraft_viz.errors import InputError

        try:
            xyz, sid, states = read_setblocks(build, source)
        except InputError as e:
            raise BuildError(str(e)) from None
        names = [block_name(s) for s in states]
        xyz, sid = _last_wins(xyz, sid)
        # supports first, then by height; file order within those (as _order_key does)
        attached = np.array([n in ATTACHED for n in names], bool)[sid]
        order = np.lexsort((xyz[:, 1], attached)) if len(sid) else sid
        xyz, sid = xyz[order], sid[order]
        w = start(task)
        refused = w.set_block_arrays(xyz, sid, states, skip_errors=True)
        block_of = [(tuple(xyz[i].tolist()), states[sid[i]]) for i, _ in refused]
    else:
        items = parse_build(build, source)
        try:
            last: dict[Pos, str] = dict(items)  # the usual case: tuple positions, each given once
        except (TypeError, ValueError):  # list positions, or items that are not pairs: the loop below
            last = {}
        if len(last) != len(items):  # a later line for a position wins, and takes that later place in the order
            last = {}
            for pos, state in items:
                last.pop(tuple(pos), None)
                last[tuple(pos)] = state
        w = start(task)
        ordered = sorted(last.items(), key=_order_of)
        # all at once, as set_block one by one would place them: a refused placement leaves its block out
        refused = w.set_blocks(ordered, skip_errors=True)
        block_of = [ordered[i] for i, _ in refused]
    for (i, e), (pos, state) in zip(refused, block_of):
        why = str(e).removeprefix(f"item {i}: ")
        if not isinstance(e, PlacementError):
            raise BuildError(f"{source}: {state} at {pos}: {why}")
        if warnings is not None:
            warnings.append(f"{block_name(state)} at {fmt_pos(pos)} was not placed: {why}")
    if not isinstance(build, str):  # every item is now known to be a valid position and state
        from scicraft_viz.engine.world import check_pos

        index: dict[str, int] = {}
        sid = np.array([index.setdefault(st, len(index)) for _, st in ordered], np.int64)
        names = [block_name(st) for st in index]
        xyz = np.array([check_pos(p) for p, _ in ordered], np.int64).reshape(-1, 3)
    keep = np.ones(len(sid), bool)
    keep[[i for i, _ in refused]] = False
    keep &= np.array([n != "air" for n in names], bool)[sid] if len(sid) else keep
    return w, xyz[keep], sid[keep], names


def _order_of(item: tuple) -> tuple[bool, int]:
    """Placement order of a (pos, state) item: supports first, then by height (file order within)."""
    pos, state = item
    y = pos[1] if isinstance(pos, tuple) and len(pos) == 3 and isinstance(pos[1], (int, np.integer)) else 0
    return isinstance(state, str) and is_attached(state), y


def _last_wins(xyz: np.ndarray, sid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows in file order with only the last row for each position (a later line for a position wins,
    and takes that later place in the order)."""
    if len(sid) < 2:
        return xyz, sid
    lo = int(xyz.min())
    span = int(xyz.max()) - lo + 1
    if span < 2**20:  # one int64 key per position (always, but for builds millions of blocks across)
        d = xyz - lo
        key = (d[:, 0] * span + d[:, 1]) * span + d[:, 2]
        order = np.argsort(key, kind="stable")
        k = key[order]
        later_same = np.zeros(len(sid), bool)
        later_same[:-1] = k[1:] == k[:-1]
    else:
        order = np.lexsort((xyz[:, 2], xyz[:, 1], xyz[:, 0]))  # stable: file order within a position
        p = xyz[order]
        later_same = np.zeros(len(sid), bool)
        later_same[:-1] = (p[1:] == p[:-1]).all(axis=1)
    if not later_same.any():
        return xyz, sid
    keep = np.ones(len(sid), bool)
    keep[order[later_same]] = False
    return xyz[keep], sid[keep]


# ---------------------------------------------------------------------------------------- structure
class _Units:
    def __init__(self, task: Task):
        self.task = task
        self.f = task.game_ticks_per_unit
        self.u = task.unit
        self._seen = _IN_UNIT.setdefault(self.f, {})

    def v(self, gt: float | None):
        """A game-tick count in the task's unit (int when whole)."""
        if gt is None:
            return None
        got = self._seen.get(gt)
        if got is None:
            x = gt / self.f
            got = int(x) if float(x).is_integer() else round(x, 3)
            if len(self._seen) < 65536:
                self._seen[gt] = got
        return got

    def s(self, gt: float) -> str:
        return f"{self.v(gt)} {self.u}"


_IN_UNIT: dict[int, dict] = {}  # per game ticks per unit: tick counts already converted (a few hundred)


# ---------------------------------------------------------------------------------------- contract
def _idle(world: World) -> bool:
    """Nothing is scheduled, so however long the world runs unpressed, nothing changes."""
    from scicraft_viz.engine import kernels as sim

    return int(world.g.meta[sim.M_HEAP]) == 0


def lamp_times(lit: np.ndarray) -> tuple[list[int | None], list[int | None], list[int | None]]:
    """Per lamp (columns of `lit`, rows = game ticks after the press): first on-tick, first
    off-tick after it, and the first tick it lights again after that (all relative, or None)."""
    from scicraft_viz.engine.trace import lamp_transitions

    ons, offs, again = ([None if t < 0 else t for t in row] for row in lamp_transitions(lit).tolist())
    return ons, offs, again


def contract_checks(task: Task, positions: list[Pos], lit: np.ndarray) -> tuple[list[Check], dict]:
    """The family's temporal contract on a trace: `lit` is bool (T, L), row 0 = t_press."""
    U = _Units(task)
    c = task.contract
    tol = task.to_game(c.get("tolerance_ticks", 1))
    lit = np.asarray(lit, dtype=bool)
    ons, offs, again = lamp_times(lit)
    horizon = lit.shape[0] - 1
    v = U.v
    measured: dict[str, Any] = {
        "lamps": [{"pos": list(p), "on": v(a), "off": v(b)} for p, a, b in zip(positions, ons, offs)],
        "record_length": U.v(horizon),
    }
    checks: list[Check] = []
    never = [p for p, t in zip(positions, ons) if t is None]
    if not positions:
        checks.append(Check("all_lamps_activate", False, "there are no lamps to observe"))
    else:
        checks.append(Check(
            "all_lamps_activate", not never,
            None if not never else f"{len(never)} of {len(positions)} lamp(s) never turned on within "
            f"{U.s(horizon)} after the press: {list_positions(never)}",
            {"never_on": [list(p) for p in never]}))
    lit_ons = [(t, p) for p, t in zip(positions, ons) if t is not None]
    kind = task.contract_type
    if kind in ("simultaneity", "branch_reach", "equal_delay"):
        if lit_ons:
            (t0, p0), (t1, p1) = min(lit_ons), max(lit_ons)
            skew = t1 - t0
            measured["skew"] = U.v(skew)
        ok = bool(lit_ons) and not never and skew <= tol
        if not lit_ons:
            reason = "no lamp turned on, so no skew can be measured"
        elif never:
            reason = f"not all lamps turned on ({len(never)} never did), so they are not simultaneous"
        elif skew > tol:
            reason = (f"lamps turned on {U.s(skew)} apart: the lamp at {fmt_pos(p0)} at +{U.s(t0)} and the lamp at "
                      f"{fmt_pos(p1)} at +{U.s(t1)}; the allowed skew is {U.s(tol)}")
        else:
            reason = None
        checks.append(Check("simultaneity", ok, reason,
                            {"skew": measured.get("skew"), "tolerance": U.v(tol)}))
    elif kind == "sequential":
        delays = [d * U.f for d in c["delays_ticks"]]  # task.to_game
        order = sorted(lit_ons)
        times = [t for t, _ in order]
        got = [b - a for a, b in zip(times, times[1:])]
        measured["delays"] = [v(g) for g in got]
        measured["order"] = [list(p) for _, p in order]
        problems = []
        for i, (g, d) in enumerate(zip(got, delays)):
            if abs(g - d) > tol:
                problems.append(
                    f"stage {i + 1}->{i + 2} (lamp {fmt_pos(order[i][1])} at +{U.s(order[i][0])} -> lamp "
                    f"{fmt_pos(order[i + 1][1])} at +{U.s(order[i + 1][0])}): delay {U.s(g)}, expected {U.s(d)} "
                    f"+/- {U.s(tol)}")
        if never or len(order) < len(delays) + 1:
            missing = len(delays) + 1 - len(order)
            problems.insert(0, f"only {len(order)} of {len(delays) + 1} stages lit"
                            + (f" ({missing} lamp(s) never turned on)" if missing > 0 else ""))
        reason = None
        if problems:
            reason = "; ".join(problems[:4]) + (f"; and {len(problems) - 4} more" if len(problems) > 4 else "")
        checks.append(Check("sequence", not problems, reason,
                            {"expected": [v(d) for d in delays], "measured": measured["delays"],
                             "tolerance": U.v(tol)}))
    elif kind == "pulse":
        tau = task.to_game(c["tau_ticks"])
        win = task.to_game(c["on_window_ticks"])
        lo, hi = tau - tol, tau + tol
        widths = [None if a is None or b is None else b - a for a, b in zip(ons, offs)]
        measured["pulse_widths"] = [v(w) for w in widths]
        bad_on = [(p, t) for p, t in zip(positions, ons) if t is not None and not 0 <= t <= win]
        checks.append(Check(
            "pulse_on_window", bool(lit_ons) and not never and not bad_on,
            None if (lit_ons and not never and not bad_on) else (
                "; ".join(f"lamp at {fmt_pos(p)} turned on at +{U.s(t)}" for p, t in bad_on[:4])
                + f" (must turn on within [0, {U.v(win)}] {U.u} of the press)" if bad_on
                else "not every lamp turned on"),
            {"window": [0, U.v(win)]}))
        bad_off = []
        for p, a, b in zip(positions, ons, offs):
            if a is None:
                continue
            if b is None:
                bad_off.append(f"lamp at {fmt_pos(p)} was still lit at the end of the recording (+{U.s(horizon)})")
            elif not lo <= b <= hi:
                bad_off.append(f"lamp at {fmt_pos(p)} went dark at +{U.s(b)} (lit for {U.s(b - a)})")
        ok_off = bool(lit_ons) and not never and not bad_off
        checks.append(Check(
            "pulse_off_window", ok_off,
            None if ok_off else ("; ".join(bad_off[:4]) + (f"; and {len(bad_off) - 4} more" if len(bad_off) > 4
                                                           else "")
                                 + f"; it must go dark within [{U.v(lo)}, {U.v(hi)}] {U.u} after the press (tau="
                                 f"{c['tau_ticks']} +/- {c.get('tolerance_ticks', 1)})" if bad_off
                                 else "not every lamp turned on"),
            {"window": [U.v(lo), U.v(hi)], "tau": c["tau_ticks"]}))
        relit = [(p, t) for p, t in zip(positions, again) if t is not None]
        checks.append(Check(
            "single_pulse", not relit,
            None if not relit else "; ".join(f"lamp at {fmt_pos(p)} lit again at +{U.s(t)}" for p, t in relit[:4])
            + " after its pulse ended (one pulse per press is required)",
            {"relit": [[list(p), U.v(t)] for p, t in relit]}))
    return checks, measured


# ---------------------------------------------------------------------------------------- evaluation
_METRIC_CHECKS = {
    "verify_all_lamps_activated": ["all_lamps_activate"],
    "verify_max_skew_within": ["simultaneity"],
    "verify_sequence_with_delays": ["sequence", "all_lamps_activate"],
    "verify_pulse_window": ["pulse_on_window", "pulse_off_window", "single_pulse"],
    "verify_t_junction": ["t_junction"],
    "verify_branch_reach": ["reach", "off_axis", "repeater_used"],
    "verify_distance_buckets": ["distance_buckets"],
    "verify_constraints": ["palette", "region", "one_button", "lamp_count", "nothing_on_lamps", "dark_before_press",
                           "no_response_without_press"],
}


def _skipped(task: Task, why: str) -> list[Check]:
    names = ["dark_before_press", "no_response_without_press", "all_lamps_activate"]
    names += {"simultaneity": ["simultaneity"], "branch_reach": ["simultaneity"],
              "equal_delay": ["simultaneity"], "sequential": ["sequence"],
              "pulse": ["pulse_on_window", "pulse_off_window", "single_pulse"]}[task.contract_type]
    return [Check(n, False, f"not run: {why}") for n in names]


def evaluate(task: Task, build, *, source: str | None = None, attempt: Attempt | None = None,
             trials_used: int = 0) -> Result:
    """Evaluate a build (World, .mcfunction text, list or dict of (pos, state)) against a task.

    Raises BuildError when the build cannot be used at all."""
    from scicraft_viz.engine import kernels as sim
    from scicraft_viz.engine.world import EVENT_HISTORY, World

    warnings: list[str] = []
    popped = "{} at {} had no support and popped off"
    if isinstance(build, World):
        if build.rules != task.rules:
            raise BuildError(f"the build's world runs under the ruleset {build.rules.name}, the task under "
                             f"{task.rules.name}: build it with World(rules=task.rules)")
        world = build.copy()
        world.step(task.settle_game_ticks)
        # every pop the world remembers (world.events), picked out before decoding: a long history of
        # presses costs nothing here
        kept = max(0, world.events_total - EVENT_HISTORY)
        warnings += [popped.format(e.block.removeprefix("minecraft:"), fmt_pos(e.pos))
                     for e in world.events_since(kept, kind="popped")]
    else:
        world, placed_xyz, placed_name, names = _build(task, build, source or "<build>", warnings, scratch=True)
        # Nothing reads this world's events, and a placed block can only vanish by popping off, so the
        # blocks themselves tell which popped; turning the log off spares converting every event.
        world.log_events = False
        world.step(task.settle_game_ticks)
        gone = np.nonzero(world.g.U[world._cells(placed_xyz), sim.BT] == 0)[0].tolist()
        warnings += [popped.format(names[placed_name[i]], fmt_pos(tuple(placed_xyz[i].tolist()))) for i in gone]
    if attempt is None:
        attempt = Attempt(task, used=trials_used)
    U = _Units(task)
    checks, info = structural_checks(task, BlockTable.of_world(world))
    measured: dict[str, Any] = {"unit": U.u}
    buttons = info["buttons"]
    # The budget limits the agent's verification trials (paper, Appendix D); the scoring press below
    # belongs to the evaluator and is not charged.
    budget_ok = attempt.used <= attempt.budget
    if len(buttons) != 1:
        checks += _skipped(task, "the build needs exactly one button to press")
    else:
        button = buttons[0]
        lit_before = [p for p, lit in zip(info["lamps"], info["lamps_lit"]) if lit]
        reason = None
        if lit_before:
            reason = (f"lamp(s) at {list_positions(lit_before)} were already lit before the press (after settling for "
                      f"{task.settle_game_ticks} game ticks)")
        elif info["button_pressed"]:
            reason = "the button was still pressed after settling"
        checks.append(Check("dark_before_press", reason is None, reason,
                            {"lit_before_press": [list(p) for p in lit_before]}))
        # control run: the same world, not pressed. A lamp that lights anyway is driven by something
        # other than the stimulus (a timer started at build time, a clock), not by the press.
        if _idle(world):  # nothing scheduled: the unpressed world stays as it is, lit lamps from row 0
            unprompted = [(p, 0) for p in lit_before]
        else:
            control = world.copy().record(task.record_game_ticks, lamps_only=True)
            ctrl_ons, _, _ = lamp_times(control.lamp_lit)
            unprompted = [(p, t) for p, t in zip(control.lamp_positions, ctrl_ons) if t is not None]
        checks.append(Check(
            "no_response_without_press", not unprompted,
            None if not unprompted else "without pressing the button, lamp(s) "
            + ", ".join(f"{fmt_pos(p)} (at +{U.s(t)})" for p, t in unprompted[:4])
            + (f" and {len(unprompted) - 4} more" if len(unprompted) > 4 else "")
            + " turned on anyway: the circuit must respond to the press, not run on its own",
            {"lit_without_press": [[list(p), U.v(t)] for p, t in unprompted]}))
        t_press = world.tick
        world.use(button)
        # only what the verdict reads: the lamps, and the dust at T-junctions (family B)
        tr = world.record(task.record_game_ticks, lamps_only=True, dust=info.get("t_junctions", ()))
        measured["t_press_game_tick"] = t_press
        cchecks, cmeasured = contract_checks(task, list(tr.lamp_positions), tr.lamp_lit)
        checks += cchecks
        measured.update(cmeasured)
        if task.contract_type == "branch_reach" and "t_junctions" in info:
            ever = dict(zip(tr.dust_positions, (tr.dust_power.max(axis=0) > 0).tolist())) if len(tr) else {}
            powered = [p for p in info["t_junctions"] if ever.get(p)]
            ch = next(c for c in checks if c.name == "t_junction")
            ch.details["powered_junctions"] = [list(p) for p in powered]
            if ch.passed and not powered:
                ch.passed = False
                ch.reason = (f"the T-junction(s) at {list_positions(info['t_junctions'])} never carry power during the "
                             "test, so no branch is actually fed through a junction")
        if "distances" in info:
            for p, lamp in zip(tr.lamp_positions, measured["lamps"]):
                lamp["distance"] = info["distances"].get(p)
        if task.contract_type == "branch_reach":
            for p, lamp in zip(tr.lamp_positions, measured["lamps"]):
                lamp["reach"] = manhattan(button, p)
    checks.append(Check(
        "trial_budget", budget_ok,
        None if budget_ok else f"the attempt used {attempt.used} verification trials, more than its budget of "
        f"{attempt.budget}", attempt.to_dict()))
    metrics = {}
    by_name = {c.name: c for c in checks}
    for mname, m in task.doc["evaluation_metrics"].items():
        names = [n for n in _METRIC_CHECKS[m["check_method"]] if n in by_name]
        metrics[mname] = {"passed": all(by_name[n].passed for n in names), "weight": m["weight"],
                          "checks": names}
    return Result(
        task_id=task.id,
        passed=all(c.passed for c in checks),
        checks=checks,
        measured=measured,
        tick_unit=task.tick_unit,
        trials=attempt.to_dict(),
        build=source,
        warnings=warnings,
        metrics=metrics,
    )


def evaluate_many(task: Task, builds: Iterable, *, sources: Iterable[str | None] | None = None,
                  trials_used: int = 0, errors: str = "raise") -> list[Result | BuildError]:
    """Evaluate many builds against one task, in order, with the verdicts `evaluate` gives one by one.

    `builds` holds anything `evaluate` takes; `sources` names them in the results. With
    errors="raise" the first unusable build raises its BuildError; with errors="keep" the error
    takes that build's place in the list and the others are still evaluated."""
    if errors not in ("raise", "keep"):
        raise ValueError(f"errors must be 'raise' or 'keep', got {errors!r}")
    builds = list(builds)
    names = [None] * len(builds) if sources is None else list(sources)
    if len(names) != len(builds):
        raise ValueError(f"{len(builds)} builds but {len(names)} sources")
    out: list[Result | BuildError] = []
    for build, name in zip(builds, names):
        try:
            out.append(evaluate(task, build, source=name, trials_used=trials_used))
        except BuildError as e:
            if errors == "raise":
                raise
            out.append(e)
    return out


def evaluate_file(task: Task, path: str | Path, *, attempt: Attempt | None = None, trials_used: int = 0) -> Result:
    """Evaluate a build file (.mcfunction, .litematic or .schem, read by engine.formats.read_build).
    Raises BuildError if it cannot be read or used. Messages and the result name the file as
    safeio.shown prints it (one line, control characters escaped)."""
    from scicraft_viz.engine.formats import build_text, decode_build, read_file_bytes
    from scicraft_viz.errors import InputError
    from scicraft_viz.safeio import shown

    source = shown(os.fspath(path))  # the name as messages and reports print it: one line, escaped
    try:
        data = read_file_bytes(path)
        # setblock text goes to evaluate as text, which reads it straight into arrays
        build = build_text(data, None, source)
        if build is None:
            build = decode_build(data, None, source)
    except InputError as e:
        raise BuildError(str(e)) from None
    return evaluate(task, build, source=source, attempt=attempt, trials_used=trials_used)
