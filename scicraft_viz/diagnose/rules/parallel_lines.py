"""Parallel Lines: Powered wire runs past a lamp without pointing into it (or is a dot): wire powers only the blocks
it points into."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import OPPOSITE, H, add, fmt
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, lamp, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    ws = sorted({w for ws in info["wires"] for w in ws})
    target = info["target"][0]
    via = "" if target == lamp else f" (through the stone at {fmt(target)})"
    what = "lamp" if target == lamp else "block"
    dots = [w for w in ws if not c.pointing(w)]
    if dots:
        w = dots[0]
        side = next(s for s, d in H.items() if add(w, d) == target)
        state = f"minecraft:redstone_wire[{','.join(sorted(f'{x}=side' for x in (side, OPPOSITE[side])))}]"
        return Finding(
            "parallel_lines", ws, lamps,
            f"dust at {fmt(w)} is a dot (a wire placed with no sides and no wire beside it): a dot powers only "
            f"the block under it, not the {what} at {fmt(target)} beside it{via}, so the lamp at {fmt(lamp)} "
            "stays dark.", f"replace the dot with a wire that has sides (with nothing to connect to, a cross, "
                           f"which points into the {what})", {w: state})
    desc = "; ".join(f"dust at {fmt(w)} {c.shape_name(w)} past the {what} at {fmt(target)} and does not point "
                     "into it" for w in ws)
    return Finding(
        "parallel_lines", ws, lamps,
        f"{desc}{via}: wire only powers the blocks it points into, so the lamp at {fmt(lamp)} stays dark.",
        "end a line at the lamp or branch a wire into it (a wire pointing straight at the lamp)")


RULE = Rule(
    id="parallel_lines", title="Parallel Lines", category=3, case='3', failure="Wire direction mismatch",
    definition=("Powered wire runs past a lamp without pointing into it (or is a dot): wire powers only the blocks it "
                "points into."),
    fix="end a line at the lamp or branch a wire into it",
    finding=finding,
)
