"""Reference solutions: parametric builders for the five families and the answer-key writer.

    >>> from scicraft_viz import tasks, solutions
    >>> task = tasks.load("C_sequential_activation_L1")
    >>> text = solutions.solution_text(task)        # .mcfunction build file
    >>> solutions.write_solutions()                 # regenerates tasks/solutions/*.mcfunction

All designs sit on the task's stone floor (anchor y - 1) and are built relative to the anchor:

* A and D, "comb": the button stands on a stone at the anchor; a delay-1 repeater north and one
  south feed the two halves of a spine of dust on stones (north-south through the anchor), and
  teeth of dust on stones branch east and west at z = +-2, +-5, +-8. Dust on top of a stone
  weakly powers the stone, and a powered stone lights every lamp beside it, so each tooth lights
  the lamps on the rows on both sides of it (z = tooth +- 1), all 1 rt after the press: skew 0.
  D picks, for each distance bucket, comb positions at that Manhattan distance from the button.
* B, "trunk + comb": the button stands 9 blocks west; a dust trunk ends in a T-junction at the
  anchor, a delay-1 repeater on each branch (north, south) feeds the spine and the east-side
  teeth (so every lamp is off the button's axes); all lamps light 1 rt after the press.
* C, "folded delay line": button -> repeater -> lamp -> repeater -> lamp ... in a serpentine on
  the floor. A repeater pointing into a lamp strongly powers it, and the powered lamp feeds the
  next repeater, so stage i+1 lights exactly delay_i after stage i. Row ends use a dust corner.
* E, pulse shapers feeding the east half-comb through the junction at the anchor:
  tau = 12 rt: the button's own 10 rt pulse (+2 rt lamp off-delay); longer pulses OR in a
  delayed copy; shorter pulses use a two-torch monostable (torch T1 on the button's block drops
  1 rt after the press, so torch T2 on block X lights 1 rt later; a repeater line re-powers X
  and ends the pulse; for tau = 4 a feedback dust from T2 back onto X cuts the pulse to 1 rt).

The above is vanilla. Every builder follows the task's ruleset (task.rules): with a dust decay over 1 the
comb's teeth start behind their own delay-1 repeater and B's trunk regenerates half-way; C's repeater
settings are counted in repeater steps; E's pulse timings come from the torch delay, repeater step, button
pulse and lamp off-delay (`pulse_designs`). Where dust runs out, lamps that light one repeater step early
join when the skew allows it (D), and E's comb grows a second quadrant or, where the pulse's timing allows
one more repeater step, restarts each tooth behind a repeater. Every canonical task has a design under every
listed variant; where none of the builders' kind meets the contract (a random or custom ruleset) the builder
raises NoReferenceDesign with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

from scicraft_viz.engine.blocks import VANILLA_NAME, is_attached
from scicraft_viz.engine.rules import VANILLA, Ruleset
from scicraft_viz.tasks import Task

Pos = tuple[int, int, int]

TEETH = (2, 5, 8, -2, -5, -8)
ROW_TOOTH = {z: zt for zt in TEETH for z in (zt - 1, zt + 1)}
ROW_ORDER = (1, -1, 3, -3, 4, -4, 6, -6, 7, -7, 9, -9)


class NoReferenceDesign(ValueError):
    """The builders have no design for these parameters (or they are infeasible)."""


# ---------------------------------------------------------------------------------------- helpers
class Build:
    """Blocks of a design in anchor-relative coordinates; refuses conflicting placements."""

    def __init__(self) -> None:
        self.blocks: dict[Pos, str] = {}
        self.notes: list[str] = []

    def put(self, pos: Pos, state: str) -> None:
        old = self.blocks.get(pos)
        if old is not None and old != state:
            raise NoReferenceDesign(f"design conflict at {pos}: {old} vs {state}")
        self.blocks[pos] = state

    def stone(self, pos: Pos) -> None:
        self.put(pos, "stone")

    def dust(self, pos: Pos) -> None:
        """Dust with a stone below it (the stone is weakly powered by the dust)."""
        self.stone((pos[0], pos[1] - 1, pos[2]))
        self.put(pos, "redstone_wire")

    def lamp(self, pos: Pos) -> None:
        self.put(pos, "redstone_lamp")

    def shifted(self, anchor: Pos) -> dict[Pos, str]:
        ax, ay, az = anchor
        return {(x + ax, y + ay, z + az): s for (x, y, z), s in self.blocks.items()}


def _check_world(task: Task) -> None:
    block, fy = task.floor
    if fy != task.anchor[1] - 1 or block != "minecraft:stone":
        raise NoReferenceDesign("the reference designs need a stone floor directly below the anchor level")
    need = {"minecraft:stone", "minecraft:redstone_wire", "minecraft:redstone_lamp", "minecraft:stone_button"}
    missing = need - set(task.allowed_blocks)
    if missing:
        raise NoReferenceDesign(f"the reference designs need {', '.join(sorted(missing))} in the palette")


def _require(task: Task, *blocks: str) -> None:
    missing = [b for b in blocks if f"minecraft:{b}" not in task.allowed_blocks]
    if missing:
        raise NoReferenceDesign(f"this design needs {', '.join(missing)}, which the task does not allow")


def _comb_candidates(r: int, power_at: int, z_at: int, east_only: bool, decay: int = 1,
                     tooth_repeaters: bool = False, near: bool = False) -> list[Pos]:
    """Lamp positions (y = 0) the comb can light: rows next to a tooth, inside radius r, with the
    tooth dust above the lamp's stone still carrying power >= 1. The spine dust at |z| = z_at has
    power `power_at`; dust loses `decay` per block along the spine and then along the tooth. With
    tooth repeaters and `near`, also the lamps beside the spine (|x| = 1) on rows the spine still powers:
    they light one repeater earlier than the teeth's lamps, so only where the skew allows it."""
    out = []
    for z, zt in ROW_TOOTH.items():
        if abs(z) > r or abs(zt) > r:
            continue
        for x in range(-r, r + 1):
            if x == 0 or (east_only and x < 0):
                continue
            if tooth_repeaters and near and abs(x) == 1:  # lit by the spine's stone beside it
                if abs(z) >= z_at and power_at - decay * (abs(z) - z_at) >= 1:
                    out.append((x, 0, z))
                continue
            if tooth_repeaters:  # the spine must reach the tooth's repeater, which restarts at 15 past it
                if abs(x) < 2 or power_at - decay * (abs(zt) - z_at) < 1:
                    continue
                power = 15 - decay * (abs(x) - 2)
            else:
                power = power_at - decay * ((abs(zt) - z_at) + abs(x))
            if power >= 1:
                out.append((x, 0, z))
    return out


