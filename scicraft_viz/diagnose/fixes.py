"""Deciding by simulation: a change is applied to a copy of the build exactly as the environment's
`set-block` applies it (the /setblock-faithful world, `World(replay=True)`: the given state is kept
and only dust shape, power and the like update themselves), the copy is pressed as the evaluator
presses it, and the contract is checked on the recording, lamp by lamp. Every finding's fix goes
through `trial`; the candidate repairs (one missing wire, a repeater turned round, a lamp moved
back, a repeater's delay changed, a ring lifted onto stones) are generated here and tried the same
way.

A fix is a list of literal operations: {position: full block state, or "minecraft:air"}, applied in
the order `ordered` gives (removals, then free-standing blocks bottom up, then what hangs on them).
`literal` names every state in full: a wire with its four sides (a plain `redstone_wire` placed by
/setblock with nothing to connect to is a dot, which powers only the block under it), a repeater
with its delay and facing. "Verified" (`judge`) means on the whole build: the finding's lamps meet
their windows and no lamp that met its window before stops doing so, and no constraint the build
met is broken."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scicraft_viz.diagnose.graph import DOWN, UP, Circuit, H, Pos, add, fmt, split_state
from scicraft_viz.engine.blocks import is_attached, static_state
from scicraft_viz.tasks import evaluator

LIVE_KINDS = ("stone_button", "lever", "redstone_torch", "redstone_wall_torch", "redstone_block")
AIR = "minecraft:air"
STONE = "minecraft:stone"
# a wire asked for with sides: connected, it takes its shape from its neighbours; alone, a cross
WIRE = "minecraft:redstone_wire[east=side,north=side,south=side,west=side]"
SIDES4 = ("east", "north", "south", "west")


@dataclass
class Outcome:
    """One simulated press of a changed build, in game ticks after the press."""

    ons: dict[Pos, int | None]
    offs: dict[Pos, int | None]
    passed: bool  # the contract holds and no constraint the build met is broken
    reasons: list[str] = field(default_factory=list)
    strict: bool = False  # every check passes, constraints the build already broke included
    ok: frozenset = frozenset()  # lamps that meet their window (`meeting`)
    placed: dict = field(default_factory=dict)  # the change as literal states, in the order applied
    broke: list = field(default_factory=list)  # constraints the build met and the change breaks
    unmet: int = 0  # constraints that fail after the change (those the build broke already included)

    def lit(self, lamps) -> bool:
        return all(self.ons.get(tuple(p)) is not None for p in lamps)


def ordered(changes: dict[Pos, str]) -> list[tuple[Pos, str]]:
    """The order a fix is applied in (and its lines listed): removals first, then free-standing
    blocks bottom up, then the blocks that hang on others, bottom up."""
    def key(item):
        p, s = item
        return (0 if split_state(s)[0] == "air" else 1 + is_attached(s), p[1], p)

    return sorted(((tuple(p), s) for p, s in changes.items()), key=key)


def builder_state(state: str) -> str:
    """The full state a builder names for a block as it stands: derived properties (power, lit,
    powered, locked) left out, a wire's four sides kept."""
    name, props = split_state(state)
    if name == "redstone_wire":
        return "minecraft:redstone_wire[" + ",".join(f"{k}={props.get(k, 'none')}" for k in SIDES4) + "]"
    return static_state(state)


def operations(w, changes: dict[Pos, str]) -> list[tuple[Pos, str]]:
    """The set-block calls that apply `changes` to the world `w`, in order: `ordered`, with a wire
    that replaces a wire removed first (set-block leaves a wire in place when only its sides
    differ, so a dot would stay a dot)."""
    out = []
    for p, s in ordered(changes):
        if split_state(s)[0] == "redstone_wire" and split_state(w.get_block(p))[0] == "redstone_wire":
            out.append((p, AIR))
        out.append((p, s))
    return out


def place(w, changes: dict[Pos, str]) -> dict[Pos, str]:
    """Apply `changes` to the world `w` as the environment's set-block does (/setblock-faithful),
    through `operations`; returns the change as literal states (a wire as the shape it took), in
    `ordered` order."""
    was = w.replay
    w.replay = True
    try:
        for p, s in operations(w, changes):
            w.set_block(p, s)
    finally:
        w.replay = was
    out = {}
    for p, s in ordered(changes):
        got = w.get_block(p)
        want = split_state(s)[0]
        if want == "air":
            out[p] = AIR
        elif split_state(got)[0] == want:
            out[p] = builder_state(got)
        else:  # it fell off at once: name what was asked for
            out[p] = builder_state(s if s.startswith("minecraft:") else "minecraft:" + s)
    return out


