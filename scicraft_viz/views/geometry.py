"""Voxel geometry for the canvas: every block becomes a few boxes, all boxes of a kind of material
go into one vertex array, and a frame only recolours those arrays.

Geometry depends on the layout alone (block kinds, facing, delay, dust shape), colour on the frame
(lit, power, powered, locked): stepping a tick recomputes colours, never vertices. Pure NumPy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scicraft_viz.engine import blocks as B
from scicraft_viz.views.block_colors import block_color
from scicraft_viz.views.frame import FULL_CUBES, Frame, Layout, layout_from_blocks

# Box parts: each decides how a box is coloured from its block's values.
(P_STONE, P_LAMP, P_RBLOCK, P_GLASS, P_DUST, P_REP_BASE, P_REP_LIT, P_REP_LOCK, P_STICK, P_TORCH_HEAD,
 P_BUTTON, P_LEVER_BASE, P_LEVER_TIP, P_GLOW_LAMP, P_GLOW_TORCH, P_REP_PIP) = range(16)
# comparator: its front torch (lit in subtract mode); containers: barrel and chest bodies, chest latch
P_CMP_FRONT, P_BARREL, P_CHEST, P_LATCH, P_TARGET, P_NOTE = range(16, 22)
# Power numbers on dust: the seven segments a-g of the ones digit, then the tens digit's bar (power <= 15)
P_SEG = tuple(range(22, 29))
P_SEG_TEN = 29
# hopper, dropper or dispenser body and its mouth, furnace body and its front (lit while `lit`), a plate, a
# daylight sensor; a door's or trapdoor's panel where it stands shut and where it stands open: both panels
# are drawn additively, the one that does not apply in black (so it vanishes), since geometry never changes
# with a frame
P_HOPPER, P_DROPPER, P_MOUTH, P_FURNACE, P_FURNACE_FRONT, P_PLATE, P_DAYLIGHT, P_SHUT, P_OPEN = range(30, 39)
# observer: body, its face (the side it watches), the eye on its back (red while it pulses); pistons:
# base, wooden or slimy head plate, and a moving_piston's ghost
P_OBS, P_OBS_FACE, P_OBS_EYE, P_PISTON, P_HEAD_PLATE, P_STICKY_PLATE, P_MOVING = range(39, 46)
# a test block: a full cube in its mode's colour (start, log, fail, accept), brighter while powered
P_TEST = 46
# water: translucent blue, as high as its level (docs/redstone.md section 67)
P_WATER = 47
# a command block: a full cube in its kind's colour (orange impulse, purple repeating, green chain), brighter while
# powered, and a mark on the face it points out of (white when conditional)
P_CMD, P_CMD_MARK = 48, 49
N_PARTS = 50
LAMP_BOX = (1, 0.5, 1, 15, 15.5, 15)  # sixteenths: a lamp drawn a little smaller than its cell
HONEY_BOX = (1, 0, 1, 15, 15, 15)  # a honey block's shape (its collision box in vanilla's data)

MESHES = ("solid", "glass", "glow", "lamp")
# lamps have a mesh of their own so that the canvas can make them see-through
_MESH_OF_PART = {P_GLASS: "glass", P_MOVING: "glass", P_WATER: "glass", P_GLOW_LAMP: "glow", P_GLOW_TORCH: "glow",
                 P_LAMP: "lamp",
                 P_SHUT: "glow", P_OPEN: "glow",
                 **{p: "glow" for p in (*P_SEG, P_SEG_TEN)}}
# Segments on a dust's top, in sixteenths, read from the south (the digit's top towards north, -z); they
# are drawn additively, so an unlit segment (black) adds nothing and only the lit ones show.
_SEG_BOXES = {  # a top, b upper right, c lower right, d bottom, e lower left, f upper left, g middle
    0: (6.5, 3.5, 11.5, 4.5), 1: (10.5, 3.5, 11.5, 8.5), 2: (10.5, 7.5, 11.5, 12.5), 3: (6.5, 11.5, 11.5, 12.5),
    4: (6.5, 7.5, 7.5, 12.5), 5: (6.5, 3.5, 7.5, 8.5), 6: (6.5, 7.5, 11.5, 8.5)}
_TEN_BOX = (3.5, 3.5, 4.5, 12.5)
DIGIT_SEGMENTS = np.array([[c in s for c in "abcdefg"] for s in (
    "abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg")], bool)

# Faces: +x, -x, +y, -y, +z, -z; corners as (x, y, z) picks of (lo, hi), counter-clockwise seen from
# outside so that front-face culling keeps them. Shading is baked into vertex colours (top brightest,
# as in Minecraft), which lets every material be unlit and cheap.
_FACE_CORNERS = (
    ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)),
    ((0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)),
    ((0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)),
    ((0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)),
    ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)),
    ((0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)),
)
FACE_NORMALS = np.array([(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)], np.int32)
FACE_SHADE = np.array([0.80, 0.80, 1.00, 0.55, 0.66, 0.66], np.float32)
_TRI = (0, 1, 2, 0, 2, 3)
# (face, vertex of the face's two triangles, axis) -> 0 picks the box's low corner, 1 its high one
_PICK = np.array([[_FACE_CORNERS[f][k] for k in _TRI] for f in range(6)], np.int64)  # (6, 6, 3)

_COLORS = {
    "stone": (0.55, 0.55, 0.55),
    "lamp_off": (0.47, 0.30, 0.17),
    "lamp_on": (1.00, 0.86, 0.45),
    "rblock": (0.75, 0.08, 0.05),
    "glass": (0.72, 0.90, 1.00),
    "water": (0.20, 0.38, 0.90),
    "rep_base": (0.74, 0.74, 0.71),
    "rep_off": (0.42, 0.07, 0.05),
    "rep_on": (1.00, 0.18, 0.08),
    "lock": (0.13, 0.13, 0.13),
    "stick": (0.52, 0.36, 0.18),
    "head_off": (0.32, 0.07, 0.05),
    "head_on": (1.00, 0.30, 0.10),
    "button": (0.20, 0.72, 0.86),  # not stone grey: an unpressed button must stand out from the floor
    "button_on": (0.98, 0.62, 0.18),
    "pip": (0.96, 0.96, 0.92),
    "lever_base": (0.45, 0.45, 0.45),
    "lever_off": (0.40, 0.40, 0.40),
    "glow_lamp": (0.60, 0.45, 0.12),
    "glow_torch": (0.45, 0.10, 0.03),
    "cmp_base": (0.66, 0.66, 0.70),  # a cooler grey than the repeater's, so the two read apart
    "barrel": (0.55, 0.38, 0.20),
    "chest": (0.70, 0.48, 0.18),
    "latch": (0.80, 0.80, 0.78),
    "target": (0.90, 0.80, 0.74),
    "note": (0.40, 0.26, 0.17),
    "test_start": (0.25, 0.45, 0.75),  # test blocks by mode: blue start, grey log, red fail, green accept
    "test_log": (0.55, 0.55, 0.60),
    "test_fail": (0.70, 0.18, 0.18),
    "test_accept": (0.20, 0.62, 0.25),
    "cmd_impulse": (0.80, 0.48, 0.22),  # command blocks by kind: orange impulse, purple repeating, green chain
    "cmd_repeating": (0.45, 0.30, 0.70),
    "cmd_chain": (0.35, 0.62, 0.45),
    "cmd_mark": (0.20, 0.18, 0.16),
    "cmd_conditional": (0.95, 0.95, 0.92),
    "note_on": (0.60, 0.38, 0.22),
    "digit": (0.95, 0.95, 0.95),
    "hopper": (0.27, 0.27, 0.30),
    "dropper": (0.46, 0.46, 0.48),
    "mouth": (0.12, 0.12, 0.12),
    "furnace": (0.40, 0.40, 0.40),
    "furnace_lit": (1.00, 0.55, 0.15),
    "iron": (0.80, 0.80, 0.84),
    "stone_plate": (0.62, 0.62, 0.62),
    "gold_plate": (0.96, 0.80, 0.24),
    "activator_rail": (0.55, 0.30, 0.24),  # a powered rail is gold (gold_plate)
    "detector_rail": (0.45, 0.42, 0.40),
    "rail": (0.50, 0.44, 0.36),
    # copper bulbs by oxidation stage: copper, exposed, weathered, oxidized
    "bulb_0": (0.75, 0.45, 0.32), "bulb_1": (0.63, 0.50, 0.40), "bulb_2": (0.42, 0.58, 0.45),
    "bulb_3": (0.30, 0.62, 0.55),
    "iron_plate": (0.85, 0.85, 0.85),
    "daylight": (0.82, 0.74, 0.56),
    "daylight_inverted": (0.35, 0.45, 0.72),
    "sun": (1.00, 0.92, 0.35),
    "observer": (0.38, 0.38, 0.40),
    "observer_face": (0.12, 0.12, 0.13),
    "piston": (0.50, 0.48, 0.44),
    "plate": (0.72, 0.58, 0.35),
    "sticky_plate": (0.44, 0.75, 0.36),
    "moving": (0.85, 0.85, 0.80),
}


def dust_color(power: np.ndarray) -> np.ndarray:
    """Dark red at power 0 to bright red at 15, as dust looks in the game."""
    t = np.asarray(power, np.float32)[:, None] / 15.0
    lo = np.array([0.30, 0.02, 0.02], np.float32)
    hi = np.array([1.00, 0.20, 0.08], np.float32)
    return lo + (hi - lo) * t


@dataclass
class Mesh:
    """Triangles (6 vertices per box face) with, per vertex, the box it belongs to and its shade."""

    positions: np.ndarray  # float32 (V, 3)
    box: np.ndarray  # int32 (V,)
    shade: np.ndarray  # float32 (V,)

    @property
    def n_vertices(self) -> int:
        return len(self.positions)


@dataclass
class Geometry:
    """Boxes of a layout (block row and part of each) and the meshes made from them."""

    block: np.ndarray  # int32 (Bx,): layout row of each box
    part: np.ndarray  # uint8 (Bx,)
    meshes: dict[str, Mesh]
    glass_edges: np.ndarray  # float32 (E, 3): pairs of points, the outline of every glass block
    # colours a layout fixes (the blocks pistons are moving keep their look while they move): RGB per box,
    # negative where the frame decides, and whether the box glows
    fixed_rgb: np.ndarray | None = None
    fixed_lit: np.ndarray | None = None


# ----------------------------------------------------------------------------------- box building
def _orient(boxes: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Rotate boxes given in sixteenths for a block whose 'front' is +z to a block whose front is
    d (0 +z, 1 -z, 2 +x, 3 -x), about the block's vertical axis."""
    x0, y0, z0, x1, y1, z1 = boxes.T
    out = boxes.copy()
    m = d == 1
    out[m] = np.stack([16 - x1, y0, 16 - z1, 16 - x0, y1, 16 - z0], 1)[m]
    m = d == 2
    out[m] = np.stack([z0, y0, 16 - x1, z1, y1, 16 - x0], 1)[m]
    m = d == 3
    out[m] = np.stack([16 - z1, y0, x0, 16 - z0, y1, x1], 1)[m]
    return out


