"""The boxes every view draws for minecarts and item entities: the explorer's live canvas, the page's scrubber
(scrub.py, in the browser, from the same records), the headless pictures (render.py) and the GIFs
(animation.py). One record of 12 numbers per entity gives its box and colours; `entity_vertices` turns
records into the triangles of the canvas's mesh and `entity_faces` into the quads the Pillow views paint.

A minecart of any kind is a box 0.98 x 0.7 x 0.98 (vanilla's), an item entity 0.25 on each side (vanilla's), a fireball
a cube 0.3125 (small) or 1.0 (dragon and large) on each side, drawn among the items; each record
holds the box's low corner less an offset (3), its size (3), the colour of its sides and of its top (0-255,
3 each). Faces are shaded as the blocks' are (geometry.FACE_SHADE)."""

from __future__ import annotations

import numpy as np

from scicraft_viz.views import geometry as G

ENTITY_VERTICES = 36
ITEM_HALF, ITEM_HEIGHT = 0.125, 0.25
# (sides, top): a plain cart's open top drawn dark, a chest cart's wooden lid, a hopper cart darker all over, a
# furnace cart's cobblestone top (sides in a blue-grey that stands out from stone)
CART_COLORS = {"minecart": ((104, 116, 138), (46, 50, 58)), "chest_minecart": ((104, 116, 138), (176, 116, 52)),
               "hopper_minecart": ((70, 74, 84), (36, 38, 42)), "furnace_minecart": ((104, 116, 138), (122, 122, 122))}
FURNACE_LIT_TOP = (236, 132, 40)  # a furnace cart with fuel: its furnace lit, as vanilla draws it
FIREBALL_COLORS = {"small_fireball": ((232, 96, 24), (252, 176, 56)), "fireball": ((200, 64, 20), (244, 140, 40)),
                   "dragon_fireball": ((150, 40, 170), (214, 120, 230))}  # (sides, top): orange, a dragon's purple
ITEM_COLOR = (236, 196, 64)  # an item without a colour of its own (block_colors.block_color)
_ENT_TEMPLATE = G._PICK.reshape(-1, 3).astype(np.float64)  # (36, 3): 0 takes a box's low corner, 1 its high one
_ENT_TOP = np.repeat(np.arange(6) == 2, 6)  # the vertices of the +y face
ENTITY_SHADE = np.repeat([0.80, 0.80, 1.00, 0.55, 0.66, 0.66], 6)  # the blocks' face shading (geometry.FACE_SHADE)


def _item_rgb(item: str) -> tuple[int, int, int]:
    from scicraft_viz.views.block_colors import block_color

    rgb = block_color(item.removeprefix("minecraft:"))
    return ITEM_COLOR if rgb is None else tuple(int(round(255 * c)) for c in rgb)  # type: ignore[return-value]


def _cart_rgb(c) -> tuple:
    """(sides, top) of a minecart (CartInfo): its kind's, the top lit while a furnace cart has fuel."""
    side, top = CART_COLORS.get(c.kind, CART_COLORS["minecart"])
    return side, (FURNACE_LIT_TOP if c.kind == "furnace_minecart" and getattr(c, "fuel", 0) > 0 else top)


def entity_records(carts, items, offset=(0, 0, 0), ymax: float | None = None) -> np.ndarray:
    """(n, 12) float64: one record per minecart (engine/carts.py CartInfo), then per item entity
    (engine/world.py ItemInfo), as every view draws them. With `ymax` (a layer slider), an entity standing in
    a block above that layer is left out, as the blocks are."""
    from scicraft_viz.engine.carts import HALF_WIDTH, HEIGHT

    if ymax is not None:
        carts = [c for c in carts if np.floor(c.pos[1]) <= ymax]
        items = [e for e in items if np.floor(e.pos[1]) <= ymax]
    out = np.zeros((len(carts) + len(items), 12), np.float64)
    ox, oy, oz = (float(v) for v in offset)
    boxes = [(c.pos, HALF_WIDTH, HEIGHT, *_cart_rgb(c)) for c in carts]
    from scicraft_viz.engine.fireballs import KINDS

    for e in items:  # item entities, and fireballs drawn among them (engine/fireballs.py FireballInfo)
        if getattr(e, "kind", None) in KINDS:
            w = KINDS[e.kind]
            boxes.append((e.pos, w / 2, w, *FIREBALL_COLORS[e.kind]))
        else:
            boxes.append((e.pos, ITEM_HALF, ITEM_HEIGHT, _item_rgb(e.item), _item_rgb(e.item)))
    for i, ((x, y, z), hw, h, side, top) in enumerate(boxes):
        out[i] = ((x - hw) - ox, y - oy, (z - hw) - oz, 2 * hw, h, 2 * hw, *side, *top)
    return out


def entity_vertices(records: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """The entity mesh's positions (float32) and colours (uint8) for `cap` boxes, (36 cap, 3) each, of these
    records; the boxes beyond them collapse to a point (nothing drawn)."""
    n = len(records)
    pos = np.zeros((cap * ENTITY_VERTICES, 3), np.float32)
    col = np.zeros((cap * ENTITY_VERTICES, 3), np.uint8)
    if n:
        r = records[:, None, :]
        pos[: n * ENTITY_VERTICES] = (r[..., 0:3] + _ENT_TEMPLATE[None] * r[..., 3:6]).reshape(-1, 3)
        base = np.where(_ENT_TOP[None, :, None], r[..., 9:12], r[..., 6:9])
        col[: n * ENTITY_VERTICES] = np.floor(base * ENTITY_SHADE[None, :, None] + 0.5).reshape(-1, 3)
    return pos, col


def entity_faces(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The boxes of these records as quads, (6 n, 4, 3) float64 corners wound as the blocks' faces (so a face
    turned away from the camera is recognised the same way), with their colours, (6 n, 3) uint8: the canvas's
    triangles (`entity_vertices`), two per face, joined back into the face."""
    pos, col = entity_vertices(records, len(records))
    faces = pos.astype(np.float64).reshape(-1, 6, 3)
    return faces[:, [0, 1, 2, 5]], col.reshape(-1, 6, 3)[:, 0]

