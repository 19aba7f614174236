"""Why did this block change now? Causes for the engine's events, read from the event log itself.

The engine logs every change in the order it made it (`World.events`, `Trace.events`). A change has
one of a few reasons, each with its own delay (docs/redstone.md):

- dust takes its new power in the same tick as the change that fed it;
- a lamp lights in the same tick, and goes dark 2 rt (4 gt) after losing power;
- a repeater acts `delay` rt after its input changed; a torch 1 rt (2 gt) after its block did;
- a button springs back 10 rt (20 gt) after its press; a burnt-out torch relights 8 s later;
- a button, lever or placement with nothing before it was the player;
- a detector rail turns on when a minecart is on it, and off at a check (every 20 gt) that finds none.

`explain(events, blocks)` pairs every event with the earlier event that set it off: the change of a
block that can feed it (within two blocks; for a repeater, the block behind it first) made exactly one
delay earlier, or else the latest such change at or before its tick. The text says it in words, e.g.
"repeater (2, 4, 0) turned on: scheduled 2 rt ago when dust (1, 4, 0) reached power 15".

    >>> from scicraft_viz.engine.causes import explain
    >>> for c in explain(world.events, world.blocks()):
    ...     print(c.text)
"""

from __future__ import annotations

from dataclasses import dataclass

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.blocks import split_state
from scicraft_viz.engine.rules import VANILLA, ruleset_from

Pos = tuple[int, int, int]
_DIRS = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}
_COMPARATOR_GT = 2
_BURNOUT_GT = 160


@dataclass(frozen=True)
class Cause:
    """An event, the earlier event that set it off (None: the player, or nothing logged), the delay
    between them in game ticks, and a sentence saying it."""

    event: object
    because: object | None
    delay: int | None
    text: str


def _short(block: str) -> str:
    name = block.removeprefix("minecraft:")
    return {"redstone_wire": "dust", "redstone_repeater": "repeater", "redstone_torch": "torch",
            "redstone_wall_torch": "wall torch", "redstone_lamp": "lamp", "stone_button": "button"}.get(name, name)


def what_happened(e) -> str:
    """An event as a short phrase: "dust (1, 4, 0) reached power 15", "lamp (3, 4, 0) lit"."""
    name = _short(e.block)
    where = f"{name} {tuple(e.pos)}"
    if e.kind == "power":
        return f"{where} reached power {e.new}" if e.new > e.old else f"{where} fell to power {e.new}"
    if e.kind == "state":
        if name in ("lamp", "torch", "wall torch"):
            return f"{where} {'lit' if e.new else 'went dark'}"
        if name == "button":
            return f"{where} {'was pressed' if e.new else 'sprang back'}"
        if name == "lever":
            return f"{where} {'was switched on' if e.new else 'was switched off'}"
        return f"{where} turned {'on' if e.new else 'off'}"
    if e.kind == "locked":
        return f"{where} {'locked' if e.new else 'unlocked'}"
    if e.kind == "burnout":
        return f"{where} burnt out"
    if e.kind == "shape":
        return f"{where} changed shape"
    if e.kind == "delay":
        return f"{where} delay {e.old} -> {e.new} rt"
    if e.kind == "tuned":
        return f"{where} tuned to note {e.new}"
    if e.kind == "note":
        return f"{where} played note {e.new}"
    if e.kind == "rang":
        return f"{where} rang"
    if e.kind == "mode":
        modes = B.COMPARATOR_MODES
        return f"{where} switched from {modes[e.old]} to {modes[e.new]}"
    return f"{where} {e.kind}"


def _delay_of(e, state: str | None, rules=VANILLA) -> int | None:
    """Game ticks between a change of this kind and what scheduled it under `rules` (None: at once)."""
    name = _short(e.block)
    if name == "comparator" and e.kind in ("state", "power"):
        return _COMPARATOR_GT  # a tick's change; the one a mode switch makes at once is not told apart
    if e.kind == "state":
        if name == "repeater":
            props = split_state(state)[1] if state else {}
            return rules.repeater_step * int(props.get("delay", 1))
        if name in ("torch", "wall torch"):
            return rules.torch_delay
        if name == "lamp" and not e.new:
            return rules.lamp_off_delay
        if name == "button" and not e.new:
            return rules.button_ticks
    return None


