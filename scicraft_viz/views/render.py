"""Headless pictures of a build: the explorer's blocks (same boxes, same colours, from
`views.geometry`) drawn with NumPy and Pillow, no browser, no GPU, no widget library, so the agents'
environment and the MCP server can show an agent what it built.

    >>> from scicraft_viz.views.render import render
    >>> r = render({(0, 4, 0): "redstone_lamp[lit=true]", (0, 3, 0): "stone"}, camera="iso", size=(320, 240))
    >>> r.image.size, len(r.sha256)
    ((320, 240), 64)

Faces are sorted back to front and painted with Pillow's polygon fill (the painter's algorithm: the
boxes are axis-aligned and small, so sorting by face centre is enough). Each face gets a darker
outline, which makes every block and the floor's grid countable. Lit parts keep their full colour,
unlit ones are dark, as on the canvas. Coordinates are printed on the ground along the edges of
the build region (or of the blocks), and a compass gives north, east, south and west.

Text uses Pillow's built-in bitmap font, not FreeType, so the pixels depend only on this module,
NumPy and Pillow's rasteriser: `sha256` (of the RGB pixels, not of the PNG file, whose bytes depend
on the zlib build) is the same for the same inputs on the same versions of those."""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass
from functools import lru_cache
from numbers import Real

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.blocks import split_state
from scicraft_viz.errors import InputError
from scicraft_viz.views import geometry as G
from scicraft_viz.views.entities import entity_faces, entity_records
from scicraft_viz.views.frame import frame_from_blocks, world_entities

Pos = tuple[int, int, int]
# camera presets: where the camera stands, seen from the build (it looks the opposite way)
PRESETS = {
    "iso": (1.0, 1.15, 1.0),  # from the south-east, above: east (+x) and south (+z) faces show
    "iso-nw": (-1.0, 1.15, -1.0),  # from the north-west, above: the other two sides
    "top": (0.0, 1.0, 0.0),  # straight down, north at the top of the picture
    "north": (0.0, 0.75, -1.0),  # from the north, looking south, 37 degrees above the horizon
    "south": (0.0, 0.75, 1.0),
    "east": (1.0, 0.75, 0.0),
    "west": (-1.0, 0.75, 0.0),
}
MIN_SIZE, MAX_SIZE = 64, 1024
DEFAULT_SIZE = (640, 480)
MAX_COORD = 10_000  # an explicit camera position must lie within this of the origin
FOV_DEG = 60.0  # horizontal field of view of an explicit (perspective) camera
BACKGROUND = (26, 28, 34)
GROUND = (58, 62, 70)
TEXT = (235, 235, 235)
UNKNOWN = (0.62, 0.36, 0.72)  # a block the geometry does not know: a plain violet cube
_MARGIN = 18
_CAPTION_H = 22
_NEAR = 0.05


class RenderError(InputError):
    """A view that cannot be drawn (unknown preset, bad size, bad camera); the message says which."""


@dataclass
class Rendering:
    """A picture of a build: the image, the SHA-256 of its RGB pixels, and a caption in words."""

    image: Image.Image
    sha256: str
    caption: str
    camera: str

    @property
    def png(self) -> bytes:
        buf = io.BytesIO()
        self.image.save(buf, format="PNG", optimize=False)
        return buf.getvalue()


def pixel_hash(image: Image.Image) -> str:
    """SHA-256 of an image's size and RGB pixels (independent of how the PNG was compressed)."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    h = hashlib.sha256(f"RGB {rgb.width} {rgb.height}\n".encode())
    h.update(rgb.tobytes())
    return h.hexdigest()


# ---------------------------------------------------------------------------------- argument checks
def check_size(size) -> tuple[int, int]:
    """(width, height) in pixels, each MIN_SIZE..MAX_SIZE."""
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise RenderError(f"size must be [width, height] in pixels, got {str(size)[:60]}")
    out = []
    for name, v in zip(("width", "height"), size):
        if not isinstance(v, int) or isinstance(v, bool) or not MIN_SIZE <= v <= MAX_SIZE:
            raise RenderError(f"{name} must be an integer {MIN_SIZE}..{MAX_SIZE} pixels, got {str(v)[:40]}")
        out.append(v)
    return out[0], out[1]


def _vector(v, name: str, limit: float) -> np.ndarray:
    if not isinstance(v, (list, tuple)) or len(v) != 3 or not all(
            isinstance(x, Real) and not isinstance(x, bool) and math.isfinite(x) and abs(x) <= limit for x in v):
        raise RenderError(f"{name} must be three finite numbers [x, y, z] within {limit:g} of 0, "
                          f"got {str(v)[:60]}")
    return np.array(v, np.float64)


def _basis(forward: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Right, up and forward unit vectors for a camera looking along `forward` (world up is +y)."""
    f = forward / np.linalg.norm(forward)
    r = np.cross(f, (0.0, 1.0, 0.0))
    if np.linalg.norm(r) < 1e-6:  # straight down (or up): north at the top of the picture
        r = np.array([1.0, 0.0, 0.0])
    r /= np.linalg.norm(r)
    return r, np.cross(r, f), f


