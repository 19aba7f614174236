"""Broken Bridge: One wire is missing between live signal and the rest of the wiring (on the level or on a staircase
one block up or down): placing that one wire carries the signal on."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import CONDUCTORS, DOWN, H, add, describe_live, fmt, fmt_list, wire_into
from scicraft_viz.diagnose.rules.base import Rule


def finding(a, root, lamps, info) -> Finding:
    """The finding for the evidence the dark-lamp walk collected under this mode."""
    c = a.c
    pairs = sorted(set(info["gap"]))
    gaps = sorted({g for g, _ in pairs})
    srcs = sorted({src for _, src in pairs})
    if srcs == [root] and c.name(root) in CONDUCTORS:
        what = f"the powered block at {fmt(root)}"
    else:
        kinds = {describe_live(c, q) for q in srcs}
        what = (f"the {kinds.pop()}" if len(kinds) == 1 else "live blocks") + f" at {fmt_list(srcs, 3)}"
    unsupported = [add(g, DOWN) for g in gaps if not c.supported(g)]
    fix_blocks = {b: "minecraft:stone" for b in unsupported}
    fix_blocks.update({g: wire_into(c, g) for g in gaps})
    into = "the network" if len(lamps) > 1 or not any(c.name(add(g, d)) == "redstone_lamp"
                                                       for g in gaps for d in H.values()) else "the lamp"
    return Finding(
        "broken_bridge", gaps, lamps,
        f"the wiring stops one block short of {what}: no wire at {fmt_list(gaps)} connects it, so the signal "
        f"never enters {into} and {len(lamps)} lamp(s) stay dark.",
        f"place redstone wire at {fmt_list(gaps, 8)}" + (
            f" (on a new stone at {fmt_list(unsupported, 4)})" if unsupported else ""),
        fix_blocks, {"live": [list(q) for q in srcs]})


def repair(c, cand, lamps) -> Finding:
    """One wire found by simulation: the live and dead blocks it joins, on the level or a step up or down."""
    g = cand.positions[0]
    near = [add(add(g, d), e) for d in (*H.values(), (0, 0, 0)) for e in ((0, 0, 0), (0, 1, 0), (0, -1, 0))]
    live = [q for q in near if q != g and q in c.kind and c.is_live(q)]
    dead = [q for q in near if q != g and c.is_dust(q) and c.power.get(q, 0) == 0]
    stair = any(q[1] != g[1] for q in live + dead if q[0] != g[0] or q[2] != g[2])
    what = describe_live(c, live[0]) + f" at {fmt(live[0])}" if live else "the live wiring"
    where = " on a staircase (the wiring steps a block up or down there)" if stair else ""
    expl = (f"one wire is missing at {fmt(g)}{where}"
            + f": it would join {what} to the dead wiring" + (f" at {fmt_list(dead, 2)}" if dead else "")
            + f", so the signal never gets past it and {len(lamps)} lamp(s) stay dark.")
    return Finding("broken_bridge", [g], lamps, expl, cand.fix, dict(cand.changes),
                   {"live": [list(q) for q in live], "dead": [list(q) for q in dead]}, verified=True)


RULE = Rule(
    id="broken_bridge", title="Broken Bridge", category=1, case='5', failure="Missing center junction",
    definition=("One wire is missing between live signal and the rest of the wiring (on the level or on a staircase "
                "one block up or down): placing that one wire carries the signal on."),
    fix="place the missing wire (on a new stone if nothing holds it up)",
    finding=finding,
    repair=repair,
)