def _feeders(pos: Pos, state: str | None) -> list[Pos]:
    """Positions whose change can reach the block at pos: its input first for a repeater, then
    everything within two blocks (dust feeds a block through the one it points into)."""
    x, y, z = pos
    first: list[Pos] = []
    if state:
        name, props = split_state(state)
        if name in ("redstone_repeater", "comparator") and props.get("facing") in _DIRS:
            dx, _, dz = _DIRS[props["facing"]]
            first.append((x + dx, y, z + dz))
        if name in ("redstone_torch", "redstone_wall_torch"):
            if name == "redstone_torch":
                first.append((x, y - 1, z))
            elif props.get("facing") in _DIRS:
                dx, _, dz = _DIRS[props["facing"]]
                first.append((x - dx, y, z - dz))
    near = [(x + dx, y + dy, z + dz) for dx in range(-2, 3) for dy in range(-2, 3) for dz in range(-2, 3)
            if 0 < abs(dx) + abs(dy) + abs(dz) <= 2]
    return first + [p for p in near if p not in first]


def explain(events: list, blocks: dict[Pos, str] | None = None, rules=None) -> list[Cause]:
    """A Cause for every event, in the same order. `blocks` ({pos: state}, e.g. `world.blocks()`)
    gives repeater delays and facings; without it a repeater is taken to have delay 1. `rules` (e.g.
    `world.rules`; vanilla when None) gives the delays."""
    blocks = blocks or {}
    rules = ruleset_from(rules)
    by_pos: dict[Pos, list[int]] = {}
    out: list[Cause] = []
    for i, e in enumerate(events):
        pos = tuple(e.pos)
        state = blocks.get(pos)
        want = _delay_of(e, state, rules)
        what = what_happened(e)
        # a placement, removal or delay change is the player's edit, whatever changed near it before
        # a detector rail follows the minecarts on it, which the block log does not hold
        cart = e.kind == "state" and _short(e.block) == "detector_rail"
        found, delay = (None, None) if e.kind in ("placed", "removed", "delay") or cart else _find(
            events, by_pos, i, pos, state, want)
        # a block that changes in the tick it was placed does so because it was placed there (a lamp put
        # beside powered dust lights at once), not because of whatever changed near it earlier
        here = by_pos.get(pos, [])
        if e.kind != "placed" and here and events[here[-1]].kind == "placed" and events[here[-1]].tick == e.tick:
            found, delay = here[-1], 0
        if found is None:
            who = {"button": "the player pressed it", "lever": "the player flipped it"}.get(_short(e.block))
            if e.kind in ("placed", "removed", "delay"):
                who = "the player"
            if e.kind == "state" and _short(e.block) == "button" and not e.new:
                who = f"its press ran out after {_rt(rules.button_ticks)}"
            if cart:
                from scicraft_viz.engine.carts import DETECTOR_RECHECK

                who = "a minecart is on it" if e.new else (
                    f"no minecart was on it at its check (a pressed detector rail looks every {DETECTOR_RECHECK} gt)")
            text = f"{what}: {who or 'nothing logged before it explains it (it may predate the log)'}"
        else:
            f = events[found]
            if e.kind == "burnout":
                text = f"{what}: it turned off {rules.burnout_count} times within 3 s (last when {what_happened(f)})"
            elif want is not None and delay == want:
                text = f"{what}: scheduled {_rt(delay)} ago when {what_happened(f)}"
            elif delay == 0:
                text = f"{what}: at once, when {what_happened(f)}"
            else:
                text = f"{what}: {_rt(delay)} after {what_happened(f)}"
        out.append(Cause(e, None if found is None else events[found], delay, text))
        by_pos.setdefault(pos, []).append(i)
    return out


def _rt(gt: int) -> str:
    return f"{gt / 2:g} rt" if gt % 2 == 0 else f"{gt} gt"


def _find(events, by_pos, i, pos, state, want):
    """The index of the earlier event that set off events[i] and the delay in game ticks."""
    e = events[i]
    feeders = _feeders(pos, state)
    if want is not None and _short(e.block) == "button":
        for j in reversed(by_pos.get(pos, [])):
            f = events[j]
            if f.kind == "state" and f.new and e.tick - f.tick == want:
                return j, want
        return None, None
    if e.kind == "burnout":
        for j in reversed(by_pos.get(pos, [])):
            return j, e.tick - events[j].tick
    best = None
    for p in feeders:
        for j in reversed(by_pos.get(p, [])):
            f = events[j]
            if f.kind == "shape":
                continue
            d = e.tick - f.tick
            if want is not None:
                if d == want:
                    return j, d
                if d > want:
                    break
            if best is None or j > best[0]:
                best = (j, d)  # the latest change among the blocks that feed it
            if want is None:
                break
    if best is not None:
        return best
    return None, None
