"""Replay of a recorded trajectory: the world after every step, per-step badges, the block diff
between consecutive verification trials, each trial's lamp timeline against the task contract,
and a tick-for-tick comparison of every recorded result with the one the replay produces.

    >>> from scicraft_viz import trajectory, replay
    >>> rp = replay.Replay(trajectory.read("trajectories/backwards_repeaters_fixed.jsonl"))
    >>> rp.matches, [s.badge for s in rp.steps][:3]
    (True, ['ok', 'ok', 'ok'])
    >>> [t.lit for t in rp.trials]
    [8, 32]
    >>> sorted(rp.trial_diff(2).changed)     # the repeaters turned around between the two trials
    [(-4, 4, 0), (0, 4, -4), (0, 4, 4), (4, 4, 0)]

The replay feeds the recorded calls, in order, into a fresh `SciCraftEnv` built with the
header's settings (the /setblock-faithful world: floating blocks pop as in Minecraft). It never
raises for a bad trajectory: problems of the file and mismatches are collected and reported.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scicraft_viz.engine.blocks import static_state
from scicraft_viz.env.environment import SciCraftEnv, TrialRecord
from scicraft_viz.env.trajectory import Problem, Trajectory

Pos = tuple[int, int, int]
BADGES = ("ok", "rejected", "popped", "mismatch")
# Properties a builder chooses; the rest (power, lit, powered, locked, dust sides) the world derives.
CHECKPOINT = 32
# Trials whose full trace and build a replay holds at once (the most recently used); any other is
# rebuilt on demand by replaying the calls up to its press, so memory does not grow with the budget.
FULL_TRIALS = 16
# A render-view picture kept beside a trajectory (at most 1024 x 1024 RGB; a PNG is far smaller than raw).
MAX_PNG_BYTES = 8 * 2**20


@dataclass
class BuildDiff:
    """What was built differently between two moments: added, removed and changed blocks."""

    added: dict[Pos, str] = field(default_factory=dict)
    removed: dict[Pos, str] = field(default_factory=dict)
    changed: dict[Pos, tuple[str, str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    @property
    def positions(self) -> list[Pos]:
        return sorted({*self.added, *self.removed, *self.changed})

    def summary(self) -> str:
        if self.empty:
            return "no change"
        parts = []
        if self.added:
            parts.append(f"{len(self.added)} added")
        if self.removed:
            parts.append(f"{len(self.removed)} removed")
        if self.changed:
            parts.append(f"{len(self.changed)} changed")
        return ", ".join(parts)


def build_diff(before: dict[Pos, str], after: dict[Pos, str]) -> BuildDiff:
    a = {p: static_state(s) for p, s in before.items()}
    b = {p: static_state(s) for p, s in after.items()}
    d = BuildDiff()
    for p in sorted(set(a) | set(b)):
        if p not in a:
            d.added[p] = b[p]
        elif p not in b:
            d.removed[p] = a[p]
        elif a[p] != b[p]:
            d.changed[p] = (a[p], b[p])
    return d


@dataclass
class ReplayStep:
    """One replayed call: the recorded and the replayed result, and what the step did."""

    index: int
    line: int
    tool: str
    args: dict
    recorded: dict
    replayed: dict
    tick: int
    popped: list[Pos]
    changes: dict[Pos, str | None]
    mismatch: str | None = None
    trial: int | None = None
    agent: str = "engineer"

    @property
    def ok(self) -> bool:
        return bool(self.replayed.get("ok"))

    @property
    def match(self) -> bool:
        return self.mismatch is None

    @property
    def badge(self) -> str:
        """ok, rejected (the env refused the call) or popped (a block fell off during the step)."""
        if not self.ok:
            return "rejected"
        if self.popped:
            return "popped"
        return "ok"

    def describe(self) -> str:
        a = self.args
        if self.tool == "set-block":
            what = f"set-block {tuple(a.get('pos', ()))} {a.get('block', '')}"
        elif self.tool == "get-block-state":
            what = f"get-block-state {tuple(a.get('pos', ()))}"
        elif self.tool == "activate-button" and self.trial:
            what = f"activate-button (trial {self.trial})"
        else:
            what = self.tool
        tail = ""
        if not self.ok:
            tail = f" -> rejected: {self.replayed.get('error', '')}"
        elif self.popped:
            tail = f" -> popped off: {', '.join(map(str, self.popped))}"
        who = "scientist: " if self.agent == "scientist" else ""
        return f"#{self.index} {who}{what}{tail}"


@dataclass
class TrialView:
    """One verification trial: the lamp timeline against the contract (the verdict is for the
    viewer; the agent never saw it), and its full trace and the build at the press (`trace`,
    `build`: held for the most recent trials, rebuilt on demand for the others)."""

    number: int
    step: int
    press_tick: int
    button: Pos
    checks: list
    measured: dict
    lamps: list[Pos]
    lit: int
    first_on: list[int | None]
    position: int = 0
    replay: Any = field(default=None, repr=False, compare=False)
    agent: str = "engineer"

    @property
    def trace(self):
        return self.replay._full(self).trace

    @property
    def build(self) -> dict[Pos, str]:
        return self.replay._full(self).build

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def on_ticks(self) -> list[int | None]:
        """First lit game tick of each lamp relative to the press (None: never)."""
        return list(self.first_on)


class Replay:
    """Replay `traj` on its task (or `task`). Attributes: `steps` (ReplayStep), `trials`
    (TrialView), `problems` (file problems plus anything that stopped the replay)."""

    def __init__(self, traj: Trajectory, task=None):
        self.trajectory = traj
        self.problems: list[Problem] = list(traj.problems)
        self.steps: list[ReplayStep] = []
        self.trials: list[TrialView] = []
        self.task = task
        self.env: SciCraftEnv | None = None
        self._initial: dict[Pos, str] = {}
        self._checkpoints: dict[int, dict[Pos, str]] = {}
        self._held: OrderedDict[int, TrialRecord] = OrderedDict()
        if self.task is not None and traj.header and "rules" in traj.header:
            self.task = self.task.with_rules(traj.rules)  # the run's ruleset, so the replay is exact
        if self.task is None:
            try:
                self.task = traj.task()
            except Exception as e:  # an unusable task is reported, the viewer keeps going
                self.problems.append(Problem(traj.source, 1 if traj.header else None,
                                             f"cannot replay: {str(e).splitlines()[0][:200]}"))
                return
        try:
            self.env = self._fresh_env()
        except (ValueError, TypeError) as e:
            self.problems.append(Problem(traj.source, 1, f"cannot replay: the header's env settings are unusable: "
                                                         f"{e}"))
            return
        self._run()

    def _fresh_env(self) -> SciCraftEnv:
        t = self.trajectory
        return SciCraftEnv.from_settings(self.task, t.env_settings, budget=t.budget, keep_trials=1,
                                         condition=t.condition, setting=t.setting, consolidation=t.consolidation,
                                         book=t.book_in, observation=t.observation)

    # ------------------------------------------------------------------ running
    def _run(self) -> None:
        env = self.env
        prev = env.world.blocks()
        self._initial = dict(prev)
        self._checkpoints[-1] = dict(prev)
        for s in self.trajectory.steps:
            before_total = env.world.events_total
            trials_before = env.trials_used
            agent = env.agent
            new = env.call(s.tool, s.args)
            popped = [tuple(e.pos) for e in env.world.events_since(before_total) if e.kind == "popped"]
            if s.tool in ("set-block", "activate-button") and new.get("ok"):
                now = env.world.blocks()
                changes = {p: now.get(p) for p in set(prev) | set(now) if prev.get(p) != now.get(p)}
                prev = now
            else:
                changes = {}
            mismatch = _compare(s.result, new)
            if mismatch is None and s.agent != agent:
                mismatch = f"recorded as the {s.agent}'s call, but in the replay it is the {agent}'s turn"
            if mismatch is None and s.tool == "render-view" and new.get("ok"):
                mismatch = self._check_pictures(s.result)
            rs = ReplayStep(s.index, s.line, s.tool, s.args, s.result, new, env.here.tick, popped, changes,
                            mismatch, agent=agent)
            if env.trials_used > trials_before:
                rs.trial = env.trials[-1].number
                self.trials.append(self._trial_view(env.trials[-1], s.index, len(self.steps)))
            self.steps.append(rs)
            if len(self.steps) % CHECKPOINT == 0:
                self._checkpoints[len(self.steps) - 1] = dict(prev)

    def _check_pictures(self, recorded: dict) -> str | None:
        """The PNGs kept beside the trajectory for a render-view step (where there are any) must hold the
        pixels their step names: the replay has just re-rendered the view and found the same hash."""
        from pathlib import Path

        from scicraft_viz.env.environment import images_dir

        if not Path(self.trajectory.source).is_file():
            return None
        folder = images_dir(self.trajectory.source)
        for key in ("image", "timeline"):
            sha = (recorded.get(key) or {}).get("sha256")
            if not isinstance(sha, str):
                continue
            f = folder / f"{sha}.png"
            if not f.is_file():
                continue  # a trajectory copied without its pictures: the re-render stands in for them
            problem = _png_pixels(f)
            if problem:
                return f"result.{key}: the picture {f} beside the trajectory {problem}"
        return None

    def _trial_view(self, rec: TrialRecord, step: int, position: int) -> TrialView:
        from scicraft_viz.tasks.evaluator import contract_checks

        tr = rec.trace
        lit = np.asarray(tr.lamp_lit, dtype=bool)
        checks, measured = contract_checks(self.task, list(tr.lamp_positions), lit)
        first = [int(h[0]) if h.size else None for h in (np.flatnonzero(lit[:, j]) for j in range(lit.shape[1]))] \
            if lit.ndim == 2 else []
        self._hold(rec)
        return TrialView(rec.number, step, rec.press_tick, rec.button, checks, measured, list(tr.lamp_positions),
                         sum(v is not None for v in first), first, position, self, rec.agent)

    def _hold(self, rec: TrialRecord) -> None:
        self._held[rec.number] = rec
        self._held.move_to_end(rec.number)
        while len(self._held) > FULL_TRIALS:
            self._held.popitem(last=False)

    def _full(self, tv: TrialView) -> TrialRecord:
        """A trial's full record: held, or rebuilt by replaying the calls up to its press."""
        rec = self._held.get(tv.number)
        if rec is None:
            env = self._fresh_env()
            for s in self.trajectory.steps[: tv.position + 1]:
                env.call(s.tool, s.args)
            rec = env.trials[-1]
        self._hold(rec)
        return rec

    # ------------------------------------------------------------------ queries
    @property
    def matches(self) -> bool:
        """Every replayed result equals the recorded one (and the file had no problems)."""
        return not self.problems and all(s.match for s in self.steps)

    @property
    def mismatches(self) -> list[ReplayStep]:
        return [s for s in self.steps if not s.match]

    def blocks_at(self, i: int) -> dict[Pos, str]:
        """Every block after step position i (0-based position in `steps`; -1 = before any step)."""
        if i < -1 or i >= len(self.steps):
            raise IndexError(f"step position {i} is out of range -1..{len(self.steps) - 1}")
        base = max(k for k in self._checkpoints if k <= i)
        blocks = dict(self._checkpoints[base])
        for s in self.steps[base + 1: i + 1]:
            for p, st in s.changes.items():
                if st is None:
                    blocks.pop(p, None)
                else:
                    blocks[p] = st
        return blocks

    def build_at(self, i: int) -> dict[Pos, str]:
        """Only what the run built (the task's initial floor left out), after step position i."""
        init = self._initial
        return {p: s for p, s in self.blocks_at(i).items() if init.get(p) != s}

    def trial_diff(self, number: int) -> BuildDiff:
        """Blocks built differently at trial `number` than at the previous trial (or than the
        initial world for trial 1)."""
        if not 1 <= number <= len(self.trials):
            raise IndexError(f"trial {number} does not exist (this run has {len(self.trials)})")
        after = self.trials[number - 1].build
        before = self.trials[number - 2].build if number > 1 else self._initial
        return build_diff(before, after)

    def final_world(self):
        return None if self.env is None else self.env.world

    def badges(self) -> dict[str, int]:
        out = {b: 0 for b in BADGES}
        for s in self.steps:
            out[s.badge] += 1
            if not s.match:
                out["mismatch"] += 1
        return out

    def report(self) -> str:
        t = self.trajectory
        lines = [f"{t.source}: task {self.task.id if self.task else '?'}, {len(self.steps)} step(s) replayed, "
                 f"{len(self.trials)} trial(s)"]
        b = self.badges()
        lines.append("  badges: " + ", ".join(f"{k} {v}" for k, v in b.items()))
        for tv in self.trials:
            verdict = "meets the contract" if tv.passed else "fails the contract"
            lines.append(f"  trial {tv.number} (step {tv.step}): {tv.lit}/{len(tv.lamps)} lamps lit, {verdict}")
        for s in self.mismatches[:10]:
            lines.append(f"  MISMATCH {t.source}:{s.line} step {s.index} ({s.tool}): {s.mismatch}")
        if len(self.mismatches) > 10:
            lines.append(f"  ... and {len(self.mismatches) - 10} more mismatches")
        for p in self.problems:
            lines.append(f"  problem: {p}")
        if self.matches:
            lines.append("  every recorded result was reproduced tick for tick")
        return "\n".join(lines)


