"""Glass Pedestal: The button is attached to glass. Glass is transparent: it is never powered, so the press reaches
none of the wires around it."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, b, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    g = info["glass"][0]
    return Finding(
        "glass_pedestal", [g, b], lamps,
        f"the button at {fmt(b)} is attached to glass at {fmt(g)}: glass is transparent and is never "
        f"powered, so the press reaches none of the wires around it; all {len(lamps)} lamp(s) stay dark.",
        f"replace the glass at {fmt(g)} with stone", {g: "minecraft:stone"})


RULE = Rule(
    id="glass_pedestal", title="Glass Pedestal", category=1, case='4', failure="Transparent center block",
    definition=("The button is attached to glass. Glass is transparent: it is never powered, so the press reaches "
                "none of the wires around it."),
    fix="replace the glass under the button with stone",
    finding=finding,
)
