"""Automatic failure diagnosis: why the dark lamps of a build stay dark, in the paper's taxonomy.

    >>> from scicraft_viz import diagnose, gallery
    >>> dev = gallery.device("backwards_repeaters")
    >>> d = diagnose.diagnose(dev.world(), dev.task())
    >>> d.modes()
    ['backwards_repeaters']
    >>> print(d.findings[0].explanation)      # doctest: +ELLIPSIS
    repeater at (-4, 4, 0) faces toward the button: its input is on the lamp side ...

The build is pressed once exactly as the evaluator does (settle, press the button, record), and
every lamp that never lights is explained from the circuit alone: the power-flow graph (which
dust links to which, what feeds what), the dust shapes (which sides a wire points into), the
measured signal strengths, repeater orientation against the flow and connectivity to the
button. Nothing is read from labels stored with a device.

For a dark lamp the analysis looks at what could feed it:
* a wire that points into it (or lies on it) but carries no power -> the network is dead or
  too long: long_snake (strength reaches 0 along the wire), backwards_repeaters (a repeater
  whose output faces the live side), glass_pedestal (the button sits on glass), broken_bridge
  (one missing wire next to a live block), islands (no connection to the button at all);
* a powered wire that runs past it -> wire semantics: the_ring (the wire lies on a closed
  loop), dead_end_hooks / connection_trap (one extra wire bends the last wire into an L; a
  dead-end hook or a wire that auto-connects to two others), parallel_lines (a line passing by);
* nothing at all -> coverage: axes_only (no lamp touches any wire), tiny_core (the lamp lies
  beyond the extent of the wiring), missing_rails (inside it, but no wire comes to it).
Each finding names the guilty blocks, explains in plain words and suggests a fix; when the fix
is a short list of placements it is given as `fix_blocks` (tests apply them).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scicraft_viz.engine.blocks import split_state

Pos = tuple[int, int, int]

# mode -> (paper case, category, title, failure mode, capacity gap) -- Table 11.
TAXONOMY: dict[str, tuple[str, int, str, str, str]] = {
    "glass_pedestal": ("4", 1, "Glass Pedestal", "Transparent center block", "Application"),
    "broken_bridge": ("5", 1, "Broken Bridge", "Missing center junction", "Application"),
    "axes_only": ("8", 1, "Axes Only", "No branch wires", "Application"),
    "backwards_repeaters": ("9", 1, "Backwards Repeaters", "Reversed repeater direction", "Application"),
    "long_snake": ("1", 2, "Long Snake", "Signal decay (no amplification)", "Discovery"),
    "missing_rails": ("6", 2, "Missing Rails", "Incomplete coverage", "Discovery"),
    "tiny_core": ("7", 2, "Tiny Core", "Insufficient wire reach", "Discovery"),
    "islands": ("2", 3, "Islands", "Disconnected sections", "Identification"),
    "parallel_lines": ("3", 3, "Parallel Lines", "Wire direction mismatch", "Identification"),
    "connection_trap": ("10", 3, "Connection Trap", "Auto-connect redirect", "Identification"),
    "dead_end_hooks": ("11", 3, "Dead-End Hooks", "Dead-end flow reversal", "Identification"),
    "the_ring": ("12", 3, "The Ring", "Loop flow trap", "Identification"),
}
# Findings outside the paper's 12 modes: mode -> (category, title). The analysis still says
# something useful when a build fails in a way the 32-lamp study did not cover.
EXTRA: dict[str, tuple[int, str]] = {
    "no_button": (1, "No Button"),
    "popped_off": (1, "Popped Off"),
    "unexplained": (0, "Unexplained"),
}
CATEGORIES = {0: "other", 1: "structural", 2: "signal propagation", 3: "wire semantics"}
MODES = list(TAXONOMY)

H = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}
SIDES = tuple(H)
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
UP, DOWN = (0, 1, 0), (0, -1, 0)
SIX = [*H.values(), UP, DOWN]
CONDUCTORS = ("stone", "redstone_lamp")
SOLID = ("stone", "redstone_lamp", "glass", "redstone_block")
COMPONENTS = ("stone_button", "lever", "redstone_torch", "redstone_wall_torch", "redstone_block")
SOURCES = ("stone_button", "lever", "redstone_torch", "redstone_wall_torch", "redstone_block")


def add(p: Pos, d: Pos) -> Pos:
    return (p[0] + d[0], p[1] + d[1], p[2] + d[2])


def sub(p: Pos, d: Pos) -> Pos:
    return (p[0] - d[0], p[1] - d[1], p[2] - d[2])


def fmt(p: Pos) -> str:
    return "(" + ", ".join(str(int(v)) for v in p) + ")"


def fmt_list(ps, limit: int = 4) -> str:
    ps = list(ps)
    s = ", ".join(fmt(p) for p in ps[:limit])
    return s + (f" and {len(ps) - limit} more" if len(ps) > limit else "")


# ---------------------------------------------------------------------------------------- findings
@dataclass
class Finding:
    """One diagnosed failure: its taxonomy mode, the blocks that cause it, the lamps it leaves
    dark, a plain explanation and a suggested fix (`fix_blocks`: placements that apply it)."""

    mode: str
    positions: list[Pos]
    lamps: list[Pos]
    explanation: str
    fix: str
    fix_blocks: dict[Pos, str] = field(default_factory=dict)
    details: dict = field(default_factory=dict)

    @property
    def case(self) -> str | None:
        return TAXONOMY[self.mode][0] if self.mode in TAXONOMY else None

    @property
    def category(self) -> int:
        if self.mode in TAXONOMY:
            return TAXONOMY[self.mode][1]
        return EXTRA.get(self.mode, (0, ""))[0]

    @property
    def category_name(self) -> str:
        return CATEGORIES[self.category]

    @property
    def title(self) -> str:
        if self.mode in TAXONOMY:
            return TAXONOMY[self.mode][2]
        return EXTRA.get(self.mode, (0, self.mode))[1]

    def to_dict(self) -> dict:
        return {
            "mode": self.mode, "case": self.case, "title": self.title, "category": self.category,
            "category_name": self.category_name, "positions": [list(p) for p in self.positions],
            "lamps": [list(p) for p in self.lamps], "explanation": self.explanation, "fix": self.fix,
            "fix_blocks": [[list(p), s] for p, s in self.fix_blocks.items()], "details": self.details,
        }

    def __str__(self) -> str:
        return f"[{self.title}] {self.explanation} Fix: {self.fix}"


@dataclass
class Diagnosis:
    findings: list[Finding]
    lamps: list[Pos]
    lit: list[Pos]
    dark: list[Pos]
    pressed: Pos | None
    circuit: Circuit | None = field(default=None, repr=False)

    def modes(self) -> list[str]:
        """Modes found, the one explaining most dark lamps first."""
        score: dict[str, set] = {}
        for f in self.findings:
            score.setdefault(f.mode, set()).update(f.lamps)
        return sorted(score, key=lambda m: (-len(score[m]), MODES.index(m) if m in MODES else 99))

    @property
    def primary(self) -> str | None:
        m = self.modes()
        return m[0] if m else None

    def by_mode(self, mode: str) -> list[Finding]:
        return [f for f in self.findings if f.mode == mode]

    def report(self) -> str:
        lines = [f"{len(self.lit)}/{len(self.lamps)} lamps lit after the press"
                 + (f" of the button at {fmt(self.pressed)}" if self.pressed else "")]
        if not self.findings:
            lines.append("no failure found")
        for f in self.findings:
            lines.append(f"- [{f.category_name}: {f.title}] {f.explanation}")
            lines.append(f"    fix: {f.fix}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"lamps": len(self.lamps), "lit": len(self.lit), "dark": [list(p) for p in self.dark],
                "pressed": list(self.pressed) if self.pressed else None,
                "findings": [f.to_dict() for f in self.findings]}


# ---------------------------------------------------------------------------------------- the circuit
class Circuit:
    """A build after one press: block states plus, over the recording, each wire's strongest
    signal, which components ever switched on and which lamps ever lit."""

    def __init__(self, blocks: dict[Pos, str], device: set[Pos], dust_power: dict[Pos, int],
                 comp_on: dict[Pos, bool], lamp_lit: dict[Pos, bool], pressed: Pos | None,
                 buttons: list[Pos] | None = None, popped: dict[Pos, str] | None = None, task=None):
        self.states = blocks
        self.buttons = list(buttons or ([pressed] if pressed else []))
        # blocks that fell off for lack of support and left air behind: {position: block name}
        self.popped = dict(popped or {})
        self.task = task
        self.kind = {p: split_state(s)[0] for p, s in blocks.items()}
        self.props = {p: split_state(s)[1] for p, s in blocks.items()}
        self.device = device
        self.power = dust_power
        self.on = comp_on
        self.lit = lamp_lit
        self.pressed = pressed
        self._links: dict[Pos, list[tuple[str, Pos]]] = {}
        self._comp: dict[Pos, int] = {}
        self._comps: list[list[Pos]] = []
        self.dust = sorted(p for p, k in self.kind.items() if k == "redstone_wire")
        self.lamps = sorted(p for p, k in self.kind.items() if k == "redstone_lamp")

    # ----------------------------------------------------------- basic queries
    def name(self, p: Pos) -> str:
        return self.kind.get(p, "air")

    def is_dust(self, p: Pos) -> bool:
        return self.kind.get(p) == "redstone_wire"

    def facing(self, p: Pos) -> Pos:
        return H[self.props[p].get("facing", "north")]

    def repeater_ends(self, p: Pos) -> tuple[Pos, Pos]:
        """(input cell, output cell) of the repeater at p."""
        f = self.facing(p)
        return add(p, f), sub(p, f)

    def attachment(self, p: Pos) -> Pos | None:
        k = self.name(p)
        if k in ("redstone_wire", "redstone_repeater", "redstone_torch"):
            return add(p, DOWN)
        if k == "redstone_wall_torch":
            return sub(p, self.facing(p))
        if k in ("stone_button", "lever"):
            face = self.props[p].get("face", "wall")
            if face == "floor":
                return add(p, DOWN)
            if face == "ceiling":
                return add(p, UP)
            return sub(p, self.facing(p))
        return None

    def is_on(self, p: Pos) -> bool:
        k = self.name(p)
        if k == "redstone_block":
            return True
        return bool(self.on.get(p, False))

    # ----------------------------------------------------------- dust shape and links
    def sides(self, p: Pos) -> dict[str, str]:
        pr = self.props[p]
        return {s: pr.get(s, "none") for s in SIDES}

    def pointing(self, p: Pos) -> set[str]:
        return {s for s, v in self.sides(p).items() if v != "none"}

    def points_into(self, dust: Pos, target: Pos) -> bool:
        if add(dust, DOWN) == target:
            return True
        for s in self.pointing(dust):
            if add(dust, H[s]) == target:
                return True
        return False

    def links(self, p: Pos) -> list[tuple[str, Pos]]:
        """(side, neighbour) for every block the dust at p connects to: dust beside it, one up or
        one down, or a component beside it."""
        if p in self._links:
            return self._links[p]
        out = []
        for s, v in self.sides(p).items():
            if v == "none":
                continue
            q = add(p, H[s])
            if v == "up" and self.is_dust(add(q, UP)):
                out.append((s, add(q, UP)))
            elif self.is_dust(q):
                out.append((s, q))
            elif self.is_dust(add(q, DOWN)) and self.name(q) not in CONDUCTORS:
                out.append((s, add(q, DOWN)))
            elif self.name(q) in COMPONENTS or (self.name(q) == "redstone_repeater"
                                               and p in self.repeater_ends(q)):
                out.append((s, q))
        self._links[p] = out
        return out

    def dust_links(self, p: Pos) -> list[tuple[str, Pos]]:
        return [(s, q) for s, q in self.links(p) if self.is_dust(q)]

    def shape_without(self, p: Pos, gone: Pos) -> set[str]:
        """Sides the dust at p would point into if the dust at `gone` were removed (vanilla rule:
        one connection extends to the opposite side, none makes a cross)."""
        rest = {s for s, q in self.links(p) if q != gone}
        if not rest:
            return set(SIDES)
        if len(rest) == 1:
            (s,) = rest
            return {s, OPPOSITE[s]}
        return rest

    def shape_name(self, p: Pos) -> str:
        pt = self.pointing(p)
        if pt == {"north", "south"}:
            return "runs north-south"
        if pt == {"east", "west"}:
            return "runs east-west"
        if len(pt) == 2:
            a, b = sorted(pt, key=SIDES.index)
            return f"is an L turning {a} and {b}"
        if len(pt) == 3:
            return "is a T-junction " + "/".join(sorted(pt, key=SIDES.index))
        if not pt:
            return "is a dot"
        return "is a cross"

    # ----------------------------------------------------------- power
    def strongly_powered(self, p: Pos) -> bool:
        if self.name(p) not in CONDUCTORS:
            return False
        for d in SIX:
            q = add(p, d)
            k = self.name(q)
            if k == "redstone_repeater" and self.is_on(q) and self.repeater_ends(q)[1] == p:
                return True
            if k in ("redstone_torch", "redstone_wall_torch") and d == DOWN and self.is_on(q):
                return True
            if k in ("stone_button", "lever") and self.is_on(q) and self.attachment(q) == p:
                return True
        return False

    def dust_source(self, p: Pos) -> Pos | None:
        """A non-dust neighbour that gives the dust at p full strength, if any."""
        for d in SIX:
            q = add(p, d)
            k = self.name(q)
            if k in CONDUCTORS and self.strongly_powered(q):
                return q
            if d in (UP, DOWN):
                continue
            if k in ("stone_button", "lever", "redstone_torch", "redstone_block") and self.is_on(q):
                return q
            if k == "redstone_wall_torch" and self.is_on(q) and self.attachment(q) != p:
                return q
            if k == "redstone_repeater" and self.is_on(q) and self.repeater_ends(q)[1] == p:
                return q
        return None

    def live_for_dust(self, q: Pos, toward: Pos) -> bool:
        """Would a wire at `toward` (beside q) receive signal from q?"""
        k = self.name(q)
        if k == "redstone_wire":
            return self.power.get(q, 0) >= 2
        if k in CONDUCTORS:
            return self.strongly_powered(q)
        if k == "redstone_repeater":
            return self.is_on(q) and self.repeater_ends(q)[1] == toward
        if k in ("stone_button", "lever", "redstone_torch", "redstone_block"):
            return self.is_on(q)
        if k == "redstone_wall_torch":
            return self.is_on(q) and self.attachment(q) != toward
        return False

    def is_live(self, p: Pos) -> bool:
        k = self.name(p)
        if k == "redstone_wire":
            return self.power.get(p, 0) > 0
        if k in CONDUCTORS:
            return self.strongly_powered(p)
        if k in COMPONENTS or k == "redstone_repeater":
            return self.is_on(p)
        return False

    # ----------------------------------------------------------- graphs
    def component(self, p: Pos) -> int:
        """Id of the connected piece of dust (through dust links) holding the dust at p."""
        if p not in self._comp:
            cid = len(self._comps)
            members = []
            todo = deque([p])
            self._comp[p] = cid
            while todo:
                a = todo.popleft()
                members.append(a)
                for _, b in self.dust_links(a):
                    if b not in self._comp:
                        self._comp[b] = cid
                        todo.append(b)
            self._comps.append(sorted(members))
        return self._comp[p]

    def members(self, cid: int) -> list[Pos]:
        return self._comps[cid]

    def shortest_cycle_through(self, p: Pos, limit: int = 64) -> list[Pos] | None:
        """The shortest closed loop of dust links through p (BFS from each neighbour of p)."""
        best: list[Pos] | None = None
        nbrs = [q for _, q in self.dust_links(p)]
        for i, a in enumerate(nbrs):
            for b in nbrs[i + 1:]:
                path = self._path(a, b, banned=p, limit=limit)
                if path is not None and (best is None or len(path) + 1 < len(best)):
                    best = [p, *path]
        return best

    def _path(self, a: Pos, b: Pos, banned: Pos, limit: int) -> list[Pos] | None:
        prev = {a: None}
        todo = deque([a])
        while todo:
            x = todo.popleft()
            if x == b:
                out = []
                while x is not None:
                    out.append(x)
                    x = prev[x]
                return out[::-1]
            for _, y in self.dust_links(x):
                if y != banned and y not in prev:
                    prev[y] = x
                    if len(prev) > limit * 64:
                        return None
                    todo.append(y)
        return None

    def clusters(self) -> dict[Pos, int]:
        """Physically touching groups of the build's blocks (the floor left out)."""
        cl: dict[Pos, int] = {}
        n = 0
        for p in sorted(self.device):
            if p in cl:
                continue
            todo = deque([p])
            cl[p] = n
            while todo:
                a = todo.popleft()
                for d in SIX:
                    b = add(a, d)
                    if b in self.device and b not in cl:
                        cl[b] = n
                        todo.append(b)
            n += 1
        return cl

    def entries(self, members: list[Pos]) -> dict[Pos, Pos]:
        """Dust of a piece that takes full strength from a non-dust source: {dust: source}."""
        out = {}
        for p in members:
            s = self.dust_source(p)
            if s is not None:
                out[p] = s
        return out

    def supported(self, p: Pos) -> bool:
        return self.name(add(p, DOWN)) in SOLID

    def placeable(self, p: Pos) -> bool:
        """An empty cell a wire could go in: on a solid block, or over air a stone could fill."""
        return p not in self.kind and (self.supported(p) or add(p, DOWN) not in self.kind)


