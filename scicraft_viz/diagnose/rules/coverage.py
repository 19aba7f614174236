"""Shared finding for the three coverage modes (axes_only, tiny_core, missing_rails): lamps no wire
comes to, with the routed wires that would reach them."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.fixes import WIRE
from scicraft_viz.diagnose.graph import dist, fmt


def coverage_finding(mode: str, a, key, lamps: list, info: dict) -> Finding:
    """`info`: paths (lamp -> routed wires), live (powered wires), bbox (extent of the wiring)."""
    paths, live, bbox = info["paths"], info["live"], info.get("bbox")
    c = a.c
    lamps = sorted(lamps)
    fix_blocks = {p: WIRE for lp in lamps for p in paths.get(lp, [])}
    near = {lp: min(live or c.dust, key=lambda q: dist(lp, q)) for lp in lamps}
    ex = lamps[0]
    gap = dist(ex, near[ex])
    if mode == "axes_only":
        expl = (f"none of the {len(lamps)} lamps touches a wire: the wiring runs along its axes but no branch "
                f"turns off toward a lamp (the lamp at {fmt(ex)} is {gap} blocks from the wire at "
                f"{fmt(near[ex])}).")
        fix = "add branch wires that point into the lamps"
        positions = sorted({near[lp] for lp in lamps})
    elif mode == "tiny_core":
        x0, x1, z0, z1 = bbox
        tips = sorted(p for p in c.dust if p[0] in (x0, x1) or p[2] in (z0, z1))
        expl = (f"the wiring only spans x {x0}..{x1}, z {z0}..{z1}: {len(lamps)} lamp(s) lie beyond its reach "
                f"(e.g. {fmt(ex)}, {gap} blocks from the nearest wire at {fmt(near[ex])}).")
        fix = f"extend the wiring out to the far lamps (with repeaters beyond {c.rules.dust_reach + 1} wires)"
        positions = tips or sorted({near[lp] for lp in lamps})
    else:
        expl = (f"{len(lamps)} lamp(s) inside the layout have no wire coming to them (e.g. {fmt(ex)}, {gap} "
                f"blocks from the nearest wire at {fmt(near[ex])}): their distribution rails are missing.")
        fix = "lay the missing rails from the nearest powered wire to these lamps"
        positions = sorted({p for lp in lamps for p in paths.get(lp, [])}) or sorted(set(near.values()))
    if fix_blocks:
        fix += f" ({len(fix_blocks)} wire(s) in fix_blocks)"
    return Finding(mode, positions, lamps, expl, fix, fix_blocks,
                   {"unreached": [list(lp) for lp in lamps if lp not in paths]})
