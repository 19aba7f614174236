"""Skew (this project's extension; families A, B, D): every lamp lights, but not within the allowed
skew of the first one, because one branch of the wiring is slower than the others."""

from __future__ import annotations

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose import timing as T
from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt, fmt_list
from scicraft_viz.diagnose.rules.base import Rule

FAMILIES = ("simultaneity", "branch_reach", "equal_delay")


def detect(ctx) -> list[Finding]:
    task = ctx.task
    if task.contract_type not in FAMILIES:
        return []
    ons = {p: ctx.on(p) for p in ctx.lamps}
    if not ons or any(t is None for t in ons.values()):
        return []
    tol = task.to_game(task.contract.get("tolerance_ticks", 1))
    t0 = min(ons.values())
    late = sorted(p for p, t in ons.items() if t - t0 > tol)
    if not late:
        return []
    early = sorted(p for p, t in ons.items() if t == t0)
    ref, worst = early[0], max(late, key=lambda p: (ons[p], p))
    slow = T.exclusive(ctx.path(worst), ctx.path(ref))
    fast = T.exclusive(ctx.path(ref), ctx.path(worst))
    fork = ctx.path(worst)[T.split(ctx.path(worst), ctx.path(ref)) - 1]["pos"] if slow else None
    parts = [s for s in slow if s["delay"] > 0]
    expl = (f"lamps light {ctx.rt(ons[worst] - t0)} apart, {ctx.rt(tol)} allowed: {len(late)} lamp(s) "
            f"({fmt_list(late, 3)}) light up to +{ctx.rt(ons[worst])}, the lamp at {fmt(ref)} at +{ctx.rt(t0)}. ")
    if fork is not None:
        expl += (f"The slow branch leaves the shared path at {fmt(fork)} and is {ctx.rt(ons[worst] - t0)} slower: "
                 + (T.describe_path([{"pos": fork, "block": ctx.c.name(fork), "delay": 0}] + slow, ctx.unit, task.unit)
                    if parts else "its extra delay is in its wires") + ".")
    first = T.repeaters(slow) + T.repeaters(fast)
    cand = fixes.retime(ctx.c, first)
    if cand is not None and cand.mode:
        return [fixes.structural(ctx.c, cand, late, expl)]
    positions = [s["pos"] for s in parts] or [s["pos"] for s in slow[:1]]
    if cand is None:
        fix = (f"slow the fast branch down or speed the slow one up by {ctx.rt(ons[worst] - t0 - tol)} or more "
               "(no single repeater change brings every lamp inside its window)")
        return [Finding("skew", positions, late, expl, fix, {}, {"skew": ons[worst] - t0, "fork": fork})]
    out = cand.outcome
    moved = max(ons, key=lambda p: (abs((out.ons[p] or 0) - ons[p]), p))
    n0 = min(t for t in out.ons.values() if t is not None)
    fix = (f"{cand.fix} makes lamp {fmt(moved)} light at +{ctx.rt(out.ons[moved])}, inside "
           f"[{T._num(n0 / ctx.unit)}, {T._num((n0 + tol) / ctx.unit)}] {task.unit}")
    r = cand.positions[0]
    return [Finding("skew", [r] + [p for p in positions if p != r], late, expl, fix, dict(cand.changes),
                    {"skew": ons[worst] - t0, "fork": fork}, verified=True)]


RULE = Rule(
    id="skew", title="Skew", category=4,
    definition=("Every lamp lights, but some light later than the first by more than the allowed skew: one branch "
                "of the wiring has more delay (repeater settings, torches) than the others."),
    fix="change the delay of a repeater on the slow branch (or the fast one) so every lamp lands in its window",
    detect=detect,
)
