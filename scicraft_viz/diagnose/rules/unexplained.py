"""Unexplained: A failure no rule explains; the finding shows the measured facts (ticks, what lies next to the
lamp)."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, key, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    kind, p = key
    what = {"torch": f"the torch at {fmt(p)} next to it is off (its block is powered)",
            "repeater": f"the repeater at {fmt(p)} pointing into it never switches on",
            "target": f"nothing next to it at {fmt(p)} carries signal"}[kind]
    return Finding("unexplained", [p], lamps, f"lamp at {fmt(lamps[0])} stays dark: {what}.",
                   "trace the signal back from this block to the button")


RULE = Rule(
    id="unexplained", title="Unexplained", category=0, case=None, failure="",
    definition=("A failure no rule explains; the finding shows the measured facts (ticks, what lies next to the "
                "lamp)."),
    fix="trace the signal back from the named block to the button",
    finding=finding,
)
