"""Broken Constraint (this project's extension): the circuit may work, but the build breaks one of
the task's constraints (a lamp on the button's axis or at the wrong distance, a block on a lamp,
the palette, the region, the lamp count), so the evaluator fails it anyway."""

from __future__ import annotations

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import UP, add, fmt
from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.tasks import evaluator


def _lamps_named(ctx, checks) -> list:
    """Lamps a failing check is about: on the button's axis, covered, or at no target distance."""
    out = []
    for ch in checks:
        d = ch.details
        out += [tuple(p) for p in d.get("on_axis", []) + d.get("covered_lamps", [])]
        if ch.name == "distance_buckets" and ctx.c.pressed is not None:
            con = ctx.task.contract
            b = ctx.c.buttons[0]
            for p in ctx.c.lamps:
                dist = evaluator.manhattan(b, p)
                if not any(abs(dist - t) <= con["distance_tolerance_blocks"] for t in con["target_distances"]):
                    out.append(p)
    return sorted(set(out))


def detect(ctx) -> list[Finding]:
    checks = [ch for ch in evaluator.structural_checks(ctx.task, ctx.c.states)[0] if not ch.passed]
    if not checks:
        return []
    c = ctx.c
    lamps = _lamps_named(ctx, checks)
    expl = "the build breaks the task's constraints: " + "; ".join(ch.reason for ch in checks if ch.reason) + "."
    cands = [fixes.Candidate("broken_constraint", [add(p, UP)], {add(p, UP): "minecraft:air"},
                             f"remove the block on top of the lamp at {fmt(p)}")
             for p in lamps if add(p, UP) in c.kind]
    cands += fixes.moved_lamps(c, lamps)
    found = None
    for cand in cands:
        out = fixes.trial(c, cand.changes)
        if out is not None and out.strict:
            cand.outcome, found = out, cand
            break
    names = [ch.name for ch in checks]
    if found is None:
        return [Finding("broken_constraint", lamps, lamps, expl,
                        "change the build so that it meets: " + ", ".join(names), {}, {"checks": names})]
    details = {"checks": names}
    if found.moved:
        details["moved"] = [[list(a), list(b)] for a, b in found.moved.items()]
    return [Finding("broken_constraint", found.positions, lamps, expl, found.fix, dict(found.changes), details,
                    verified=True)]


RULE = Rule(
    id="broken_constraint", title="Broken Constraint", category=1,
    definition=("The build breaks one of the task's constraints that are not about timing (a lamp on the "
                "button's axis or at no target distance, a block on top of a lamp, the palette, the region, the "
                "number of lamps or buttons), so it fails even where the lamps meet their windows."),
    fix="move or remove the offending block (a lamp moved one block, the block on a lamp removed)",
    detect=detect,
)
