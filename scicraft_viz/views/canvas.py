"""The 3D canvas: blocks drawn with pythreejs from a Frame, orbit controls, camera presets, a layer
slider, highlights, and double-click picking turned into block positions.

The scene holds a handful of merged buffer geometries (opaque parts, glass, the additive glow of lit
lamps and torches) with fixed-capacity vertex arrays: a new tick rewrites only the colour arrays,
an edit rewrites the positions in place, and only outgrowing the capacity makes new buffers."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as W
import numpy as np
import pythreejs as P3
import traitlets as T

from scicraft_viz.engine.blocks import split_state
from scicraft_viz.views import geometry as G
from scicraft_viz.views.entities import ENTITY_VERTICES, entity_records, entity_vertices
from scicraft_viz.views.frame import Frame, frame_from_blocks, frame_from_world

Pos = tuple[int, int, int]
PRESETS = ("isometric", "top", "front")
_NO_POINT = (-1e9, -1e9, -1e9)  # written back after each pick so that clicking the same spot fires again
_FACING_OF_NORMAL = {(1, 0, 0): "east", (-1, 0, 0): "west", (0, 0, 1): "south", (0, 0, -1): "north"}
HELP = ("drag: orbit · right-drag: pan · wheel: zoom · <b>double-click: place</b> · "
        "shift+double-click: remove · ctrl+double-click: use · alt+double-click: meter")


@dataclass(frozen=True)
class Pick:
    """A double-click on a block face: the block hit, the empty cell in front of the face, the face
    normal and the modifier keys held (shift, ctrl, alt, meta)."""

    hit: Pos
    target: Pos
    normal: Pos
    shift: bool = False
    ctrl: bool = False
    alt: bool = False
    meta: bool = False

    @property
    def facing(self) -> str | None:
        """The horizontal direction the clicked face looks to (None for top and bottom faces)."""
        return _FACING_OF_NORMAL.get(self.normal)


def describe_block(frame: Frame, pos: Pos) -> str:
    """One line about the block at pos in a frame: position, state, and power in words."""
    i = frame.layout.at(pos)
    if i is None:
        return f"{tuple(pos)} air"
    state = frame.state(i).removeprefix("minecraft:")
    name = state.split("[", 1)[0]
    lay = frame.layout
    if name == "redstone_wire":
        power = f"power {int(frame.power[i])} of 15"
    elif name == "redstone_lamp":
        power = "lit" if frame.on[i] else "dark"
    elif name == "redstone_repeater":
        facing = G.B.DIRECTIONS[int(lay.facing[i])]
        out = {"north": "south", "south": "north", "east": "west", "west": "east"}.get(facing, "?")
        power = (f"input from the {facing}, output to the {out}, delay {int(lay.delay[i])} rt; "
                 + ("powered" if frame.on[i] else "unpowered") + (", locked" if frame.locked[i] else ""))
    elif name == "comparator":
        facing = G.B.DIRECTIONS[int(lay.facing[i])]
        out = {"north": "south", "south": "north", "east": "west", "west": "east"}.get(facing, "?")
        mode = G.B.COMPARATOR_MODES[int(lay.face[i])]
        power = f"input from the {facing}, output to the {out}, {mode} mode; " + (
            "powered" if frame.on[i] else "unpowered")
    elif name == "note_block":
        props = split_state(state)[1]
        power = f"{props.get('instrument')} note {props.get('note')}; " + ("powered" if frame.on[i] else "unpowered")
    elif name == "observer":
        facing = G.B.DIRECTIONS[int(lay.facing[i])]
        power = f"watches the block to the {facing}, output out of its back; " + (
            "pulsing" if frame.on[i] else "unpowered")
    elif name in ("piston", "sticky_piston"):
        props = split_state(state)[1]
        power = f"facing {props.get('facing')}, " + ("extended" if props.get("extended") == "true" else "retracted")
    elif name == "moving_piston" and i in lay.moving:
        m = lay.moving[i]
        what = m.block.removeprefix("minecraft:")
        if m.piston and not m.extending:
            power = f"carrying {what}, its head sliding back in from the {split_state(state)[1]['facing']}"
        else:
            power = (f"carrying {what} from {tuple(m.source)} to {tuple(pos)}, "
                     + ("pushed" if m.extending else "pulled") + f" {m.direction}")
        power += f"; progress {m.progress:g} of 1"
    elif name == "moving_piston":
        power = "a block in motion (it arrives 2 game ticks after it set off)"
    elif name in G.B.BUTTONS:
        power = "on" if frame.on[i] else "off"
        if G.B.BUTTON_OF[name] >= G.B.WOODEN_BUTTON:
            power += f" (wooden: a press lasts {G.B.WOOD_BUTTON_TICKS} game ticks)"
    elif name == "lever":
        power = "on" if frame.on[i] else "off"
    elif name in ("redstone_torch", "redstone_wall_torch"):
        power = "lit" if frame.on[i] else "off"
    elif name in ("iron_door", "iron_trapdoor"):
        power = "open (powered)" if frame.on[i] else "shut (unpowered)"
    elif int(lay.kind[i]) in G.B.PLATES:
        level = max(int(frame.power[i]), 15 if frame.on[i] else 0)
        power = f"pressed, output {level}" if level else "released"
    elif name in G.B.RAILS:
        shape = split_state(state)[1].get("shape", "north_south").replace("_", " ")
        if name == "rail":
            power = f"{shape} (a plain rail: no power of its own)"
        elif name == "detector_rail":
            power = f"{shape}, " + ("powered by a minecart" if frame.on[i] else
                                    "unpowered (it gives 15 only under a minecart)")
        else:
            power = f"{shape}, " + ("powered" if frame.on[i] else "unpowered")
    elif name in G.B.COPPER_BULBS:
        props = split_state(state)[1]
        light = G.B.BULB_LIGHT[G.B.VARIANT_OF[name] % 4]
        power = (f"lit (light {light}), comparator reads 15" if props.get("lit") == "true" else
                 "dark, comparator reads 0") + ("; powered" if props.get("powered") == "true" else "; unpowered")
        power += " (a rising edge of power toggles it)"
    elif name == "daylight_detector":
        power = f"output {int(frame.power[i])}" + (", inverted" if "inverted=true" in state else "")
    elif name == "hopper":
        props = split_state(G.B.canonical(state))[1]  # a state written without properties has vanilla's defaults
        where = "down" if props["facing"] == "down" else f"to the {props['facing']}"
        power = (f"moves an item {where} every 8 game ticks, pulls from above; "
                 + ("enabled" if props["enabled"] == "true" else "locked (powered)"))
    elif name in ("dropper", "dispenser"):
        props = split_state(G.B.canonical(state))[1]
        what = "puts an item in the container it faces" if name == "dropper" else "ejects an item"
        power = f"{what} 4 game ticks after power arrives; " + (
            "triggered" if props.get("triggered") == "true" else "waiting for power")
    elif int(lay.kind[i]) in G.B.CONTAINERS:
        power = "a container: a comparator reads its fill level"
    elif name == "tripwire_hook":  # docs/redstone.md sections 52 and 88
        props = split_state(G.B.canonical(state))[1]
        if props["powered"] == "true":
            power = ("powered: a string of its line has an entity on it (or broke, for 10 game ticks); 15 to every "
                     "side, strongly into the block behind")
        elif props["attached"] == "true":
            power = "attached to a hook facing it across 1-40 string; off: no entity on the string"
        else:
            power = ("unstrung: off, no line of 1-40 string to a hook facing it; dust turns toward it all the same; "
                     "needs a whole face behind")
    elif name == "tripwire":  # section 88
        props = split_state(G.B.canonical(state))[1]
        power = ("powered: an entity's box meets it (it looks again every 10 game ticks)" if props["powered"] == "true"
                 else "unpowered: no entity on it")
        power += "; attached: part of a line between two hooks" if props["attached"] == "true" else "; not attached"
        if props["disarmed"] == "true":
            power += "; disarmed (cut with shears): it never powers its line"
    elif name in G.B.SHULKER_BOXES:  # section 53
        power = "a container, kept empty: a comparator reads 0; conducts; a piston breaks it"
    elif name == "water":  # sections 67-69
        level = int(split_state(state)[1].get("level", "0"))
        power = ("a source: it spreads 1 block per 5 game ticks, down first" if level == 0 else
                 "falling water" if level >= 8 else f"flowing water, {8 - level} of 8 (it dries up without a feed)")
        power += "; it breaks dust, repeaters, torches, levers, buttons and plates it reaches"
    elif "waterlogged=true" in state:
        power = "waterlogged: a water source that stays, spreading from it"
    elif name in G.B.COMMAND_BLOCKS:  # sections 70-73: the world's frame has its command in `notes`
        power = frame.notes.get(tuple(pos)) or "a command block (its command is block-entity data: open the world)"
    elif name == "lightning_rod":  # section 55
        power = "a signal only when lightning strikes it (none here); dust turns toward it; a piston moves it"
    elif G.B.decorative_family(name) is not None:
        power = _decorative_words(name, state)
    elif name in ("slime_block", "honey_block"):
        power = "sticky: a piston moves the blocks touching it" + (", but not slime" if name == "honey_block"
                                                                   else ", but not honey")
    else:
        power = ""
    return f"{tuple(pos)} {state}" + (f" · {power}" if power else "")


_NEED_WORDS = ("a whole face", "the middle of a face", "a solid block", "any block")
_PUSH_WORDS = {"move": "a piston moves it", "break": "a piston breaks it", "block": "a piston cannot move it"}


def _decorative_words(name: str, state: str) -> str:
    """What a decorative block (blocks.DECORATIVE) is to redstone: inert, what it needs, what a piston does."""
    family = G.B.decorative_family(name)
    _, push, _ = G.B.DECORATIVE[family]
    need = G.B.support_need(name, split_state(G.B.canonical(state))[1])
    held = ""
    if need is not None:
        k, kind = need
        where = {4: "above", 5: "below"}.get(k, "behind")
        held = f"needs {_NEED_WORDS[kind]} {where}; "
    return f"decorative, never powered; {held}{_PUSH_WORDS[push]}"


def pick_from_point(point, normal, modifiers=()) -> Pick | None:
    """Turn a ray hit (a point on a face and that face's normal) into block positions."""
    n = np.rint(np.asarray(normal, float)).astype(int)
    if np.abs(n).sum() != 1 or not np.all(np.isfinite(point)):
        return None
    p = np.asarray(point, float)
    hit = np.floor(p - n * 1e-3).astype(int)
    mods = (list(modifiers or []) + [False] * 4)[:4]
    return Pick(tuple(hit.tolist()), tuple((hit + n).tolist()), tuple(n.tolist()), *(bool(m) for m in mods))


class _Attribute(P3.BufferAttribute):
    """A vertex array the kernel rewrites in place. Its `version` is a count the page keeps (three.js uploads the
    array when it grows past the count last uploaded); ipywidgets' echo of a count the page had sent could arrive
    after newer uploads and set it back, and the next few rewrites were then never uploaded (a lit lamp drawn
    without its glow). The count is therefore not echoed."""

    version = T.CInt(-1).tag(sync=True, echo_update=False)


class _Buffer:
    """One mesh whose vertex arrays keep their capacity between updates."""

    def __init__(self, material, lo, hi, name: str):
        self.material = material
        self.lo = np.asarray(lo, np.float32)
        self.hi = np.asarray(hi, np.float32)
        self.cap = 0
        self.n = 0
        self.mesh = P3.Mesh(geometry=self._geometry(3072), material=material, name=name)

    def _geometry(self, cap: int):
        self.cap = cap
        pos = np.empty((cap, 3), np.float32)
        pos[:] = self.lo
        pos[-2] = self.hi  # a flat triangle spanning the region keeps three.js's bounding sphere valid
        self.pos_attr = _Attribute(array=pos, normalized=False)
        self.col_attr = _Attribute(array=np.zeros((cap, 3), np.uint8), normalized=True)
        return P3.BufferGeometry(attributes={"position": self.pos_attr, "color": self.col_attr})

    def set_positions(self, positions: np.ndarray) -> None:
        n = len(positions)
        if n + 3 > self.cap:
            self.mesh.geometry = self._geometry(int((n + 3) * 1.5) // 3 * 3 + 3072)
        pos = np.empty((self.cap, 3), np.float32)
        pos[:n] = positions
        pos[n:] = self.lo
        pos[-2] = self.hi
        self.n = n
        self.pos_attr.array = pos

    def set_colors(self, colors: np.ndarray) -> None:
        col = np.zeros((self.cap, 3), np.uint8)
        col[: len(colors)] = colors
        self.col_attr.array = col


def _lines(points: np.ndarray, color: str, name: str, opacity: float = 1.0):
    pts = np.asarray(points, np.float32).reshape(-1, 3)
    if len(pts) == 0:
        pts = np.zeros((2, 3), np.float32)
    geom = P3.BufferGeometry(attributes={"position": P3.BufferAttribute(array=pts, normalized=False)})
    mat = P3.LineBasicMaterial(color=color, transparent=opacity < 1, opacity=opacity)
    return P3.LineSegments(geometry=geom, material=mat, name=name)


def _label(text: str, pos, offset, color: str, size: float, on_top: bool = False):
    """A text that always faces the camera, `size` blocks tall, at pos (world coordinates). `on_top`: drawn over
    everything, never hidden behind a block."""
    tex = P3.TextTexture(string=text, color=color, size=64, squareTexture=True)
    mat = P3.SpriteMaterial(map=tex, transparent=True, depthWrite=False, depthTest=not on_top)
    sprite = P3.Sprite(material=mat, position=tuple((np.asarray(pos, float) - offset).tolist()),
                       scale=(size, size, 1.0), name=f"label {text}")
    if on_top:
        sprite.renderOrder = 10  # after the see-through meshes (1 to 3), which would otherwise tint it
    return sprite


def look_quaternion(eye, target, up=(0.0, 1.0, 0.0)) -> tuple[float, float, float, float]:
    """Quaternion (x, y, z, w) turning a camera at `eye` to look at `target` (three.js convention:
    the camera looks along its -z axis)."""
    z = np.asarray(eye, float) - np.asarray(target, float)
    z /= np.linalg.norm(z)
    x = np.cross(up, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.stack([x, y, z], 1)
    w = np.sqrt(max(0.0, 1 + m[0, 0] + m[1, 1] + m[2, 2])) / 2
    if w > 1e-6:
        q = ((m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w), (m[1, 0] - m[0, 1]) / (4 * w), w)
    else:  # a half turn: pick the largest diagonal
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        r = np.sqrt(max(0.0, 1 + m[i, i] - m[j, j] - m[k, k]))
        q_ = [0.0, 0.0, 0.0]
        q_[i] = r / 2
        q_[j] = (m[j, i] + m[i, j]) / (2 * r)
        q_[k] = (m[k, i] + m[i, k]) / (2 * r)
        q = (*q_, (m[k, j] - m[j, k]) / (2 * r))
    return tuple(float(v) for v in q)  # type: ignore[return-value]


# the 12 triangles of a unit cube, wound as the canvas's blocks are
_BOX_TRIANGLES = G._PICK.reshape(-1, 3).astype(np.float32)


# Entities are boxes in one mesh of fixed capacity (`Canvas.show_entities`), one record each (views/entities.py,
# whose boxes and colours the page's scrubber, the headless pictures and the GIFs draw too).


def _in_or_on(at, pos) -> bool:
    """Does an entity at `at` stand in the block at pos or on top of it (in the block above)?"""
    cell = tuple(int(np.floor(v)) for v in at)
    return cell in (tuple(pos), (pos[0], pos[1] + 1, pos[2]))


def box_outline(lo, hi) -> np.ndarray:
    """Line-segment points of the 12 edges of the box lo..hi."""
    lo = np.asarray(lo, np.float32)
    hi = np.asarray(hi, np.float32)
    return G._box_edges(np.concatenate([lo, hi])[None, :])


class Canvas(W.VBox):
    """A 3D view of a world region. Feed it with `show(frame)`, `show_world(world)` or
    `show_blocks({pos: state})`; `highlight(positions, color)` outlines blocks; `on_pick(fn)` is
    called with a Pick on every double-click."""

    def __init__(self, frame: Frame | None = None, region: tuple[Pos, Pos] | None = None, width: int = 620,
                 height: int = 430, background: str = "#1d2128"):
        self.region = region or ((-6, 0, -6), (6, 8, 6))
        lo = np.asarray(self.region[0], np.float32)
        hi = np.asarray(self.region[1], np.float32) + 1
        self._lo, self._hi = lo, hi
        self._offset = np.zeros(3)
        self._frame: Frame | None = None
        self._geom: G.Geometry | None = None
        self._pick_handlers: list[Callable[[Pick], None]] = []
        self._hover_handlers: list[Callable[[Pick | None], None]] = []
        self._highlights: dict[str, P3.LineSegments] = {}

        vc = "VertexColors"
        self._buffers = {
            "solid": _Buffer(P3.MeshBasicMaterial(vertexColors=vc), lo, hi, "solid"),
            "glass": _Buffer(P3.MeshBasicMaterial(vertexColors=vc, transparent=True, opacity=0.32, depthWrite=False),
                             lo, hi, "glass"),
            "glow": _Buffer(P3.MeshBasicMaterial(vertexColors=vc, transparent=True, opacity=0.75, depthWrite=False,
                                                 blending="AdditiveBlending"), lo, hi, "glow"),
            "lamp": _Buffer(P3.MeshBasicMaterial(vertexColors=vc, transparent=True, opacity=1.0), lo, hi, "lamp"),
        }
        # the see-through meshes in a fixed order, not three.js's tie-break between objects at one origin (which
        # follows the order the page happened to create them): lamps, then glass over what is behind it, then
        # the additive glow on top, so a lit lamp glows the same however the page was loaded
        for order, name in enumerate(("lamp", "glass", "glow"), start=1):
            self._buffers[name].mesh.renderOrder = order
        self._glass_edges = _lines(np.zeros((2, 3)), "#d8f0ff", "glass-edges", 0.55)
        # a faint plane level with the lowest blocks catches clicks where there is no block yet
        self._plane = P3.Mesh(self._quad(float(lo[1])), P3.MeshBasicMaterial(
            color="#3a4250", transparent=True, opacity=0.35, side="DoubleSide", depthWrite=False), name="base")
        plane = self._plane
        self._pickable = P3.Group(children=[self._buffers["solid"].mesh, self._buffers["lamp"].mesh,
                                            self._buffers["glass"].mesh, plane])
        self._outline = outline = _lines(box_outline(lo, hi), "#7f8c9e", "region", 0.3)
        axes = P3.AxesHelper(size=1.5, position=[float(lo[0]), float(lo[1]), float(lo[2])])
        # The page's orbit controls always orbit the origin (pythreejs does not pass them another
        # target), so every vertex is drawn shifted by -offset to put the build's centre there.
        self._offset = np.zeros(3)
        self._axes = axes
        # the compass (N E S W beyond the region's sides) and, when asked for, a grid of the blocks with x
        # and z written along two sides; both are placed with the first frame
        self._compass = P3.Group(name="compass")
        self._grid = P3.Group(name="grid", visible=False)
        # the ghost: a translucent box where a double-click would place a block (outside the pickable group,
        # so the mouse never hits it)
        self._ghost = P3.Mesh(P3.BoxGeometry(width=0.98, height=0.98, depth=0.98), P3.MeshBasicMaterial(
            color="#ffffff", transparent=True, opacity=0.35, depthWrite=False), name="ghost", visible=False)
        self._ghost_pos: Pos | None = None
        # the footprint of a paste: translucent boxes (one mesh) and their outlines, as the single ghost shows
        self._footprint = P3.Mesh(P3.BufferGeometry(attributes={"position": P3.BufferAttribute(
            array=np.zeros((3, 3), np.float32), normalized=False)}), P3.MeshBasicMaterial(
            color="#ffffff", transparent=True, opacity=0.35, depthWrite=False), name="footprint", visible=False)
        self._footprint_edges = _lines(np.zeros((2, 3), np.float32), "#ffffff", "footprint-edges")
        self._footprint_edges.visible = False
        self._footprint_cells: list[Pos] = []
        # the minecarts and item entities of the tick shown (outside the pickable group: a hover or a double-click
        # reaches the block behind them); never culled, since its boxes move where the first ones were not
        self._carts: tuple = ()
        self._items: tuple = ()
        self._ent_records = np.zeros((0, 12))
        self._entities = P3.Mesh(geometry=self._entity_geometry(8), material=P3.MeshBasicMaterial(
            vertexColors=vc), name="entities", frustumCulled=False)
        self._world = P3.Group(children=[self._pickable, self._buffers["glow"].mesh, self._glass_edges, outline,
                                         axes, self._compass, self._grid, self._ghost, self._footprint,
                                         self._footprint_edges, self._entities])
        self.scene = P3.Scene(children=[self._world], background=background)
        self.center = ((lo + hi) / 2).tolist()
        self.camera = P3.PerspectiveCamera(fov=35, aspect=width / height, near=0.1, far=2000,
                                           position=[0.0, 0.0, 1.0])
        self.controls = P3.OrbitControls(controlling=self.camera, target=(0.0, 0.0, 0.0))
        self.picker = P3.Picker(controlling=self._pickable, event="dblclick")
        self.picker.observe(self._on_pick, "point")
        # a second picker follows the mouse: the block under it is described in `hover_info`
        self.hover_picker = P3.Picker(controlling=self._pickable, event="mousemove")
        self.hover_picker.observe(self._on_hover, "point")
        # no multisampling: in software WebGL (a machine without a GPU, headless Chromium) it multiplies the cost
        # of every draw about five times (measured: 60 ms against 12 ms a frame for this scene at 620 x 430),
        # and Play redraws the view up to 20 times a second
        self.renderer = P3.Renderer(camera=self.camera, scene=self.scene,
                                    controls=[self.controls, self.picker, self.hover_picker],
                                    width=width, height=height, antialias=False)
        self.renderer.layout = W.Layout(width=f"{width}px", height=f"{height}px")

        self.view_buttons = W.ToggleButtons(options=[p.capitalize() for p in PRESETS], value="Isometric",
                                            tooltips=["diagonal view from above the south-east",
                                                      "from above, north up", "from the south"],
                                            style=W.ToggleButtonsStyle(button_width="92px"))
        self.view_buttons.observe(lambda ch: self.view(ch["new"].lower()), "value")
        self.layer = W.IntSlider(value=int(self.region[1][1]), min=int(self.region[0][1]),
                                 max=int(self.region[1][1]), description="show y ≤",
                                 continuous_update=False, style={"description_width": "initial"},
                                 tooltip="hide every block above this layer to look inside the build",
                                 layout=W.Layout(width="220px"))
        self.layer.observe(lambda ch: (self._rebuild(), self._redraw_entities()), "value")
        self.xray = W.ToggleButton(value=False, description="see-through lamps", icon="eye",
                                   tooltip="draw lamps translucent to see the dust and repeaters behind them",
                                   layout=W.Layout(width="170px"))
        self.xray.observe(lambda ch: self._set_xray(ch["new"]), "value")
        self.numbers = W.ToggleButton(value=False, description="power numbers", icon="hashtag",
                                      tooltip="write each dust's power (0-15) on its top",
                                      layout=W.Layout(width="150px"))
        self.numbers.observe(lambda ch: self._rebuild(), "value")
        self.grid = W.ToggleButton(value=False, description="grid", icon="th",
                                   tooltip="a line between blocks on the floor, with x and z along two sides",
                                   layout=W.Layout(width="90px"))
        self.grid.observe(lambda ch: setattr(self._grid, "visible", bool(ch["new"])), "value")
        self.hover_info = W.HTML("<span class='scv-hover' style='font-size:13px;color:#555'>hover a block to read "
                                 "its position, state and power</span>")
        # the help wraps within the canvas's width: a long line must not push the palette aside
        self.help = W.HTML(f"<span style='font-size:11px;color:#555'>{HELP}</span>",
                           layout=W.Layout(max_width=f"{width}px"))
        self.hover_info.layout = W.Layout(max_width=f"{width}px")
        # the toolbar wraps within the canvas's width: more buttons must not push the palette aside
        toolbar = W.HBox([self.view_buttons, self.layer, self.xray, self.numbers, self.grid],
                         layout=W.Layout(flex_flow="row wrap", max_width=f"{width}px"))
        super().__init__([toolbar, self.renderer, self.hover_info, self.help])
        self.add_class("scv-canvas")
        self.view("isometric")
        if frame is not None:
            self.show(frame)

    # ------------------------------------------------------------------ content
    @property
    def frame(self) -> Frame | None:
        return self._frame

    def _place_origin(self) -> None:
        """Fix the offset on the first frame and draw the static helpers around it."""
        lay = self._frame.layout
        self._offset = np.asarray(self._focus(), float)
        o = self._offset.astype(np.float32)
        for buf in self._buffers.values():
            buf.lo, buf.hi = self._lo - o, self._hi - o
        # the clickable floor sits level with the bottom of the lowest blocks
        y = float(max(lay.pos[:, 1].min(), self._lo[1])) if len(lay) else float(self._lo[1])
        self._plane.geometry = self._quad(y - 0.002)
        self._outline.geometry = P3.BufferGeometry(attributes={"position": P3.BufferAttribute(
            array=box_outline((self._lo[0], y, self._lo[2]), self._hi) - o, normalized=False)})
        self._axes.position = tuple((np.array([self._lo[0], y, self._lo[2]]) - self._offset).tolist())
        # a stone floor filling the lowest layer carries the grid on its top, where it can be seen
        low = lay.pos[:, 1] == lay.pos[:, 1].min() if len(lay) else np.zeros(0, bool)
        floor = bool(len(lay)) and int((low & (lay.kind == G.B.STONE)).sum()) >= 4
        self._place_guides(y + 1 if floor else y)

    def _place_guides(self, y: float) -> None:
        """The compass letters and the grid (lines and coordinates) on the floor at height y."""
        (x0, _, z0), (x1, _, z1) = self._lo, self._hi
        # the camera frames the build, not the region: the compass and the grid's coordinates go along the
        # build's sides (letters beyond the region's sides fell outside the picture)
        pos = self._circuit() if self._frame is not None and len(self._frame.layout) else None
        bx0, bz0 = (pos[:, 0].min(), pos[:, 2].min()) if pos is not None else (x0, z0)
        bx1, bz1 = (pos[:, 0].max() + 1, pos[:, 2].max() + 1) if pos is not None else (x1, z1)
        cx, cz = (bx0 + bx1) / 2, (bz0 + bz1) / 2
        # letters scale with the build the camera frames: beside a few blocks, 1.6-block letters covered them
        size = float(np.clip(max(bx1 - bx0, bz1 - bz0) / 8, 0.8, 1.6))
        gap = 0.4 + size / 2
        # drawn over the blocks: beside a build of a few blocks, the letters on the far sides (N and W from the
        # isometric view) stood behind its blocks and were hidden
        self._compass.children = [_label(t, (px, y + 0.5, pz), self._offset, "#ffd54a", size, on_top=True)
                                  for t, px, pz in (
            ("N", cx, bz0 - gap), ("S", cx, bz1 + gap), ("E", bx1 + gap, cz), ("W", bx0 - gap, cz))]
        xs, zs = np.arange(x0, x1 + 1), np.arange(z0, z1 + 1)
        pts = [[(x, y + 0.01, z0), (x, y + 0.01, z1)] for x in xs] + [[(x0, y + 0.01, z), (x1, y + 0.01, z)]
                                                                       for z in zs]
        lines = _lines(np.asarray(pts, np.float32) - self._offset.astype(np.float32), "#eef3f8", "grid-lines", 0.5)
        step = 1 if max(bx1 - bx0, bz1 - bz0) <= 14 else 2
        ly = float(pos[:, 1].max()) + 0.5 if pos is not None else y + 0.3  # level with the build's top layer
        labels = [_label(f"x{int(x)}", (x + 0.5, ly, bz0 - 0.7), self._offset, "#e8edf3", 0.8)
                  for x in range(int(bx0), int(bx1), step)]
        labels += [_label(f"z{int(z)}", (bx0 - 0.8, ly, z + 0.5), self._offset, "#e8edf3", 0.8)
                   for z in range(int(bz0), int(bz1), step)]
        self._grid.children = [lines, *labels]

    def guides(self) -> dict[str, list[tuple[str, tuple[float, float, float]]]]:
        """What the compass and the grid's labels say and where (world coordinates of each label): x along
        the build's north side, z along its west side."""
        def read(group):
            return [(c.material.map.string, tuple(float(v) for v in np.add(c.position, self._offset)))
                    for c in group.children if isinstance(c, P3.Sprite)]
        return {"compass": read(self._compass), "grid": read(self._grid)}

    def _quad(self, y: float):
        (x0, _, z0), (x1, _, z1) = self._lo - self._offset.astype(np.float32), self._hi - self._offset.astype(
            np.float32)
        y = y - float(self._offset[1])
        pts = np.array([[x0, y, z0], [x0, y, z1], [x1, y, z1], [x0, y, z0], [x1, y, z1], [x1, y, z0]], np.float32)
        return P3.BufferGeometry(attributes={"position": P3.BufferAttribute(array=pts, normalized=False)})

    def show(self, frame: Frame) -> None:
        """Draw a frame. Same layout as before: only colours change."""
        same = self._frame is not None and frame.layout is self._frame.layout
        first = self._frame is None
        self._frame = frame
        if first:
            self._place_origin()
        if not same:
            self._rebuild()
        else:
            self._recolor()
        self.show_entities(frame.carts, frame.items)

    def show_world(self, world) -> None:
        """Draw any world as it is now (reads its blocks, minecarts and item entities; never steps it)."""
        self.show(frame_from_world(world))

    def _entity_geometry(self, cap: int):
        self._ent_cap = cap
        pos, col = entity_vertices(np.zeros((0, 12)), cap)
        self.ent_pos_attr = _Attribute(array=pos, normalized=False)
        self.ent_col_attr = _Attribute(array=col, normalized=True)
        return P3.BufferGeometry(attributes={"position": self.ent_pos_attr, "color": self.ent_col_attr})

    def reserve_entities(self, n: int) -> None:
        """Make room for n entities at once (new vertex arrays, drawn again, only when there was not)."""
        if n > self._ent_cap:
            self._entities.geometry = self._entity_geometry(max(8, int(n * 1.5)))
            records, self._ent_records = self._ent_records, np.zeros((0, 12))
            self._draw_entities(records)

    def show_entities(self, carts=(), items=()) -> None:
        """Draw these minecarts (engine/carts.py CartInfo) and item entities (engine/world.py ItemInfo), and
        only these: one mesh whose vertex arrays are rewritten when a box moved, appeared or went. Hovering the
        block an entity is in or on names it (`hover`)."""
        self._carts, self._items = tuple(carts), tuple(items)
        self._redraw_entities()

    def _redraw_entities(self) -> None:
        records = entity_records(self._carts, self._items, self._offset, self.layer.value)
        self.reserve_entities(len(records))
        self._draw_entities(records)

    def _draw_entities(self, records: np.ndarray) -> None:
        if records.shape == self._ent_records.shape and np.array_equal(records, self._ent_records):
            return
        self._ent_records = records
        pos, col = entity_vertices(records, self._ent_cap)
        self.ent_pos_attr.array = pos
        self.ent_col_attr.array = col

    @property
    def entities(self) -> tuple[tuple, tuple]:
        """The minecarts and item entities drawn (as `show_entities` was given them)."""
        return self._carts, self._items

    def entity_boxes(self) -> list[tuple[tuple[float, ...], tuple[float, ...]]]:
        """The boxes the entity mesh holds, as the page draws them: (low corner, high corner) in world
        coordinates, one per entity drawn (minecarts first)."""
        pos = np.asarray(self.ent_pos_attr.array, np.float64).reshape(-1, ENTITY_VERTICES, 3)[: len(self._ent_records)]
        return [(tuple((b.min(0) + self._offset).tolist()), tuple((b.max(0) + self._offset).tolist())) for b in pos]

    def carts_at(self, pos: Pos) -> list[str]:
        """What hovering the block at pos says of the minecarts drawn there (standing in it or on it)."""
        out = []
        for c in self._carts:
            if _in_or_on(c.pos, pos):
                where = ", ".join(f"{v:.3f}" for v in c.pos)
                speed = float(np.hypot(c.velocity[0], c.velocity[2]))
                held = sum(s[1] for s in c.slots if s)
                out.append(f"{c.kind} #{c.id} at ({where}), {speed:.3f} blocks/tick"
                           + (" on rails" if c.on_rails else " off rails")
                           + (f", holding {held} items" if c.kind in ("chest_minecart", "hopper_minecart") else "")
                           + (f", {c.fuel} ticks of fuel" if c.kind == "furnace_minecart" else ""))
        return out

    def items_at(self, pos: Pos) -> list[str]:
        """What hovering the block at pos says of the item entities drawn there (lying in it or on it)."""
        out = []
        for e in self._items:
            if _in_or_on(e.pos, pos):
                where = ", ".join(f"{v:.3f}" for v in e.pos)
                speed = float(np.linalg.norm(e.velocity))
                if not hasattr(e, "item"):  # a fireball (engine/fireballs.py FireballInfo)
                    out.append(f"{e.kind} #{e.id} at ({where}), "
                               + (f"{speed:.3f} blocks/tick" if speed else "at rest"))
                    continue
                out.append(f"item #{e.id}: {e.count} {e.item.removeprefix('minecraft:')} at ({where}), "
                           + (f"{speed:.3f} blocks/tick" if speed else "at rest"))
        return out

    def show_blocks(self, blocks: dict[Pos, str], tick: int | None = None) -> None:
        self.show(frame_from_blocks(blocks, tick))

    def visible_mask(self) -> np.ndarray:
        lay = self._frame.layout
        return lay.pos[:, 1] <= self.layer.value

    def _rebuild(self) -> None:
        if self._frame is None:
            return
        self._geom = G.build(self._frame.layout, self.visible_mask(), numbers=self.numbers.value)
        o = self._offset.astype(np.float32)
        for name, buf in self._buffers.items():
            buf.set_positions(self._geom.meshes[name].positions - o)
        edges = self._geom.glass_edges - o
        self._glass_edges.geometry = P3.BufferGeometry(attributes={"position": P3.BufferAttribute(
            array=edges if len(edges) else np.zeros((2, 3), np.float32), normalized=False)})
        self._recolor()

    def _recolor(self) -> None:
        cols = G.vertex_colors(self._geom, self._frame)
        for name, buf in self._buffers.items():
            buf.set_colors(cols[name])

    def vertex_count(self) -> dict[str, int]:
        return {k: b.n for k, b in self._buffers.items()}

    # ------------------------------------------------------------------ highlights
    def highlight(self, positions, color: str = "#00e5ff", name: str = "highlight") -> None:
        """Outline the given block positions (replacing the previous outline of that name)."""
        o = self._offset.astype(np.float32)
        pts = [box_outline(np.asarray(p, np.float32) - 0.04 - o, np.asarray(p, np.float32) + 1.04 - o)
               for p in positions]
        arr = np.concatenate(pts) if pts else np.zeros((2, 3), np.float32)
        old = self._highlights.get(name)
        if old is not None:
            old.geometry = P3.BufferGeometry(attributes={"position": P3.BufferAttribute(array=arr, normalized=False)})
            old.material.color = color
            old.visible = bool(pts)
            return
        lines = _lines(arr, color, name)
        lines.visible = bool(pts)
        self._highlights[name] = lines
        self._world.children = [*self._world.children, lines]

    def highlighted(self, name: str = "highlight") -> list[Pos]:
        obj = self._highlights.get(name)
        if obj is None or not obj.visible:
            return []
        pts = np.asarray(obj.geometry.attributes["position"].array).reshape(-1, 24, 3)
        return [tuple(int(v) for v in np.rint(b.min(0) + 0.04 + self._offset)) for b in pts]

    def clear_highlight(self, name: str | None = None) -> None:
        for key, obj in self._highlights.items():
            if name is None or key == name:
                obj.visible = False

    def ghost(self, pos: Pos | None, color: str = "#ffffff") -> None:
        """Show a translucent box at `pos` (None hides it): where a double-click would place a block."""
        self._ghost_pos = None if pos is None else tuple(int(v) for v in pos)
        if pos is None:
            self._ghost.visible = False
            return
        self._ghost.position = tuple((np.asarray(pos, float) + 0.5 - self._offset).tolist())
        self._ghost.material.color = color
        self._ghost.visible = True

    def ghost_blocks(self, positions, color: str = "#ffffff") -> None:
        """Show translucent boxes, outlined, at all these positions (none: hidden): where a paste would put its
        blocks. One mesh for all of them, however many."""
        cells = sorted({tuple(int(v) for v in p) for p in positions})
        self._footprint_cells = cells
        if not cells:
            self._footprint.visible = self._footprint_edges.visible = False
            return
        lo = np.asarray(cells, np.float32) + 0.01 - self._offset.astype(np.float32)
        tris = (lo[:, None, :] + _BOX_TRIANGLES[None] * 0.98).reshape(-1, 3)
        edges = np.concatenate([box_outline(p, p + 0.98) for p in lo])
        self._footprint.geometry = P3.BufferGeometry(attributes={"position": P3.BufferAttribute(
            array=tris.astype(np.float32), normalized=False)})
        self._footprint_edges.geometry = P3.BufferGeometry(attributes={"position": P3.BufferAttribute(
            array=edges.astype(np.float32), normalized=False)})
        self._footprint.material.color = self._footprint_edges.material.color = color
        self._footprint.visible = self._footprint_edges.visible = True

    @property
    def ghost_cells(self) -> list[Pos]:
        """Where the footprint boxes are shown (sorted; empty: hidden)."""
        return list(self._footprint_cells) if self._footprint.visible else []

    @property
    def ghost_at(self) -> Pos | None:
        """Where the ghost box is shown (None: hidden)."""
        return self._ghost_pos if self._ghost.visible else None

    # ------------------------------------------------------------------ camera
    def look_direction(self) -> str:
        """The horizontal direction the camera looks (north, east, south or west), as a player's facing
        is read in the game: the larger of the look vector's x and z parts (north is -z, east is +x).
        Straight down (the top view) counts as north, the top of the picture."""
        d = np.asarray(self.controls.target, float) - np.asarray(self.camera.position, float)
        dx, dz = float(d[0]), float(d[2])
        if abs(dx) > abs(dz):
            return "east" if dx > 0 else "west"
        return "south" if dz > 0 else "north"

    def view(self, preset: str) -> None:
        """Camera preset: 'isometric', 'top' (north up) or 'front' (from the south)."""
        if preset not in PRESETS:
            raise ValueError(f"unknown view {preset!r}; choose one of {', '.join(PRESETS)}")
        span = float(max(self._span() + 2, 6.0))
        dist = span * 1.6
        # isometric looks down steeply enough (about 45 degrees) that a lamp hides little of what is behind it
        offset = {"isometric": (0.75, 1.3, 1.0), "top": (0.0, 1.0, 0.0001), "front": (0.0, 0.28, 1.0)}[preset]
        d = np.array(offset) / np.linalg.norm(offset) * dist
        self.camera.position = tuple(d.tolist())
        # the orientation as synced state: a lookAt() call made before the page shows the canvas is lost
        self.camera.quaternion = look_quaternion(d, (0.0, 0.0, 0.0))
        if self.view_buttons.value.lower() != preset:
            self.view_buttons.value = preset.capitalize()

    def _circuit(self) -> np.ndarray:
        """Positions worth framing: every block but a floor (stone filling the lowest layer)."""
        lay = self._frame.layout
        pos = lay.pos
        floor = (pos[:, 1] == pos[:, 1].min()) & (lay.kind == G.B.STONE)
        return pos[~floor] if (~floor).sum() >= 2 else pos

    def _focus(self):
        if self._frame is not None and len(self._frame.layout):
            pos = self._circuit()
            top = pos[:, 1].max()
            # frame the build, not the empty air of the region above it
            lo = np.maximum(pos.min(0), self._lo)
            hi = np.minimum(pos.max(0) + 1, self._hi)
            return [(lo[0] + hi[0]) / 2, (lo[1] + min(hi[1], top + 1)) / 2 + 0.5, (lo[2] + hi[2]) / 2]
        return self.center

    def _span(self) -> float:
        if self._frame is not None and len(self._frame.layout):
            pos = self._circuit()
            ext = np.minimum(pos.max(0) + 1, self._hi) - np.maximum(pos.min(0), self._lo)
            return float(max(ext[0], ext[2], ext[1] * 1.2))
        return float((self._hi - self._lo).max())

    # ------------------------------------------------------------------ picking
    def on_pick(self, handler: Callable[[Pick], None]) -> None:
        self._pick_handlers.append(handler)

    def _on_pick(self, change) -> None:
        point = tuple(change["new"])
        if point == _NO_POINT:
            return
        obj = self.picker.object
        if obj is None or self.picker.distance is None:
            pick = None
        else:
            pick = pick_from_point(np.asarray(point) + self._offset, self.picker.faceNormal, self.picker.modifiers)
        self.picker.point = _NO_POINT
        self.click(pick)

    def on_hover(self, handler: Callable[[Pick | None], None]) -> None:
        """Call handler(pick) whenever the face under the mouse changes (None: the mouse is over nothing)."""
        self._hover_handlers.append(handler)

    def _on_hover(self, change) -> None:
        obj = self.hover_picker.object
        point = tuple(change["new"])
        if obj is None or self.hover_picker.distance is None or point == _NO_POINT:
            pick = None
        else:
            pick = pick_from_point(np.asarray(point) + self._offset, self.hover_picker.faceNormal)
        self.hover(pick)
        for fn in self._hover_handlers:
            fn(pick)

    def hover(self, pick: Pick | None) -> str:
        """Describe the block under the mouse (`pick.hit`) in `hover_info`; returns the text."""
        if pick is None or self._frame is None:
            text = "hover a block to read its position, state and power"
        else:
            text = describe_block(self._frame, pick.hit)
            found = self.carts_at(pick.hit) + self.items_at(pick.hit)
            if found:
                text += "; " + "; ".join(found)
        # dark text on the notebook's white page (a light grey there could not be read)
        self.hover_info.value = (f"<span class='scv-hover' style='font-size:13px;color:#1d2128'>"
                                 f"{html.escape(text)}</span>")
        return text

    def _set_xray(self, on: bool) -> None:
        mat = self._buffers["lamp"].material
        mat.opacity = 0.3 if on else 1.0
        mat.depthWrite = not on

    def click(self, pick: Pick | None) -> None:
        """Handle a pick as if it came from a double-click (None: the click hit nothing)."""
        for fn in self._pick_handlers:
            fn(pick)

    def click_face(self, block: Pos, normal: Pos, shift: bool = False, ctrl: bool = False) -> None:
        """Double-click the face of `block` whose outward normal is `normal` (for scripts and tests)."""
        b = np.asarray(block, float)
        n = np.asarray(normal, float)
        point = b + 0.5 + n * 0.5
        self.click(pick_from_point(point, n, [shift, ctrl, False, False]))
