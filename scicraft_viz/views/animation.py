"""Animated GIFs of recorded ticks: the 3D view (isometric, the canvas's own geometry and colours)
above the lamp timeline, one picture per tick, for slides and bug reports.

Rendered offscreen with Pillow from recorded frames and a recorded trace: nothing is simulated here.
Faces are projected orthographically and painted back to front, the minecarts and item entities of each
frame's tick (`Frame.carts`, `Frame.items`) among them, as boxes of the canvas's shapes and colours
(views/entities.py)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from scicraft_viz.engine.trace import Trace
from scicraft_viz.views import geometry as G
from scicraft_viz.views.entities import entity_faces, entity_records
from scicraft_viz.views.frame import Frame

VIEW_DIR = np.array([0.75, 1.3, 1.0]) / np.linalg.norm([0.75, 1.3, 1.0])  # the canvas's isometric preset
BACKGROUND = (29, 33, 40)
LIT = (255, 213, 74)
DARK = (42, 46, 54)
PRESS = (255, 159, 26)
MISSED = (255, 61, 139)
MAX_FRAMES = 400


def _basis() -> tuple[np.ndarray, np.ndarray]:
    right = np.cross([0.0, 1.0, 0.0], VIEW_DIR)
    right /= np.linalg.norm(right)
    up = np.cross(VIEW_DIR, right)
    return right, up


class _Scene:
    """The faces of one layout, projected once; colours come from each frame."""

    def __init__(self, frame: Frame):
        geom = G.build(frame.layout)
        self.geom = geom
        right, up = _basis()
        quads, owners, meshes = [], [], []
        for name in ("solid", "lamp"):
            m = geom.meshes[name]
            if not m.n_vertices:
                continue
            v = m.positions.reshape(-1, 6, 3)
            corners = v[:, [0, 1, 2, 5]]  # the two triangles (0,1,2) and (0,2,3) of each face
            normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
            front = normal @ VIEW_DIR > 1e-9  # faces turned away from the viewer are never seen
            quads.append(corners[front])
            owners.append(np.flatnonzero(front) * 6)
            meshes += [name] * int(front.sum())
        self.quads = np.concatenate(quads) if quads else np.zeros((0, 4, 3))
        self.first_vertex = np.concatenate(owners) if owners else np.zeros(0, int)
        self.mesh = np.array(meshes)
        depth = self.quads.mean(1) @ VIEW_DIR if len(self.quads) else np.zeros(0)
        self.order = np.argsort(depth)  # far first
        self.depth = depth[self.order]  # ascending: where an entity's face goes among them
        self.right, self.up = right, up
        self.xy = np.stack([self.quads @ right, -(self.quads @ up)], -1) if len(self.quads) else np.zeros((0, 4, 2))
        # frame the circuit, not the floor under it (stone on the lowest layer), as the canvas does
        lay = frame.layout
        if len(lay):
            floor = (lay.pos[:, 1] == lay.pos[:, 1].min()) & (lay.kind == G.B.STONE)
            owner = np.zeros(len(self.quads), int)
            for name in ("solid", "lamp"):
                sel = self.mesh == name
                owner[sel] = geom.block[geom.meshes[name].box[self.first_vertex[sel]]]
            keep = ~floor[owner] if len(owner) else np.zeros(0, bool)
            self.focus = self.xy[keep] if keep.sum() >= 4 else self.xy
        else:
            self.focus = self.xy

    def entities(self, frame: Frame):
        """The faces of the frame's minecarts and item entities that face the viewer: projected corners (m, 4, 2),
        colours (m, 3) uint8, and for each the number of block faces (in painting order) to paint before it."""
        quads, cols = entity_faces(entity_records(frame.carts, frame.items))
        normal = np.cross(quads[:, 1] - quads[:, 0], quads[:, 2] - quads[:, 0])
        front = normal @ VIEW_DIR > 1e-9
        quads, cols = quads[front], cols[front]
        depth = quads.mean(1) @ VIEW_DIR
        order = np.argsort(depth, kind="stable")
        quads, cols, depth = quads[order], cols[order], depth[order]
        xy = np.stack([quads @ self.right, -(quads @ self.up)], -1)
        return xy, cols, np.searchsorted(self.depth, depth, side="right")

    def colors(self, frame: Frame) -> np.ndarray:
        vc = G.vertex_colors(self.geom, frame)
        out = np.zeros((len(self.quads), 3), np.uint8)
        for name in ("solid", "lamp"):
            sel = self.mesh == name
            if sel.any():
                out[sel] = vc[name][self.first_vertex[sel]]
        return out


def _fit(xy: np.ndarray, width: int, height: int, margin: int = 8):
    if not len(xy):
        return lambda p: p
    lo = xy.reshape(-1, 2).min(0)
    hi = xy.reshape(-1, 2).max(0)
    scale = min((width - 2 * margin) / max(hi[0] - lo[0], 1e-6), (height - 2 * margin) / max(hi[1] - lo[1], 1e-6))
    off = np.array([width, height]) / 2 - (lo + hi) / 2 * scale
    return lambda p: p * scale + off


def render_gif(frames: Sequence[Frame], trace: Trace, *, presses: Sequence[int] = (), missed=(),
               size: tuple[int, int] = (640, 360), timeline_height: int | None = None, fps: float = 10.0) -> bytes:
    """An animated GIF: for each frame, the build drawn from the frame's values with, below it, the
    lamp timeline of `trace` (lit cells yellow, presses orange, lamps in `missed` marked pink) and a
    line at the frame's tick. Frames must carry their tick; all of them are drawn (at most MAX_FRAMES)."""
    from PIL import Image, ImageDraw

    if not frames:
        raise ValueError("no frames to animate")
    if len(frames) > MAX_FRAMES:
        raise ValueError(f"{len(frames)} frames: at most {MAX_FRAMES} fit in one animation; choose fewer ticks")
    width, top = size
    lamps = [tuple(p) for p in trace.lamp_positions]
    tl_h = timeline_height if timeline_height is not None else (min(160, 22 + 6 * len(lamps)) if lamps else 0)
    ticks = np.asarray(trace.ticks)
    t_lo = int(min(f.tick for f in frames))
    t_hi = int(max(f.tick for f in frames))
    scenes: dict[int, _Scene] = {}
    fitted: dict[int, tuple] = {}
    label_w = 10
    images = []
    missed = {tuple(p) for p in missed}
    for f in frames:
        key = id(f.layout)
        if key not in scenes:
            scenes[key] = _Scene(f)
            sc = scenes[key]
            fit = _fit(sc.focus, width, top, margin=24)
            fitted[key] = (fit, fit(sc.xy) if len(sc.xy) else sc.xy)
        sc, (fit, xy) = scenes[key], fitted[key]
        view = Image.new("RGB", (width, top), BACKGROUND)
        vdraw = ImageDraw.Draw(view)
        cols = sc.colors(f)
        faces = ((xy[i], cols[i]) for i in sc.order)
        if f.carts or f.items:  # the entities' faces go in among the blocks', by depth
            faces = list(faces)
            exy, ecols, before = sc.entities(f)
            exy = fit(exy)
            for j in range(len(exy) - 1, -1, -1):  # from the nearest, so that earlier places stay put
                faces.insert(int(before[j]), (exy[j], ecols[j]))
        for q, col in faces:
            c = tuple(int(v) for v in col)
            vdraw.polygon([tuple(p) for p in q.tolist()], fill=c, outline=tuple(int(v * 0.8) for v in c))
        vdraw.text((6, 4), f"tick {f.tick} gt", fill=(230, 230, 230))
        img = Image.new("RGB", (width, top + tl_h), BACKGROUND)
        img.paste(view, (0, 0))
        draw = ImageDraw.Draw(img)
        if lamps:
            _draw_timeline(draw, trace, lamps, ticks, t_lo, t_hi, int(f.tick), presses, missed,
                           (label_w, top + 4, width - 6, top + tl_h - 4))
        images.append(img.convert("P", palette=Image.Palette.ADAPTIVE, colors=128))
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0,
                   optimize=False)
    return out.getvalue()


