"""Popped Off: A block fell off for lack of support (the block under or behind it is missing), so the signal stops
where it was."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.fixes import STONE, WIRE
from scicraft_viz.diagnose.graph import DOWN, add, fmt
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, q, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    name = info["block"][0]
    below = add(q, DOWN)
    fix_blocks = {}
    if name == "redstone_wire" and below not in c.kind:
        fix_blocks = {below: STONE, q: WIRE}
    return Finding(
        "popped_off", [q], lamps,
        f"the {name.replace('_', ' ')} at {fmt(q)} popped off: nothing held it up (the block it stands on or "
        f"hangs from was missing), so the signal stops there and {len(lamps)} lamp(s) stay dark.",
        f"put a solid block under (or behind) {fmt(q)} and place the {name.replace('_', ' ')} again",
        fix_blocks)


def repair(c, cand, lamps) -> Finding:
    """A block that popped off for lack of support, which placed again on a new stone lights the lamps."""
    q, support = cand.positions[:2]
    name = c.popped.get(q, c.name(q)).replace("_", " ")
    what = "popped off" if q in c.popped else "stands on nothing"
    return Finding("popped_off", [q, support], lamps,
                   f"the {name} at {fmt(q)} {what}: the block at {fmt(support)} that held it up is missing, so "
                   f"the signal stops there and {len(lamps)} lamp(s) stay dark.", cand.fix, dict(cand.changes),
                   verified=True)


RULE = Rule(
    id="popped_off", title="Popped Off", category=1, case=None, failure="",
    definition=("A block fell off for lack of support (the block under or behind it is missing), so the signal stops "
                "where it was."),
    fix="put a solid block under or behind it and place it again",
    finding=finding,
    repair=repair,
)