# ---------------------------------------------------------------------------------------- simulation
def _initial(task) -> dict[Pos, str]:
    return {} if task is None else task.initial_blocks()


def _default_task(n_lamps: int):
    from scicraft_viz import tasks

    return tasks.from_dict(tasks.generate_task("A", max(1, n_lamps)), "<diagnose default>")


def simulate(world, task=None) -> Circuit:
    """Settle, press the button (every button if there are several), record, and collect the
    strongest signal of each wire and the lamps that lit, as the evaluator's trial would."""
    from scicraft_viz.engine.world import World

    if not isinstance(world, World):
        from scicraft_viz.agents.env import world_from_blocks

        blocks = dict(world)
        if task is None:
            task = _default_task(sum(1 for s in blocks.values() if split_state(s)[0] == "redstone_lamp"))
        world = world_from_blocks(task, blocks)
    w = world.copy()
    if task is None:
        task = _default_task(sum(1 for s in w.blocks().values() if split_state(s)[0] == "redstone_lamp"))
    w.step(task.settle_game_ticks)
    blocks = w.blocks()
    buttons = sorted(p for p, s in blocks.items() if split_state(s)[0] in ("stone_button",))
    for b in buttons:
        w.use(b)
    tr = w.record(task.record_game_ticks)
    popped = {e.pos: e.block.removeprefix("minecraft:") for e in w.events if e.kind == "popped"}
    init = _initial(task)
    device = {p for p, s in blocks.items() if init.get(p) != s}
    dust_power = {tuple(p): int(v) for p, v in zip(tr.dust_positions, np.asarray(tr.dust_power).max(axis=0))} \
        if len(tr.dust_positions) else {}
    comp_on = {tuple(p): bool(v) for p, v in zip(tr.component_positions, np.asarray(tr.component_on).any(axis=0))} \
        if len(tr.component_positions) else {}
    lit = {tuple(p): bool(v) for p, v in zip(tr.lamp_positions, np.asarray(tr.lamp_lit).any(axis=0))} \
        if len(tr.lamp_positions) else {}
    gone = {p: b for p, b in popped.items() if p not in blocks}
    return Circuit(blocks, device, dust_power, comp_on, lit, buttons[0] if buttons else None, buttons, gone, task)