# ---------------------------------------------------------------------------------- scene
def _faces(blocks: dict[Pos, str], moving: dict | None = None):
    """Quads (F, 4, 3), their RGB (F, 3) uint8, and which are outline only (glass); `moving` as for
    `frame_from_blocks` (blocks in motion drawn on their way)."""
    known, unknown = {}, []
    for p, s in blocks.items():
        name, _ = split_state(s) if isinstance(s, str) else ("?", {})
        if B.is_known(name):  # the redstone palette (either repeater name) and vanilla's plain blocks
            known[p] = s
        else:
            unknown.append(p)
    quads, colours, hollow = [], [], []
    if known:
        try:
            frame = frame_from_blocks(known, moving=moving)
        except (KeyError, ValueError):  # a known block with a property value the views do not know
            frame = frame_from_blocks({p: split_state(s)[0] for p, s in known.items()})
        geom = G.build(frame.layout)
        cols = G.vertex_colors(geom, frame)
        for name in ("solid", "lamp", "glass"):  # the additive glow shells are left out: lit colours suffice
            mesh = geom.meshes[name]
            if not mesh.n_vertices:
                continue
            q = mesh.positions.reshape(-1, 6, 3)[:, [0, 1, 2, 5]]
            quads.append(q)
            colours.append(cols[name].reshape(-1, 6, 3)[:, 0])
            hollow.append(np.full(len(q), name == "glass"))
    if unknown:
        lo = np.array(sorted(unknown), np.float32)
        boxes = np.concatenate([lo, lo + 1], 1)
        pick = G._PICK[:, [0, 1, 2, 5]]  # (6 faces, 4 corners, 3 axes)
        lohi = boxes.reshape(-1, 2, 3)
        q = lohi[:, pick, np.arange(3)].reshape(-1, 4, 3)
        quads.append(q)
        base = np.array(UNKNOWN, np.float32)
        c = np.clip(np.tile(base[None, :] * G.FACE_SHADE[:, None], (len(unknown), 1)) * 255 + 0.5, 0, 255)
        colours.append(c.astype(np.uint8))
        hollow.append(np.zeros(len(q), bool))
    if not quads:
        return np.zeros((0, 4, 3)), np.zeros((0, 3), np.uint8), np.zeros(0, bool)
    return (np.concatenate(quads).astype(np.float64), np.concatenate(colours),
            np.concatenate(hollow))


@lru_cache(maxsize=1)
def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default_imagefont()


def _text(img: Image.Image, xy, text: str, fill=TEXT, anchor: str = "la", scale: int = 1) -> None:
    """Bitmap-font text (optionally enlarged, pixel for pixel) with a dark halo so it reads on any colour."""
    font = _font()
    x0, y0, x1, y1 = font.getbbox(text)
    w, h = x1 + 2, y1 + 2
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((1, 1), text, font=font, fill=255)
    if scale > 1:
        mask = mask.resize((w * scale, h * scale), Image.NEAREST)
        w, h = w * scale, h * scale
    x, y = int(round(xy[0])), int(round(xy[1]))
    if anchor[0] == "m":
        x -= w // 2
    elif anchor[0] == "r":
        x -= w
    if anchor[1] == "m":
        y -= h // 2
    elif anchor[1] == "b":
        y -= h
    dark = Image.new("RGB", (w, h), (10, 10, 12))
    for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        img.paste(dark, (x + dx, y + dy), mask)
    img.paste(Image.new("RGB", (w, h), fill), (x, y), mask)