# facing index (0 north, 1 east, 2 south, 3 west) -> the 'front' code of _orient for the opposite
# direction (-facing): a repeater's output side and a wall block's attachment side.
_BACK_OF_FACING = np.array([0, 3, 1, 2], np.int64)
_FRONT_OF_FACING = np.array([1, 2, 0, 3], np.int64)  # the same for +facing: where a chest opens


_AXIS_OF = np.array([2, 0, 2, 0, 1, 1], np.int64)  # the axis of each of blocks.DIRECTIONS
_POSITIVE = np.array([False, True, True, False, True, False])


def _along(facing: np.ndarray, lo: float, hi: float, c0: float = 0.0, c1: float = 16.0) -> np.ndarray:
    """Boxes in sixteenths spanning lo..hi along each row's facing (0 at the back face, 16 at the front)
    and c0..c1 across it, for any of the six directions."""
    f = np.asarray(facing, np.int64)
    axis, pos = _AXIS_OF[f], _POSITIVE[f]
    a0, a1 = np.where(pos, lo, 16 - hi), np.where(pos, hi, 16 - lo)
    out = np.empty((len(f), 6), np.float32)
    for ax in range(3):
        m = axis == ax
        out[:, ax] = np.where(m, a0, c0)
        out[:, ax + 3] = np.where(m, a1, c1)
    return out


class _Boxes:
    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.parts: list[np.ndarray] = []
        self.boxes: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []

    def add(self, rows: np.ndarray, part: int, local: np.ndarray, origin: np.ndarray, faces=None) -> None:
        """Boxes given in sixteenths of a block (one per row, or one shared), placed at origin."""
        if len(rows) == 0:
            return
        local = np.broadcast_to(np.asarray(local, np.float32), (len(rows), 6))
        o = np.concatenate([origin, origin], 1).astype(np.float32)
        self.rows.append(np.asarray(rows, np.int32))
        self.parts.append(np.full(len(rows), part, np.uint8))
        self.boxes.append(o + local / 16.0)
        self.masks.append(np.ones((len(rows), 6), bool) if faces is None else faces)

    def done(self):
        if not self.rows:
            return np.zeros(0, np.int32), np.zeros(0, np.uint8), np.zeros((0, 6), np.float32), np.zeros((0, 6), bool)
        return (np.concatenate(self.rows), np.concatenate(self.parts), np.concatenate(self.boxes),
                np.concatenate(self.masks))


