"""Shared reading of a family-C sequence for the two stage rules (stage_gap, stage_order)."""

from __future__ import annotations

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose import timing as T
from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt


def first_bad_stage(ctx):
    """(index, gap, expected) of the first stage whose gap misses its delay, in game ticks, or None."""
    task = ctx.task
    ons = {p: ctx.on(p) for p in ctx.lamps}
    if task.contract_type != "sequential" or not ons or any(t is None for t in ons.values()):
        return None
    tol = task.to_game(task.contract.get("tolerance_ticks", 1))
    delays = [task.to_game(d) for d in task.contract["delays_ticks"]]
    order = sorted(ons, key=lambda p: (ons[p], p))
    for i, (a, b) in enumerate(zip(order, order[1:])):
        if i < len(delays) and abs((ons[b] - ons[a]) - delays[i]) > tol:
            return order, i, ons[b] - ons[a], delays[i], tol
    return None


def sequence_findings(ctx, mode: str) -> list[Finding]:
    bad = first_bad_stage(ctx)
    if bad is None:
        return []
    order, i, gap, want, tol = bad
    if (gap == 0) != (mode == "stage_order"):
        return []
    a, b = order[i], order[i + 1]
    u = ctx.task.unit
    between = T.exclusive(ctx.path(b), ctx.path(a))
    parts = [s for s in between if s["delay"] > 0]
    if mode == "stage_order":
        expl = (f"stages {i + 1} and {i + 2} light in the same tick: lamps {fmt(a)} and {fmt(b)} both at "
                f"+{ctx.rt(ctx.on(a))}, but lamp {fmt(b)} should follow {ctx.rt(want)} later; nothing delays it "
                f"after lamp {fmt(a)}.")
    else:
        expl = (f"stage {i + 1}->{i + 2}: lamp {fmt(a)} lights at +{ctx.rt(ctx.on(a))} and lamp {fmt(b)} at "
                f"+{ctx.rt(ctx.on(b))}, {ctx.rt(gap)} apart; the contract wants {ctx.rt(want)} +/- {ctx.rt(tol)} "
                f"({'too long' if gap > want else 'too short'} by {ctx.rt(abs(gap - want))})"
                + (f"; between them: {T.describe_path(parts, ctx.unit, u)}" if parts else "") + ".")
    first = T.repeaters(between) or T.repeaters(ctx.path(b))
    cand = fixes.retime(ctx.c, first)
    if cand is not None and cand.mode:
        return [fixes.structural(ctx.c, cand, [b], expl)]
    positions = [s["pos"] for s in parts] or [b]
    if cand is None:
        return [Finding(mode, positions, [b], expl,
                        f"make the delay between lamps {fmt(a)} and {fmt(b)} {ctx.rt(want)} (no single repeater "
                        "change does it)", {}, {"stage": i + 1, "gap": gap, "expected": want})]
    out = cand.outcome
    lo = out.ons[a] + want - tol if out.ons.get(a) is not None else None
    fix = (f"{cand.fix} makes lamp {fmt(b)} light at +{ctx.rt(out.ons[b])}"
           + (f", inside [{T._num(lo / ctx.unit)}, {T._num((lo + 2 * tol) / ctx.unit)}] {u}" if lo is not None
              else ""))
    r = cand.positions[0]
    return [Finding(mode, [r] + [p for p in positions if p != r], [b], expl, fix, dict(cand.changes),
                    {"stage": i + 1, "gap": gap, "expected": want}, verified=True)]
