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

Speed: the initial world is copied from a template built once per task world, the build is placed
with one bulk `World.set_blocks` call, and when nothing is scheduled after settling the no-press
control run is read off the settled state instead of simulated. `evaluate_many(task, builds)` scores
a list of builds with the verdicts `evaluate` gives one by one; `scicraft_viz.tasks.batch` spreads
build files over processes or a Dask cluster.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scicraft_viz.engine.blocks import split_state
from scicraft_viz.errors import fmt_pos, list_positions
from scicraft_viz.tasks import Task

if TYPE_CHECKING:
    from scicraft_viz.engine.world import World

Pos = tuple[int, int, int]

_ATTACHED = ("redstone_wire", "redstone_repeater", "redstone_torch", "redstone_wall_torch", "stone_button", "lever")
_OPAQUE = ("stone", "redstone_lamp")  # full conductive blocks: they cut dust; glass does not
_DUST_LINKS = ("stone_button", "lever", "redstone_torch", "redstone_wall_torch", "redstone_block")
_PALETTE_ALIAS = {"redstone_wall_torch": "redstone_torch"}
_HDIRS = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}


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
    return sum(abs(p - q) for p, q in zip(a, b))


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
    key = json.dumps(task.doc["world"], sort_keys=True)
    tpl = _TEMPLATES.get(key)
    if tpl is None:
        from scicraft_viz.engine.world import World

        tpl = World.from_blocks(task.initial_blocks().items())  # task.initial_world(replay=False), in one call
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


def _order_key(item: tuple[int, tuple[Pos, str]]) -> tuple:
    num, (pos, state) = item
    return (1 if block_name(state) in _ATTACHED else 0, pos[1], num)


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


def _build(task: Task, build, source: str, warnings: list[str] | None) -> tuple[World, list[tuple[Pos, str]]]:
    """build_world, also returning the blocks placed."""
    from scicraft_viz.errors import PlacementError

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
    w = initial_world(task)
    # supports first, then by height; a stable sort keeps file order within those (as _order_key does)
    attached = {s: block_name(s) in _ATTACHED for s in set(last.values())}
    ordered = sorted(last.items(), key=lambda kv: (attached[kv[1]], kv[0][1]))
    # all at once, as set_block one by one would place them: a refused placement leaves its block out
    refused = w.set_blocks(ordered, skip_errors=True)
    for i, e in refused:
        pos, state = ordered[i]
        why = str(e).removeprefix(f"item {i}: ")
        if not isinstance(e, PlacementError):
            raise BuildError(f"{source}: {state} at {pos}: {why}")
        if warnings is not None:
            warnings.append(f"{block_name(state)} at {fmt_pos(pos)} was not placed: {why}")
    skip = {i for i, _ in refused}
    air = {s for s in attached if block_name(s) == "air"}
    return w, [item for i, item in enumerate(ordered) if i not in skip and item[1] not in air]


# ---------------------------------------------------------------------------------------- structure
def dust_connections(blocks: dict[Pos, str], pos: Pos) -> list[str]:
    """Sides on which the dust at pos connects (docs/redstone.md): to dust beside it or one block
    up (unless cut by an opaque block above) or down (unless the side block is opaque), to
    buttons, levers, torches and redstone blocks, and to a repeater's front or back."""
    x, y, z = pos
    above_opaque = block_name(blocks.get((x, y + 1, z))) in _OPAQUE
    sides = []
    for side, (dx, _, dz) in _HDIRS.items():
        q = (x + dx, y, z + dz)
        name, props = _parts(blocks.get(q, "minecraft:air"))
        if name == "redstone_wire" or name in _DUST_LINKS:
            sides.append(side)
        elif name == "redstone_repeater":
            fx, _, fz = _HDIRS.get(props.get("facing", "north"), (0, 0, 0))
            if (fx, fz) in ((dx, dz), (-dx, -dz)):
                sides.append(side)
        elif not above_opaque and block_name(blocks.get((x + dx, y + 1, z + dz))) == "redstone_wire":
            sides.append(side)
        elif name not in _OPAQUE and block_name(blocks.get((x + dx, y - 1, z + dz))) == "redstone_wire":
            sides.append(side)
    return sides


def t_junctions(blocks: dict[Pos, str], dust: Iterable[Pos] | None = None) -> list[Pos]:
    """Dust connected on three or four sides (fan-out nodes of the dust graph). `dust`: the dust
    positions, when known."""
    if dust is None:
        dust = [p for p, s in blocks.items() if block_name(s) == "redstone_wire"]
    return sorted(p for p in dust if len(dust_connections(blocks, p)) >= 3)




