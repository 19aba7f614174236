"""Blocks a piston moves are drawn as themselves between their two places, in every view that draws
frames: the geometry of a frame, the explorer's live canvas, scrubbing back to a tick, and render_world."""

import numpy as np
import pytest

from scicraft_viz import builds
from scicraft_viz.engine.world import MovingBlock, World
from scicraft_viz.views import Explorer
from scicraft_viz.views import geometry as G
from scicraft_viz.views import render as R
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_blocks, frame_from_world
from scicraft_viz.views.scrub import canvas_colors

LEVER = (-1, 0, 0)


def pusher(piston: str = "piston", block: str = "stone") -> World:
    """A piston facing east on a stone floor, `block` in front of it, a lever behind it (off)."""
    b = {(x, -1, z): "minecraft:stone" for x in range(-2, 5) for z in range(-1, 2)}
    b[(0, 0, 0)] = f"minecraft:{piston}[extended=false,facing=east]"
    b[(1, 0, 0)] = f"minecraft:{block}"
    b[LEVER] = "minecraft:lever[face=floor,facing=north,powered=false]"
    return World.from_blocks(b)


def boxes_of(geom: G.Geometry, row: int) -> tuple[np.ndarray, np.ndarray]:
    """Every vertex position (all meshes) drawn for a layout row, and the vertices' colours for a frame."""
    return np.concatenate([m.positions[geom.block[m.box] == row] for m in geom.meshes.values()])


def colors_of(geom: G.Geometry, frame, row: int) -> np.ndarray:
    cols = G.vertex_colors(geom, frame)
    return np.concatenate([cols[k][geom.block[m.box] == row] for k, m in geom.meshes.items()])


def test_the_world_says_what_each_moving_piston_carries_and_how_far_along():
    w = pusher()
    w.use(LEVER)
    w.step(1)  # the push starts and the moving blocks advance once in the same tick
    assert w.moving() == {
        (1, 0, 0): MovingBlock("minecraft:piston_head[facing=east,short=false,type=normal]", (0, 0, 0), "east", 0.5,
                               True, True),
        (2, 0, 0): MovingBlock("minecraft:stone", (1, 0, 0), "east", 0.5, True, False)}
    w.step(1)
    assert [m.progress for m in w.moving().values()] == [1.0, 1.0]
    w.step(1)
    assert w.moving() == {} and w.get_block((2, 0, 0)) == "minecraft:stone"


def test_a_sticky_piston_pulling_back_keeps_its_base_in_place():
    w = pusher("sticky_piston")
    w.use(LEVER)
    w.step(3)
    w.use(LEVER)
    w.step(1)
    assert w.moving() == {
        (0, 0, 0): MovingBlock("minecraft:sticky_piston[extended=false,facing=east]", (0, 0, 0), "west", 0.5,
                               False, True),
        (1, 0, 0): MovingBlock("minecraft:stone", (2, 0, 0), "west", 0.5, False, False)}
    f = frame_from_world(w)
    g = G.build(f.layout)
    # the pulled stone half way back from x 2; the head half way into the base: its plate at x 1.25..1.5
    stone = boxes_of(g, f.layout.at((1, 0, 0)))
    assert stone.min(0).tolist() == [1.5, 0.0, 0.0] and stone.max(0).tolist() == [2.5, 1.0, 1.0]
    base = boxes_of(g, f.layout.at((0, 0, 0)))
    assert base.min(0).tolist() == [0.0, 0.0, 0.0] and base.max(0).tolist() == [1.5, 1.0, 1.0]
    assert describe_block(f, (0, 0, 0)) == (
        "(0, 0, 0) moving_piston[facing=east,type=sticky] · carrying sticky_piston[extended=false,facing=east], "
        "its head sliding back in from the east; progress 0.5 of 1")


@pytest.mark.parametrize("block", ["stone", "white_concrete", "redstone_block", "observer[facing=up]"])
def test_the_pushed_block_is_drawn_as_itself_half_a_block_back_then_where_it_lands(block):
    w = pusher(block=block)
    alone = frame_from_blocks({(2, 0, 0): f"minecraft:{block}"})  # the block at rest where it is going
    ga = G.build(alone.layout)
    rest = boxes_of(ga, 0)
    w.use(LEVER)
    for back in (0.5, 0.0):
        w.step(1)
        f = frame_from_world(w)
        g = G.build(f.layout)
        row = f.layout.at((2, 0, 0))
        assert f.layout.name(row) == "moving_piston"
        drawn = boxes_of(g, row)
        assert len(drawn) == len(rest)
        assert np.array_equal(drawn, rest - np.float32([back, 0, 0]))  # (1 - progress) of a block west
        assert np.array_equal(colors_of(g, f, row), colors_of(ga, alone, 0))  # its own look, not a ghost
        assert not (g.part == G.P_MOVING).any()
    name = block.split("[")[0]
    state = "observer[facing=up,powered=false]" if name == "observer" else name
    assert describe_block(f, (2, 0, 0)) == (
        f"(2, 0, 0) moving_piston[facing=east,type=normal] · carrying {state} from (1, 0, 0) to (2, 0, 0), "
        "pushed east; progress 1 of 1")