@dataclass
class _Camera:
    name: str
    right: np.ndarray
    up: np.ndarray
    forward: np.ndarray
    eye: np.ndarray | None  # None: orthographic

    def view(self, pts: np.ndarray) -> np.ndarray:
        """World points (..., 3) to camera coordinates (..., 3): right, up, depth."""
        base = self.eye if self.eye is not None else np.zeros(3)
        d = pts - base
        return np.stack([d @ self.right, d @ self.up, d @ self.forward], -1)


def _camera(camera, position, look) -> _Camera:
    if position is not None or look is not None:
        if position is None or look is None:
            raise RenderError("position and look go together: where the camera stands and the direction it looks")
        eye = _vector(position, "position", MAX_COORD)
        f = _vector(look, "look", MAX_COORD)
        if np.linalg.norm(f) < 1e-9:
            raise RenderError("look must be a direction, not [0, 0, 0]")
        r, u, f = _basis(f)
        return _Camera(f"from {tuple(round(float(v), 2) for v in eye)} looking {tuple(round(float(v), 2) for v in f)}",
                       r, u, f, eye)
    if not isinstance(camera, str) or camera not in PRESETS:
        raise RenderError(f"camera must be one of {', '.join(PRESETS)}, got {str(camera)[:40]!r}")
    r, u, f = _basis(-np.array(PRESETS[camera]))
    return _Camera(camera, r, u, f, None)