class _Units:
    def __init__(self, task: Task):
        self.task = task
        self.f = task.game_ticks_per_unit
        self.u = task.unit

    def v(self, gt: float | None):
        """A game-tick count in the task's unit (int when whole)."""
        if gt is None:
            return None
        x = gt / self.f
        return int(x) if float(x).is_integer() else round(x, 3)

    def s(self, gt: float) -> str:
        return f"{self.v(gt)} {self.u}"


def structural_checks(task: Task, blocks: dict[Pos, str],
                      by_state: dict[str, list[Pos]] | None = None) -> tuple[list[Check], dict]:
    """Palette, region, one button, N lamps, nothing on lamps, plus B/D geometry checks. `by_state`:
    the same blocks grouped by state (`World.blocks_by_state()`), when known."""
    checks: list[Check] = []
    info: dict[str, Any] = {}
    allowed = {b.removeprefix("minecraft:") for b in task.allowed_blocks}
    # the blocks grouped by state (few distinct ones) then by name: every check reads from it
    if by_state is None:
        by_state = {}
        for p, s in blocks.items():
            by_state.setdefault(s, []).append(p)
    by_name: dict[str, list[Pos]] = {}
    for s, ps in by_state.items():
        by_name.setdefault(block_name(s), []).extend(ps)
    by_name.pop("air", None)
    bad = sorted((p, n) for n, ps in by_name.items() if _PALETTE_ALIAS.get(n, n) not in allowed for p in ps)
    checks.append(Check(
        "palette", not bad,
        None if not bad else f"{len(bad)} block(s) not in the allowed palette: "
        + "; ".join(f"minecraft:{n} at {fmt_pos(p)}" for p, n in bad[:6])
        + (f" and {len(bad) - 6} more" if len(bad) > 6 else "")
        + f" (allowed: {', '.join(sorted(allowed - {'air'}))})",
        {"offending": [[list(p), n] for p, n in bad]}))

    (ax, ay, az), r = task.anchor, task.radius
    every = [p for ps in by_name.values() for p in ps]
    xs, ys, zs = zip(*every) if every else ((ax,), (ay,), (az,))
    inside = (ax - r <= min(xs) and max(xs) <= ax + r and ay - r <= min(ys) and max(ys) <= ay + r
              and az - r <= min(zs) and max(zs) <= az + r)  # the usual case, decided without a loop
    outside = [] if inside else sorted(p for p in every
                                       if abs(p[0] - ax) > r or abs(p[1] - ay) > r or abs(p[2] - az) > r)
    checks.append(Check(
        "region", not outside,
        None if not outside else f"{len(outside)} block(s) outside the radius-{task.radius} cube around the anchor "
        f"{fmt_pos(task.anchor)}: " + "; ".join(f"{block_name(blocks[p])} at {fmt_pos(p)}" for p in outside[:6]),
        {"outside": [list(p) for p in outside]}))

    buttons = sorted(by_name.get("stone_button", []))
    info["buttons"] = buttons
    checks.append(Check(
        "one_button", len(buttons) == 1,
        None if len(buttons) == 1 else (
            "there is no stone_button to press" if not buttons
            else f"{len(buttons)} stone_buttons at {list_positions(buttons)}; exactly one is allowed"),
        {"buttons": [list(p) for p in buttons]}))

    lamps = sorted(by_name.get("redstone_lamp", []))
    info["lamps"] = lamps
    n = task.n
    checks.append(Check(
        "lamp_count", len(lamps) == n,
        None if len(lamps) == n else f"{len(lamps)} redstone_lamps placed, the task needs exactly {n}",
        {"lamps": len(lamps), "required": n}))

    covered = [(p, (p[0], p[1] + 1, p[2])) for p in lamps if block_name(blocks.get((p[0], p[1] + 1, p[2]))) != "air"]
    checks.append(Check(
        "nothing_on_lamps", not covered,
        None if not covered else "; ".join(
            f"{block_name(blocks[q])} at {fmt_pos(q)} sits directly on top of the lamp at {fmt_pos(p)}"
            for p, q in covered[:6]) + (f" and {len(covered) - 6} more" if len(covered) > 6 else ""),
        {"covered_lamps": [list(p) for p, _ in covered]}))

    c = task.contract
    button = buttons[0] if len(buttons) == 1 else None
    if task.contract_type == "branch_reach":
        if c.get("require_t_junction", True):
            js = t_junctions(blocks, by_name.get("redstone_wire", []))
            info["t_junctions"] = js
            checks.append(Check(
                "t_junction", bool(js),
                None if js else "no redstone dust is connected on 3 or more sides: the wiring has no T-junction "
                "(fan-out node)", {"junctions": [list(p) for p in js]}))
        if button is not None:
            dists = [manhattan(button, p) for p in lamps]
            far = max(dists) if dists else 0
            need = c["max_reach_blocks"]
            checks.append(Check(
                "reach", far >= need,
                None if far >= need else f"the farthest lamp is {far} blocks (Manhattan) from the button; the task "
                f"requires a reach of at least {need}", {"max_reach": far, "required": need}))
            if c.get("require_off_axis", True):
                on_axis = [p for p in lamps if p[0] == button[0] or p[2] == button[2]]
                checks.append(Check(
                    "off_axis", not on_axis,
                    None if not on_axis else f"lamp(s) at {list_positions(on_axis)} share the button's x or z "
                    f"coordinate (button at {fmt_pos(button)}); every lamp must be off the button's axes",
                    {"on_axis": [list(p) for p in on_axis]}))
        if c.get("require_repeater"):
            reps = by_name.get("redstone_repeater", [])
            checks.append(Check(
                "repeater_used", bool(reps),
                None if reps else "no redstone_repeater is used; this level requires one", {"repeaters": len(reps)}))
    if task.contract_type == "equal_delay" and button is not None:
        targets = c["target_distances"]
        tol = c["distance_tolerance_blocks"]
        want = c["lamps_per_distance"]
        counts = [0] * len(targets)
        stray = []
        per_lamp = {}
        bx, by, bz = button
        for p in lamps:
            d = abs(p[0] - bx) + abs(p[1] - by) + abs(p[2] - bz)  # manhattan(button, p), inlined for 64+ lamps
            per_lamp[p] = d
            hit = next((i for i, t in enumerate(targets) if abs(d - t) <= tol), None)
            if hit is not None:
                counts[hit] += 1
            else:
                stray.append((p, d))
        problems = []
        if stray:
            problems.append("; ".join(f"lamp at {fmt_pos(p)} is {d} blocks from the button" for p, d in stray[:4])
                            + (f" and {len(stray) - 4} more" if len(stray) > 4 else "")
                            + f", not within +/-{tol} of any of {targets}")
        wrong = [(t, k, w) for t, k, w in zip(targets, counts, want) if k != w]
        if wrong:
            problems.append("; ".join(f"distance {t}: {k} lamp(s), expected {w}" for t, k, w in wrong))
        info["distances"] = per_lamp
        checks.append(Check(
            "distance_buckets", not problems, "; ".join(problems) or None,
            {"targets": targets, "counts": counts, "expected": want}))
    return checks, info