def _exposed(lay: Layout, rows: np.ndarray, hide_kinds: tuple[int, ...], visible: np.ndarray) -> np.ndarray:
    """For each block in rows, which of its 6 faces touch no neighbour of hide_kinds (bool (n, 6))."""
    n = len(rows)
    if n == 0:
        return np.zeros((0, 6), bool)
    pos = lay.pos.astype(np.int64)
    lo = pos.min(0) - 1
    dims = pos.max(0) - lo + 2
    grid = np.zeros(tuple(dims), bool)
    hiders = visible & np.isin(lay.kind, hide_kinds)
    q = pos[hiders] - lo
    grid[q[:, 0], q[:, 1], q[:, 2]] = True
    p = pos[rows] - lo
    out = np.ones((n, 6), bool)
    for f, (dx, dy, dz) in enumerate(FACE_NORMALS.tolist()):
        out[:, f] = ~grid[p[:, 0] + dx, p[:, 1] + dy, p[:, 2] + dz]
    return out


def _digits(bx: _Boxes, lay: Layout, rows: np.ndarray) -> None:
    """The segments of a two-digit power number on each dust of rows, just above the dust, top faces only."""
    org = lay.pos[rows].astype(np.float32)
    top = np.tile(np.array([False, False, True, False, False, False]), (len(rows), 1))
    y0, y1 = 1.1, 1.2
    for part, (x0, z0, x1, z1) in [*zip(P_SEG, (_SEG_BOXES[k] for k in range(7))), (P_SEG_TEN, _TEN_BOX)]:
        bx.add(rows, part, (x0, y0, z0, x1, y1, z1), org, top)


def _bare(state: str) -> str:
    return state.split("[", 1)[0].removeprefix("minecraft:")


_SIDE_DIRS = ("north", "east", "south", "west")
# Decorative blocks (blocks.DECORATIVE) in sixteenths, drawn for a block whose 'front' (_orient) is +z: a
# fence's rails, a wall's and a pane's arms, toward +z; a wall sign, wall banner, ladder or wall torch against +z.
_FENCE_RAILS = ((7, 6, 8, 9, 9, 16), (7, 12, 8, 9, 15, 16))
_WALL_ARM = {"low": ((5, 0, 8, 11, 14, 16),), "tall": ((5, 0, 8, 11, 16, 16),)}
_PANE_ARM = ((7, 0, 8, 9, 16, 16),)
_ON_WALL = {"wall_sign": ((0, 4.5, 14, 16, 12.5, 16),), "wall_banner": ((1, 0, 14.5, 15, 16, 15.5),),
            "ladder": ((1, 0, 14.5, 3, 16, 16), (13, 0, 14.5, 15, 16, 16), (3, 2, 15, 13, 3, 16), (3, 7, 15, 13, 8, 16),
                       (3, 12, 15, 13, 13, 16)),
            "wall_torch": ((7, 3, 11, 9, 11, 13), (7, 3, 13, 9, 5, 16), (6.5, 11, 10.5, 9.5, 14, 13.5)),
            "wall_head": ((4, 4, 8, 12, 12, 16),),
            "tripwire_hook": ((6, 1, 14, 10, 9, 16), (7.5, 5, 9, 8.5, 6, 14), (6.5, 4, 7, 9.5, 7, 9))}
# A lightning rod along its facing axis, its tip at the facing end (sixteenths), by facing.
_ROD = {"up": ((7, 0, 7, 9, 16, 9), (6, 12, 6, 10, 16, 10)), "down": ((7, 0, 7, 9, 16, 9), (6, 0, 6, 10, 4, 10)),
        "east": ((0, 7, 7, 16, 9, 9), (12, 6, 6, 16, 10, 10)), "west": ((0, 7, 7, 16, 9, 9), (0, 6, 6, 4, 10, 10)),
        "south": ((7, 7, 0, 9, 9, 16), (6, 6, 12, 10, 10, 16)), "north": ((7, 7, 0, 9, 9, 16), (6, 6, 0, 10, 10, 4))}
_CHAIN = {"y": (6.5, 0, 6.5, 9.5, 16, 9.5), "x": (0, 6.5, 6.5, 16, 9.5, 9.5), "z": (6.5, 6.5, 0, 9.5, 9.5, 16)}
_D_OF_SIDE = {"south": 0, "north": 1, "east": 2, "west": 3}  # a side's _orient front code


def _decorative(bx, lay: Layout, rows: np.ndarray, org: np.ndarray) -> None:
    """Fences and walls as posts with rails or arms, panes and bars as thin sheets, carpets flat, signs and
    banners as boards, lanterns, pots and candles small, ladders and wall torches against their wall: in the
    colour of their family (parts P_STONE and P_GLASS take the layout's tint)."""
    out: dict[int, tuple[list, list]] = {}

    def put(part: int, i: int, box, d: int = 0) -> None:
        b = _orient(np.asarray([box], np.float32), np.array([d]))[0] if d else box
        out.setdefault(part, ([], []))[0].append(i)
        out[part][1].append(b)

    for i in rows.tolist():
        name, props = B.split_state(lay.states[i])
        name = name.removeprefix("minecraft:")
        family = B.decorative_family(name)
        if family in ("fence", "wall", "pane"):
            part = P_GLASS if name.endswith("glass_pane") else P_STONE
            post = {"fence": (6, 0, 6, 10, 16, 10), "pane": (7, 0, 7, 9, 16, 9)}.get(family, (4, 0, 4, 12, 16, 12))
            if family != "wall" or props.get("up") == "true":
                put(part, i, post)
            for side in _SIDE_DIRS:
                v = props.get(side, "false")
                arm = {"fence": _FENCE_RAILS if v == "true" else (), "pane": _PANE_ARM if v == "true" else (),
                       "wall": _WALL_ARM.get(v, ())}[family]
                for box in arm:
                    put(part, i, box, _D_OF_SIDE[side])
        elif family == "chain":
            put(P_STONE, i, _CHAIN[props.get("axis", "y")])
        elif family == "carpet":
            put(P_STONE, i, (0, 0, 0, 16, 1, 16))
        elif family in ("sign", "banner"):
            across = (int(props.get("rotation", "0")) + 2) // 4 % 2  # the board faces the nearest side
            post = (7.25, 0, 7.25, 8.75, 9, 8.75) if family == "sign" else (7.5, 0, 7.5, 8.5, 16, 8.5)
            board = (0, 9, 7.25, 16, 16, 8.75) if family == "sign" else (1, 3, 8.5, 15, 16, 9.5)
            put(P_STONE, i, post)
            put(P_STONE, i, board, 2 if across else 0)
        elif family in _ON_WALL:
            d = int(_BACK_OF_FACING[B.HORIZONTAL.index(props.get("facing", "north"))])
            for box in _ON_WALL[family]:
                put(P_STONE, i, box, d)
        elif family == "lantern":
            y = 1 if props.get("hanging") == "true" else 0
            put(P_STONE, i, (5, y, 5, 11, y + 7, 11))
            put(P_STONE, i, (6, y + 7, 6, 10, y + 9, 10))
            if y:
                put(P_STONE, i, (7.5, 10, 7.5, 8.5, 16, 8.5))
        elif family == "flower_pot":
            put(P_STONE, i, (5, 0, 5, 11, 6, 11))
            if name.startswith("potted_"):
                put(P_STONE, i, (7, 6, 7, 9, 12, 9))
        elif family == "candle":
            for k in range(int(props.get("candles", "1"))):
                x, z = ((7, 7), (4, 7), (7, 4), (10, 10))[k]
                put(P_STONE, i, (x, 0, z, x + 2, 6, z + 2))
        elif family == "head":
            put(P_STONE, i, (4, 0, 4, 12, 8, 12))
        elif family == "torch":  # no redstone: drawn in one colour, unlike a redstone torch's head
            put(P_STONE, i, (7, 0, 7, 9, 8, 9))
            put(P_STONE, i, (6.5, 8, 6.5, 9.5, 11, 9.5))
        elif family == "fire":  # two crossed sheets of flame
            put(P_STONE, i, (0, 0, 7.5, 16, 14, 8.5))
            put(P_STONE, i, (7.5, 0, 0, 8.5, 14, 16))
        elif family == "tripwire":  # a thread along its connections (north-south when it has none), low when attached
            y = 1 if props.get("attached") == "true" else 2.5
            sides = [side for side in _SIDE_DIRS if props.get(side) == "true"] or ["north", "south"]
            put(P_STONE, i, (7.5, y, 7.5, 8.5, y + 0.5, 8.5))
            for side in sides:
                put(P_STONE, i, (7.75, y, 8.5, 8.25, y + 0.5, 16), _D_OF_SIDE[side])
    for part, (idx, boxes) in out.items():
        ii = np.asarray(idx, np.int64)
        bx.add(ii, part, np.asarray(boxes, np.float32), org[ii])


