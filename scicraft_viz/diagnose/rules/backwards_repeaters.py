"""Backwards Repeaters: A repeater faces the wrong way: its input is on the side away from the signal, so it passes
nothing to the lamps (or to the block that feeds them) behind it."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import OPPOSITE, fmt, fmt_list
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, r, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    i, o = c.repeater_ends(r)
    facing = c.props[r].get("facing", "north")
    new_facing = OPPOSITE[facing]
    state = f"minecraft:redstone_repeater[delay={c.props[r].get('delay', '1')},facing={new_facing}]"
    return Finding(
        "backwards_repeaters", [r], lamps,
        f"repeater at {fmt(r)} faces toward the button: its input is on the lamp side ({fmt(i)}) and "
        f"the signal arrives at its output ({fmt(o)}), so nothing passes; {len(lamps)} lamp(s) behind it "
        f"stay dark ({fmt_list(lamps, 3)}).",
        f"turn the repeater around (facing={new_facing}) so that its input faces the signal",
        {r: state}, {"input": list(i), "output": list(o)})


def repair(c, cand, lamps) -> Finding:
    """A repeater that, turned round by simulation, lights the lamps (also one feeding a block)."""
    r = cand.positions[0]
    f = finding(_Walk(c), r, lamps, {})
    f.fix_blocks, f.verified = dict(cand.changes), True
    return f


class _Walk:
    def __init__(self, c):
        self.c = c


RULE = Rule(
    id="backwards_repeaters", title="Backwards Repeaters", category=1, case='9', failure="Reversed repeater direction",
    definition=("A repeater faces the wrong way: its input is on the side away from the signal, so it passes nothing "
                "to the lamps (or to the block that feeds them) behind it."),
    fix="turn the repeater round",
    finding=finding,
    repair=repair,
)
