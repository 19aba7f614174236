"""A task's temporal contract laid over a trace, lamp by lamp, for the timeline.

The evaluator judges a whole trace (`evaluator.contract_checks`); the timeline also needs, for each
lamp, the window its on (and off) tick must fall in and whether it did. This adapter derives those
windows from the contract with the evaluator's own lamp timing (`evaluator.lamp_times`) and reports
the evaluator's checks next to them, so the picture and the verdict cannot disagree.

Windows are absolute game ticks, inclusive. Status is "ok", "violated", or "pending" while the
recording has not yet reached the end of the window (a lamp may still light)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from scicraft_viz.engine.trace import Trace

Pos = tuple[int, int, int]


@dataclass
class LampWindow:
    pos: Pos
    on: int | None  # first lit tick at or after the press
    off: int | None  # first dark tick after `on`
    on_window: tuple[int, int] | None
    off_window: tuple[int, int] | None
    on_status: str | None
    off_status: str | None

    @property
    def violated(self) -> bool:
        return "violated" in (self.on_status, self.off_status)


@dataclass
class ContractView:
    task_id: str
    kind: str
    press: int
    unit: str
    lamps: list[LampWindow]
    checks: list = field(default_factory=list)  # evaluator.Check, judged on the rows recorded so far
    complete: bool = False  # the recording covers the task's whole test
    horizon: int | None = None  # the last tick of the task's test (press + its recorded ticks)
    at: int | None = None  # the last tick judged (the shown tick, or the trace's end)

    def window_of(self, pos: Pos) -> LampWindow | None:
        for w in self.lamps:
            if w.pos == tuple(pos):
                return w
        return None

    @property
    def violations(self) -> list[Pos]:
        return [w.pos for w in self.lamps if w.violated]

    def verdict(self, check) -> str:
        """'ok', 'FAIL' (whole test recorded), 'failing' (a lamp has already missed its window) or
        'pending' (nothing has failed yet, but the test is not over)."""
        if check.passed:
            return "ok"
        if self.complete:
            return "FAIL"
        return "failing" if self.violations else "pending"

    def summary(self) -> str:
        if not self.checks:
            return ""
        parts = []
        for c in self.checks:
            verdict = self.verdict(c)
            parts.append(f"{c.name}: {verdict}")
        return "; ".join(parts)


def _status(value: int | None, window: tuple[int, int] | None, end: int) -> str | None:
    if window is None:
        return None
    lo, hi = window
    if value is not None:
        return "ok" if lo <= value <= hi else "violated"
    return "pending" if end < hi else "violated"


def contract_view(task, trace: Trace, press: int, at: int | None = None) -> ContractView:
    """Per-lamp contract windows for the press at game tick `press` (which the trace must cover).

    `at` judges the lamps as of that tick: only the rows up to it count, so a window that closes
    later is still "pending" and a lamp lit now is not yet late (what a cursor scrubbed back to that
    tick must show). Without it, the whole trace is judged."""
    from scicraft_viz.tasks.evaluator import contract_checks, lamp_times

    r0 = press - trace.start_tick
    if not 0 <= r0 < len(trace):
        raise ValueError(f"the press at tick {press} is not inside the trace ({trace.start_tick}..{trace.ticks[-1]})")
    stop = len(trace) if at is None else int(min(max(int(at), press), int(trace.ticks[-1]))) - trace.start_tick + 1
    lit = np.asarray(trace.lamp_lit[r0:stop], bool)
    end = int(trace.ticks[stop - 1])
    positions = [tuple(p) for p in trace.lamp_positions]
    ons, offs, again = lamp_times(lit)
    on_abs = [None if t is None else press + t for t in ons]
    off_abs = [None if t is None else press + t for t in offs]
    c = task.contract
    tol = int(task.to_game(c.get("tolerance_ticks", 1)))
    kind = task.contract_type
    horizon = press + task.record_game_ticks
    on_w: list[tuple[int, int] | None] = [None] * len(positions)
    off_w: list[tuple[int, int] | None] = [None] * len(positions)
    if kind in ("simultaneity", "branch_reach", "equal_delay"):
        lit_on = [t for t in on_abs if t is not None]
        # the skew rule ties every lamp to the first one to light
        first = min(lit_on) if lit_on else None
        for j in range(len(positions)):
            on_w[j] = (first, first + tol) if first is not None else (press, horizon)
    elif kind == "sequential":
        delays = [int(task.to_game(d)) for d in c["delays_ticks"]]
        order = sorted((t, j) for j, t in enumerate(on_abs) if t is not None)
        for k, (_, j) in enumerate(order):
            if k == 0:
                on_w[j] = (press, horizon)  # the first stage is free
            elif k - 1 < len(delays):
                prev = order[k - 1][0]
                on_w[j] = (prev + delays[k - 1] - tol, prev + delays[k - 1] + tol)
            else:
                on_w[j] = (press, press)  # more lamps lit than stages: cannot be right
        # a lamp not lit yet can only fill the next stage: it has missed it once that window has passed
        nxt = (press, horizon)
        if order and len(order) - 1 < len(delays):
            last = order[-1][0]
            d = delays[len(order) - 1]
            nxt = (last + d - tol, last + d + tol)
        for j, t in enumerate(on_abs):
            if t is None:
                on_w[j] = nxt
    elif kind == "pulse":
        tau = int(task.to_game(c["tau_ticks"]))
        win = int(task.to_game(c["on_window_ticks"]))
        for j in range(len(positions)):
            on_w[j] = (press, press + win)
            off_w[j] = (press + tau - tol, press + tau + tol)
    lamps = []
    for j, p in enumerate(positions):
        # a lamp that has not lit by the end of its window has failed at that tick, not at the horizon
        on_s = _status(on_abs[j], on_w[j], end)
        off_s = None
        if off_w[j] is not None:
            if on_abs[j] is None:
                off_s = "violated" if on_s == "violated" or end >= horizon else "pending"
            else:
                off_s = _status(off_abs[j], off_w[j], end)
                if again[j] is not None:
                    off_s = "violated"  # lit a second time: one pulse per press
        lamps.append(LampWindow(p, on_abs[j], off_abs[j], on_w[j], off_w[j], on_s, off_s))
    checks, _ = contract_checks(task, positions, lit)
    if end < horizon:  # judged as of a tick inside the test: the rows stop here, the recording goes on
        checks = [replace(ch, reason=ch.reason.replace("at the end of the recording", "at this tick"))
                  if ch.reason else ch for ch in checks]
    return ContractView(task.id, kind, press, task.unit, lamps, checks, complete=end >= horizon, horizon=horizon,
                        at=end)