# ---------------------------------------------------------------------------------------- contract
def _idle(world: World) -> bool:
    """Nothing is scheduled, so however long the world runs unpressed, nothing changes."""
    from scicraft_viz.engine import kernels as sim

    return int(world.g.meta[sim.M_HEAP]) == 0


def _first(mask: np.ndarray) -> list[int | None]:
    """Per column, the first row where mask is true, or None."""
    hit = mask.any(axis=0)
    first = mask.argmax(axis=0)
    return [int(t) if h else None for t, h in zip(first.tolist(), hit.tolist())]


def lamp_times(lit: np.ndarray) -> tuple[list[int | None], list[int | None], list[int | None]]:
    """Per lamp (columns of `lit`, rows = game ticks after the press): first on-tick, first
    off-tick after it, and the first tick it lights again after that (all relative, or None)."""
    lit = np.asarray(lit, dtype=bool)
    rows = np.arange(lit.shape[0])[:, None]
    big = lit.shape[0] + 1  # "never", so that later searches start past the end
    ons = _first(lit)
    on_at = np.array([big if t is None else t for t in ons], dtype=np.int64)
    offs = _first(~lit & (rows >= on_at))
    off_at = np.array([big if t is None else t for t in offs], dtype=np.int64)
    again = _first(lit & (rows >= off_at))
    return ons, offs, again