def _split_feed(b: Build) -> None:
    """Two delay-1 repeaters at (0,1,+-1) taking the signal at (0,1,0) north and south into the spine
    halves (full strength 15 at z = +-2)."""
    b.stone((0, 0, 1))
    b.put((0, 1, 1), "redstone_repeater[delay=1,facing=north]")
    b.stone((0, 0, -1))
    b.put((0, 1, -1), "redstone_repeater[delay=1,facing=south]")


def _build_comb(b: Build, lamps: list[Pos], spine_from: int, tooth_repeaters: bool = False) -> None:
    """Spine dust at (0,1,z) for |z| >= spine_from up to the outermost tooth used, teeth of dust at
    (x,1,zt) out to the farthest lamp of their rows, and the lamps (y = 0). With tooth repeaters a lamp at
    |x| = 1 is lit by the spine's stone beside it and needs no tooth, only the spine reaching its row."""
    reach: dict[int, tuple[int, int]] = {}
    rows = set()
    for x, _, z in lamps:
        if tooth_repeaters and abs(x) == 1:
            rows.add(z)
            continue
        zt = ROW_TOOTH[z]
        rows.add(zt)
        lo, hi = reach.get(zt, (0, 0))
        reach[zt] = (min(lo, x), max(hi, x))
    north = min([z for z in rows if z < 0], default=0)
    south = max([z for z in rows if z > 0], default=0)
    for z in range(north, south + 1):
        if abs(z) >= spine_from:
            b.dust((0, 1, z))
    for zt, (lo, hi) in reach.items():
        for x in range(lo, hi + 1):
            if x == 0:
                continue
            if tooth_repeaters and abs(x) == 1:  # a delay-1 repeater fed by the spine starts each tooth
                b.stone((x, 0, zt))
                b.put((x, 1, zt), f"redstone_repeater[delay=1,facing={'west' if x > 0 else 'east'}]")
            else:
                b.dust((x, 1, zt))
    for p in lamps:
        b.lamp(p)


def _take(cands: list[Pos], n: int, what: str) -> list[Pos]:
    if len(cands) < n:
        raise NoReferenceDesign(f"{what}: the reference layout has room for {len(cands)} lamps, {n} requested")
    return cands[:n]