def _boxes(lay: Layout, visible: np.ndarray, numbers: bool = False):
    bx = _Boxes()
    kind = lay.kind
    org = lay.pos.astype(np.float32)

    def rows_of(*ids):
        return np.flatnonzero(visible & np.isin(kind, ids))

    full = (0, 0, 0, 16, 16, 16)
    for k, part in ((B.STONE, P_STONE), (B.REDSTONE_BLOCK, P_RBLOCK)):
        r = rows_of(k)
        bx.add(r, part, full, org[r], _exposed(lay, r, FULL_CUBES, visible))
    r = rows_of(B.GLASS)
    bx.add(r, P_GLASS, full, org[r], _exposed(lay, r, FULL_CUBES + (B.GLASS,), visible))
    # Slabs and stairs: the half on the side of their whole top or bottom face (the layout keeps a partial
    # block's whole faces in `delay`); stairs add a step along their facing side (corners drawn straight).
    r = rows_of(B.PARTIAL)
    deco = np.array([B.decorative_family(_bare(lay.states[i])) is not None for i in r.tolist()], bool)
    _decorative(bx, lay, r[deco], org)
    r = r[~deco]
    wet = np.array([_bare(lay.states[i]) == "water" for i in r.tolist()], bool)
    for i in r[wet].tolist():  # vanilla's fluid height: 8/9 of a block for a source, amount/9 flowing, whole falling
        level = int(B.split_state(lay.states[i])[1].get("level", "0"))
        h = 16.0 if level >= 8 else 16.0 * (8 if level == 0 else 8 - level) / 9
        bx.add(np.array([i]), P_WATER, (0, 0, 0, 16, h, 16), org[[i]])
    r = r[~wet]
    rod = np.array([_bare(lay.states[i]) == "lightning_rod" for i in r.tolist()], bool)
    for i in r[rod].tolist():
        for box in _ROD[B.split_state(lay.states[i])[1].get("facing", "up")]:
            bx.add(np.array([i]), P_STONE, box, org[[i]])
    r = r[~rod]
    honey = np.array([lay.states[i].split("[", 1)[0].endswith("honey_block") for i in r.tolist()], bool)
    bx.add(r[honey], P_STONE, HONEY_BOX, org[r[honey]])  # a partial block with no whole face: drawn as its shape
    r = r[~honey]
    if len(r):
        top = (lay.delay[r].astype(np.int64) >> 4) & 1 == 1
        bx.add(r, P_STONE, np.where(top[:, None], (0, 8, 0, 16, 16, 16), (0, 0, 0, 16, 8, 16)).astype(np.float32),
               org[r])
        st = np.array([lay.states[i].split("[", 1)[0].endswith("_stairs") for i in r.tolist()], bool)
        if st.any():
            step = np.where(top[st, None], (0, 0, 8, 16, 8, 16), (0, 8, 8, 16, 16, 16)).astype(np.float32)
            d = np.array([1, 2, 0, 3], np.int64)[lay.facing[r[st]].astype(np.int64) % 4]  # step toward facing
            bx.add(r[st], P_STONE, _orient(step, d), org[r[st]])
    # Lamps are inset by a sixteenth, all faces kept: a row of lit lamps reads as separate blocks with a
    # dark seam between them, not as one slab. Their glow stays inside the block for the same reason.
    r = rows_of(B.LAMP, B.COPPER_BULB)  # a copper bulb is drawn as a lamp, in its copper's colour (box_colors)
    bx.add(r, P_LAMP, LAMP_BOX, org[r])
    bx.add(r, P_GLOW_LAMP, (0.6, 0.6, 0.6, 15.4, 16.3, 15.4), org[r],
           np.tile(np.array([False, False, True, False, False, False]), (len(r), 1)))

    # Dust: a flat centre plus an arm per connected side; an 'up' side also climbs the next block.
    r = rows_of(B.WIRE)
    if len(r):
        sides = lay.sides[r]
        dot = ~sides.any(1)
        h0, h1 = 0.25, 1.0
        centre = np.where(dot[:, None], (4, h0, 4, 12, h1, 12), (5.5, h0, 5.5, 10.5, h1, 10.5)).astype(np.float32)
        bx.add(r, P_DUST, centre, org[r])
        arms = {0: (5.5, h0, 0, 10.5, h1, 5.5), 1: (10.5, h0, 5.5, 16, h1, 10.5),
                2: (5.5, h0, 10.5, 10.5, h1, 16), 3: (0, h0, 5.5, 5.5, h1, 10.5)}
        climbs = {0: (5.5, 0, 0.25, 10.5, 16, 1.0), 1: (15.0, 0, 5.5, 15.75, 16, 10.5),
                  2: (5.5, 0, 15.0, 10.5, 16, 15.75), 3: (0.25, 0, 5.5, 1.0, 16, 10.5)}
        for s in range(4):
            m = sides[:, s] > 0
            bx.add(r[m], P_DUST, arms[s], org[r[m]])
            m = sides[:, s] == 2
            bx.add(r[m], P_DUST, climbs[s], org[r[m]])
        if numbers:
            _digits(bx, lay, r)

    # Repeater, drawn for output towards +z: base slab, arrow, output torch, delay torch, lock bar.
    r = rows_of(B.REPEATER)
    if len(r):
        d = _BACK_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        o = org[r]

        def put(part, box):
            bx.add(r, part, _orient(np.broadcast_to(np.asarray(box, np.float32), (len(r), 6)).copy(), d), o)

        put(P_REP_BASE, (0, 0, 0, 16, 2, 16))
        put(P_REP_LIT, (7.3, 2, 0.8, 8.7, 2.4, 13.0))
        put(P_REP_LIT, (4.5, 2, 12.5, 11.5, 2.4, 13.8))
        put(P_REP_LIT, (6.0, 2, 13.8, 10.0, 2.4, 15.0))
        put(P_REP_LIT, (7.3, 2, 15.0, 8.7, 2.4, 15.9))
        put(P_REP_LIT, (7, 2, 9.5, 9, 7, 11.5))
        put(P_REP_LIT, (6.0, 2, 14.2, 10.0, 5.0, 15.6))  # upright arrow head at the output edge
        c = 9.0 - 2.0 * lay.delay[r].astype(np.float32)  # longer delay, torch further from the output
        delay_torch = np.stack([np.full_like(c, 7), np.full_like(c, 2), c - 1, np.full_like(c, 9),
                                np.full_like(c, 7), c + 1], 1)
        bx.add(r, P_REP_LIT, _orient(delay_torch, d), o)
        put(P_REP_LOCK, (1, 2, 7.7, 15, 2.9, 8.7))
        # the delay as 1-4 stacked pips on both sides, countable from any side
        for k in range(4):
            m = lay.delay[r] > k
            for x0 in (0.2, 14.4):
                bx.add(r[m], P_REP_PIP, _orient(np.tile(np.array([x0, 2 + 3 * k, 6.5, x0 + 1.4, 4 + 3 * k, 9.5],
                                                                   np.float32), (int(m.sum()), 1)), d[m]), o[m])

    # Comparator, drawn for output towards +z: base slab, two rear torches (lit while powered) and a lower
    # front torch at the output (lit in subtract mode), as in the game.
    r = rows_of(B.COMPARATOR)
    if len(r):
        d = _BACK_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        for part, box in ((P_REP_BASE, (0, 0, 0, 16, 2, 16)), (P_REP_LIT, (3, 2, 2, 5, 7, 4)),
                          (P_REP_LIT, (11, 2, 2, 13, 7, 4)), (P_CMP_FRONT, (7, 2, 11, 9, 5, 13)),
                          (P_REP_LIT, (7.3, 2, 4.5, 8.7, 2.4, 10.5))):
            bx.add(r, part, _orient(np.tile(np.asarray(box, np.float32), (len(r), 1)), d), org[r])

    # Containers: a barrel is a full block; a chest is slightly smaller, with a latch on its front.
    r = rows_of(B.BARREL)
    bx.add(r, P_BARREL, full, org[r], _exposed(lay, r, FULL_CUBES, visible))
    r = rows_of(B.TARGET)
    bx.add(r, P_TARGET, full, org[r], _exposed(lay, r, FULL_CUBES, visible))
    r = rows_of(B.NOTE_BLOCK)
    bx.add(r, P_NOTE, full, org[r], _exposed(lay, r, FULL_CUBES, visible))
    r = rows_of(B.TEST_BLOCK)
    bx.add(r, P_TEST, full, org[r], _exposed(lay, r, FULL_CUBES, visible))
    r = rows_of(B.COMMAND_BLOCK)
    if len(r):
        bx.add(r, P_CMD, full, org[r], _exposed(lay, r, FULL_CUBES, visible))
        bx.add(r, P_CMD_MARK, _along(lay.facing[r], 15.8, 16.2, 5, 11), org[r])
    r = rows_of(B.CHEST)
    if len(r):
        bx.add(r, P_CHEST, (1, 0, 1, 15, 14, 15), org[r])
        d = _FRONT_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        bx.add(r, P_LATCH, _orient(np.tile(np.asarray((7, 7, 15, 9, 11, 16), np.float32), (len(r), 1)), d), org[r])

    # Observer: a grey block, its dark face toward what it watches, a red eye on its back while it pulses.
    r = rows_of(B.OBSERVER)
    if len(r):
        f = lay.facing[r]
        bx.add(r, P_OBS, (0, 0, 0, 16, 16, 16), org[r], _exposed(lay, r, FULL_CUBES, visible))
        bx.add(r, P_OBS_FACE, _along(f, 15.8, 16.2, 2, 14), org[r])
        bx.add(r, P_OBS_EYE, _along(f, -0.2, 0.2, 6, 10), org[r])
    # Pistons: a base and a plate at the front (slime green on a sticky piston); an extended base is short,
    # and its head is a block of its own: the plate one block out, with a rod back into the base.
    r = rows_of(B.PISTON, B.STICKY_PISTON)
    if len(r):
        f = lay.facing[r]
        out = np.array([lay.states[i].find("extended=true") >= 0 for i in r.tolist()], bool)
        sticky = lay.kind[r] == B.STICKY_PISTON
        bx.add(r, P_PISTON, _along(f, 0, 12), org[r])
        for m, part in ((~out & ~sticky, P_HEAD_PLATE), (~out & sticky, P_STICKY_PLATE)):
            bx.add(r[m], part, _along(f[m], 12, 16), org[r[m]])
    r = rows_of(B.PISTON_HEAD)
    if len(r):
        f = lay.facing[r]
        sticky = lay.face[r] == 1
        for m, part in ((~sticky, P_HEAD_PLATE), (sticky, P_STICKY_PLATE)):
            bx.add(r[m], part, _along(f[m], 12, 16), org[r[m]])
        bx.add(r, P_HEAD_PLATE, _along(f, -4, 12, 6, 10), org[r])
    r = rows_of(B.MOVING_PISTON)  # a translucent ghost where the layout does not say what it carries
    r = r[~np.isin(r, np.fromiter(lay.moving, np.int64, len(lay.moving)))]
    bx.add(r, P_MOVING, (2, 2, 2, 14, 14, 14), org[r])

    _more_boxes(bx, lay, rows_of, org)

    r = rows_of(B.TORCH)
    bx.add(r, P_STICK, (7, 0, 7, 9, 8, 9), org[r])
    bx.add(r, P_TORCH_HEAD, (6.5, 8, 6.5, 9.5, 11, 9.5), org[r])
    bx.add(r, P_GLOW_TORCH, (5, 6.5, 5, 11, 12.5, 11), org[r])
    r = rows_of(B.WALL_TORCH)
    if len(r):
        d = _BACK_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        o = org[r]
        for part, box in ((P_STICK, (7, 3, 11, 9, 11, 13)), (P_STICK, (7, 3, 13, 9, 5, 16)),
                          (P_TORCH_HEAD, (6.5, 11, 10.5, 9.5, 14, 13.5)), (P_GLOW_TORCH, (5, 9.5, 9, 11, 15.5, 15))):
            bx.add(r, part, _orient(np.tile(np.asarray(box, np.float32), (len(r), 1)), d), o)

    # Buttons and levers on floor, wall (attached behind, at -facing) or ceiling.
    for kind_id, parts in ((B.BUTTON, ((P_BUTTON, (4.5, 0, 5.5, 11.5, 3, 10.5)),)),
                           (B.LEVER, ((P_LEVER_BASE, (5, 0, 4, 11, 3, 12)), (P_STICK, (7, 3, 7, 9, 9, 9)),
                                      (P_LEVER_TIP, (6.5, 9, 6.5, 9.5, 11, 9.5))))):
        r = rows_of(kind_id)
        if not len(r):
            continue
        face = lay.face[r]
        fac = lay.facing[r].astype(np.int64) % 4
        for part, box in parts:
            box = np.tile(np.asarray(box, np.float32), (len(r), 1))
            x0, y0, z0, x1, y1, z1 = box.T
            # a floor box turned onto a wall: its height off the floor becomes its depth off the wall
            # (the wall being at +z before orientation) and its z extent becomes its height
            wall = np.stack([x0, z0, 16 - y1, x1, z1, 16 - y0], 1)
            ceil = np.stack([x0, 16 - y1, z0, x1, 16 - y0, z1], 1)
            local = np.where((face == 1)[:, None], wall, np.where((face == 2)[:, None], ceil, box))
            d = np.where(face == 1, _BACK_OF_FACING[fac], np.where(np.isin(fac, (1, 3)), 2, 0))
            bx.add(r, part, _orient(local, d), org[r])
    return bx.done()


