"""The paper's 32-lamp broadcast device (Appendix I, Case W) and its 12 failure variants.

The paper describes the devices in words only; these builders rebuild them from that text so
that every count the text pins down holds here (Case W: 112 wires, 32 lamps, four axes, four
repeaters at distance 4; Axes Only: 32 wires; Tiny Core: 20 wires; Long Snake: 94 wires; ...).
Each device is a block map on the task's stone floor around the anchor (0, 4, 0).

    >>> from scicraft_viz import gallery
    >>> dev = gallery.device("backwards_repeaters")
    >>> dev.lit_count()          # lamps that turn on after one press in this simulator
    8
    >>> [d.key for d in gallery.devices()][:3]
    ['working', 'glass_pedestal', 'broken_bridge']

Layout of Case W (y = 4, the floor is y = 3; x east, z south): a stone at the anchor with the
button on top; along each axis dust at distance 1-3 and 5-9 and a delay-1 repeater at
distance 4 facing outward; one-wire branches at distance 3, 5 and 7 on both sides of each axis
point into lamps two blocks off the axis; from each axis end two perimeter rails of 7 wires
run along the edge and end pointing into a corner lamp (8 corner lamps). Lamps before the
repeaters light at the press, the rest 1 rt later (skew 1 rt, within the L4 tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from scicraft_viz import tasks
from scicraft_viz.tasks import Task

Pos = tuple[int, int, int]
XZ = tuple[int, int]

ANCHOR: Pos = (0, 4, 0)
WIRE = "redstone_wire"
LAMP = "redstone_lamp"
STONE = "stone"
BUTTON = "stone_button[face=floor,facing=north]"
INWARD = {(1, 0): "west", (-1, 0): "east", (0, 1): "north", (0, -1): "south"}
FLIP = {"west": "east", "east": "west", "north": "south", "south": "north"}


def rot(p: XZ, k: int) -> XZ:
    """p rotated by k quarter turns about the anchor (x east, z south: +x -> +z -> -x -> -z)."""
    x, z = p
    for _ in range(k % 4):
        x, z = -z, x
    return x, z


class Layout:
    """Blocks of one device in anchor-relative (x, z) at the anchor's level, plus extras."""

    def __init__(self) -> None:
        self.flat: dict[XZ, str] = {}
        self.extra: dict[Pos, str] = {}

    def put(self, p: XZ, state: str) -> None:
        old = self.flat.get(p)
        if old is not None and old != state:
            raise ValueError(f"layout conflict at {p}: {old} vs {state}")
        self.flat[p] = state

    def remove(self, p: XZ) -> None:
        self.flat.pop(p, None)

    def center(self, block: str = STONE, button: bool = True, at: XZ = (0, 0)) -> None:
        self.put(at, block)
        if button:
            self.extra[(at[0], 1, at[1])] = BUTTON

    def blocks(self, anchor: Pos = ANCHOR) -> dict[Pos, str]:
        ax, ay, az = anchor
        out = {(ax + x, ay, az + z): s for (x, z), s in self.flat.items()}
        out.update({(ax + x, ay + y, az + z): s for (x, y, z), s in self.extra.items()})
        return dict(sorted(out.items()))


# ---------------------------------------------------------------------------------------- Case W
AXIS = (1, 2, 3, 5, 6, 7, 8, 9)
BRANCH_AT = (3, 5, 7)
RAIL = range(1, 8)


def _axis_repeaters(lay: Layout, backwards: bool = False) -> None:
    for k in range(4):
        d = rot((1, 0), k)
        facing = INWARD[d]
        lay.put(rot((4, 0), k), f"redstone_repeater[delay=1,facing={FLIP[facing] if backwards else facing}]")


