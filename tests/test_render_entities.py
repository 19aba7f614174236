"""Minecarts and item entities in the headless pictures: `render_world` (and the render-view call built on it) and
the GIFs draw them as the explorer's canvas does (views/entities.py), where the world or the recorded tick has
them; a world without entities is drawn exactly as before."""

import io
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scicraft_viz import World
from scicraft_viz.engine.carts import HALF_WIDTH, HEIGHT
from scicraft_viz.views import animation as A
from scicraft_viz.views import render as R
from scicraft_viz.views.entities import CART_COLORS, ITEM_HALF, ITEM_HEIGHT
from scicraft_viz.views.frame import frame_from_world
from scicraft_viz.views.session import recording_of_trial

NUCLEATION = Path(__file__).parent / "data" / "nucleation"
CART_TOP = CART_COLORS["minecart"][1]  # a plain cart's open top, seen from straight above at full light
SIZE = (400, 300)
EYE = (4.0, 10.0, 0.0)  # a perspective camera looking straight down (north at the top), off the cart's axis


def cart_world() -> World:
    """A minecart rolling east along a straight rail (y 1) on a stone floor (y 0) (Nucleation's cart_flat)."""
    return World.from_build_file(NUCLEATION / "cart_flat.snbt")


def pixels(rendering) -> np.ndarray:
    """The picture as the PNG holds it, (h, w, 3)."""
    return np.asarray(Image.open(io.BytesIO(rendering.png)).convert("RGB"), np.int32)


def looking_down(x: float, y: float, z: float) -> tuple[float, float]:
    """Where a point shows in a SIZE picture from EYE looking down: a pinhole camera 60 degrees across."""
    w, h = SIZE
    focal = (w / 2) / math.tan(math.radians(R.FOV_DEG) / 2)
    depth = EYE[1] - y
    return w / 2 + (x - EYE[0]) / depth * focal, h / 2 + (z - EYE[2]) / depth * focal


def near(img: np.ndarray, at, colour, radius: int = 3, tol: int = 0) -> bool:
    """Is there a pixel of `colour` (each channel within tol) within `radius` pixels of `at`?"""
    x, y = (int(round(v)) for v in at)
    patch = img[max(0, y - radius): y + radius + 1, max(0, x - radius): x + radius + 1]
    return bool((np.abs(patch - np.array(colour)) <= tol).all(-1).any())


def test_render_world_draws_the_cart_where_the_camera_sees_it_and_follows_it():
    w = cart_world()
    seen = []
    for _ in range(3):
        (cart,) = w.minecarts()
        x, y, z = cart.pos
        top = looking_down(x, y + HEIGHT, z)
        r = R.render_world(w, position=list(EYE), look=[0, -1, 0], size=SIZE)
        img = pixels(r)
        assert near(img, top, CART_TOP)
        # the top's corners: the cart's box is 0.98 wide, so 0.49 from its centre each way
        for dx in (-1, 1):
            edge = looking_down(x + dx * (HALF_WIDTH - 0.05), y + HEIGHT, z)
            assert near(img, edge, CART_TOP)
            beyond = looking_down(x + dx * (HALF_WIDTH + 0.12), y + HEIGHT, z)
            assert not near(img, beyond, CART_TOP, radius=1)
        blocks_only = pixels(R.render(w.blocks(), position=list(EYE), look=[0, -1, 0], size=SIZE, tick=w.tick))
        assert not near(blocks_only, top, CART_TOP)
        assert "1 minecart shown" in r.caption
        seen.append(top[0])
        w.step(5)
    assert seen[0] + 20 < seen[1] < seen[2] - 10  # rolling east: to the right of a picture with north up


def test_an_item_entity_is_a_small_cube_of_its_colour():
    w = cart_world()
    w.spawn_item("redstone", 3, (6.5, 1.0, 0.5))
    (item,) = w.item_entities()
    img = pixels(R.render_world(w, position=list(EYE), look=[0, -1, 0], size=SIZE))
    plain = pixels(R.render(w.blocks(), position=list(EYE), look=[0, -1, 0], size=SIZE, tick=w.tick))
    x, y, z = item.pos
    at = looking_down(x, y + ITEM_HEIGHT, z)
    colour = img[int(round(at[1])), int(round(at[0]))]
    assert colour[0] > 150 and colour[1] < 60 and colour[2] < 60  # redstone red
    assert (np.abs(plain[int(round(at[1])), int(round(at[0]))] - colour) > 30).any()
    # 0.25 across: well inside its side, the colour; a quarter block beyond it, the floor again
    assert near(img, looking_down(x + ITEM_HALF * 0.6, y + ITEM_HEIGHT, z), colour)
    far = looking_down(x + ITEM_HALF + 0.25, y + ITEM_HEIGHT, z)
    assert not near(img, far, colour, radius=1)