def _more_boxes(bx: _Boxes, lay: Layout, rows_of, org: np.ndarray) -> None:
    """Hoppers, droppers, dispensers, furnaces, doors, trapdoors, plates and daylight sensors."""

    def oriented(r, box, d):
        return _orient(np.tile(np.asarray(box, np.float32), (len(r), 1)), d)

    full = (0, 0, 0, 16, 16, 16)
    r = rows_of(B.HOPPER)  # a funnel: a wide top, a narrower middle, a spout
    for box in ((0, 10, 0, 16, 16, 16), (4, 4, 4, 12, 10, 12), (6, 0, 6, 10, 4, 10)):
        bx.add(r, P_HOPPER, box, org[r])
    # droppers and dispensers: a grey cube with a dark mouth on their front (top or bottom when they face
    # up or down); a furnace with a front that glows while lit
    for kind, body, front, box in ((B.DROPPER, P_DROPPER, P_MOUTH, (5, 5, 15.5, 11, 11, 16.2)),
                                   (B.DISPENSER, P_DROPPER, P_MOUTH, (5, 5, 15.5, 11, 11, 16.2)),
                                   (B.FURNACE, P_FURNACE, P_FURNACE_FRONT, (3, 2, 15.5, 13, 8, 16.2))):
        r = rows_of(kind)
        if not len(r):
            continue
        bx.add(r, body, full, org[r])
        f = lay.facing[r].astype(np.int64)
        side = f < 4
        bx.add(r[side], front, oriented(r[side], box, _FRONT_OF_FACING[f[side]]), org[r[side]])
        for k, vbox in ((4, (5, 15.5, 5, 11, 16.2, 11)), (5, (5, -0.2, 5, 11, 0.5, 11))):
            m = f == k
            bx.add(r[m], front, vbox, org[r[m]])
    # doors: a panel 3/16 thick where a shut door stands (the side away from its facing) and where it
    # swings to when open (along its hinge side); trapdoors: flat at their half, or up against the side
    # away from their facing
    r = rows_of(B.IRON_DOOR)
    if len(r):
        d = _BACK_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        bx.add(r, P_SHUT, oriented(r, (0, 0, 13, 16, 16, 16), d), org[r])
        right = lay.delay[r] == 1
        bx.add(r, P_OPEN, _orient(np.where(right[:, None], (13, 0, 0, 16, 16, 16), (0, 0, 0, 3, 16, 16))
                                  .astype(np.float32), d), org[r])
    r = rows_of(B.IRON_TRAPDOOR)
    if len(r):
        d = _BACK_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        top = lay.face[r] == 1
        bx.add(r, P_SHUT, np.where(top[:, None], (0, 13, 0, 16, 16, 16), (0, 0, 0, 16, 3, 16)).astype(np.float32),
               org[r])
        bx.add(r, P_OPEN, oriented(r, (0, 0, 13, 16, 16, 16), d), org[r])
    # fence gates: a shut bar across the block's middle, or two leaves swung to the side the gate faces
    r = rows_of(B.FENCE_GATE)
    if len(r):
        d = _BACK_OF_FACING[lay.facing[r].astype(np.int64) % 4]
        bx.add(r, P_SHUT, oriented(r, (0, 6, 7, 16, 15, 9), d), org[r])
        for box in ((0, 6, 9, 2, 15, 16), (14, 6, 9, 16, 15, 16)):
            bx.add(r, P_OPEN, oriented(r, box, d), org[r])
    r = rows_of(*B.PLATES)
    bx.add(r, P_PLATE, (1, 0, 1, 15, 1, 15), org[r])
    # a rail lies flat, coloured as a plate is; an ascending one climbs in four steps toward its high side
    r = rows_of(B.RAIL)
    if len(r):
        shape = np.array([B.split_state(lay.states[i])[1].get("shape", "north_south") for i in r.tolist()])
        flat = ~np.char.startswith(shape, "ascending_")
        bx.add(r[flat], P_PLATE, (0, 0, 0, 16, 2, 16), org[r[flat]])
        for rise, steps in _RAIL_STEPS.items():
            m = r[shape == rise]
            for box in steps:
                bx.add(m, P_PLATE, box, org[m])
    r = rows_of(B.DAYLIGHT)
    bx.add(r, P_DAYLIGHT, (0, 0, 0, 16, 6, 16), org[r])