def test_a_moving_piston_without_what_it_carries_stays_a_ghost():
    f = frame_from_blocks({(0, 0, 0): "minecraft:moving_piston[facing=east,type=normal]"})
    g = G.build(f.layout)
    assert g.part.tolist() == [G.P_MOVING] and g.fixed_rgb is None
    assert describe_block(f, (0, 0, 0)).endswith("a block in motion (it arrives 2 game ticks after it set off)")


def test_the_explorer_draws_it_live_and_scrubbing_back_shows_the_same_picture():
    ex = Explorer(world=pusher())
    s = ex.session
    s.use(LEVER)
    s.step(1)
    t = s.tick
    live = ex.canvas.frame
    row = live.layout.at((2, 0, 0))
    assert live.layout.moving[row].progress == 0.5
    x = boxes_of(ex.canvas._geom, row)[:, 0]
    assert (x.min(), x.max()) == (1.5, 2.5)
    live_pos = {k: m.positions.copy() for k, m in ex.canvas._geom.meshes.items()}
    live_cols = canvas_colors(ex.canvas, live)
    s.step(4)
    assert ex.canvas.frame.layout.moving == {}
    s.seek(t)
    back = ex.canvas.frame
    assert back.layout.moving[row] == live.layout.moving[row]
    assert all(np.array_equal(m.positions, live_pos[k]) for k, m in ex.canvas._geom.meshes.items())
    assert np.array_equal(canvas_colors(ex.canvas, back), live_cols)
    sc = ex.scrubber  # the page's run is the tick's own layout (the stone moves on next tick): the same colours
    assert (sc.meta["first"], sc.meta["last"]) == (t, t)
    assert np.array_equal(sc.row_colors(0), live_cols)
    # the next tick (progress 1) is a layout of its own: the stone a whole block on, at x 2..3; it shares
    # the block arrays of the tick before (no block changed), only what the moving_piston cells carry is new
    s.seek(t + 1)
    a, b = s.frame(t).layout, s.frame(t + 1).layout
    assert a is not b and b.pos is a.pos and b.states is a.states and set(b.moving) == set(a.moving)
    x = boxes_of(ex.canvas._geom, row)[:, 0]
    assert (x.min(), x.max()) == (2.0, 3.0) and ex.canvas.frame.layout.moving[row].progress == 1.0


def test_render_world_draws_the_moving_block_between_its_places():
    w = pusher()
    w.use(LEVER)
    w.step(1)
    quads, colours, _ = R._faces(w.blocks(), w.moving())
    xs = quads[..., 0]
    # the stone's west face and the head's plate front stand at x 1.5, the stone's east face at x 2.5
    assert ((xs == 1.5).all(1)).sum() == 2 and ((xs == 2.5).all(1)).sum() == 1
    still, _, _ = R._faces(w.blocks())
    assert not ((still[..., 0] == 2.5).all(1)).any()
    assert R.render_world(w).sha256 != R.render(w.blocks(), tick=w.tick).sha256


@pytest.mark.parametrize("make, start", [
    (builds.flying_machine, builds.kick_flying_machine),
    (builds.piston_door_2x2, lambda w: w.use(builds.DOOR_LEVER)),
    (builds.t_flip_flop, lambda w: w.use(builds.TFF_BUTTON)),
])
def test_every_moving_block_of_a_build_is_drawn_between_its_source_and_destination(make, start):
    w = make()
    start(w)
    seen = 0
    for _ in range(12):
        w.step(1)
        f = frame_from_world(w)
        g = G.build(f.layout)
        for i, m in f.layout.moving.items():
            dst = f.layout.pos[i]
            drawn = boxes_of(g, i)
            lo = np.minimum(dst, m.source) - 0.5  # a piston head's rod reaches a quarter block behind it
            hi = np.maximum(dst, m.source) + 1.5
            assert len(drawn) and (drawn >= lo).all() and (drawn <= hi).all()
            off = (np.asarray(m.source) - dst) * (1 - m.progress)
            if not m.piston:  # a full block: its cell, set back by (1 - progress) (an observer's face and eye
                # stand out by 0.2 of a pixel)
                assert np.allclose(drawn.min(0), dst + off, atol=0.013)
                assert np.allclose(drawn.max(0), dst + off + 1, atol=0.013)
            seen += 1
    assert seen >= 4
