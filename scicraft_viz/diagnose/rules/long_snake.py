"""Long Snake: Linked, live wiring that runs out of strength: signal loses 1 per wire and is gone 15 wires from its
source, so lamps farther along stay dark."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import bfs, fmt, repeater_spots, trace_path
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, cid, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    members = c.members(cid)
    entries = c.entries(members)
    dist, prev = bfs(c, list(entries))
    feeders = sorted(info["feeder"], key=lambda q: dist.get(q, 10**6))
    near = feeders[0]
    lamp_of = {}
    for lp in lamps:
        for q in feeders:
            if c.points_into(q, lp) and q not in lamp_of:
                lamp_of[q] = lp
    n = dist.get(near)
    far_feeder = max(feeders, key=lambda q: dist.get(q, 0))
    path = trace_path(prev, near)
    dead = [p for p in path if c.power.get(p, 0) == 0]
    nearest_lamp = lamp_of.get(near, lamps[0])
    if n is None:
        expl = f"the wire at {fmt(near)} into the lamp at {fmt(nearest_lamp)} is linked to powered wire but " \
               "receives no signal (signal does not step down from wire on glass)"
        return Finding("long_snake", [near], lamps, expl + ".", "route the wire on solid blocks")
    far = max(dist.get(q, 0) for q in feeders)
    rules = c.rules
    lasts = rules.dust_reach + 1
    expl = (f"lamp at {fmt(nearest_lamp)} is {n} dust from the nearest source: signal reaches 0 "
            f"(strength falls by {rules.dust_decay} per wire and lasts {lasts})")
    if len(lamps) > 1:
        expl += f"; {len(lamps) - 1} more lamp(s) on this wire are up to {far} dust away"
    spots = repeater_spots(c, trace_path(prev, far_feeder))
    fix_blocks = {p: f"minecraft:redstone_repeater[delay=1,facing={facing}]" for p, facing in spots}
    if spots:
        p, facing = spots[0]
        fix = (f"regenerate the signal: put a repeater at {fmt(p)} (input from the {facing}) in place of the "
               f"wire" + (f", and {len(spots) - 1} more along the path (fix_blocks)" if len(spots) > 1 else ""))
    else:
        fix = f"shorten the path or insert repeaters every {lasts} wires"
    return Finding("long_snake", dead or [near], lamps, expl + ".", fix, fix_blocks,
                   {"distance": n, "farthest": far, "entries": [list(e) for e in entries]})


RULE = Rule(
    id="long_snake", title="Long Snake", category=2, case='1', failure="Signal decay (no amplification)",
    definition=("Linked, live wiring that runs out of strength: signal loses 1 per wire and is gone 15 wires from its "
                "source, so lamps farther along stay dark."),
    fix="put repeaters along the path so no wire is more than 15 from a source",
    finding=finding,
)