# An ascending rail's four steps, sixteenths of a block, each 4 wide and rising 4 toward the side it climbs to.
_RAIL_STEPS = {
    "ascending_east": [(4 * i, 4 * i, 0, 4 * i + 4, 4 * i + 2, 16) for i in range(4)],
    "ascending_west": [(12 - 4 * i, 4 * i, 0, 16 - 4 * i, 4 * i + 2, 16) for i in range(4)],
    "ascending_south": [(0, 4 * i, 4 * i, 16, 4 * i + 2, 4 * i + 4) for i in range(4)],
    "ascending_north": [(0, 4 * i, 12 - 4 * i, 16, 4 * i + 2, 16 - 4 * i) for i in range(4)],
}


def _plate_colors(lay: Layout, rows: np.ndarray, c: dict) -> np.ndarray:
    """A plate's own colour: stone grey, its wood's, gold (light weighted) or iron (heavy weighted); a rail's: gold
    (powered rail), dark red (activator rail), grey (detector rail) or brown (plain rail)."""
    out = np.empty((len(rows), 3), np.float32)
    for j, i in enumerate(rows.tolist()):
        k = int(lay.kind[i])
        if k == B.LIGHT_PLATE:
            out[j] = c["gold_plate"]
        elif k == B.HEAVY_PLATE:
            out[j] = c["iron_plate"]
        elif k == B.RAIL:
            out[j] = c["gold_plate"] if lay.name(i) == "powered_rail" else c[lay.name(i)]
        else:
            out[j] = block_color(lay.name(i)) or c["stone_plate"]
    return out