def working_layout(*, axes: bool = True, branches: bool = True, rails: bool = True, repeaters: bool = True,
                   backwards: bool = False, center: str = STONE, lamps: bool = True) -> Layout:
    lay = Layout()
    lay.center(center)
    for k in range(4):
        for i in AXIS if axes else ():
            lay.put(rot((i, 0), k), WIRE)
        for i in BRANCH_AT:
            for s in (1, -1):
                if branches:
                    lay.put(rot((i, s), k), WIRE)
                if lamps:
                    lay.put(rot((i, 2 * s), k), LAMP)
        for s in (1, -1):
            if rails:
                for j in RAIL:
                    lay.put(rot((9, s * j), k), WIRE)
            if lamps:
                lay.put(rot((9, s * 8), k), LAMP)
    if repeaters:
        _axis_repeaters(lay, backwards)
    return lay


# ---------------------------------------------------------------------------------------- variants
def _glass_pedestal() -> Layout:
    return working_layout(center="glass")


def _broken_bridge() -> Layout:
    lay = working_layout()
    for k in range(4):
        lay.remove(rot((1, 0), k))
    return lay


def _axes_only() -> Layout:
    return working_layout(branches=False, rails=False)


def _backwards() -> Layout:
    return working_layout(backwards=True)


def _missing_rails() -> Layout:
    return working_layout(rails=False)


def _tiny_core() -> Layout:
    lay = working_layout(axes=False, branches=False, rails=False, repeaters=False)
    for k in range(4):
        for i in (1, 2, 3):
            lay.put(rot((i, 0), k), WIRE)
        for s in (1, -1):
            lay.put(rot((3, s), k), WIRE)
    return lay


def _connection_trap() -> Layout:
    lay = working_layout()
    # One extra wire beside a branch's root on each of three branches per axis: it auto-connects
    # to the branch and to the axis (and, at distance 8, to the rail), bending the branch into an L.
    for k in range(4):
        for p in ((2, 1), (2, -1), (8, 1)):
            lay.put(rot(p, k), WIRE)
    return lay


def _long_snake() -> Layout:
    """A single serpentine path of 62 wires from the button's stone, with 32 one-wire spurs that
    point into the lamps (94 wires). Spur i has strength 15 - i along the path: the 10 spurs on
    the first 14 path cells light their lamps, the other 22 see strength 0."""
    lay = Layout()
    lay.center()
    path: list[XZ] = [(x, 0) for x in range(1, 11)]
    path += [(10, z) for z in range(1, 7)]
    path += [(x, 6) for x in range(9, -11, -1)]
    path += [(-10, z) for z in range(5, -7, -1)]
    path += [(x, -6) for x in range(-9, 5)]
    assert len(path) == 62
    for p in path:
        lay.put(p, WIRE)
    spurs: list[tuple[XZ, XZ]] = []  # (spur cell, direction from the path)
    for x in (1, 3, 5, 7):
        spurs += [((x, 1), (0, 1)), ((x, -1), (0, -1))]
    spurs += [((9, -1), (0, -1)), ((9, 3), (-1, 0))]
    for x in (7, 5, 3, 1, -1, -3, -5, -7):
        spurs += [((x, 5), (0, -1)), ((x, 7), (0, 1))]
    spurs += [((x, -5), (0, 1)) for x in (-7, -5, -3, -1, 1, 3)]
    assert len(spurs) == 32
    for (sx, sz), (dx, dz) in spurs:
        lay.put((sx, sz), WIRE)
        lay.put((sx + dx, sz + dz), LAMP)
    return lay


def _islands() -> Layout:
    """A 16-lamp core around the button and two 8-lamp clusters around stones without a button."""
    lay = Layout()
    lay.center()
    for k in range(4):
        for i in range(1, 6):
            lay.put(rot((i, 0), k), WIRE)
        for i in (3, 5):
            for s in (1, -1):
                lay.put(rot((i, s), k), WIRE)
                lay.put(rot((i, 2 * s), k), LAMP)
    for cx, cz in ((-7, -7), (7, 7)):
        lay.center(button=False, at=(cx, cz))
        for k in range(4):
            for i in (1, 2, 3):
                x, z = rot((i, 0), k)
                lay.put((cx + x, cz + z), WIRE)
            for s in (1, -1):
                x, z = rot((3, s), k)
                lay.put((cx + x, cz + z), WIRE)
                x, z = rot((3, 2 * s), k)
                lay.put((cx + x, cz + z), LAMP)
    return lay