def contract_checks(task: Task, positions: list[Pos], lit: np.ndarray) -> tuple[list[Check], dict]:
    """The family's temporal contract on a trace: `lit` is bool (T, L), row 0 = t_press."""
    U = _Units(task)
    c = task.contract
    tol = task.to_game(c.get("tolerance_ticks", 1))
    lit = np.asarray(lit, dtype=bool)
    ons, offs, again = lamp_times(lit)
    horizon = lit.shape[0] - 1
    measured: dict[str, Any] = {
        "lamps": [{"pos": list(p), "on": U.v(a), "off": U.v(b)} for p, a, b in zip(positions, ons, offs)],
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
        delays = [task.to_game(d) for d in c["delays_ticks"]]
        order = sorted(lit_ons)
        times = [t for t, _ in order]
        got = [b - a for a, b in zip(times, times[1:])]
        measured["delays"] = [U.v(g) for g in got]
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
                            {"expected": [U.v(d) for d in delays], "measured": measured["delays"],
                             "tolerance": U.v(tol)}))
    elif kind == "pulse":
        tau = task.to_game(c["tau_ticks"])
        win = task.to_game(c["on_window_ticks"])
        lo, hi = tau - tol, tau + tol
        widths = [None if a is None or b is None else b - a for a, b in zip(ons, offs)]
        measured["pulse_widths"] = [U.v(w) for w in widths]
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
    from scicraft_viz.engine.world import World

    warnings: list[str] = []
    popped = "{} at {} had no support and popped off"
    if isinstance(build, World):
        world = build.copy()
        world.step(task.settle_game_ticks)
        warnings += [popped.format(e.block.removeprefix("minecraft:"), fmt_pos(e.pos))
                     for e in world.events if e.kind == "popped"]
        by_state = world.blocks_by_state()
        blocks = {p: s for s, ps in by_state.items() for p in ps}
    else:
        world, placed = _build(task, build, source or "<build>", warnings)
        # Nothing reads this world's events, and a placed block can only vanish by popping off, so the
        # blocks themselves tell which popped; turning the log off spares converting every event.
        world.log_events = False
        world.step(task.settle_game_ticks)
        by_state = world.blocks_by_state()
        blocks = {p: s for s, ps in by_state.items() for p in ps}
        warnings += [popped.format(block_name(s), fmt_pos(p)) for p, s in placed if p not in blocks]
    if attempt is None:
        attempt = Attempt(task, used=trials_used)
    U = _Units(task)
    checks, info = structural_checks(task, blocks, by_state)
    measured: dict[str, Any] = {"unit": U.u}
    buttons = info["buttons"]
    # The budget limits the agent's verification trials (paper, Appendix D); the scoring press below
    # belongs to the evaluator and is not charged.
    budget_ok = attempt.used <= attempt.budget
    if len(buttons) != 1:
        checks += _skipped(task, "the build needs exactly one button to press")
    else:
        button = buttons[0]
        lamps = info["lamps"]
        lit_before = [p for p in lamps if _parts(blocks[p])[1].get("lit") == "true"]
        pressed = _parts(blocks[button])[1].get("powered") == "true"
        reason = None
        if lit_before:
            reason = (f"lamp(s) at {list_positions(lit_before)} were already lit before the press (after settling for "
                      f"{task.settle_game_ticks} game ticks)")
        elif pressed:
            reason = "the button was still pressed after settling"
        checks.append(Check("dark_before_press", reason is None, reason,
                            {"lit_before_press": [list(p) for p in lit_before]}))
        # control run: the same world, not pressed. A lamp that lights anyway is driven by something
        # other than the stimulus (a timer started at build time, a clock), not by the press.
        if _idle(world):  # nothing scheduled: the unpressed world stays as it is, lit lamps from row 0
            unprompted = [(p, 0) for p in lit_before]
        else:
            control = world.copy().record(task.record_game_ticks)
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
        tr = world.record(task.record_game_ticks)
        measured["t_press_game_tick"] = t_press
        cchecks, cmeasured = contract_checks(task, list(tr.lamp_positions), tr.lamp_lit)
        checks += cchecks
        measured.update(cmeasured)
        if task.contract_type == "branch_reach" and "t_junctions" in info:
            powered = []
            idx = {tuple(p): j for j, p in enumerate(tr.dust_positions)}
            for p in info["t_junctions"]:
                j = idx.get(tuple(p))
                if j is not None and tr.dust_power[:, j].max() > 0:
                    powered.append(p)
            ch = next(c for c in checks if c.name == "t_junction")
            ch.details["powered_junctions"] = [list(p) for p in powered]
            if ch.passed and not powered:
                ch.passed = False
                ch.reason = (f"the T-junction(s) at {list_positions(info['t_junctions'])} never carry power during the "
                             "test, so no branch is actually fed through a junction")
        if "distances" in info:
            for lamp in measured.get("lamps", []):
                lamp["distance"] = info["distances"].get(tuple(lamp["pos"]))
        if task.contract_type == "branch_reach":
            for lamp in measured.get("lamps", []):
                lamp["reach"] = manhattan(button, tuple(lamp["pos"]))
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
    Raises BuildError if it cannot be read or used."""
    from scicraft_viz.engine.formats import read_build
    from scicraft_viz.errors import InputError

    try:
        items = read_build(path)
    except InputError as e:
        raise BuildError(str(e)) from None
    return evaluate(task, items, source=str(path), attempt=attempt, trials_used=trials_used)
