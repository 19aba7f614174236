"""Connection Trap: An extra wire auto-connects to the last wire before a lamp and bends it into an L that points
away from the lamp."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt, fmt_list, sides_text
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, y, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    xs = info["wire"]
    nb = [q for _, q in c.dust_links(y)]
    return Finding(
        "connection_trap", [y, *xs], lamps,
        f"the wire at {fmt(y)} auto-connects to {fmt_list(nb)}: it bends the wire at {fmt(xs[0])} into an L "
        f"(it now points {sides_text(c, xs[0])}) that points away from the lamp at {fmt(lamps[0])}.",
        f"remove the wire at {fmt(y)}", {y: "minecraft:air"})


RULE = Rule(
    id="connection_trap", title="Connection Trap", category=3, case='10', failure="Auto-connect redirect",
    definition=("An extra wire auto-connects to the last wire before a lamp and bends it into an L that points away "
                "from the lamp."),
    fix="remove the extra wire",
    finding=finding,
)