def _triangles(boxes: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """6 vertices per shown face: positions, owning box, shade."""
    bi, fi = np.nonzero(faces)
    if len(bi) == 0:
        return np.zeros((0, 3), np.float32), np.zeros(0, np.int32), np.zeros(0, np.float32)
    lohi = boxes[bi].reshape(-1, 2, 3)  # (F, lo/hi, axis)
    pick = _PICK[fi]  # (F, 6, 3)
    verts = lohi[np.arange(len(bi))[:, None, None], pick, np.arange(3)[None, None, :]]  # (F, 6, 3)
    return (verts.reshape(-1, 3).astype(np.float32), np.repeat(bi, 6).astype(np.int32),
            np.repeat(FACE_SHADE[fi], 6))


def _carried(lay: Layout, visible: np.ndarray):
    """Boxes of the blocks pistons are moving, each drawn as itself (from its own one-block layout), set
    back from the moving_piston's place towards where it came from by (1 - progress) of a block, as
    vanilla draws a piston's moving block entity; a retracting piston's base stays put (drawn extended,
    as vanilla does) while its head slides back into it. Returns rows, parts, boxes, faces and the boxes'
    own colours and glow."""
    groups: list[dict] = [{}, {}]  # the carried blocks at their destinations; retracting heads at theirs
    for i, m in lay.moving.items():
        if not visible[i]:
            continue
        p = np.asarray(lay.pos[i], np.float32)
        block = m.block
        if m.piston and not m.extending:
            block = block.replace("extended=false", "extended=true")
            f = int(lay.facing[i])
            step = np.asarray(B.OFFSETS[f], np.float32)
            head = (f"minecraft:piston_head[facing={B.DIRECTIONS[f]},short=false,"
                    f"type={B.PISTON_TYPES[int(lay.face[i])]}]")
            groups[1][tuple((p + step).astype(int).tolist())] = (head, i, -step * m.progress)
        groups[0][tuple(lay.pos[i].tolist())] = (block, i, (np.asarray(m.source, np.float32) - p) * (1 - m.progress))
    out = []
    for g in groups:
        if not g:
            continue
        sub, on, power, locked = layout_from_blocks({p: v[0] for p, v in g.items()})
        main = np.array([g[p][1] for p in sub.positions], np.int32)
        shift = np.array([g[p][2] for p in sub.positions], np.float32)
        r, parts, boxes, faces = _boxes(sub, np.ones(len(sub), bool))
        boxes = boxes + np.tile(shift[r], 2)
        rgb = box_colors(Geometry(r, parts, {}, np.zeros((0, 3), np.float32)), Frame(sub, on, power, locked))
        lit = _GLOWING[parts] & (on[r] | (parts == P_DUST))
        out.append((main[r], parts, boxes, faces, rgb, lit))
    return [np.concatenate(k) for k in zip(*out)] if out else None


def build(lay: Layout, visible: np.ndarray | None = None, numbers: bool = False) -> Geometry:
    """The canvas geometry of a layout; `visible` (bool per block) hides blocks, e.g. above a layer;
    `numbers` writes each dust's power on its top (segments lit by the frame's power)."""
    if visible is None:
        visible = np.ones(len(lay), bool)
    visible = np.asarray(visible, bool)
    rows, parts, boxes, faces = _boxes(lay, visible, numbers)
    fixed_rgb = fixed_lit = None
    carried = _carried(lay, visible) if lay.moving else None
    if carried is not None:
        n = len(rows)
        fixed_rgb = np.concatenate([np.full((n, 3), -1.0, np.float32), carried[4]])
        fixed_lit = np.concatenate([np.zeros(n, bool), carried[5]])
        rows, parts, boxes, faces = (np.concatenate([a, b]) for a, b in zip((rows, parts, boxes, faces), carried[:4]))
    meshes = {}
    mesh_of = np.array([MESHES.index(_MESH_OF_PART.get(p, "solid")) for p in range(N_PARTS)], np.int64)
    which = mesh_of[parts] if len(parts) else np.zeros(0, np.int64)
    for mi, name in enumerate(MESHES):
        sel = which == mi
        idx = np.flatnonzero(sel)
        pos, box, shade = _triangles(boxes[sel], faces[sel])
        meshes[name] = Mesh(pos, idx[box] if len(box) else box, shade)
    gl = parts == P_GLASS
    edges = _box_edges(boxes[gl]) if gl.any() else np.zeros((0, 3), np.float32)
    return Geometry(rows, parts, meshes, edges, fixed_rgb, fixed_lit)


_EDGES = [(a, b) for a in range(8) for b in range(a + 1, 8) if bin(a ^ b).count("1") == 1]


def _box_edges(boxes: np.ndarray) -> np.ndarray:
    lohi = boxes.reshape(-1, 2, 3)
    corners = np.stack([np.stack([lohi[:, (c >> 2) & 1, 0], lohi[:, (c >> 1) & 1, 1], lohi[:, c & 1, 2]], 1)
                        for c in range(8)], 1)  # (n, 8, 3)
    pairs = np.array(_EDGES).reshape(-1)
    return corners[:, pairs].reshape(-1, 3).astype(np.float32)


# ----------------------------------------------------------------------------------- colouring
def box_colors(geom: Geometry, frame: Frame) -> np.ndarray:
    """RGB (0..1) of every box for the frame's values."""
    n = len(geom.part)
    col = np.zeros((n, 3), np.float32)
    if n == 0:
        return col
    part = geom.part
    on = frame.on[geom.block]
    lay = frame.layout
    c = {k: np.array(v, np.float32) for k, v in _COLORS.items()}

    def put(p, value):
        m = part == p
        if m.any():
            col[m] = value if np.ndim(value) == 1 else value[m]

    # a checkerboard on stone makes the floor's grid countable
    checker = ((lay.pos[geom.block, 0] + lay.pos[geom.block, 2]) % 2 == 0)[:, None]
    put(P_STONE, np.where(checker, c["stone"] * 0.92, c["stone"]))
    put(P_LAMP, np.where(on[:, None], c["lamp_on"], c["lamp_off"]))
    m = (part == P_LAMP) & (lay.kind[geom.block] == B.COPPER_BULB)
    if m.any():  # a copper bulb: its oxidation stage's copper, lit toward the lamp's glow by its light level
        stage = lay.face[geom.block[m]].astype(np.int64) % 4
        base = np.array([c[f"bulb_{k}"] for k in range(4)], np.float32)[stage]
        light = np.array(B.BULB_LIGHT, np.float32)[stage][:, None] / 15.0
        col[m] = np.where(on[m][:, None], base + (c["lamp_on"] - base) * light, base * 0.7)
    put(P_RBLOCK, c["rblock"])
    put(P_GLASS, c["glass"])
    put(P_WATER, c["water"])
    put(P_DUST, dust_color(frame.power[geom.block]))
    put(P_REP_BASE, c["rep_base"])
    put(P_REP_LIT, np.where(on[:, None], c["rep_on"], c["rep_off"]))
    put(P_REP_LOCK, np.where(frame.locked[geom.block][:, None], c["lock"], c["rep_base"]))
    put(P_STICK, c["stick"])
    put(P_TORCH_HEAD, np.where(on[:, None], c["head_on"], c["head_off"]))
    put(P_BUTTON, np.where(on[:, None], c["button_on"], c["button"]))
    put(P_LEVER_BASE, c["lever_base"])
    put(P_LEVER_TIP, np.where(on[:, None], c["head_on"], c["lever_off"]))
    put(P_REP_PIP, c["pip"])
    cmp_base = (part == P_REP_BASE) & (lay.kind[geom.block] == B.COMPARATOR)
    if cmp_base.any():
        col[cmp_base] = c["cmp_base"]
    # a comparator's mode is kept in its layout row's `face` (1 = subtract)
    put(P_CMP_FRONT, np.where((lay.face[geom.block] == 1)[:, None], c["rep_on"], c["rep_off"]))
    put(P_BARREL, c["barrel"])
    put(P_CHEST, c["chest"])
    put(P_LATCH, c["latch"])
    put(P_TARGET, c["target"])
    put(P_NOTE, np.where(on[:, None], c["note_on"], c["note"]))
    test = np.asarray([c["test_start"], c["test_log"], c["test_fail"], c["test_accept"]])[
        np.minimum(lay.face[geom.block].astype(np.int64), 3)]
    put(P_TEST, np.where(on[:, None], np.minimum(test * 1.35, 1.0), test))
    cmd = np.asarray([c["cmd_impulse"], c["cmd_repeating"], c["cmd_chain"]])[
        np.minimum(lay.face[geom.block].astype(np.int64), 2)]
    put(P_CMD, np.where(on[:, None], np.minimum(cmd * 1.3, 1.0), cmd))
    put(P_CMD_MARK, np.where((lay.delay[geom.block] == 1)[:, None], c["cmd_conditional"], c["cmd_mark"]))
    put(P_OBS, c["observer"])
    put(P_OBS_FACE, c["observer_face"])
    put(P_OBS_EYE, np.where(on[:, None], c["rep_on"], c["rep_off"]))
    put(P_PISTON, c["piston"])
    put(P_HEAD_PLATE, c["plate"])
    put(P_STICKY_PLATE, c["sticky_plate"])
    put(P_MOVING, c["moving"])
    # glow shells are drawn additively: black adds nothing, so an unlit lamp's shell vanishes
    put(P_GLOW_LAMP, np.where(on[:, None], c["glow_lamp"], 0.0))
    put(P_GLOW_TORCH, np.where(on[:, None], c["glow_torch"], 0.0))
    if lay.tint is not None:  # vanilla blocks in the colour of their family (concrete, planks, slabs...)
        t = lay.tint[geom.block]
        m = (t[:, 0] >= 0) & ((part == P_STONE) | (part == P_GLASS))
        col[m] = t[m]
    power = frame.power[geom.block].astype(np.int64)
    for k, p in enumerate(P_SEG):
        put(p, np.where(DIGIT_SEGMENTS[power % 10, k][:, None], c["digit"], 0.0))
    put(P_SEG_TEN, np.where((power >= 10)[:, None], c["digit"], 0.0))
    put(P_HOPPER, c["hopper"])
    put(P_DROPPER, c["dropper"])
    put(P_MOUTH, c["mouth"])
    put(P_FURNACE, c["furnace"])
    put(P_FURNACE_FRONT, np.where(on[:, None], c["furnace_lit"], c["mouth"]))
    # a door, trapdoor or fence gate shows the panel of its `open` (`on`)
    put(P_SHUT, np.where(on[:, None], 0.0, c["iron"]))
    put(P_OPEN, np.where(on[:, None], c["iron"], 0.0))
    m = part == P_PLATE
    if m.any():  # pressed: the plate's colour turns half way to redstone red, by its output
        base = _plate_colors(lay, geom.block[m], c)
        level = np.maximum(power[m], np.where(on[m], 15, 0))[:, None] / 15.0
        col[m] = base + (c["rep_on"] - base) * (0.5 * level).astype(np.float32)
    m = part == P_DAYLIGHT
    if m.any():  # its top brightens toward sunlight yellow with its output; blue when inverted
        inv = np.array(["inverted=true" in lay.states[i] for i in geom.block[m].tolist()], bool)[:, None]
        base = np.where(inv, c["daylight_inverted"], c["daylight"])
        col[m] = base + (c["sun"] - base) * (power[m][:, None] / 15.0).astype(np.float32)
    if geom.fixed_rgb is not None:
        m = geom.fixed_rgb[:, 0] >= 0
        col[m] = geom.fixed_rgb[m]
    return col


_GLOWING = np.zeros(N_PARTS, bool)
# lamps keep their face shading even when lit, so the edges of neighbouring lamps stay visible
_GLOWING[[P_DUST, P_REP_LIT, P_TORCH_HEAD, P_GLOW_LAMP, P_GLOW_TORCH, P_OBS_EYE]] = True


def vertex_colors(geom: Geometry, frame: Frame) -> dict[str, np.ndarray]:
    """uint8 RGB per vertex of each mesh. Lit parts are drawn without shading so that they glow."""
    bc = box_colors(geom, frame)
    lit = _GLOWING[geom.part] & (frame.on[geom.block] | (geom.part == P_DUST)) if len(geom.part) else np.zeros(0, bool)
    if geom.fixed_lit is not None:
        lit = np.where(geom.fixed_rgb[:, 0] >= 0, geom.fixed_lit, lit)
    out = {}
    for name, mesh in geom.meshes.items():
        shade = np.where(lit[mesh.box], np.maximum(mesh.shade, 0.93), mesh.shade) if len(mesh.box) else mesh.shade
        rgb = bc[mesh.box] * shade[:, None]
        out[name] = np.clip(rgb * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return out