def _parallel_lines() -> Layout:
    """Seven north-south lines (x = -6..6 step 2, z = -5..5) joined by an east-west trunk at z = 0
    through the button's stone; a lamp at both ends of every line and 18 lamps between lines."""
    lay = Layout()
    lay.center()
    for x in range(-6, 7, 2):
        for z in range(-5, 6):
            if (x, z) != (0, 0):
                lay.put((x, z), WIRE)
        lay.put((x, -6), LAMP)
        lay.put((x, 6), LAMP)
    for x in range(-5, 6, 2):
        lay.put((x, 0), WIRE)
        for z in (-4, -2, 3):
            lay.put((x, z), LAMP)
    return lay


def _ring() -> Layout:
    """A closed ring of 14 wires (x = -1..2, z = -2..2) around the button's stone, which feeds it
    at (-1, 0); 16 lamps just outside the ring."""
    lay = Layout()
    lay.center()
    for x in range(-1, 3):
        for z in range(-2, 3):
            if x in (-1, 2) or z in (-2, 2):
                lay.put((x, z), WIRE)
    for z in range(-2, 3):
        lay.put((3, z), LAMP)
        if abs(z) < 2:
            lay.put((-2, z), LAMP)
    for x in range(-1, 3):
        lay.put((x, -3), LAMP)
        lay.put((x, 3), LAMP)
    return lay


def hooks_layout(hooked: bool = True) -> Layout:
    """20 lamps: four axes of 8 wires pointing into a tip lamp, two-wire arms at distance 4 and 7 on
    both sides ending in lamps; a one-wire hook beside the tip of both distance-7 arms of every axis."""
    lay = Layout()
    lay.center()
    for k in range(4):
        for i in range(1, 9):
            lay.put(rot((i, 0), k), WIRE)
        lay.put(rot((9, 0), k), LAMP)
        for i in (4, 7):
            for s in (1, -1):
                lay.put(rot((i, s), k), WIRE)
                lay.put(rot((i, 2 * s), k), WIRE)
                lay.put(rot((i, 3 * s), k), LAMP)
        if hooked:
            for s in (1, -1):
                lay.put(rot((8, 2 * s), k), WIRE)
    return lay


# ---------------------------------------------------------------------------------------- catalogue
@dataclass(frozen=True)
class Device:
    """One gallery device: the paper's case, what it shows and its block map."""

    key: str
    case: str  # "W" or the paper's case number
    title: str
    mode: str | None  # taxonomy mode it exhibits (diagnose's key), None for the working device
    category: int | None
    paper_lit: int
    paper_lamps: int
    description: str
    builder: object = field(repr=False, compare=False)
    lamps: int = 32
    note: str = ""

    def blocks(self) -> dict[Pos, str]:
        return self.builder().blocks()  # type: ignore[operator]

    def task(self) -> Task:
        return task_for(self.lamps)

    def world(self):
        """The task's initial world with the device placed as set-block would (replay mode)."""
        from scicraft_viz.tasks.worlds import task_world

        return task_world(self.task(), self.blocks())

    def counts(self) -> dict[str, int]:
        b = self.blocks()
        names = [s.split("[")[0].removeprefix("minecraft:") for s in b.values()]
        return {n: names.count(n) for n in sorted(set(names))}

    def evaluate(self):
        from scicraft_viz.tasks.evaluator import evaluate

        return evaluate(self.task(), self.world(), source=f"gallery:{self.key}")

    def lit_count(self) -> int:
        return lit_count(self.evaluate())


def lit_count(result) -> int:
    """Lamps that turned on at some tick of the evaluator's recording."""
    return sum(1 for lamp in result.measured.get("lamps", []) if lamp["on"] is not None)


@lru_cache(maxsize=8)
def task_for(n: int) -> Task:
    """Family A task with n lamps: the canonical level when there is one (32 -> L4, 16 -> L3)."""
    level = {v: k for k, v in tasks.LEVEL_N.items()}.get(n)
    if level is not None:
        return tasks.load(f"A_simultaneous_lights_{level}")
    return tasks.from_dict(tasks.generate_task("A", n), f"<generated A n={n}>")