# ---------------------------------------------------------------------------------------- routing
def _route(c: Circuit, starts: list[Pos], lamp: Pos, taken: set[Pos], limit: int = 40) -> list[Pos] | None:
    """Shortest chain of new wires from one of `starts` (live dust) to a wire that points straight
    into `lamp`: every new wire stands on a solid block, touches no other wire, repeater or lamp,
    and the last one lines up with the lamp. Returns the new cells (start excluded)."""
    goals = {sub(lamp, d): d for d in H.values()}
    y = lamp[1]

    def free(p: Pos) -> bool:
        return p not in c.kind and p not in taken and c.supported(p)

    def clean(p: Pos, allowed: set[Pos]) -> bool:
        for d in H.values():
            q = add(p, d)
            if q in allowed:
                continue
            k = c.name(q)
            if k in ("redstone_wire", "redstone_repeater", "redstone_lamp") or q in taken:
                return False
        return True

    start_set = {s for s in starts if s[1] == y}
    prev: dict[Pos, Pos | None] = {}
    todo: deque[Pos] = deque()
    for s in sorted(start_set):
        for d in H.values():
            p = add(s, d)
            if free(p) and p not in prev and clean(p, {s, lamp}):
                prev[p] = s
                todo.append(p)
    while todo:
        p = todo.popleft()
        back = prev[p]
        if p in goals and back is not None and add(back, goals[p]) == p:
            out = [p]
            while prev.get(out[-1]) is not None and prev[out[-1]] not in start_set:
                out.append(prev[out[-1]])
            return out[::-1]
        depth = 0
        q = p
        while q in prev and prev[q] not in start_set and prev[q] is not None:
            q = prev[q]
            depth += 1
        if depth >= limit:
            continue
        for d in H.values():
            nx = add(p, d)
            if nx not in prev and free(nx) and clean(nx, {p, lamp}):
                prev[nx] = p
                todo.append(nx)
    return None


