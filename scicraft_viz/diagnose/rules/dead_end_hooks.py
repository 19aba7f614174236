"""Dead-End Hooks: A one-wire hook at the end of a line turns the last wire sideways, away from the lamp it pointed
into."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt, sides_text
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, y, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    x = info["wire"][0]
    return Finding(
        "dead_end_hooks", [y, x], lamps,
        f"the hook wire at {fmt(y)} turns the last wire at {fmt(x)} into an L "
        f"(pointing {sides_text(c, x)}): without it that "
        f"wire would point {info['side'][0]} into the lamp at {fmt(lamps[0])}; the hook itself is a dead end.",
        f"remove the hook at {fmt(y)}", {y: "minecraft:air"})


RULE = Rule(
    id="dead_end_hooks", title="Dead-End Hooks", category=3, case='11', failure="Dead-end flow reversal",
    definition=("A one-wire hook at the end of a line turns the last wire sideways, away from the lamp it pointed "
                "into."),
    fix="remove the hook",
    finding=finding,
)