def test_an_entity_outside_the_pictures_region_is_left_out():
    w = cart_world()
    inside = R.render_world(w, region=((0, 0, 0), (15, 4, 2)))
    outside = R.render_world(w, region=((5, 0, 0), (15, 4, 2)))  # the cart stands at x 2.5
    assert "1 minecart shown" in inside.caption and "minecart" not in outside.caption
    assert outside.sha256 == R.render(w.blocks(), region=((5, 0, 0), (15, 4, 2)), tick=w.tick).sha256


def test_without_entities_the_picture_is_the_blocks_picture_and_a_cart_changes_only_its_own_pixels():
    w = cart_world()
    with_cart = pixels(R.render_world(w, camera="iso"))
    bare = R.render(w.blocks(), camera="iso", tick=w.tick)
    assert R.render(w.blocks(), camera="iso", tick=w.tick, carts=(), items=()).sha256 == bare.sha256
    changed = np.argwhere((with_cart != pixels(bare)).any(-1))
    span = changed.max(0) - changed.min(0)
    assert (0 < span).all() and (span < 60).all()  # one small box, nothing else moved
    # a world that holds no entity is drawn as its blocks alone
    empty = World()
    empty.set_block((0, 0, 0), "stone")
    empty.set_block((0, 1, 0), "redstone_lamp")
    assert R.render_world(empty).sha256 == R.render(empty.blocks(), tick=empty.tick, moving=empty.moving()).sha256


@pytest.fixture(scope="module")
def recording():
    """13 recorded ticks of the rolling cart: the frames (each with the cart of its tick) and the trace."""
    w = cart_world()
    build = w.blocks()
    trace = w.record(12)
    rec = recording_of_trial(build, trace)
    return [rec.frame(int(t)) for t in trace.ticks], trace


def gif_frames(data: bytes) -> list[np.ndarray]:
    im = Image.open(io.BytesIO(data))
    out = []
    for k in range(im.n_frames):
        im.seek(k)
        out.append(np.asarray(im.convert("RGB"), np.int32))
    return out


def stripped(frames):
    """The same frames without their entities."""
    import dataclasses

    return [dataclasses.replace(f, carts=(), items=()) for f in frames]


def test_a_gif_frame_draws_the_cart_at_its_projected_place_and_it_moves(recording):
    frames, trace = recording
    pics = gif_frames(A.render_gif(frames, trace, size=(640, 360)))
    bare = gif_frames(A.render_gif(stripped(frames), trace, size=(640, 360)))
    # the isometric projection the GIF uses for its blocks: the canvas's view direction, fitted to the build
    right, up = A._basis()
    fit = A._fit(A._Scene(frames[0]).focus, 640, 360, margin=24)
    centres = []
    for k in (0, 6, 12):
        x, y, z = frames[k].carts[0].pos
        at = fit(np.array([[x, y + HEIGHT, z]]) @ np.stack([right, -up], 1))[0]
        assert near(pics[k], at, CART_TOP, tol=8)
        assert not near(bare[k], at, CART_TOP, tol=8)
        diff = np.argwhere((pics[k] != bare[k]).any(-1))
        centres.append(diff.mean(0)[::-1])  # (x, y) of the pixels the cart changed
        assert np.abs(centres[-1] - at).max() < 20
    # from tick 0 to 6 and to 12 the cart went east by these amounts: the picture moves it in proportion, along
    # the direction east takes on screen (right and down in this view)
    xs = [frames[k].carts[0].pos[0] for k in (0, 6, 12)]
    east = np.array([right[0], -up[0]])
    d6, d12 = centres[1] - centres[0], centres[2] - centres[0]
    assert np.dot(d6, east) > 0 and np.dot(d12, east) > np.dot(d6, east)
    assert abs(np.linalg.norm(d12) / np.linalg.norm(d6) - (xs[2] - xs[0]) / (xs[1] - xs[0])) < 0.1
    cos = np.dot(d12, east) / np.linalg.norm(d12) / np.linalg.norm(east)
    assert cos > 0.99


def test_a_gif_of_frames_without_entities_is_the_blocks_gif(recording):
    frames, trace = recording
    bare = stripped(frames)
    with_carts = gif_frames(A.render_gif(frames, trace))
    without = gif_frames(A.render_gif(bare, trace))
    for a, b in zip(with_carts, without):
        changed = np.argwhere((a != b).any(-1))
        span = changed.max(0) - changed.min(0)
        assert (span < 90).all()  # the cart's box only
    world_frame = frame_from_world(cart_world())
    assert world_frame.carts and A.render_gif([world_frame], trace) != A.render_gif(stripped([world_frame]), trace)