def _safe_start(c: Circuit, s: Pos) -> bool:
    """A wire may take a new link without losing a lamp it points into: its pointing sides that
    have no link (a line's open end) face no lamp."""
    linked = {side for side, _ in c.links(s)}
    for side in c.pointing(s) - linked:
        if c.name(add(s, H[side])) == "redstone_lamp":
            return False
    return True


# ---------------------------------------------------------------------------------------- analysis
class _Analyzer:
    def __init__(self, c: Circuit):
        self.c = c
        self.groups: dict[tuple, dict[str, Any]] = {}
        self.uncovered: list[Pos] = []
        self.upstream: dict[Pos, Pos] = {}
        self.cluster = c.clusters()

    def note(self, mode: str, key, lamp: Pos, **info) -> None:
        g = self.groups.setdefault((mode, key), {"mode": mode, "key": key, "lamps": [], "info": {}})
        if lamp not in g["lamps"]:
            g["lamps"].append(lamp)
        for k, v in info.items():
            g["info"].setdefault(k, [])
            if v not in g["info"][k]:
                g["info"][k].append(v)

    # ----------------------------------------------------------- per lamp
    def lamp(self, lamp: Pos) -> None:
        if not self.explain(lamp, lamp, depth=0):
            self.uncovered.append(lamp)

    def popped_near(self, cells) -> Pos | None:
        """A block that popped off right beside one of `cells` (or on a block beside them)."""
        c = self.c
        if not c.popped:
            return None
        for q in sorted(c.popped):
            for m in cells:
                d = sub(q, m)
                if abs(d[1]) <= 1 and abs(d[0]) + abs(d[2]) <= 1 and d != (0, 0, 0):
                    return q
        return None

    def feeders(self, target: Pos) -> list[tuple[str, Pos]]:
        """What could power `target` (a lamp or a conductor standing in for it)."""
        c = self.c
        out = []
        for d in SIX:
            q = add(target, d)
            k = c.name(q)
            if k == "redstone_wire":
                if d == UP or (d in H.values() and c.points_into(q, target)):
                    out.append(("wire", q))
                elif d in H.values():
                    out.append(("passing", q))
            elif k == "redstone_repeater":
                i, o = c.repeater_ends(q)
                if o == target:
                    out.append(("repeater", q))
                elif i == target:
                    out.append(("reversed", q))
            elif k in ("redstone_torch", "redstone_wall_torch") and c.attachment(q) != target and d != DOWN:
                out.append(("torch", q))
            elif k == "stone" and q in c.device and target in c.lamps and self.has_potential(q, target):
                out.append(("block", q))
        return out

    def has_potential(self, block: Pos, exclude: Pos) -> bool:
        """A stone something could power (dust on it or beside it, a repeater or torch at it)."""
        c = self.c
        for d in SIX:
            q = add(block, d)
            if q == exclude:
                continue
            k = c.name(q)
            if k == "redstone_wire" and d != DOWN:
                return True
            if k == "redstone_repeater" and c.repeater_ends(q)[1] == block:
                return True
            if k in ("redstone_torch", "redstone_wall_torch") and d == DOWN:
                return True
            if k in ("stone_button", "lever") and c.attachment(q) == block:
                return True
        return False

    def explain(self, target: Pos, lamp: Pos, depth: int) -> bool:
        """Record why `target` gets no power; False when nothing at all could feed it."""
        c = self.c
        fs = self.feeders(target)
        # a repeater whose input is the target cannot feed it: it only counts when it is turned the
        # wrong way round (signal waiting at its output)
        fs = [(k, q) for k, q in fs if k != "reversed" or c.is_live(c.repeater_ends(q)[1]) or c.is_on(q)]
        if not fs:
            return False
        dead_wires = [q for k, q in fs if k == "wire" and c.power.get(q, 0) == 0]
        passing_live = [q for k, q in fs if k == "passing" and c.power.get(q, 0) > 0]
        passing_dead = [q for k, q in fs if k == "passing" and c.power.get(q, 0) == 0]
        explained = False
        for q in dead_wires:
            self.dead_dust(q, lamp, target)
            explained = True
        for k, q in fs:
            if k == "repeater" and not c.is_on(q):
                explained = self.dead_repeater(q, lamp, depth) or explained
            elif k == "reversed":
                self.note("backwards_repeaters", q, lamp, target=target)
                explained = True
            elif k == "torch" and not c.is_on(q):
                self.note("unexplained", ("torch", q), lamp, torch=q)
                explained = True
            elif k == "block" and depth == 0:
                explained = self.explain(q, lamp, depth + 1) or explained
        if passing_live:
            self.passing(passing_live, target, lamp)
            explained = True
        if not explained and passing_dead:
            for q in passing_dead:
                self.dead_dust(q, lamp, target)
            explained = True
        return explained

    # ----------------------------------------------------------- dead networks
    def dead_repeater(self, r: Pos, lamp: Pos, depth: int) -> bool:
        """A repeater pointing at the target never switched on: follow its input upstream."""
        c = self.c
        i, _ = c.repeater_ends(r)
        if c.is_dust(i) and c.power.get(i, 0) == 0:
            self.dead_dust(i, lamp, r)
            return True
        if c.name(i) == "redstone_lamp" and not c.lit.get(i, False) and i != lamp:
            # a dark lamp relaying to the next stage: this lamp shares that lamp's cause
            self.upstream[lamp] = i
            return True
        if c.name(i) in CONDUCTORS and depth < 2:
            if self.explain(i, lamp, depth + 1):
                return True
        if c.name(i) == "air" and i in c.popped:
            self.note("popped_off", i, lamp, block=c.popped[i])
            return True
        if c.name(i) == "air":
            return False
        self.note("unexplained", ("repeater", r), lamp, repeater=r)
        return True

    def dead_dust(self, q: Pos, lamp: Pos, target: Pos, seen: frozenset = frozenset()) -> None:
        c = self.c
        cid = c.component(q)
        members = c.members(cid)
        if any(c.power.get(m, 0) > 0 for m in members):
            self.note("long_snake", cid, lamp, feeder=q)
            return
        if cid in seen:
            self.note("islands", ("comp", cid), lamp)
            return
        seen = seen | {cid}
        mset = set(members)
        # a repeater between this dead piece and live signal
        for m in members:
            for d in H.values():
                r = add(m, d)
                if c.name(r) != "redstone_repeater":
                    continue
                i, o = c.repeater_ends(r)
                if i == m and c.is_live(o) and not c.is_on(r):
                    self.note("backwards_repeaters", r, lamp, target=target)
                    return
                if o == m and not c.is_on(r) and c.is_dust(i) and c.power.get(i, 0) == 0 \
                        and c.component(i) not in seen:
                    self.dead_dust(i, lamp, r, seen)
                    return
                if o == m and not c.is_on(r) and c.name(i) == "air":
                    # nothing at the repeater's input: a block that fell off, or one wire missing
                    if i in c.popped:
                        self.note("popped_off", i, lamp, block=c.popped[i])
                        return
                    live = [add(i, e) for e in SIX if add(i, e) != r and c.live_for_dust(add(i, e), i)]
                    if c.placeable(i) and live:
                        root = self.root(live[0])
                        for src in live:
                            self.note("broken_bridge", root, lamp, gap=(i, src))
                        return
        # the button stands on glass beside this piece
        for b in c.buttons:
            a = c.attachment(b)
            if a is not None and c.name(a) == "glass":
                near = {add(a, d) for d in SIX} | {add(b, d) for d in SIX}
                if mset & near:
                    self.note("glass_pedestal", b, lamp, glass=a)
                    return
        # a block of this piece fell off for lack of support
        q = self.popped_near(members)
        if q is not None:
            self.note("popped_off", q, lamp, block=c.popped[q])
            return
        # one missing wire between this piece and something live
        gaps: dict[Pos, set[Pos]] = {}
        for m in members:
            for d in H.values():
                g = add(m, d)
                if not c.placeable(g):
                    continue
                for e in SIX:
                    src = add(g, e)
                    if src in mset or src == m:
                        continue
                    if e in (UP, DOWN) and c.name(src) not in CONDUCTORS:
                        continue
                    if c.live_for_dust(src, g):
                        gaps.setdefault(self.root(src), set()).add((g, src))
        if gaps:
            root = min(gaps)
            for g in sorted(gaps[root]):
                self.note("broken_bridge", root, lamp, gap=g)
            return
        cl = {self.cluster.get(m) for m in members}
        has_source = any(self.cluster.get(p) in cl for p, k in c.kind.items() if k in SOURCES)
        # a cluster that also holds the button is no island as a whole: only this dead piece is cut off
        key = ("cluster", min(x for x in cl if x is not None)) if cl - {None} and not has_source else ("comp", cid)
        self.note("islands", key, lamp, sourced=has_source)

    def root(self, src: Pos) -> Pos:
        """The block a gap's live neighbour belongs to: a powered stone itself, a wire's source."""
        c = self.c
        if c.is_dust(src):
            es = c.entries(c.members(c.component(src)))
            return min(es.values()) if es else src
        return src

    # ----------------------------------------------------------- wire semantics
    def passing(self, wires: list[Pos], target: Pos, lamp: Pos) -> None:
        c = self.c
        for x in wires:
            side = next(s for s, d in H.items() if add(x, d) == target)
            cyc = c.shortest_cycle_through(x)
            if cyc is not None and len(cyc) >= 8:
                self.note("the_ring", frozenset(cyc), lamp, wire=x, side=side)
                return
        for x in wires:
            side = next(s for s, d in H.items() if add(x, d) == target)
            for _, y in c.dust_links(x):
                if side not in c.shape_without(x, y):
                    continue
                others = [q for _, q in c.links(x) if q != y]
                still_fed = c.dust_source(x) is not None or any(c.is_live(q) for q in others)
                if not still_fed:
                    continue
                if len(c.dust_links(y)) == 1:
                    self.note("dead_end_hooks", y, lamp, wire=x, side=side)
                else:
                    self.note("connection_trap", y, lamp, wire=x, side=side)
                return
        self.note("parallel_lines", lamp, lamp, wires=tuple(wires), target=target)

    # ----------------------------------------------------------- findings
    def findings(self) -> list[Finding]:
        out = self.coverage()
        # lamps dark only because the lamp relaying to them is dark share that lamp's findings
        for lp in list(self.upstream):
            root, seen = lp, {lp}
            while root in self.upstream and self.upstream[root] not in seen:
                root = self.upstream[root]
                seen.add(root)
            for g in self.groups.values():
                if root in g["lamps"] and lp not in g["lamps"]:
                    g["lamps"].append(lp)
            for f in out:
                if root in f.lamps and lp not in f.lamps:
                    f.lamps.append(lp)
        for (mode, key), g in self.groups.items():
            out.append(getattr(self, f"_f_{mode}")(key, sorted(g["lamps"]), g["info"]))
        order = {m: i for i, m in enumerate(MODES)}
        out.sort(key=lambda f: (order.get(f.mode, 99), f.positions[:1], f.lamps[:1]))
        return out

    def _f_unexplained(self, key, lamps, info) -> Finding:
        kind, p = key
        what = {"torch": f"the torch at {fmt(p)} next to it is off (its block is powered)",
                "repeater": f"the repeater at {fmt(p)} pointing into it never switches on",
                "target": f"nothing next to it at {fmt(p)} carries signal"}[kind]
        return Finding("unexplained", [p], lamps, f"lamp at {fmt(lamps[0])} stays dark: {what}.",
                       "trace the signal back from this block to the button")

    def _f_backwards_repeaters(self, r, lamps, info) -> Finding:
        c = self.c
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

    def _f_glass_pedestal(self, b, lamps, info) -> Finding:
        g = info["glass"][0]
        return Finding(
            "glass_pedestal", [g, b], lamps,
            f"the button at {fmt(b)} is attached to glass at {fmt(g)}: glass is transparent and is never "
            f"powered, so the press reaches none of the wires around it; all {len(lamps)} lamp(s) stay dark.",
            f"replace the glass at {fmt(g)} with stone", {g: "minecraft:stone"})

    def _f_broken_bridge(self, root, lamps, info) -> Finding:
        c = self.c
        pairs = sorted(set(info["gap"]))
        gaps = sorted({g for g, _ in pairs})
        srcs = sorted({src for _, src in pairs})
        if srcs == [root] and c.name(root) in CONDUCTORS:
            what = f"the powered block at {fmt(root)}"
        else:
            kinds = {_describe_live(c, q) for q in srcs}
            what = (f"the {kinds.pop()}" if len(kinds) == 1 else "live blocks") + f" at {fmt_list(srcs, 3)}"
        unsupported = [add(g, DOWN) for g in gaps if not c.supported(g)]
        fix_blocks = {b: "minecraft:stone" for b in unsupported}
        fix_blocks.update({g: _wire_into(c, g) for g in gaps})
        into = "the network" if len(lamps) > 1 or not any(c.name(add(g, d)) == "redstone_lamp"
                                                           for g in gaps for d in H.values()) else "the lamp"
        return Finding(
            "broken_bridge", gaps, lamps,
            f"the wiring stops one block short of {what}: no wire at {fmt_list(gaps)} connects it, so the signal "
            f"never enters {into} and {len(lamps)} lamp(s) stay dark.",
            f"place redstone wire at {fmt_list(gaps, 8)}" + (
                f" (on a new stone at {fmt_list(unsupported, 4)})" if unsupported else ""),
            fix_blocks, {"live": [list(q) for q in srcs]})

    def _f_popped_off(self, q, lamps, info) -> Finding:
        c = self.c
        name = info["block"][0]
        below = add(q, DOWN)
        fix_blocks = {}
        if name == "redstone_wire" and below not in c.kind:
            fix_blocks = {below: "minecraft:stone", q: "minecraft:redstone_wire"}
        return Finding(
            "popped_off", [q], lamps,
            f"the {name.replace('_', ' ')} at {fmt(q)} popped off: nothing held it up (the block it stands on or "
            f"hangs from was missing), so the signal stops there and {len(lamps)} lamp(s) stay dark.",
            f"put a solid block under (or behind) {fmt(q)} and place the {name.replace('_', ' ')} again",
            fix_blocks)

    def _f_islands(self, key, lamps, info) -> Finding:
        c = self.c
        kind, k = key
        if kind == "cluster":
            cells = sorted(p for p, v in self.cluster.items() if v == k)
        else:
            cells = list(c.members(k))
        wires = [p for p in cells if c.is_dust(p)]
        anchors = [p for p in cells if c.name(p) in ("stone", "glass")
                   and any(add(p, d) in cells and c.is_dust(add(p, d)) for d in H.values())]
        sourced = any(info.get("sourced", []))
        live = [p for p in c.dust if c.power.get(p, 0) > 0]
        pair = None
        if live and wires:
            pair = min(((a, b) for a in wires for b in live), key=lambda ab: _dist(*ab))
        pieces = len({c.component(p) for p in wires})
        where = f" around {fmt_list(anchors, 2)}" if anchors else ""
        expl = (f"{len(wires)} wire(s) and {len(lamps)} lamp(s){where} form an island: "
                + ("no wire connects them to the button's network" if not sourced else
                   "they touch the button's blocks but no wire carries its signal to them")
                + f" (lamps {fmt_list(lamps, 3)}).")
        fix = "connect the island to a powered wire"
        if pair:
            fix += f", e.g. from {fmt(pair[1])} to {fmt(pair[0])}"
        if pieces > 1:
            # Wire does not conduct through the anchor stone: each separately wired arm needs a feed.
            fix += (f"; its wiring is {pieces} separate pieces (wire does not pass through a block), so each "
                    "needs its own connection, or a repeater pointing into the anchor block to power them all")
        return Finding("islands", sorted(wires) or cells, lamps, expl, fix, {},
                       {"anchors": [list(p) for p in anchors], "pieces": pieces})

    def _f_long_snake(self, cid, lamps, info) -> Finding:
        c = self.c
        members = c.members(cid)
        entries = c.entries(members)
        dist, prev = _bfs(c, list(entries))
        feeders = sorted(info["feeder"], key=lambda q: dist.get(q, 10**6))
        near = feeders[0]
        lamp_of = {}
        for lp in lamps:
            for q in feeders:
                if c.points_into(q, lp) and q not in lamp_of:
                    lamp_of[q] = lp
        n = dist.get(near)
        far_feeder = max(feeders, key=lambda q: dist.get(q, 0))
        path = _trace(prev, near)
        dead = [p for p in path if c.power.get(p, 0) == 0]
        nearest_lamp = lamp_of.get(near, lamps[0])
        if n is None:
            expl = f"the wire at {fmt(near)} into the lamp at {fmt(nearest_lamp)} is linked to powered wire but " \
                   "receives no signal (signal does not step down from wire on glass)"
            return Finding("long_snake", [near], lamps, expl + ".", "route the wire on solid blocks")
        far = max(dist.get(q, 0) for q in feeders)
        expl = (f"lamp at {fmt(nearest_lamp)} is {n} dust from the nearest source: signal reaches 0 "
                f"(strength falls by 1 per wire and lasts 15)")
        if len(lamps) > 1:
            expl += f"; {len(lamps) - 1} more lamp(s) on this wire are up to {far} dust away"
        spots = _repeater_spots(c, _trace(prev, far_feeder))
        fix_blocks = {p: f"minecraft:redstone_repeater[delay=1,facing={facing}]" for p, facing in spots}
        if spots:
            p, facing = spots[0]
            fix = (f"regenerate the signal: put a repeater at {fmt(p)} (input from the {facing}) in place of the "
                   f"wire" + (f", and {len(spots) - 1} more along the path (fix_blocks)" if len(spots) > 1 else ""))
        else:
            fix = "shorten the path or insert repeaters every 15 wires"
        return Finding("long_snake", dead or [near], lamps, expl + ".", fix, fix_blocks,
                       {"distance": n, "farthest": far, "entries": [list(e) for e in entries]})

    def _f_the_ring(self, cyc, lamps, info) -> Finding:
        c = self.c
        ring = sorted(cyc)
        pw = [c.power.get(p, 0) for p in ring]
        return Finding(
            "the_ring", ring, lamps,
            f"the wire at {fmt(info['wire'][0])} is part of a closed ring of {len(ring)} wires (power "
            f"{min(pw)}-{max(pw)}): every ring wire connects only to its two neighbours along the ring, so none "
            f"points outward and the {len(lamps)} lamp(s) beside it stay dark.",
            "break the ring and end wires pointing into the lamps, or run short spokes outward into them")

    def _f_connection_trap(self, y, lamps, info) -> Finding:
        c = self.c
        xs = info["wire"]
        nb = [q for _, q in c.dust_links(y)]
        return Finding(
            "connection_trap", [y, *xs], lamps,
            f"the wire at {fmt(y)} auto-connects to {fmt_list(nb)}: it bends the wire at {fmt(xs[0])} into an L "
            f"(it now points {_sides_text(c, xs[0])}) that points away from the lamp at {fmt(lamps[0])}.",
            f"remove the wire at {fmt(y)}", {y: "minecraft:air"})

    def _f_dead_end_hooks(self, y, lamps, info) -> Finding:
        c = self.c
        x = info["wire"][0]
        return Finding(
            "dead_end_hooks", [y, x], lamps,
            f"the hook wire at {fmt(y)} turns the last wire at {fmt(x)} into an L "
            f"(pointing {_sides_text(c, x)}): without it that "
            f"wire would point {info['side'][0]} into the lamp at {fmt(lamps[0])}; the hook itself is a dead end.",
            f"remove the hook at {fmt(y)}", {y: "minecraft:air"})

    def _f_parallel_lines(self, lamp, lamps, info) -> Finding:
        c = self.c
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
                "stays dark.", f"give the wire sides that point into the {what}: {state}", {w: state})
        desc = "; ".join(f"dust at {fmt(w)} {c.shape_name(w)} past the {what} at {fmt(target)} and does not point "
                         "into it" for w in ws)
        return Finding(
            "parallel_lines", ws, lamps,
            f"{desc}{via}: wire only powers the blocks it points into, so the lamp at {fmt(lamp)} stays dark.",
            "end a line at the lamp or branch a wire into it (a wire pointing straight at the lamp)")

    # ----------------------------------------------------------- lamps no wire reaches
    def lamp_gaps(self, lamp: Pos) -> list[tuple[Pos, Pos]]:
        """(empty cell, live neighbour) where one wire would feed the lamp: beside the lamp, or on
        top of a solid block beside it (a wire on a block powers the block, which lights the lamp)."""
        c = self.c
        cells = [add(lamp, d) for d in H.values()]
        cells += [add(add(lamp, d), UP) for d in H.values() if c.name(add(lamp, d)) == "stone"]
        out = []
        for g in cells:
            if not c.placeable(g):
                continue
            for e in SIX:
                src = add(g, e)
                if src == lamp or (e in (UP, DOWN) and c.name(src) not in CONDUCTORS):
                    continue
                if c.live_for_dust(src, g):
                    out.append((g, src))
        return out

    def coverage(self) -> list[Finding]:
        c = self.c
        rest = []
        for lp in self.uncovered:
            near = [lp] + [add(lp, d) for d in H.values() if c.name(add(lp, d)) == "stone"]
            q = self.popped_near(near)
            if q is not None:
                self.note("popped_off", q, lp, block=c.popped[q])
            else:
                rest.append(lp)
        self.uncovered = rest
        if not self.uncovered:
            return []
        served = [lp for lp in c.lamps if self.feeders(lp)]
        live = [p for p in c.dust if c.power.get(p, 0) > 0]
        taken: set[Pos] = set()
        paths: dict[Pos, list[Pos]] = {}
        starts = [p for p in live if _safe_start(c, p)]
        for lp in sorted(self.uncovered, key=lambda p: min((_dist(p, q) for q in live), default=0)):
            path = _route(c, starts, lp, taken)
            if path is not None and _strength_ok(c, path, lp):
                paths[lp] = path
                taken |= set(path)
        out = []
        if c.dust and not served:
            out.append(self._coverage("axes_only", self.uncovered, paths, live))
            return out
        bridged = []
        for lp in self.uncovered:
            gaps = self.lamp_gaps(lp)
            if gaps:
                root = self.root(gaps[0][1])
                for g, src in gaps:
                    if self.root(src) == root:
                        self.note("broken_bridge", root, lp, gap=(g, src))
                bridged.append(lp)
        self.uncovered = [lp for lp in self.uncovered if lp not in bridged]
        if not self.uncovered:
            return out
        if not c.dust:
            return [Finding("unexplained", list(self.uncovered), list(self.uncovered),
                            "nothing reaches these lamps and there is no wire to carry the button's signal.",
                            "lay redstone wire from the button's block to the lamps")]
        xs = [p[0] for p in c.dust]
        zs = [p[2] for p in c.dust]
        inside = [lp for lp in self.uncovered if min(xs) <= lp[0] <= max(xs) and min(zs) <= lp[2] <= max(zs)]
        outside = [lp for lp in self.uncovered if lp not in inside]
        if outside:
            out.append(self._coverage("tiny_core", outside, paths, live, bbox=(min(xs), max(xs), min(zs), max(zs))))
        if inside:
            out.append(self._coverage("missing_rails", inside, paths, live))
        return out

    def _coverage(self, mode: str, lamps: list[Pos], paths: dict, live: list[Pos], bbox=None) -> Finding:
        c = self.c
        lamps = sorted(lamps)
        fix_blocks = {p: "minecraft:redstone_wire" for lp in lamps for p in paths.get(lp, [])}
        near = {lp: min(live or c.dust, key=lambda q: _dist(lp, q)) for lp in lamps}
        ex = lamps[0]
        gap = _dist(ex, near[ex])
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
            fix = "extend the wiring out to the far lamps (with repeaters beyond 15 wires)"
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


