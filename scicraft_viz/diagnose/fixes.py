"""Deciding by simulation: a change is applied to a copy of the build, the copy is pressed as the
evaluator presses it, and the contract is checked on the recording. Every finding's fix goes
through `trial`; the candidate repairs (one missing wire, a repeater turned round, a lamp moved
back, a repeater's delay changed) are generated here and tried the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

from scicraft_viz.diagnose.graph import DOWN, UP, Circuit, H, Pos, add, fmt, split_state
from scicraft_viz.tasks import evaluator

LIVE_KINDS = ("stone_button", "lever", "redstone_torch", "redstone_wall_torch", "redstone_block")


@dataclass
class Outcome:
    """One simulated press of a changed build, in game ticks after the press."""

    ons: dict[Pos, int | None]
    offs: dict[Pos, int | None]
    passed: bool  # the contract holds and no constraint the build met is broken
    reasons: list[str] = field(default_factory=list)
    strict: bool = False  # every check passes, constraints the build already broke included

    def lit(self, lamps) -> bool:
        return all(self.ons.get(tuple(p)) is not None for p in lamps)


def trial(c: Circuit, changes: dict[Pos, str] | None = None) -> Outcome | None:
    """Press a copy of the build with `changes` applied (None when a change cannot be placed)."""
    key = tuple(sorted((changes or {}).items()))
    cache = c.__dict__.setdefault("_trials", {})
    if key not in cache:
        cache[key] = _trial(c, changes)
    return cache[key]


def _trial(c: Circuit, changes: dict[Pos, str] | None) -> Outcome | None:
    from scicraft_viz.errors import InputError

    w = c.world.copy()
    task = c.task
    try:
        for p, s in (changes or {}).items():
            w.set_block(p, s)
    except (InputError, ValueError):
        return None
    w.step(task.settle_game_ticks)
    blocks = w.blocks()
    buttons = sorted(p for p, s in blocks.items() if split_state(s)[0] == "stone_button")
    lit_before = any(split_state(s)[0] == "redstone_lamp" and split_state(s)[1].get("lit") == "true"
                     for s in blocks.values())
    for b in buttons:
        w.use(b)
    tr = w.record(task.record_game_ticks)
    ons, offs, _ = evaluator.lamp_times(tr.lamp_lit)
    checks, _ = evaluator.contract_checks(task, list(tr.lamp_positions), tr.lamp_lit)
    reasons = [ch.reason for ch in checks if not ch.passed and ch.reason]
    # a fix must not break a constraint the build met (nothing on a lamp, the palette, ...)
    broken = [ch for ch in evaluator.structural_checks(task, blocks)[0] if not ch.passed]
    reasons += [ch.reason for ch in broken if ch.name not in broken_before(c)]
    if lit_before:
        reasons.insert(0, "a lamp is lit before the press")
    if len(buttons) != 1:
        reasons.insert(0, f"{len(buttons)} buttons")
    return Outcome({tuple(p): t for p, t in zip(tr.lamp_positions, ons)},
                   {tuple(p): t for p, t in zip(tr.lamp_positions, offs)}, not reasons, reasons,
                   not reasons and not broken)


def broken_before(c: Circuit) -> set[str]:
    if "_broken" not in c.__dict__:
        c._broken = {ch.name for ch in evaluator.structural_checks(c.task, c.states)[0] if not ch.passed}
    return c._broken


@dataclass
class Candidate:
    """A repair to try: which rule it stands for, the blocks it names, the change and its wording."""

    mode: str
    positions: list[Pos]
    changes: dict[Pos, str]
    fix: str
    outcome: Outcome | None = None
    moved: dict[Pos, Pos] = field(default_factory=dict)  # lamps the change moves: old -> new position

    def lights(self, lamps) -> bool:
        return self.outcome is not None and self.outcome.lit([self.moved.get(tuple(p), tuple(p)) for p in lamps])


def _live(c: Circuit, p: Pos) -> bool:
    k = c.name(p)
    if k == "redstone_wire":
        return c.power.get(p, 0) > 0
    if k in ("stone", "redstone_lamp"):
        return c.strongly_powered(p) or (k == "redstone_lamp" and c.lit.get(p, False))
    if k in LIVE_KINDS or k == "redstone_repeater":
        return c.is_on(p)
    return False


def _dead(c: Circuit, p: Pos) -> bool:
    k = c.name(p)
    if k == "redstone_wire":
        return c.power.get(p, 0) == 0
    if k == "redstone_repeater":
        return not c.is_on(p)
    if k == "redstone_lamp":
        return not c.lit.get(p, False)
    return False


def _reach(p: Pos) -> list[Pos]:
    """Cells a wire at p can link with: beside it on its level, one up or one down, above and below."""
    out = [add(p, UP), add(p, DOWN)]
    for d in H.values():
        q = add(p, d)
        out += [q, add(q, UP), add(q, DOWN)]
    return out


def missing_wires(c: Circuit) -> list[Candidate]:
    """One wire in an empty cell between something live and something dead (on a staircase too),
    on a new stone when nothing holds it up."""
    out = []
    seen: set[Pos] = set()
    dead = [p for p in c.kind if _dead(c, p)]
    for p in dead:
        for g in _reach(p):
            if g in seen or g in c.kind:
                continue
            seen.add(g)
            if not any(_live(c, q) for q in _reach(g) if q != p):
                continue
            below = add(g, DOWN)
            changes = {}
            if c.name(below) == "air" and below not in c.kind:
                changes[below] = "minecraft:stone"
            elif c.name(below) not in ("stone", "glass", "redstone_block"):  # nothing may sit on a lamp
                continue
            changes[g] = "minecraft:redstone_wire"
            what = f"place redstone wire at {fmt(g)}" + (f" (on a new stone at {fmt(below)})" if below in changes
                                                          else "")
            out.append(Candidate("broken_bridge", [g], changes, what))
    return out


def restored(c: Circuit) -> list[Candidate]:
    """Every block that popped off, placed again on a new stone where its support was missing."""
    out = []
    for p, name in sorted(c.popped.items()):
        state = c.given.get(p) if hasattr(c, "given") else None
        state = state if state and split_state(state)[0] == name else f"minecraft:{name}"
        state = state if state.startswith("minecraft:") else f"minecraft:{state}"
        props = split_state(state)[1]
        if name in ("redstone_wall_torch",) or (name in ("stone_button", "lever") and props.get("face") == "wall"):
            d = H.get(props.get("facing", "north"), (0, 0, -1))
            support = (p[0] - d[0], p[1], p[2] - d[2])
        elif name in ("stone_button", "lever") and props.get("face") == "ceiling":
            support = add(p, UP)
        else:
            support = add(p, DOWN)
        changes = {p: state}
        if support not in c.kind:
            changes = {support: "minecraft:stone", p: state}
        what = name.replace("_", " ")
        out.append(Candidate("popped_off", [p, support], changes,
                             f"put a stone at {fmt(support)} and place the {what} at {fmt(p)} again"))
    if len(out) > 1:  # one missing block can drop several (a button and a torch on the same stone)
        every = Candidate("popped_off", [x for c_ in out for x in c_.positions],
                          {k: v for c_ in out for k, v in c_.changes.items()},
                          "; ".join(c_.fix for c_ in out))
        out.insert(0, every)
    return out


def supports(c: Circuit) -> list[Candidate]:
    """A stone under every wire, repeater or torch that stands on nothing (its support was taken away)."""
    out = []
    for p, k in sorted(c.kind.items()):
        below = add(p, DOWN)
        if k in ("redstone_wire", "redstone_repeater", "redstone_torch") and below not in c.kind:
            out.append(Candidate("popped_off", [p, below], {below: "minecraft:stone"},
                                 f"put a stone at {fmt(below)} under the {k.replace('_', ' ')} at {fmt(p)}"))
    return out


def wire_spots(c: Circuit, limit: int = 150) -> list[Candidate]:
    """One wire on any free block top of the build that touches two or more wires or components."""
    out = []
    for p in sorted(c.device):
        g = add(p, UP)
        if c.name(p) not in ("stone", "glass") or g in c.kind:
            continue
        near = [q for q in _reach(g) if c.name(q) in ("redstone_wire", "redstone_repeater", "redstone_torch",
                                                       "redstone_wall_torch", "stone_button")]
        if len(near) >= 2:
            out.append(Candidate("broken_bridge", [g], {g: "minecraft:redstone_wire"},
                                 f"place redstone wire at {fmt(g)}"))
    return out[:limit]


def turned_repeaters(c: Circuit, every: bool = False) -> list[Candidate]:
    """Every repeater that never switched on (`every`: every repeater), turned round."""
    out = []
    opp = {"north": "south", "south": "north", "east": "west", "west": "east"}
    for p, k in sorted(c.kind.items()):
        if k != "redstone_repeater" or (c.is_on(p) and not every):
            continue
        f = c.props[p].get("facing", "north")
        state = f"minecraft:redstone_repeater[delay={c.props[p].get('delay', '1')},facing={opp[f]}]"
        out.append(Candidate("backwards_repeaters", [p], {p: state},
                             f"turn the repeater at {fmt(p)} round (facing={opp[f]}) so that its input faces the "
                             "signal"))
    return out


def moved_lamps(c: Circuit, lamps: list[Pos]) -> list[Candidate]:
    """Each dark lamp moved one block (down, or beside it on its level or one lower) into an empty cell."""
    out = []
    for lp in lamps:
        cells = [add(lp, DOWN)] + [add(add(lp, d), e) for d in H.values() for e in ((0, 0, 0), DOWN)]
        for q in cells:
            above = add(q, UP)
            if q in c.kind or (above in c.kind and above != lp):  # nothing may sit on a lamp
                continue
            out.append(Candidate("missing_rails", [lp, q], {lp: "minecraft:air", q: "minecraft:redstone_lamp"},
                                 f"move the lamp at {fmt(lp)} to {fmt(q)}, where the wiring meant for it ends",
                                 moved={lp: q}))
    return out


def delay_changes(c: Circuit, first: list[Pos] | None = None) -> list[Candidate]:
    """Every repeater at every other delay, those in `first` first (nearest delay first)."""
    first = list(first or [])
    reps = [p for p in first if c.name(p) == "redstone_repeater"]
    reps += [p for p, k in sorted(c.kind.items()) if k == "redstone_repeater" and p not in reps]
    out = []
    for p in reps:
        d = int(c.props[p].get("delay", "1"))
        f = c.props[p].get("facing", "north")
        for nd in sorted((x for x in range(1, 5) if x != d), key=lambda x: abs(x - d)):
            out.append(Candidate("", [p], {p: f"minecraft:redstone_repeater[delay={nd},facing={f}]"},
                                 f"repeater at {fmt(p)}: delay {d} -> {nd}"))
    return out


def best(c: Circuit, cands: list[Candidate], lamps: list[Pos], limit: int = 400) -> Candidate | None:
    """The first candidate after which every check passes; else the first that passes the contract
    (breaking no constraint the build met); else the first that lights `lamps`."""
    passing = lighting = None
    for cand in cands[:limit]:
        out = trial(c, cand.changes)
        if out is None:
            continue
        cand.outcome = out
        if out.strict or (out.passed and not broken_before(c)):
            return cand
        if passing is None and out.passed:
            passing = cand
        if lighting is None and lamps and cand.lights(lamps):
            lighting = cand
    return passing or lighting


def repeater_to_wire(c: Circuit, reps: list[Pos]) -> list[Candidate]:
    """Each repeater in `reps` replaced by a wire (it removes the repeater's whole delay)."""
    return [Candidate("", [p], {p: "minecraft:redstone_wire"}, f"replace the repeater at {fmt(p)} with redstone wire")
            for p in reps if c.name(p) == "redstone_repeater"]


def retime(c: Circuit, first: list[Pos]) -> Candidate | None:
    """A single change after which the build passes its contract: a block that lost its support put
    back, a repeater's delay (those in `first` first), a repeater replaced by wire, a repeater turned
    round, one missing wire."""
    cands = delay_changes(c, first)
    for group in (restored(c) + supports(c), [x for x in cands if x.positions[0] in first], repeater_to_wire(c, first),
                  turned_repeaters(c, every=True), missing_wires(c), [x for x in cands if x.positions[0] not in first],
                  wire_spots(c)):
        found = best(c, group, [])
        if found is not None and found.outcome.passed:
            return found
    return None


def structural(c: Circuit, cand: Candidate, lamps: list[Pos], measured: str):
    """A timing failure whose simulated fix is a structural repair (a repeater turned round, a
    missing wire): the structural rule's finding, with the measured timing added."""
    from scicraft_viz.diagnose.rules import REGISTRY

    f = REGISTRY[cand.mode].repair(c, cand, lamps)
    f.explanation = f"{f.explanation} Measured: {measured}"
    return f