# ---------------------------------------------------------------------------------- drawing
def render(blocks: dict[Pos, str], *, camera: str = "iso", position=None, look=None,
           size=DEFAULT_SIZE, region: tuple[Pos, Pos] | None = None, tick: int | None = None,
           title: str | None = None, moving: dict | None = None, carts=(), items=()) -> Rendering:
    """Draw `blocks` ({pos: block state}) from a preset `camera` (see PRESETS) or from an explicit
    `position` looking along `look` (perspective), into an image of `size` (width, height).
    `region` ((lo, hi) corners) is the area whose coordinates are labelled on the ground (default:
    the blocks' extent). `moving` ({pos: MovingBlock}, `World.moving()`) draws what the moving_piston
    blocks carry between their two places instead of a ghost. `carts` (engine/carts.py CartInfo,
    `World.minecarts()`) and `items` (ItemInfo, `World.item_entities()`) are drawn as the canvas draws
    them (views/entities.py), those in a cell the picture shows. Raises RenderError for an unusable view."""
    w, h = check_size(size)
    cam = _camera(camera, position, look)
    carts, items = tuple(carts or ()), tuple(items or ())
    cells = [tuple(int(math.floor(v)) for v in e.pos) for e in carts + items]
    lo, hi, ground_y = _view_box(blocks, region, cells)

    def in_view(p) -> bool:
        return lo[0] <= p[0] < hi[0] and lo[2] <= p[2] < hi[2] and p[1] >= ground_y

    shown = {p: st for p, st in blocks.items() if in_view(p)}
    quads, colours, hollow = _faces(shown, moving)
    n_carts = n_items = n_balls = 0
    if cells:
        seen = [in_view(c) for c in cells]
        shown_carts = [c for c, ok in zip(carts, seen) if ok]
        shown_items = [e for e, ok in zip(items, seen[len(carts):]) if ok]
        n_balls = sum(1 for e in shown_items if not hasattr(e, "item"))  # fireballs, drawn among the items
        n_carts, n_items = len(shown_carts), len(shown_items) - n_balls
        if n_carts or n_items or n_balls:
            eq, ec = entity_faces(entity_records(shown_carts, shown_items))
            quads = np.concatenate([quads, eq])
            colours = np.concatenate([colours, ec])
            hollow = np.concatenate([hollow, np.zeros(len(eq), bool)])

    # visible faces: the face's normal points at the camera
    if len(quads):
        n = np.cross(quads[:, 1] - quads[:, 0], quads[:, 2] - quads[:, 0])
        centre = quads.mean(1)
        to_eye = (-cam.forward)[None, :] if cam.eye is None else cam.eye[None, :] - centre
        keep = (n * to_eye).sum(1) > 1e-9
        quads, colours, hollow, centre = quads[keep], colours[keep], hollow[keep], centre[keep]
    v = cam.view(quads) if len(quads) else np.zeros((0, 4, 3))
    cv = cam.view(centre) if len(quads) else np.zeros((0, 3))
    if cam.eye is not None:
        front = (v[:, :, 2] > _NEAR).all(1)
        v, colours, hollow, cv = v[front], colours[front], hollow[front], cv[front]
        depth = np.linalg.norm(cv, axis=1)
    else:
        depth = cv[:, 2]

    # the ground: the region's outline and labels on the plane under the lowest block
    corners = np.array([[lo[0], ground_y, lo[2]], [hi[0], ground_y, lo[2]], [hi[0], ground_y, hi[2]],
                        [lo[0], ground_y, hi[2]]])
    top_h = _CAPTION_H
    if cam.eye is None:
        # fit the blocks and the ground with room for the labels around it
        pad = np.array([[lo[0] - 2, ground_y, lo[2] - 2], [hi[0] + 2, ground_y, lo[2] - 2],
                        [hi[0] + 2, ground_y, hi[2] + 2], [lo[0] - 2, ground_y, hi[2] + 2]])
        pts = np.concatenate([v.reshape(-1, 3), cam.view(pad)])
        mn, mx = pts[:, :2].min(0), pts[:, :2].max(0)
        span = np.maximum(mx - mn, 1.0)
        scale = min((w - 2 * _MARGIN) / span[0], (h - 2 * _MARGIN - top_h) / span[1])
        mid = (mn + mx) / 2

        def project(p3: np.ndarray) -> np.ndarray:
            xy = p3[..., :2]
            return np.stack([w / 2 + (xy[..., 0] - mid[0]) * scale,
                             top_h + (h - top_h) / 2 - (xy[..., 1] - mid[1]) * scale], -1)
    else:
        focal = (w / 2) / math.tan(math.radians(FOV_DEG) / 2)

        def project(p3: np.ndarray) -> np.ndarray:
            z = np.maximum(p3[..., 2], _NEAR)
            return np.stack([w / 2 + p3[..., 0] / z * focal, h / 2 - p3[..., 1] / z * focal], -1)

    img = Image.new("RGB", (w, h), BACKGROUND)
    draw = ImageDraw.Draw(img)
    gv = cam.view(corners)
    if cam.eye is None or (gv[:, 2] > _NEAR).all():
        g = project(gv)
        draw.polygon([tuple(p) for p in np.rint(g).tolist()], fill=GROUND, outline=(90, 96, 108))
    # painter's algorithm: far faces first
    order = np.argsort(-depth, kind="stable")
    scr = np.rint(project(v)).astype(np.int64)[order].tolist()
    cols = colours[order]
    edge = (cols.astype(np.int32) * 3 // 5).tolist()
    cols = cols.tolist()
    hol = hollow[order].tolist()
    for q, c, e, glass in zip(scr, cols, edge, hol):
        poly = [tuple(p) for p in q]
        if glass:
            draw.polygon(poly, outline=tuple(c))
        else:
            draw.polygon(poly, fill=tuple(c), outline=tuple(e))
    _labels(img, cam, project, lo, hi, ground_y)
    _compass(img, cam, w, h)
    where = (f"x {int(lo[0])}..{int(hi[0]) - 1}, z {int(lo[2])}..{int(hi[2]) - 1}")
    head = title or f"{cam.name} view"
    caption = f"{head} · {where}" + (f" · tick {tick}" if tick is not None else "")
    _text(img, (6, 5), caption)
    ents = "".join(f", {n} {one if n == 1 else many}" for n, one, many in (
        (n_carts, "minecart", "minecarts"), (n_items, "item entity", "item entities"),
        (n_balls, "fireball", "fireballs")) if n)
    return Rendering(img, pixel_hash(img), caption + f" · {len(shown)} blocks{ents} shown", cam.name)


def _view_box(blocks: dict[Pos, str], region, entity_cells=()) -> tuple[np.ndarray, np.ndarray, float]:
    """The part of the world a picture shows: what stands above the lowest layer (the floor), with 2
    blocks around it, within `region`; the whole region (or every block) when nothing stands there.
    The cells entities are in (`entity_cells`) count as standing there when they are not below the floor.
    Returns the low corner, the high corner (exclusive) and the ground's height."""
    p = np.array(list(blocks), np.int64).reshape(-1, 3)
    e = np.array(list(entity_cells), np.int64).reshape(-1, 3)
    if region is not None:
        rlo, rhi = np.array(region[0], np.int64), np.array(region[1], np.int64)
    elif len(p) or len(e):  # no region: the extent, with room for the margin around what stands on the floor
        both = np.concatenate([p, e])
        rlo, rhi = both.min(0) - 2, both.max(0) + 2
    else:
        rlo = rhi = np.zeros(3, np.int64)
    inside = p[((p >= rlo) & (p <= rhi)).all(1)] if len(p) else p
    ground = int(inside[:, 1].min()) if len(inside) else int(rlo[1])
    above = inside[inside[:, 1] > ground]
    if len(e):
        e = e[((e >= rlo) & (e <= rhi)).all(1) & (e[:, 1] >= ground)]
        above = np.concatenate([above, e])
    if len(above):
        lo = np.maximum(above.min(0) - 2, rlo)
        hi = np.minimum(above.max(0) + 2, rhi)
    else:
        lo, hi = rlo.copy(), rhi.copy()
    return lo.astype(np.float64), hi.astype(np.float64) + 1, float(ground)


def _labels(img: Image.Image, cam: _Camera, project, lo: np.ndarray, hi: np.ndarray, y: float) -> None:
    """x coordinates along the region's south and north edges, z along its east and west edges, every
    5 blocks and at the ends, on the ground just outside the region."""
    def ticks(a: float, b: float) -> list[int]:
        out = {int(a), int(b) - 1}
        out |= {k for k in range(int(a), int(b)) if k % 5 == 0}
        return sorted(out)

    def edges(axis: int, near: float, far: float) -> tuple[float, ...]:
        # only the edge facing the camera: labels on the far edge would sit on top of the build
        toward = -cam.forward[axis] if cam.eye is None else 0.0
        return (near,) if toward > 0.05 else (far,) if toward < -0.05 else (near, far)

    items = []
    for x in ticks(lo[0], hi[0]):
        for z in edges(2, hi[2] + 0.8, lo[2] - 0.8):
            items.append(((x + 0.5, y, z), f"x{x}"))
    for z in ticks(lo[2], hi[2]):
        for x in edges(0, hi[0] + 1.0, lo[0] - 1.0):
            items.append(((x, y, z + 0.5), f"z{z}"))
    pts = cam.view(np.array([p for p, _ in items], np.float64))
    if cam.eye is not None:
        ok = pts[:, 2] > _NEAR
    else:
        ok = np.ones(len(pts), bool)
    xy = project(pts)
    w, h = img.size
    for (_p, text), (sx, sy), good in zip(items, xy.tolist(), ok.tolist()):
        if good and 0 <= sx < w and _CAPTION_H <= sy < h:
            _text(img, (sx, sy), text, fill=(250, 220, 120), anchor="mm")


def _compass(img: Image.Image, cam: _Camera, w: int, h: int) -> None:
    """N, E, S, W arrows in the lower-left corner, as the horizontal directions appear on screen."""
    cx, cy, rad = 34, h - 34, 22
    d = ImageDraw.Draw(img)
    d.ellipse((cx - rad - 6, cy - rad - 6, cx + rad + 6, cy + rad + 6), fill=(16, 17, 21), outline=(90, 96, 108))
    for label, vec, col in (("N", (0, 0, -1), (255, 90, 80)), ("E", (1, 0, 0), TEXT), ("S", (0, 0, 1), TEXT),
                            ("W", (-1, 0, 0), TEXT)):
        v = np.array([np.dot(vec, cam.right), np.dot(vec, cam.up)])
        if np.linalg.norm(v) < 0.15:  # pointing at or away from the camera: no useful arrow
            continue
        v = v / np.linalg.norm(v)
        ex, ey = cx + v[0] * rad * 0.62, cy - v[1] * rad * 0.62
        d.line((cx, cy, ex, ey), fill=col, width=2)
        _text(img, (cx + v[0] * rad, cy - v[1] * rad), label, fill=col, anchor="mm")


def render_world(world, **kw) -> Rendering:
    """`render` of a World's blocks at its current tick, blocks in motion where they are on their way, with
    its minecarts and item entities."""
    kw.setdefault("tick", world.tick)
    kw.setdefault("moving", world.moving())
    if "carts" not in kw and "items" not in kw:
        kw["carts"], kw["items"] = world_entities(world)
    return render(world.blocks(), **kw)


# ---------------------------------------------------------------------------------- lamp timeline
LAMP_ON, LAMP_OFF = (255, 219, 115), (70, 46, 28)
ON_WINDOW, OFF_WINDOW = (90, 220, 120), (90, 190, 255)


def render_timeline(trace, press: int, *, task=None, trial: int | None = None, width: int = DEFAULT_SIZE[0]
                    ) -> Rendering:
    """The lamps of a trial as a picture: one row per lamp (by position), one column per game tick from
    the press, lit cells yellow and dark ones brown; with `task`, each lamp's window for lighting (green
    outline) and going dark (blue outline), as the evaluator derives them (`views.contract`)."""
    w = check_size((width, MIN_SIZE))[0]
    lit = np.asarray(trace.lamp_lit, bool)
    r0 = max(0, int(press) - int(trace.start_tick)) if len(trace) else 0
    lit = lit[r0:] if lit.ndim == 2 else np.zeros((0, 0), bool)
    n_ticks, n_lamps = lit.shape if lit.ndim == 2 else (0, 0)
    order = sorted(range(n_lamps), key=lambda j: tuple(trace.lamp_positions[j]))
    row_h = max(3, min(14, (MAX_SIZE - 70) // max(1, n_lamps)))
    left, top = 96, 36
    h = max(MIN_SIZE, min(MAX_SIZE, top + row_h * max(1, n_lamps) + 8))
    img = Image.new("RGB", (w, h), BACKGROUND)
    d = ImageDraw.Draw(img)
    cell = (w - left - 8) / max(1, n_ticks)
    x_of = [int(round(left + k * cell)) for k in range(n_ticks + 1)]
    windows = {}
    if task is not None and n_lamps and n_ticks:
        from scicraft_viz.views.contract import contract_view

        with_windows = contract_view(task, trace, int(press))
        windows = {tuple(lw.pos): lw for lw in with_windows.lamps}
    for row, j in enumerate(order):
        y0 = top + row * row_h
        y1 = y0 + row_h - (1 if row_h > 4 else 0)
        col = lit[:, j]
        k = 0
        while k < n_ticks:  # runs of equal cells, one rectangle each
            e = k
            while e + 1 < n_ticks and col[e + 1] == col[k]:
                e += 1
            d.rectangle((x_of[k], y0, x_of[e + 1] - 1, y1 - 1), fill=LAMP_ON if col[k] else LAMP_OFF)
            k = e + 1
        lw = windows.get(tuple(trace.lamp_positions[j]))
        for win, colour in ((lw.on_window if lw else None, ON_WINDOW), (lw.off_window if lw else None, OFF_WINDOW)):
            if win is None:
                continue
            a = min(max(int(win[0]) - int(press), 0), n_ticks)
            b = min(max(int(win[1]) - int(press) + 1, 0), n_ticks)
            if b > a:
                d.rectangle((x_of[a], y0, x_of[b] - 1, y1 - 1), outline=colour)
        if row_h >= 12 or row % max(1, 12 // row_h) == 0:
            p = trace.lamp_positions[j]
            _text(img, (left - 4, y0 + row_h / 2), f"({p[0]},{p[1]},{p[2]})", anchor="rm")
    step = next((s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if s * cell >= 34), 1000)
    for k in range(0, n_ticks, step):
        d.line((x_of[k], top - 4, x_of[k], top - 1), fill=TEXT)
        _text(img, (x_of[k], top - 5), f"+{k}", anchor="mb")
    title = f"lamp timeline{f' of trial {trial}' if trial else ''} · {n_lamps} lamps · {n_ticks} game ticks " \
            f"from the press at tick {press}"
    _text(img, (6, 3), title)
    caption = title + (" · yellow lit, brown dark; green outline: window to light, blue: window to go dark"
                       if windows else " · yellow lit, brown dark")
    return Rendering(img, pixel_hash(img), caption, "timeline")
