"""Islands: Wires and lamps with no connection at all to the button's network (no single missing wire would join
them)."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import H, add, dist, fmt, fmt_list
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, key, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    kind, k = key
    if kind == "cluster":
        cells = sorted(p for p, v in a.cluster.items() if v == k)
    else:
        cells = list(c.members(k))
    wires = [p for p in cells if c.is_dust(p)]
    anchors = [p for p in cells if c.name(p) in ("stone", "glass")
               and any(add(p, d) in cells and c.is_dust(add(p, d)) for d in H.values())]
    sourced = any(info.get("sourced", []))
    live = [p for p in c.dust if c.power.get(p, 0) > 0]
    pair = None
    if live and wires:
        pair = min(((a, b) for a in wires for b in live), key=lambda ab: dist(*ab))
    pieces = len({c.component(p) for p in wires})
    where = f" around {fmt_list(anchors, 2)}" if anchors else ""
    expl = (f"{len(wires)} wire(s) and {len(lamps)} lamp(s){where} form an island: "
            + ("no wire connects them to the button's network" if not sourced else
               "they touch the button's blocks but no wire carries its signal to them")
            + f" (lamps {fmt_list(lamps, 3)}).")
    fix = "connect the island to a powered wire"
    if pair:
        fix += f", e.g. from {fmt(pair[1])} to {fmt(pair[0])}"
    if pieces > 1:
        # Wire does not conduct through the anchor stone: each separately wired arm needs a feed.
        fix += (f"; its wiring is {pieces} separate pieces (wire does not pass through a block), so each "
                "needs its own connection, or a repeater pointing into the anchor block to power them all")
    return Finding("islands", sorted(wires) or cells, lamps, expl, fix, {},
                   {"anchors": [list(p) for p in anchors], "pieces": pieces})


RULE = Rule(
    id="islands", title="Islands", category=3, case='2', failure="Disconnected sections",
    definition=("Wires and lamps with no connection at all to the button's network (no single missing wire would join "
                "them)."),
    fix="connect the island to a powered wire",
    finding=finding,
)
