"""Missing Rails: Lamps inside the wiring's extent that no wire comes to (or that sit one block off the wire meant
for them)."""

from __future__ import annotations

from functools import partial

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt
from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.coverage import coverage_finding


def repair(c, cand, lamps) -> Finding:
    """A dark lamp that lights once moved one block: it sits beside the end of the wire meant for it."""
    lp, q = cand.positions
    why = (f"it lights there, but the wiring after it needs it at {fmt(q)} to pass the signal on" if c.lit.get(lp)
           else f"nothing powers {fmt(lp)}, while a lamp at {fmt(q)} would be fed")
    return Finding("missing_rails", [lp, q], lamps,
                   f"the lamp at {fmt(lp)} sits one block off the wiring meant for it: {why}.", cand.fix,
                   dict(cand.changes), {"moved": [[list(lp), list(q)]]}, verified=True)


RULE = Rule(
    id="missing_rails", title="Missing Rails", category=2, case='6', failure="Incomplete coverage",
    definition=("Lamps inside the wiring's extent that no wire comes to (or that sit one block off the wire meant for "
                "them)."),
    fix="lay the missing rails from the nearest powered wire, or move the lamp onto the wire's end",
    finding=partial(coverage_finding, "missing_rails"),
    repair=repair,
)