def _wire_into(c: Circuit, g: Pos) -> str:
    """A wire for the empty cell g that also points into a lamp beside it: placed as /setblock
    would, a wire with no wire beside it keeps the sides it is given, and a dot powers nothing
    beside it."""
    sides = {s for s, d in H.items() if c.name(add(g, d)) in ("redstone_lamp", "redstone_wire", "stone")}
    if not any(c.name(add(g, H[s])) == "redstone_lamp" for s in sides):
        return "minecraft:redstone_wire"
    sides |= {OPPOSITE[s] for s in list(sides)} if len(sides) == 1 else set()
    body = ",".join(f"{s}=side" for s in sorted(sides))
    return f"minecraft:redstone_wire[{body}]"


def _describe_live(c: Circuit, q: Pos) -> str:
    k = c.name(q)
    if k == "redstone_wire":
        return "powered wire"
    if k in CONDUCTORS:
        return "powered block"
    return k.replace("_", " ")


def _sides_text(c: Circuit, p: Pos) -> str:
    return " and ".join(sorted(c.pointing(p), key=SIDES.index)) or "nowhere"


def _dist(a: Pos, b: Pos) -> int:
    return sum(abs(u - v) for u, v in zip(a, b))


def _strength_ok(c: Circuit, path: list[Pos], lamp: Pos) -> bool:
    first = path[0]
    best = max((c.power.get(add(first, d), 0) for d in H.values()), default=0)
    return best - len(path) >= 1


