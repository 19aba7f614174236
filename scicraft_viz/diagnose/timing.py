"""Where a lamp's ticks went: the signal's path from the button to the lamp, read from the recorded
trace, with each component's share of the delay (button, dust, repeater, torch, lamp off-delay).

Every block on the path is found by walking back from the lamp: at each block, the neighbour that
can feed it and changed last before it (or in the same tick) is its cause. Dust and powered blocks
pass the change on in the same tick; a repeater adds 2 game ticks per delay step, a torch 2, a lamp
lights in the tick it is powered and goes dark 4 game ticks after it loses power."""

from __future__ import annotations

import numpy as np

from scicraft_viz.diagnose.graph import CONDUCTORS, DOWN, SIX, UP, Circuit, H, Pos, add, fmt

LAMP_OFF_DELAY = 4  # game ticks from losing power to going dark (vanilla; a ruleset may change it)
BUTTON_PULSE = 20  # game ticks a stone button stays pressed (vanilla; a ruleset may change it)


def change_ticks(c: Circuit) -> dict[Pos, int]:
    """First game tick after the press at which each wire, component and lamp changed: a wire got
    power, a component switched (a torch going off counts), a lamp lit. The button is 0."""
    tr = c.trace
    out: dict[Pos, int] = {}
    if tr is None:
        return out
    dust = np.asarray(tr.dust_power) > 0
    comp = np.asarray(tr.component_on)
    lamps = np.asarray(tr.lamp_lit)
    # a wire counts from its first power, a lamp from its first light, a component from its first
    # switch away from its state at the press (a torch switching off counts)
    for diff, positions in ((dust, tr.dust_positions), (comp != comp[:1], tr.component_positions),
                            (lamps, tr.lamp_positions)):
        for j, p in enumerate(positions):
            hits = np.flatnonzero(diff[:, j])
            if hits.size:
                out[tuple(p)] = int(hits[0])
    for b in c.buttons:
        out[b] = 0
    return out


def lamp_off_ticks(c: Circuit) -> dict[Pos, int | None]:
    """First game tick after the press at which each lamp that lit went dark again (None: stayed lit)."""
    tr = c.trace
    out: dict[Pos, int | None] = {}
    if tr is None:
        return out
    lit = np.asarray(tr.lamp_lit)
    for j, p in enumerate(tr.lamp_positions):
        hits = np.flatnonzero(lit[:, j])
        if not hits.size:
            continue
        dark = np.flatnonzero(~lit[hits[0]:, j])
        out[tuple(p)] = int(hits[0] + dark[0]) if dark.size else None
    return out


def _feeders(c: Circuit, p: Pos) -> list[Pos]:
    """Neighbours that can change the block at p."""
    k = c.name(p)
    if k == "redstone_repeater":
        return [c.repeater_ends(p)[0]]
    if k in ("redstone_torch", "redstone_wall_torch"):
        a = c.attachment(p)
        return [a] if a else []
    out = []
    for d in SIX:
        q = add(p, d)
        kq = c.name(q)
        if kq == "redstone_wire":
            if k == "redstone_wire":
                if q in [x for _, x in c.links(p)]:
                    out.append(q)
            elif d == UP or (d in H.values() and c.points_into(q, p)):
                out.append(q)
        elif kq == "redstone_repeater":
            if c.repeater_ends(q)[1] == p:
                out.append(q)
        elif kq in ("redstone_torch", "redstone_wall_torch"):
            if c.attachment(q) != p and (d != DOWN or k in CONDUCTORS or k == "redstone_wire"):
                out.append(q)
        elif kq in ("stone_button", "lever", "redstone_block"):
            out.append(q)
        elif kq in CONDUCTORS and k != "stone":
            out.append(q)
    if k == "redstone_wire":
        for _, q in c.links(p):
            if q not in out and c.name(q) in ("redstone_wire", "stone_button", "lever", "redstone_torch",
                                              "redstone_wall_torch", "redstone_block"):
                out.append(q)
    return out


STRONG = ("redstone_repeater", "redstone_torch", "redstone_wall_torch", "stone_button", "lever", "redstone_block")


