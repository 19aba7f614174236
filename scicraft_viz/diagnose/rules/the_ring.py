"""The Ring: The wire beside a lamp lies on a closed loop: every wire of a ring connects only to its two neighbours
on it, so none points outward into a lamp."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, cyc, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    ring = sorted(cyc)
    pw = [c.power.get(p, 0) for p in ring]
    return Finding(
        "the_ring", ring, lamps,
        f"the wire at {fmt(info['wire'][0])} is part of a closed ring of {len(ring)} wires (power "
        f"{min(pw)}-{max(pw)}): every ring wire connects only to its two neighbours along the ring, so none "
        f"points outward and the {len(lamps)} lamp(s) beside it stay dark.",
        "break the ring and end wires pointing into the lamps, or run short spokes outward into them")


RULE = Rule(
    id="the_ring", title="The Ring", category=3, case='12', failure="Loop flow trap",
    definition=("The wire beside a lamp lies on a closed loop: every wire of a ring connects only to its two "
                "neighbours on it, so none points outward into a lamp."),
    fix="break the ring and end wires pointing into the lamps",
    finding=finding,
)
