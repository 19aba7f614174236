"""The Ring: The wire beside a lamp lies on a closed loop: every wire of a ring connects only to its two neighbours
on it, so none points outward into a lamp."""

from __future__ import annotations

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import UP, add, fmt
from scicraft_viz.diagnose.rules.base import Rule


def lifted(c, ring) -> dict:
    """The ring lifted one block onto stones: each ring wire becomes a stone with the wire on top.
    Dust powers the block under it whatever its shape, and a powered stone lights every lamp beside
    it, so the loop no longer has to point outward. Empty when a cell above the ring is taken."""
    tops = [add(p, UP) for p in ring]
    if any(t in c.kind for t in tops):
        return {}
    out = {p: fixes.STONE for p in ring}
    out.update({t: fixes.WIRE for t in tops})
    return out


def finding(a, cyc, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    ring = sorted(cyc)
    pw = [c.power.get(p, 0) for p in ring]
    blocks = lifted(c, ring)
    fix = ("lift the ring onto stones (each ring wire replaced by a stone with the wire on top): dust powers "
           "the block under it whatever its shape, and each powered stone lights the lamps beside it") if blocks \
        else "break the ring and end wires pointing into the lamps, or run short spokes outward into them"
    return Finding(
        "the_ring", ring, lamps,
        f"the wire at {fmt(info['wire'][0])} is part of a closed ring of {len(ring)} wires (power "
        f"{min(pw)}-{max(pw)}): every ring wire connects only to its two neighbours along the ring, so none "
        f"points outward and the {len(lamps)} lamp(s) beside it stay dark.", fix, blocks)


RULE = Rule(
    id="the_ring", title="The Ring", category=3, case='12', failure="Loop flow trap",
    definition=("The wire beside a lamp lies on a closed loop: every wire of a ring connects only to its two "
                "neighbours on it, so none points outward into a lamp."),
    fix="break the ring and end wires pointing into the lamps, or lift the ring onto stones so that each wire "
        "powers the block under it",
    finding=finding,
)