_W = "Four axes from a stone with the button on top; repeaters at distance 4; branches into 24 lamps; rails to 8 " \
     "corner lamps. 112 wires, 32 lamps."
DEVICES: tuple[Device, ...] = (
    Device("working", "W", "Working Reference", None, None, 32, 32, _W, working_layout),
    Device("glass_pedestal", "4", "Glass Pedestal", "glass_pedestal", 1, 0, 32,
           "Case W with the center stone replaced by glass: the button on it powers nothing through it.",
           _glass_pedestal),
    Device("broken_bridge", "5", "Broken Bridge", "broken_bridge", 1, 0, 32,
           "Case W without the 4 wires next to the center stone.", _broken_bridge),
    Device("axes_only", "8", "Axes Only", "axes_only", 1, 0, 32,
           "Only the 32 axis wires (and the repeaters): no branch reaches a lamp.", _axes_only),
    Device("backwards_repeaters", "9", "Backwards Repeaters", "backwards_repeaters", 1, 8, 32,
           "Case W with the 4 repeaters facing inward: nothing passes beyond distance 4.", _backwards),
    Device("long_snake", "1", "Long Snake", "long_snake", 2, 10, 32,
           "One 62-wire serpentine with 32 one-wire spurs into lamps (94 wires), no repeater.", _long_snake,
           note="lamp positions differ from Case W: a single path cannot pass every Case W lamp"),
    Device("missing_rails", "6", "Missing Rails", "missing_rails", 2, 24, 32,
           "Case W without its perimeter rails: the 8 corner lamps have no wire.", _missing_rails,
           note="our rails are 8 x 7 = 56 wires; the paper removes 26 (not a multiple of 4, so its layout was "
                "not four-fold symmetric)"),
    Device("tiny_core", "7", "Tiny Core", "tiny_core", 2, 8, 32,
           "Only 20 wires: 3 along each axis and the 8 branches at distance 3.", _tiny_core),
    Device("islands", "2", "Islands", "islands", 3, 16, 32,
           "A 16-lamp core around the button and two 8-lamp clusters around stones with no button.", _islands),
    Device("parallel_lines", "3", "Parallel Lines", "parallel_lines", 3, 14, 32,
           "Seven north-south lines joined by an east-west trunk; lamps between the lines.", _parallel_lines),
    Device("connection_trap", "10", "Connection Trap", "connection_trap", 3, 20, 32,
           "Case W plus 12 wires beside branch roots: each bends a branch into an L away from its lamp.",
           _connection_trap),
    Device("dead_end_hooks", "11", "Dead-End Hooks", "dead_end_hooks", 3, 12, 20,
           "20 lamps on four axes with two-wire arms; a hook wire at the tip of 8 arms turns the tip away.",
           hooks_layout, lamps=20),
    Device("the_ring", "12", "The Ring", "the_ring", 3, 0, 16,
           "A closed 14-wire ring around the button's stone (power 8-15) with 16 lamps outside it.", _ring,
           lamps=16),
)
_BY_KEY = {d.key: d for d in DEVICES}


def devices() -> list[Device]:
    """Case W first, then the failure cases in the paper's category order (Table 11)."""
    return list(DEVICES)


def device(key: str) -> Device:
    try:
        return _BY_KEY[key]
    except KeyError:
        raise KeyError(f"no gallery device {key!r}; known: {', '.join(_BY_KEY)}") from None


def table() -> list[dict]:
    """One row per device: case, title, paper lit count, our lit count, wires, lamps."""
    rows = []
    for d in DEVICES:
        c = d.counts()
        rows.append({"key": d.key, "case": d.case, "title": d.title, "mode": d.mode,
                     "paper": f"{d.paper_lit}/{d.paper_lamps}", "ours": f"{d.lit_count()}/{c.get(LAMP, 0)}",
                     "wires": c.get(WIRE, 0), "repeaters": c.get("redstone_repeater", 0)})
    return rows