def causes(c: Circuit, ticks: dict[Pos, int] | None = None) -> dict[Pos, tuple[int, Pos | None]]:
    """For every block the press reached: (game tick it changed, the block that changed it), found
    from the button forward in order of time (then of distance), so each block's cause is the first
    block that changed no later than it and can feed it. A solid block changes with its cause; it
    passes the change to wire only when strongly powered (repeater, torch under it, button on it),
    and a lamp passes it on only when a wire or component powers the lamp block itself."""
    import heapq

    ticks = change_ticks(c) if ticks is None else ticks
    fwd: dict[Pos, list[Pos]] = {}
    for n in c.kind:
        for q in _feeders(c, n):
            fwd.setdefault(q, []).append(n)
    best: dict[Pos, tuple[int, int]] = {}
    parent: dict[Pos, Pos | None] = {}
    heap = []
    for b in c.buttons:
        best[b] = (0, 0)
        parent[b] = None
        heap.append((0, 0, b))
    heapq.heapify(heap)
    while heap:
        t, h, n = heapq.heappop(heap)
        if best.get(n) != (t, h):
            continue
        kn = c.name(n)
        via = c.name(parent[n]) if parent.get(n) is not None else "stone_button"
        for m in fwd.get(n, []):
            km = c.name(m)
            if kn in CONDUCTORS:
                if kn == "redstone_lamp" and via not in ("redstone_wire", *STRONG):
                    continue
                if km == "redstone_wire" and via not in STRONG:
                    continue
                if kn == "redstone_lamp" and km == "redstone_lamp":
                    continue
            tm = ticks.get(m, t if km == "stone" else None)
            if tm is None or tm < t:
                continue
            key = (tm, h + 1)
            if m not in best or key < best[m]:
                best[m] = key
                parent[m] = n
                heapq.heappush(heap, (tm, h + 1, m))
    return {p: (best[p][0], parent[p]) for p in best}


def signal_path(c: Circuit, lamp: Pos, ticks: dict[Pos, int] | None = None,
                cause: dict[Pos, tuple[int, Pos | None]] | None = None) -> list[dict]:
    """The blocks from the button to `lamp`, button first: [{pos, block, at, delay}] with `at` the
    game tick (after the press) at which each changed and `delay` the game ticks it added."""
    cause = causes(c, ticks) if cause is None else cause
    if lamp not in cause:
        return []
    path = [lamp]
    while cause[path[-1]][1] is not None and len(path) < 4096:
        path.append(cause[path[-1]][1])
    path.reverse()
    out = []
    prev_t = 0
    for p in path:
        t = cause[p][0]
        out.append({"pos": p, "block": c.name(p), "at": t, "delay": t - prev_t, **_extra(c, p)})
        prev_t = t
    return out


def _extra(c: Circuit, p: Pos) -> dict:
    if c.name(p) == "redstone_repeater":
        return {"setting": int(c.props[p].get("delay", "1"))}
    return {}


def budget(path: list[dict], unit: float = 2, off: int | None = None, on: int | None = None,
           lamp_off: int = LAMP_OFF_DELAY) -> list[tuple[str, float]]:
    """Where the ticks went, grouped by component kind, in the task's unit: [(label, amount)],
    plus the lamp's off-delay (`lamp_off` game ticks, the ruleset's) and the time it stayed powered when
    it went dark (`off`)."""
    groups: dict[str, float] = {}
    for s in path:
        if s["delay"] <= 0:
            continue
        k = {"redstone_repeater": "repeater", "redstone_wall_torch": "torch", "redstone_torch": "torch"}.get(
            s["block"], s["block"].replace("redstone_", "").replace("_", " "))
        groups[k] = groups.get(k, 0) + s["delay"] / unit
    out = [(k, _num(x)) for k, x in groups.items()]
    if off is not None and on is not None:
        out.append(("held", _num((off - on - lamp_off) / unit)))
        out.append(("lamp off-delay", _num(lamp_off / unit)))
    return out


def describe_path(path: list[dict], unit: float = 2, name: str = "rt") -> str:
    """'button (0,4,0) -> repeater (2,4,0) +2 rt -> lamp (3,4,0)': the components that added delay."""
    parts = []
    for i, s in enumerate(path):
        if i == 0 or i == len(path) - 1 or s["delay"] > 0:
            label = s["block"].replace("redstone_", "").replace("stone_", "").replace("_", " ")
            if s["block"] == "redstone_repeater":
                label += f" (delay {s['setting']})"
            txt = f"{label} {fmt(s['pos'])}"
            if s["delay"] > 0:
                txt += f" +{_num(s['delay'] / unit)} {name}"
            parts.append(txt)
    return " -> ".join(parts)


def _num(x: float):
    return int(x) if float(x).is_integer() else round(x, 2)


def split(a: list[dict], b: list[dict]) -> int:
    """Length of the common start of two paths (from the button)."""
    n = 0
    for x, y in zip(a, b):
        if x["pos"] != y["pos"]:
            break
        n += 1
    return n


def exclusive(path: list[dict], other: list[dict]) -> list[dict]:
    """The steps of `path` after it leaves `other`."""
    return path[split(path, other):]


def repeaters(steps: list[dict]) -> list[Pos]:
    return [s["pos"] for s in steps if s["block"] == "redstone_repeater"]
