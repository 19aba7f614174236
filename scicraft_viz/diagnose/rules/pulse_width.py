"""Pulse Width (this project's extension; family E): a pulse shaper is there, but it ends the
pulse too early or too late (or the lamp lights a second time)."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import dist, fmt
from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.pulse import pulse_findings


def repair(c, cand, lamps) -> Finding:
    """Dark lamps that a delay change lights: the shaped pulse is too short to light them at all."""
    r = cand.positions[0]
    # every repeater of the shaper sets the pulse's length, the changed one first
    shaper = [q for q, k in sorted(c.kind.items()) if k == "redstone_repeater" and q != r and dist(q, r) <= 3]
    return Finding("pulse_width", [r, *shaper], lamps,
                   f"the shaped pulse is too short to light the lamps ({len(lamps)} stay dark): the shaper cuts the "
                   f"signal before it reaches them; the delay of the repeater at {fmt(r)} sets its length.",
                   cand.fix, dict(cand.changes), verified=True)

RULE = Rule(
    id="pulse_width", title="Pulse Width", category=4,
    definition=("A lamp goes dark outside the off-window (tau +/- tolerance after the press) although a pulse "
                "shaper (a torch on its path) cuts the pulse: the shaper's delay is too long or too short, or the "
                "lamp lights again after its pulse."),
    fix="change the shaper's delay so the lamps go dark inside the off-window",
    detect=lambda ctx: pulse_findings(ctx, "pulse_width"),
    repair=repair,
)
