"""The circuit graph of a build after one press: block states, dust links and shapes, power
flow, connected pieces and clusters, and the measured trace (lamp on/off ticks, when every wire
and component first switched on), with the geometry helpers the rules share."""

from __future__ import annotations

from collections import deque

import numpy as np

from scicraft_viz.engine.blocks import split_state
from scicraft_viz.errors import fmt_pos, list_positions

Pos = tuple[int, int, int]

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


fmt = fmt_pos


def fmt_list(ps, limit: int = 4) -> str:
    return list_positions(ps, limit)



# ---------------------------------------------------------------------------------------- the circuit
class Circuit:
    """A build after one press: block states plus, over the recording, each wire's strongest
    signal, which components ever switched on and which lamps ever lit. `world` is the build as
    given (fixes are tried on copies of it) and `trace` the recording from the press on."""

    world = None
    trace = None

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

    @property
    def rules(self):
        """The ruleset the build runs under (its world's; vanilla without a world)."""
        from scicraft_viz.engine.rules import VANILLA

        return self.world.rules if self.world is not None else VANILLA

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


def as_world(world, task=None):
    """(World, task) for a World or a {pos: state} block map placed on the task's initial world
    as set-block places it; without a task, a family-A task sized to the build's lamps."""
    from scicraft_viz.engine.world import World

    if not isinstance(world, World):
        from scicraft_viz.tasks.worlds import task_world

        blocks = dict(world)
        if task is None:
            task = _default_task(sum(1 for s in blocks.values() if split_state(s)[0] == "redstone_lamp"))
        world = task_world(task, blocks)
    if task is None:
        task = _default_task(sum(1 for s in world.blocks().values() if split_state(s)[0] == "redstone_lamp"))
    return world, task


def simulate(world, task=None) -> Circuit:
    """Settle, press the button (every button if there are several), record, and collect the
    strongest signal of each wire and the lamps that lit, as the evaluator's trial would."""
    given = {tuple(p): st for p, st in dict(world).items()} if isinstance(world, dict) else {}
    world, task = as_world(world, task)
    w = world.copy()
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
    c = Circuit(blocks, device, dust_power, comp_on, lit, buttons[0] if buttons else None, buttons, gone, task)
    c.world, c.trace = world, tr
    c.given = given  # the block map as given, when it was one: states of blocks that popped off
    return c


# ---------------------------------------------------------------------------------------- routing
def route(c: Circuit, starts: list[Pos], lamp: Pos, taken: set[Pos], limit: int = 40) -> list[Pos] | None:
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


def safe_start(c: Circuit, s: Pos) -> bool:
    """A wire may take a new link without losing a lamp it points into: its pointing sides that
    have no link (a line's open end) face no lamp."""
    linked = {side for side, _ in c.links(s)}
    for side in c.pointing(s) - linked:
        if c.name(add(s, H[side])) == "redstone_lamp":
            return False
    return True



def wire_into(c: Circuit, g: Pos) -> str:
    """A wire for the empty cell g, named with sides so that /setblock does not make it a dot (a dot
    powers nothing beside it): pointing into a lamp beside it when there is one, else a cross, which
    takes its shape from the wires it connects to once placed."""
    sides = {s for s, d in H.items() if c.name(add(g, d)) in ("redstone_lamp", "redstone_wire", "stone")}
    if not any(c.name(add(g, H[s])) == "redstone_lamp" for s in sides):
        return "minecraft:redstone_wire[east=side,north=side,south=side,west=side]"
    sides |= {OPPOSITE[s] for s in list(sides)} if len(sides) == 1 else set()
    body = ",".join(f"{s}=side" for s in sorted(sides))
    return f"minecraft:redstone_wire[{body}]"


def describe_live(c: Circuit, q: Pos) -> str:
    k = c.name(q)
    if k == "redstone_wire":
        return "powered wire"
    if k in CONDUCTORS:
        return "powered block"
    return k.replace("_", " ")


def sides_text(c: Circuit, p: Pos) -> str:
    return " and ".join(sorted(c.pointing(p), key=SIDES.index)) or "nowhere"


def dist(a: Pos, b: Pos) -> int:
    return sum(abs(u - v) for u, v in zip(a, b))


def strength_ok(c: Circuit, path: list[Pos], lamp: Pos) -> bool:
    first = path[0]
    best = max((c.power.get(add(first, d), 0) for d in H.values()), default=0)
    return best - len(path) >= 1


def bfs(c: Circuit, starts: list[Pos]) -> tuple[dict[Pos, int], dict[Pos, Pos | None]]:
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


def trace_path(prev: dict[Pos, Pos | None], end: Pos) -> list[Pos]:
    out = [end]
    while prev.get(out[-1]) is not None:
        out.append(prev[out[-1]])
    return out[::-1]


def repeater_spots(c: Circuit, path: list[Pos]) -> list[tuple[Pos, str]]:
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
    decay = c.rules.dust_decay
    i = 1
    while i < len(path):
        prev = i - 1
        strength[i] = 15 if prev in spots else strength[prev] - decay
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