def meeting(task, positions, lit) -> set[Pos]:
    """Lamps of a recording (`lit`: bool (T, L), row 0 = the press) that meet their window: for
    families A, B, D those inside the skew window holding the most lamps (ties: the earliest), for
    C every lamp whose gap from the lamp before it in the lit order is the contract's delay (the
    first stage: lit), for E a single pulse inside the on- and off-windows."""
    lit = np.asarray(lit, dtype=bool)
    positions = [tuple(p) for p in positions]
    if not positions or lit.ndim != 2 or not lit.shape[0]:
        return set()
    ons, offs, again = evaluator.lamp_times(lit)
    con = task.contract
    tol = task.to_game(con.get("tolerance_ticks", 1))
    kind = task.contract_type
    on = {p: t for p, t in zip(positions, ons) if t is not None}
    out: set[Pos] = set()
    if kind in ("simultaneity", "branch_reach", "equal_delay"):
        if on:
            best = max(sorted(set(on.values())), key=lambda t0: sum(t0 <= t <= t0 + tol for t in on.values()))
            # max() keeps the first of equal counts: the earliest window
            out = {p for p, t in on.items() if best <= t <= best + tol}
    elif kind == "sequential":
        delays = [task.to_game(d) for d in con["delays_ticks"]]
        order = sorted(on, key=lambda p: (on[p], p))
        for i, p in enumerate(order):
            if i == 0 or (i - 1 < len(delays) and abs(on[p] - on[order[i - 1]] - delays[i - 1]) <= tol):
                out.add(p)
    elif kind == "pulse":
        tau, win = task.to_game(con["tau_ticks"]), task.to_game(con["on_window_ticks"])
        for p, a, b, r in zip(positions, ons, offs, again):
            if a is not None and 0 <= a <= win and b is not None and tau - tol <= b <= tau + tol and r is None:
                out.add(p)
    return out


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
        placed = place(w, changes or {})
    except (InputError, ValueError):
        return None
    w.step(task.settle_game_ticks)
    blocks = w.blocks()
    buttons = sorted(p for p, s in blocks.items() if split_state(s)[0] == "stone_button")
    lamps_before = {p for p, s in blocks.items() if split_state(s)[0] == "redstone_lamp"
                    and split_state(s)[1].get("lit") == "true"}
    for b in buttons:
        w.use(b)
    tr = w.record(task.record_game_ticks)
    ons, offs, _ = evaluator.lamp_times(tr.lamp_lit)
    checks, _ = evaluator.contract_checks(task, list(tr.lamp_positions), tr.lamp_lit)
    reasons = [ch.reason for ch in checks if not ch.passed and ch.reason]
    # a fix must not break a constraint the build met (nothing on a lamp, the palette, ...)
    broken = [ch for ch in evaluator.structural_checks(task, blocks)[0] if not ch.passed]
    broke = [ch.reason or ch.name for ch in broken if ch.name not in broken_before(c)]
    reasons += broke
    if lamps_before:
        reasons.insert(0, "a lamp is lit before the press")
    if len(buttons) != 1:
        reasons.insert(0, f"{len(buttons)} buttons")
    ok = meeting(task, tr.lamp_positions, tr.lamp_lit) - lamps_before
    return Outcome({tuple(p): t for p, t in zip(tr.lamp_positions, ons)},
                   {tuple(p): t for p, t in zip(tr.lamp_positions, offs)}, not reasons, reasons,
                   not reasons and not broken, frozenset(ok), placed, broke, len(broken))


def broken_before(c: Circuit) -> set[str]:
    if "_broken" not in c.__dict__:
        c._broken = {ch.name for ch in evaluator.structural_checks(c.task, c.states)[0] if not ch.passed}
    return c._broken


def met_before(c: Circuit) -> frozenset:
    """Lamps that meet their window in the build as it stands."""
    if "_met" not in c.__dict__:
        tr = c.trace
        lit_at_rest = {p for p in c.lamps if c.props[p].get("lit") == "true"}
        c._met = frozenset(meeting(c.task, tr.lamp_positions, tr.lamp_lit) - lit_at_rest) if tr is not None \
            else frozenset()
    return c._met


def judge(c: Circuit, out: Outcome | None, lamps, moved: dict | None = None) -> str | None:
    """Why a simulated fix does not count as verified on the whole build (None: it does): the
    finding's lamps must meet their windows afterwards, no lamp that met its window before may stop
    doing so, no constraint the build met may break, and a lamp must not be lit before the press."""
    if out is None:
        return "the change cannot be placed"
    moved = {tuple(a): tuple(b) for a, b in (moved or {}).items()}
    where = [moved.get(tuple(p), tuple(p)) for p in lamps]
    miss = [p for p in where if p not in out.ok]
    lost = sorted(moved.get(p, p) for p in met_before(c) if moved.get(p, p) not in out.ok)
    if out.broke:
        return "it breaks a constraint the build met: " + "; ".join(out.broke)
    if out.reasons and out.reasons[0] in ("a lamp is lit before the press",) or \
            (out.reasons and out.reasons[0].endswith(" buttons")):
        return out.reasons[0]
    if lost:
        return f"lamp(s) {_fmt_list(lost)} that met their window stop doing so"
    if miss:
        return f"lamp(s) {_fmt_list(miss)} still miss their window"
    return None


def _fmt_list(ps) -> str:
    from scicraft_viz.diagnose.graph import fmt_list

    return fmt_list(sorted(ps), 4)


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

    def works(self, c: Circuit, lamps) -> bool:
        """Verified on the whole build (`judge`)."""
        return judge(c, self.outcome, lamps, self.moved) is None


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
                changes[below] = STONE
            elif c.name(below) not in ("stone", "glass", "redstone_block"):  # nothing may sit on a lamp
                continue
            changes[g] = WIRE
            what = f"place a wire at {fmt(g)}" + (f" (on a new stone at {fmt(below)})" if below in changes
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
            out.append(Candidate("broken_bridge", [g], {g: WIRE}, f"place a wire at {fmt(g)}"))
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
    (breaking no constraint the build met); else the first verified for `lamps` on the whole build
    (they meet their windows and no lamp that met its window stops doing so)."""
    passing = working = None
    for cand in cands[:limit]:
        out = trial(c, cand.changes)
        if out is None:
            continue
        cand.outcome = out
        if out.strict or (out.passed and not broken_before(c)):
            return cand
        if passing is None and out.passed:
            passing = cand
        if working is None and lamps and cand.works(c, lamps):
            working = cand
    return passing or working


def repeater_to_wire(c: Circuit, reps: list[Pos]) -> list[Candidate]:
    """Each repeater in `reps` replaced by a wire (it removes the repeater's whole delay)."""
    return [Candidate("", [p], {p: WIRE}, f"replace the repeater at {fmt(p)} with a wire")
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