def _bfs(c: Circuit, starts: list[Pos]) -> tuple[dict[Pos, int], dict[Pos, Pos | None]]:
    dist = {s: 1 for s in starts}
    prev: dict[Pos, Pos | None] = {s: None for s in starts}
    todo = deque(starts)
    while todo:
        a = todo.popleft()
        for _, b in c.dust_links(a):
            if b not in dist:
                dist[b] = dist[a] + 1
                prev[b] = a
                todo.append(b)
    return dist, prev


def _trace(prev: dict[Pos, Pos | None], end: Pos) -> list[Pos]:
    out = [end]
    while prev.get(out[-1]) is not None:
        out.append(prev[out[-1]])
    return out[::-1]


def _repeater_spots(c: Circuit, path: list[Pos]) -> list[tuple[Pos, str]]:
    """Repeaters along `path` (entry first) that keep every wire on it at strength >= 2 (so a
    one-wire spur off it still delivers 1): greedily the latest straight, branch-free wire before
    the strength would run out. Returns (position, facing) pairs; empty if none fits."""
    def eligible(i: int) -> bool:
        if i <= 0 or i >= len(path) - 1:
            return False
        a, p, b = path[i - 1], path[i], path[i + 1]
        return a[1] == p[1] == b[1] and len(c.links(p)) == 2 and sub(p, a) == sub(b, p)

    spots: list[int] = []
    strength = {0: 15}
    i = 1
    while i < len(path):
        prev = i - 1
        strength[i] = 15 if prev in spots else strength[prev] - 1
        if strength[i] < 2:
            last = spots[-1] if spots else 0
            cands = [j for j in range(i - 1, last, -1) if eligible(j) and strength[j - 1] >= 1]
            if not cands:
                break
            spots.append(cands[0])
            i = cands[0] + 1
            continue
        i += 1
    out = []
    for j in spots:
        facing = next(s for s, d in H.items() if add(path[j], d) == path[j - 1])
        out.append((path[j], facing))
    return out


# ---------------------------------------------------------------------------------------- entry point
def diagnose(world, task=None) -> Diagnosis:
    """Press the build's button once and explain every lamp that stays dark.

    `world` is a World (left untouched: the analysis runs on a copy) or a {pos: state} block map
    placed on the task's initial world; `task` gives the settle/record ticks and the floor."""
    c = simulate(world, task)
    lit = [p for p in c.lamps if c.lit.get(p, False)]
    dark = [p for p in c.lamps if not c.lit.get(p, False)]
    if not c.buttons:
        f = Finding("no_button", [], dark, "there is no stone button, so nothing can be pressed.",
                    "place one stone button on a stone block that the wiring starts from")
        return Diagnosis([f] if dark else [], c.lamps, lit, dark, None, c)
    a = _Analyzer(c)
    for lp in dark:
        a.lamp(lp)
    return Diagnosis(a.findings(), c.lamps, lit, dark, c.pressed, c)