# ---------------------------------------------------------------------------------------- families
def build_a(n: int, radius: int = 10, rules: Ruleset = VANILLA) -> Build:
    """Family A: full comb around a central button, each spine half behind its own delay-1
    repeater; every lamp lights 1 rt after the press (skew 0)."""
    b = Build()
    b.stone((0, 0, 0))
    b.put((0, 1, 0), "stone_button[face=floor,facing=north]")
    _split_feed(b)
    teeth = rules.dust_decay > 1
    cands = _comb_candidates(radius, 15, 2, east_only=False, decay=rules.dust_decay, tooth_repeaters=teeth)
    cands.sort(key=lambda p: (abs(p[0]) + abs(p[2]), abs(p[2]), abs(p[0]), p[0] < 0, p[2] < 0))
    _build_comb(b, _take(cands, n, "family A"), spine_from=2, tooth_repeaters=teeth)
    b.notes.append("button on a stone at the anchor; a delay-1 repeater north and south into a comb of dust on "
                   "stones; lamps beside the powered stones")
    return b


def build_b(n: int, max_reach: int, radius: int = 10, rules: Ruleset = VANILLA) -> Build:
    """Family B: trunk from a button 9 blocks west, a delay-1 repeater, T-junction at the anchor,
    east-side comb. Lamps are off-axis (z != 0, x >= 1); the farthest is placed first."""
    if radius < 10:
        raise NoReferenceDesign("the family B reference layout needs a radius of at least 10")
    b = Build()
    bx = -9
    b.stone((bx, 0, 0))
    b.put((bx, 1, 0), "stone_button[face=floor,facing=east]")
    # the trunk regenerates half-way when dust runs out before the junction (a dust decay over 1)
    mid = bx // 2 if 15 - rules.dust_decay * -bx < 1 else None
    for x in range(bx + 1, 1):
        if x == mid:
            b.stone((x, 0, 0))
            b.put((x, 1, 0), "redstone_repeater[delay=1,facing=west]")
        else:
            b.dust((x, 1, 0))  # trunk; (0,1,0) is the T-junction: trunk west, repeaters north and south
    _split_feed(b)
    teeth = rules.dust_decay > 1
    cands = _comb_candidates(radius, 15, 2, east_only=True, decay=rules.dust_decay, tooth_repeaters=teeth)
    button = (bx, 1, 0)

    def reach(p: Pos) -> int:
        return sum(abs(u - v) for u, v in zip(p, button))

    far = max(cands, key=lambda p: (reach(p), -abs(p[2])))
    if reach(far) < max_reach:
        raise NoReferenceDesign(f"family B: the layout reaches {reach(far)} blocks, {max_reach} requested")
    # then row pairs z = +-1, +-3, ... from the far end inwards, alternating north and south
    rank = {z: i // 2 for i, z in enumerate(ROW_ORDER)}
    rest = sorted((p for p in cands if p != far), key=lambda p: (rank[p[2]], -p[0], (p[2] > 0) == (far[2] > 0)))
    lamps = _take([far] + rest, n, "family B")
    _build_comb(b, lamps, spine_from=2, tooth_repeaters=teeth)
    b.notes.append(f"dust trunk into a T-junction, a delay-1 repeater on each branch, east-side comb; farthest lamp "
                   f"{reach(far)} blocks away")
    return b


def build_c(delays_gt: list[int], tol_gt: int, radius: int = 10, rules: Ruleset = VANILLA) -> Build:
    """Family C: serpentine delay line on the floor, lamps relaying strong power to the next repeater."""
    r = radius
    if r < 2:
        raise NoReferenceDesign("family C needs a radius of at least 2")
    stages: list[list[int]] = [[1]]  # button -> delay-1 repeater -> first lamp
    for i, d in enumerate(delays_gt):
        best = None
        step = rules.repeater_step  # a repeater set to s waits s x step game ticks
        for rt in range(1, 64):
            if abs(step * rt - d) <= tol_gt and (best is None or abs(step * rt - d) < abs(step * best - d)):
                best = rt
        if best is None:
            raise NoReferenceDesign(
                f"family C: delay {i + 1} = {d} game ticks cannot be made from repeaters (multiples of {step} game "
                f"ticks, at least {step}) within the tolerance of {tol_gt} game ticks")
        parts = [4] * (best // 4) + ([best % 4] if best % 4 else [])
        stages.append(parts)
    tokens: list[tuple[str, int]] = []
    for parts in stages:
        tokens += [("R", d) for d in parts] + [("L", 0)]
    # path: rows z = -r, -r+2, ... alternating direction, joined by a turn cell at the row end
    cells: list[tuple[Pos, bool]] = []  # (pos, is_corner)
    rows = list(range(-r, r + 1, 2))
    for k, z in enumerate(rows):
        xs = list(range(-r, r + 1)) if k % 2 == 0 else list(range(r, -r - 1, -1))
        if k == 0:
            xs = xs[1:]  # the button takes the first cell
        for i, x in enumerate(xs):
            corner = (i == len(xs) - 1) or (k > 0 and i == 0)
            cells.append(((x, 0, z), corner))
        if k + 1 < len(rows):
            cells.append(((xs[-1], 0, z + 1), False))
    b = Build()
    b.put((-r, 0, -r), "stone_button[face=floor,facing=east]")
    prev: Pos = (-r, 0, -r)
    facing_of = {(1, 0): "west", (-1, 0): "east", (0, 1): "north", (0, -1): "south"}
    ti = 0
    for pos, corner in cells:
        if ti == len(tokens):
            break
        kind, d = tokens[ti]
        step = (pos[0] - prev[0], pos[2] - prev[2])
        if corner and kind == "R":
            b.put(pos, "redstone_wire")  # a dust corner: fed by the lamp or repeater before it
        elif kind == "R":
            b.put(pos, f"redstone_repeater[delay={d},facing={facing_of[step]}]")
            ti += 1
        else:
            b.lamp(pos)
            ti += 1
        prev = pos
    if ti < len(tokens):
        raise NoReferenceDesign(f"family C: the folded line holds {sum(1 for t in tokens[:ti] if t[0] == 'L')} "
                                f"stages in radius {r}, {len(delays_gt) + 1} requested")
    b.notes.append("serpentine repeater -> lamp -> repeater line; dust at row corners")
    return b


def build_d(n: int, targets: list[int], per: list[int], tol: int, radius: int = 10,
            rules: Ruleset = VANILLA, skew_gt: int = 0) -> Build:
    """Family D: the A comb, lamps chosen at the requested Manhattan distances from the button. With teeth
    behind repeaters, lamps that light one repeater step earlier than the teeth's join when the step fits in
    the skew tolerance `skew_gt` (game ticks): those beside the spine, and on the button's east-west axis
    those beside a block a floor repeater fed by the button's block powers (lamps at x = +-2, +-3)."""
    b = Build()
    b.stone((0, 0, 0))
    button = (0, 1, 0)
    b.put(button, "stone_button[face=floor,facing=north]")
    _split_feed(b)
    teeth = rules.dust_decay > 1
    near = teeth and rules.repeater_step <= skew_gt
    cands = _comb_candidates(radius, 15, 2, east_only=False, decay=rules.dust_decay, tooth_repeaters=teeth,
                             near=near)
    if near:
        cands += [(x, 0, 0) for x in (2, -2, 3, -3) if abs(x) <= radius]

    def dist(p: Pos) -> int:
        return sum(abs(u - v) for u, v in zip(p, button))

    chosen: list[Pos] = []
    used: set[Pos] = set()
    for j, (t, k) in enumerate(zip(targets, per)):
        pool = [p for p in cands if abs(dist(p) - t) <= tol and p not in used]
        # exact distances first; mirror images next to each other; buckets alternate halves
        pool.sort(key=lambda p: (abs(dist(p) - t), abs(p[2]), abs(p[0]), (p[2] < 0) != (j % 2 == 1), p[0] < 0))
        if len(pool) < k:
            raise NoReferenceDesign(f"family D: the comb has {len(pool)} lamp positions at distance {t}+/-{tol}, "
                                    f"{k} requested")
        chosen += pool[:k]
        used.update(pool[:k])
    if len(chosen) != n:
        raise NoReferenceDesign(f"family D: lamps_per_distance gives {len(chosen)} lamps, N = {n}")
    _build_comb(b, [p for p in chosen if p[2] != 0], spine_from=2, tooth_repeaters=teeth)
    for sx in (1, -1):  # a delay-1 repeater on the floor fed by the button's block; the block it powers lights (3x)
        axis = [p for p in chosen if p[2] == 0 and p[0] * sx > 0]
        if axis:
            b.put((sx, 0, 0), f"redstone_repeater[delay=1,facing={'west' if sx > 0 else 'east'}]")
            b.put((2 * sx, 0, 0), "redstone_lamp" if (2 * sx, 0, 0) in axis else "stone")
            for p in axis:
                b.lamp(p)
    b.notes.append("comb around the button behind a delay-1 repeater per half; lamps picked by Manhattan "
                   "distance bucket")
    return b


# pulse designs: (name, parameter, on-tick, off-tick) in game ticks after the press
def pulse_designs(rules: Ruleset = VANILLA) -> list[tuple[str, int, int, int]]:
    """The pulse shapers and when their lamps light and go dark under `rules`. The parameter is the delay of
    the shaper's repeater line, k repeater settings (2 <= k <= 8, two repeaters) of repeater_step ticks each.
    With torch delay t, lamp off-delay l, button pulse p and repeater step s: the two-torch monostable lights
    at 2t (T1 drops, then T2 lights) and ends t after the line re-powers X, so the line must arrive after T2
    lit (k s > 2t) and before the button's release re-lights T1 (k s <= p); with the feedback dust T2 is
    lit for t only, and the line must hold X by the tick T2 would light again (k s <= 4t: a repeater's tick
    runs before a torch's due in the same game tick, docs/redstone.md section 2, so a line arriving at 4t
    keeps T2 dark; the shortest such line is built). The button's own pulse lasts p; the extended one passes
    a delay-1 repeater (s) and ORs in a copy delayed by k s."""
    t, s, p, lo = rules.torch_delay, rules.repeater_step, rules.button_ticks, rules.lamp_off_delay
    out = [("monostable_feedback", k * s, 2 * t, 3 * t + lo) for k in range(2, 9) if 3 * t <= k * s <= 4 * t][:1]
    out += [("monostable", k * s, 2 * t, k * s + t + lo) for k in range(2, 9) if 2 * t < k * s <= p]
    out += [("button", 0, 0, p + lo), ("extended", 0, s, p + s + lo)]
    out += [("extended", k * s, s, p + s + k * s + lo) for k in range(2, 9)]
    return out


def _split2(total_rt: int) -> tuple[int, int]:
    a = max(1, total_rt // 2)
    return a, total_rt - a


def _shaper(name: str, dd: int, rules: Ruleset) -> Build:
    """The pulse shaper feeding the junction (0,1,0) from the west (x <= -1, z <= 0)."""
    b = Build()
    if name == "button":
        b.stone((-1, 0, 0))
        b.put((-1, 1, 0), "stone_button[face=floor,facing=east]")
    elif name == "extended":
        # button 4 west; trunk dust; delay-1 repeater into the junction; optional delayed copy ORed in
        b.stone((-5, 0, 0))
        b.put((-5, 1, 0), "stone_button[face=floor,facing=east]")
        for x in (-4, -3, -2):
            b.dust((x, 1, 0))
        b.stone((-1, 0, 0))
        b.put((-1, 1, 0), "redstone_repeater[delay=1,facing=west]")
        if dd:
            d1, d2 = _split2(dd // rules.repeater_step)
            b.stone((-5, 0, -1))
            b.put((-5, 1, -1), f"redstone_repeater[delay={d1},facing=south]")
            for x in (-5, -4, -3):
                b.dust((x, 1, -2))
            b.stone((-3, 0, -1))
            b.put((-3, 1, -1), f"redstone_repeater[delay={d2},facing=north]")
    else:
        # two-torch monostable: B_b=(-3,0,0) with the button on top, T1 on its east face under X=(-2,1,0),
        # T2 on X's east face feeding the junction; Y = two repeaters from the button into X's north face.
        b.stone((-3, 0, 0))
        b.put((-3, 1, 0), "stone_button[face=floor,facing=east]")
        b.put((-2, 0, 0), "redstone_wall_torch[facing=east]")
        b.stone((-2, 1, 0))
        b.put((-1, 1, 0), "redstone_wall_torch[facing=east]")
        d1, d2 = _split2(dd // rules.repeater_step)
        b.stone((-3, 0, -1))
        b.put((-3, 1, -1), f"redstone_repeater[delay={d1},facing=south]")
        b.dust((-3, 1, -2))
        b.dust((-2, 1, -2))
        b.stone((-2, 0, -1))
        b.put((-2, 1, -1), f"redstone_repeater[delay={d2},facing=north]")
        if name == "monostable_feedback":
            b.stone((-1, 2, 0))  # strongly powered by T2 below it
            b.put((-2, 2, 0), "redstone_wire")  # on X: T2 lit -> X powered -> T2 off 1 rt later
    return b


def _e_lamps(shaper: Build, radius: int, rules: Ruleset, teeth: bool) -> list[Pos]:
    """Lamp places for family E, east half first, then the south-west quadrant (z >= 1) where no lamp touches
    the shaper (a lamp beside the button's block or a torch would follow them, not the shaped pulse)."""
    def key(p: Pos) -> tuple:
        return (abs(p[0]) + abs(p[2]), abs(p[2]), p[2] < 0, p[0])

    both = _comb_candidates(radius, 15, 0, east_only=False, decay=rules.dust_decay, tooth_repeaters=teeth)
    east = sorted((p for p in both if p[0] > 0), key=key)
    near_shaper = {(x + dx, y + dy, z + dz) for x, y, z in shaper.blocks
                   for dx, dy, dz in ((0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))}
    west = sorted((p for p in both if p[0] < 0 and p[2] >= 1 and p not in near_shaper), key=key)
    return east + west


def build_e(n: int, tau_gt: float, on_window_gt: float, tol_gt: float, radius: int = 10,
            rules: Ruleset = VANILLA) -> Build:
    """Family E: a pulse shaper at the anchor's west side feeding a comb of dust (east half first): the pulse
    reaches its lamps at once, or, where dust runs out first and the timing allows one more repeater step
    (on and off ticks both s later), through a delay-1 repeater at the start of each tooth."""
    if radius < 10:
        raise NoReferenceDesign("the family E reference layout needs a radius of at least 10")
    designs = pulse_designs(rules)
    s = rules.repeater_step

    def fit(shift: int) -> list[tuple[str, int, int, int]]:
        ok = [d for d in designs if d[2] + shift <= on_window_gt and abs(d[3] + shift - tau_gt) <= tol_gt]
        return sorted(ok, key=lambda d: (abs(d[3] + shift - tau_gt), d[2]))

    plans = [(d, False) for d in fit(0)] + [(d, True) for d in fit(s)]
    if not plans:
        why = ""
        if not rules.is_vanilla():
            soon = [d[3] for d in designs if d[2] <= on_window_gt]
            why = (f" Under it the two-torch monostables light {2 * rules.torch_delay} game ticks after the press "
                   "(two torch delays); " + (f"the designs lighting in time go dark at +{min(soon)} to +{max(soon)}"
                                             if soon else "no design lights in time")
                   + f" (repeater step {rules.repeater_step}, button pulse {rules.button_ticks}, lamp off-delay "
                   f"{rules.lamp_off_delay} game ticks).")
        if rules.is_vanilla() and on_window_gt < 4 and tau_gt + tol_gt < 24:
            why = (" With an on-window under 4 game ticks (2 rt) a lamp can only be fed by the button's own pulse "
                   "(or it delayed by one 1 rt repeater), which lasts until the button releases at +20 game ticks, "
                   "so the lamp goes dark at +24 game ticks at the earliest (2 rt lamp off-delay).")
        raise NoReferenceDesign(
            f"family E: no reference pulse design lights within {on_window_gt:g} game ticks and goes dark at "
            f"{tau_gt:g}+/-{tol_gt:g} game ticks" + ("" if rules.is_vanilla() else f" under the ruleset {rules.name}")
            + "." + why)
    room = 0
    for design, teeth in plans:
        shaper = _shaper(design[0], design[1], rules)
        cands = _e_lamps(shaper, radius, rules, teeth)
        room = max(room, len(cands))
        if len(cands) >= n:
            break
    else:
        raise NoReferenceDesign(f"family E: the reference layout has room for {room} lamps, {n} requested")
    name, dd, on, off = design
    b = Build()
    b.dust((0, 1, 0))  # the junction feeding the spine and the comb
    _build_comb(b, cands[:n], spine_from=1, tooth_repeaters=teeth)
    for pos, state in shaper.blocks.items():
        b.put(pos, state)
    if teeth:
        on, off = on + s, off + s
    b.notes.append(f"pulse design {name} (parameter {dd} gt): lamps on at +{on} gt, off at +{off} gt"
                   + ("; a delay-1 repeater starts each tooth" if teeth else ""))
    return b


# ---------------------------------------------------------------------------------------- entry points
def build_for(task: Task) -> Build:
    """The reference design for any task (canonical or generated) under the task's ruleset: dust reach from
    its dust decay (teeth behind their own repeater when dust decays faster), repeater settings from its
    repeater step, pulse shapers from its torch delay, button pulse and lamp off-delay. Raises
    NoReferenceDesign, naming why, where no design of the builder's kind meets the contract."""
    _check_world(task)
    c = task.contract
    f = task.game_ticks_per_unit
    r = task.radius
    fam = task.family
    rules = task.rules
    if fam == "A":
        b = build_a(task.n, r, rules)
    elif fam == "B":
        _require(task, "redstone_repeater")
        b = build_b(task.n, c["max_reach_blocks"], r, rules)
    elif fam == "C":
        _require(task, "redstone_repeater")
        b = build_c([round(d * f) for d in c["delays_ticks"]], int(c["tolerance_ticks"] * f), r, rules)
    elif fam == "D":
        b = build_d(task.n, c["target_distances"], c["lamps_per_distance"], c["distance_tolerance_blocks"], r,
                    rules, round(c["tolerance_ticks"] * f))
    else:
        b = build_e(task.n, c["tau_ticks"] * f, c["on_window_ticks"] * f, c["tolerance_ticks"] * f, r, rules)
    used = {("minecraft:" + ("redstone_torch" if s.startswith("redstone_wall_torch") else s.split("[")[0]))
            for s in b.blocks.values()}
    missing = used - set(task.allowed_blocks)
    if missing:
        raise NoReferenceDesign(f"the reference design uses {', '.join(sorted(missing))}, not allowed by the task")
    return b


def reference_problem(task: Task) -> str | None:
    """Why the builders have no design for `task` under its ruleset, or None when they have one."""
    try:
        build_for(task)
    except NoReferenceDesign as e:
        return str(e)
    return None


def solution_blocks(task: Task) -> dict[Pos, str]:
    """The reference build in world coordinates."""
    return build_for(task).shifted(task.anchor)


def _order(item: tuple[Pos, str]) -> tuple:
    pos, state = item
    return (is_attached(state), pos[1], pos[0], pos[2])


def solution_text(task: Task, summary: str | None = None) -> str:
    """The reference build as a .mcfunction file (supports first, then what they carry)."""
    b = build_for(task)
    blocks = b.shifted(task.anchor)
    lines = [
        f"# Reference solution for {task.id} ({task.name})",
        "# Generated by scicraft_viz.tasks.solutions (python -m scicraft_viz.tasks.solutions); do not edit by hand.",
        f"# Design: {'; '.join(b.notes)}.",
        f"# Placed on the task's initial world (stone floor at y={task.floor[1]}); {len(blocks)} blocks.",
    ]
    if task.relaxation:
        lines.append(f"# Task relaxed: {task.relaxation['field']} = {task.relaxation['value']} "
                     f"(paper: {task.relaxation['paper_value']}); see the task YAML for why.")
    if summary:
        lines += [f"# Verified: {line}" for line in summary.splitlines()]
    # Vanilla ids (minecraft:repeater), so the file pastes into Minecraft as it is.
    lines += [f"setblock {x} {y} {z} {_vanilla(s)}" for (x, y, z), s in sorted(blocks.items(), key=_order)]
    return "\n".join(lines) + "\n"



def _vanilla(s: str) -> str:
    """`minecraft:` + the state as written, with the block's vanilla id (only the properties it sets)."""
    name, bracket, props = s.partition("[")
    return f"minecraft:{VANILLA_NAME.get(name, name)}{bracket}{props}"


def summarize(result) -> str:
    """A one-line measured summary of an evaluation (for file headers and reports)."""
    m = result.measured
    u = result.tick_unit
    ab = "rt" if u == "redstone" else "gt"
    ons = [x["on"] for x in m.get("lamps", []) if x["on"] is not None]
    parts = [f"{'PASS' if result.passed else 'FAIL'}", f"{len(m.get('lamps', []))} lamps"]
    if ons:
        parts.append(f"on-ticks +{min(ons)}..+{max(ons)} {ab}")
    if m.get("skew") is not None:
        parts.append(f"skew {m['skew']} {ab}")
    if m.get("delays"):
        ds = m["delays"]
        parts.append(f"delays {ds if len(ds) <= 8 else str(ds[:6])[:-1] + ', ...]'} {ab}")
    if m.get("pulse_widths"):
        offs = sorted({x['off'] for x in m['lamps'] if x['off'] is not None})
        parts.append(f"off at +{offs} {ab}, widths {sorted(set(m['pulse_widths']))} {ab}")
    far = [x.get("reach") for x in m.get("lamps", []) if x.get("reach") is not None]
    if far:
        parts.append(f"max reach {max(far)} blocks")
    dists = [x.get("distance") for x in m.get("lamps", []) if x.get("distance") is not None]
    if dists:
        from collections import Counter

        parts.append("distances " + ", ".join(f"{d}x{k}" for d, k in sorted(Counter(dists).items())))
    return "; ".join(parts)


BROKEN_KINDS = ("missing_wire", "reversed_repeater", "wrong_delay", "block_on_lamp", "outside_region")
_OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}


def _with_prop(state: str, key: str, value: str) -> str:
    name, _, body = state.partition("[")
    props = dict(kv.split("=", 1) for kv in body.rstrip("]").split(",") if kv) if body else {}
    props[key] = value
    return name + "[" + ",".join(f"{k}={v}" for k, v in sorted(props.items())) + "]"


def _prop(state: str, key: str) -> str | None:
    _, _, body = state.partition("[")
    return dict(kv.split("=", 1) for kv in body.rstrip("]").split(",") if kv).get(key) if body else None


def broken_variant(task: Task, kind: str) -> tuple[dict[Pos, str], str] | None:
    """A deliberately broken copy of the reference build (world coordinates) and what was broken,
    or None when the design has nothing of that kind (e.g. no repeater in the E tau=12 design).

    kinds: missing_wire (a dust on the signal path removed), reversed_repeater, wrong_delay (a
    repeater's delay moved by 2 rt), block_on_lamp (stone on top of a lamp), outside_region (a
    glass block one step outside the region)."""
    rel = dict(build_for(task).blocks)
    ax, ay, az = task.anchor

    def world(p: Pos) -> Pos:
        return (p[0] + ax, p[1] + ay, p[2] + az)

    reps = sorted((p for p, st in rel.items() if st.startswith("redstone_repeater")),
                  key=lambda p: (p[2], p[0] if p[2] % 4 == 0 else -p[0]))
    target: Pos | None = None
    if task.family == "C":
        target_rep = reps[len(reps) // 2] if reps else None
    elif task.family == "E":
        target_rep = next((p for p in reps if _prop(rel[p], "facing") == "north"), None)
    else:  # the repeater feeding the south half of the comb (both halves hold lamps)
        target_rep = (0, 1, 1) if (0, 1, 1) in rel and rel[(0, 1, 1)].startswith("redstone_repeater") else None
        halves = {p[2] > 0 for p, st in rel.items() if st == "redstone_lamp"}
        if halves != {True, False}:
            target_rep = None
    if kind == "missing_wire":
        if task.family == "C":  # the delay line has no dust: its wire is the chain of repeaters
            target = target_rep
            if target is None:
                return None
            del rel[target]
            return {world(p): st for p, st in rel.items()}, f"removed the redstone_repeater at {world(target)}"
        else:
            spine = sorted(p for p, st in rel.items() if st == "redstone_wire" and p[0] == 0 and p[2] > 0)
            target = spine[0] if spine else None
        if target is None:
            return None
        del rel[target]
        what = f"removed the redstone_wire at {world(target)}"
    elif kind in ("reversed_repeater", "wrong_delay"):
        if target_rep is None:
            return None
        st = rel[target_rep]
        if kind == "reversed_repeater":
            facing = _prop(st, "facing") or "north"
            rel[target_rep] = _with_prop(st, "facing", _OPPOSITE[facing])
            what = f"turned the repeater at {world(target_rep)} around (facing {facing} -> {_OPPOSITE[facing]})"
        else:
            d = int(_prop(st, "delay") or 1)
            nd = d + 2 if d <= 2 else d - 2
            rel[target_rep] = _with_prop(st, "delay", str(nd))
            what = f"set the repeater at {world(target_rep)} to delay {nd} instead of {d}"
    elif kind == "block_on_lamp":
        lamp = min(p for p, st in rel.items() if st == "redstone_lamp")
        above = (lamp[0], lamp[1] + 1, lamp[2])
        rel[above] = "stone"
        what = f"put stone at {world(above)} on top of the lamp at {world(lamp)}"
    elif kind == "outside_region":
        out = (task.radius + 1, 0, 0)
        rel[out] = "glass"
        what = f"put glass at {world(out)}, outside the radius-{task.radius} region"
    else:
        raise ValueError(f"unknown variant kind {kind!r}; one of {', '.join(BROKEN_KINDS)}")
    return {world(p): st for p, st in rel.items()}, what


def solutions_dir() -> Path:
    from scicraft_viz.tasks import tasks_dir

    return tasks_dir() / "solutions"


def write_solutions(directory: str | os.PathLike | None = None, task_list: list[Task] | None = None,
                    verify: bool = True) -> list[tuple[Path, str]]:
    """Write tasks/solutions/<id>.mcfunction for every task; with verify, evaluate each one first
    and put the measured result in the header (raises if a reference solution fails)."""
    from scicraft_viz import tasks
    from scicraft_viz.safeio import atomic_write
    from scicraft_viz.tasks import evaluator

    d = Path(directory) if directory is not None else solutions_dir()
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for task in task_list if task_list is not None else tasks.load_all():
        summary = None
        if verify:
            res = evaluator.evaluate(task, solution_blocks(task), source=task.id)
            summary = summarize(res)
            if not res.passed:
                raise AssertionError(f"reference solution for {task.id} fails: "
                                     + "; ".join(f"{c.name}: {c.reason}" for c in res.failures))
        p = d / f"{task.id}.mcfunction"
        atomic_write(p, solution_text(task, summary).encode("utf-8"), overwrite=True)  # whole or not at all
        out.append((p, summary or ""))
    return out


if __name__ == "__main__":  # pragma: no cover
    for path, summary in write_solutions():
        print(f"{path}: {summary}")