def _draw_timeline(draw, trace: Trace, lamps, ticks, t_lo: int, t_hi: int, tick: int, presses, missed, box) -> None:
    x0, y0, x1, y1 = box
    n = len(lamps)
    span = max(1, t_hi - t_lo + 1)
    cw = (x1 - x0) / span
    rh = max(1.0, (y1 - y0) / n)
    rows = (ticks >= t_lo) & (ticks <= t_hi)
    lit = np.asarray(trace.lamp_lit)[rows]
    tk = ticks[rows]
    for j in range(n):
        ya, yb = y0 + j * rh, y0 + (j + 1) * rh - (1 if rh > 3 else 0)
        draw.rectangle([x0, ya, x1, yb], fill=DARK)
        col = lit[:, j]
        # runs of lit ticks as single rectangles
        edges = np.flatnonzero(np.diff(np.concatenate([[0], col.astype(np.int8), [0]])))
        for a, b in zip(edges[::2], edges[1::2]):
            draw.rectangle([x0 + (tk[a] - t_lo) * cw, ya, x0 + (tk[b - 1] - t_lo + 1) * cw, yb], fill=LIT)
        if lamps[j] in missed:
            draw.rectangle([x0 - 8, ya, x0 - 3, yb], fill=MISSED)
    for p in presses:
        if t_lo <= p <= t_hi:
            x = x0 + (p - t_lo) * cw
            draw.line([x, y0, x, y1], fill=PRESS, width=2)
    x = x0 + (tick - t_lo + 0.5) * cw
    draw.line([x, y0 - 2, x, y1 + 2], fill=(255, 255, 255), width=2)


MIN_SPAN = 40  # game ticks: an animation of less activity than this shows this much of the recording


def animation_ticks(shown: tuple[int, int], recorded: tuple[int, int], max_frames: int = 120) -> list[int]:
    """The ticks to animate: those a timeline shows, widened to MIN_SPAN, inside what was recorded."""
    lo, hi = max(shown[0], recorded[0]), min(max(shown[1], shown[0] + MIN_SPAN), recorded[1])
    return pick_ticks(lo, max(lo, hi), max_frames)


def pick_ticks(first: int, last: int, max_frames: int = 120) -> list[int]:
    """Evenly spaced ticks from first to last (both included), at most max_frames of them."""
    if last < first:
        return []
    step = max(1, -(-(last - first + 1) // max_frames))
    out = list(range(first, last + 1, step))
    if out[-1] != last:
        out.append(last)
    return out