def _compare(recorded: Any, replayed: Any, path: str = "result") -> str | None:
    """None if equal, else where they first differ, in plain words."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for k in list(recorded) + [k for k in replayed if k not in recorded]:
            if k not in replayed:
                return f"{path}.{k} was recorded but the replay has no such field"
            if k not in recorded:
                return f"{path}.{k} appears in the replay but was not recorded"
            d = _compare(recorded[k], replayed[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            d = _compare(a, b, f"{path}[{i}]")
            if d:
                if path.endswith("events") and isinstance(a, dict) and isinstance(b, dict):
                    return (f"{path}[{i}]: recorded tick {a.get('tick')} {a.get('block')} at {a.get('pos')} "
                            f"{a.get('kind')} {a.get('old')}->{a.get('new')}, replay tick {b.get('tick')} "
                            f"{b.get('block')} at {b.get('pos')} {b.get('kind')} {b.get('old')}->{b.get('new')}")
                return d
        if len(recorded) != len(replayed):
            return f"{path}: recorded {len(recorded)} item(s), the replay produced {len(replayed)}"
        return None
    if recorded != replayed or type(recorded) is not type(replayed) and not (
            isinstance(recorded, (int, float)) and isinstance(replayed, (int, float))
            and not isinstance(recorded, bool) and not isinstance(replayed, bool)):
        return f"{path}: recorded {_short(recorded)}, replay {_short(replayed)}"
    return None


def _png_pixels(path) -> str | None:
    """None when the picture holds the pixels its name says, else what is wrong with it. It is read as a
    regular file of bounded size (no link followed, never a FIFO or device), and a picture larger than any
    render-view makes is not decoded."""
    import io

    from PIL import Image, UnidentifiedImageError

    from scicraft_viz.safeio import UnsafeFile, read_regular
    from scicraft_viz.views.render import MAX_SIZE, pixel_hash

    try:
        data = read_regular(path, MAX_PNG_BYTES, "picture", follow=False)
        with Image.open(io.BytesIO(data)) as im:
            if im.format != "PNG" or im.width > MAX_SIZE or im.height > MAX_SIZE:
                return f"is not a PNG of at most {MAX_SIZE} pixels a side"
            sha = pixel_hash(im.convert("RGB"))
    except (OSError, UnsafeFile, UnidentifiedImageError, ValueError, Image.DecompressionBombError) as e:
        return f"cannot be read ({str(e)[:200]})"
    return None if path.stem == sha else f"holds other pixels (sha256 {sha})"


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def replay_file(path, task=None) -> Replay:
    from scicraft_viz.env.trajectory import read

    return Replay(read(path, task), task)
