"""Fire (Java Edition 1.20): to redstone a block with no shape that conducts nothing, holds nothing, stays on the
whole top face of the block below it, goes when that goes, and is broken by a piston's push; an observer sees it
placed and removed. Its random ageing, burning out and spreading are left out. docs/redstone.md section 81."""

import numpy as np
import pytest
from redstone_helpers import name, new_world, on, run

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.errors import BlockStateError, PlacementError
from scicraft_viz.views import geometry
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world

FIRE = "minecraft:fire[age=0,east=false,north=false,south=false,up=false,west=false]"


def test_fire_is_a_known_partial_block_with_vanillas_states():
    st = B.parse_state("fire")
    assert str(st) == FIRE and st.id == B.PARTIAL
    st = B.parse_state("fire[age=15,up=true]")
    assert B.vanilla_state_of(B.vanilla_number(st.name, st.props)) == str(st)
    assert B.vanilla_number("fire", B.parse_state("fire").props) == 2391  # Java 1.20's default fire state
    assert B.STURDY[B.vanilla_number("fire", st.props)] == 0  # no face holds anything


def test_soul_fire_is_refused_with_the_reason():
    with pytest.raises(BlockStateError, match="soul_fire .* is not supported: soul fire"):
        B.parse_state("soul_fire")


@pytest.mark.parametrize("under, ok", [("stone", True), ("glass", True), ("observer[facing=up]", True),
                                       ("slime_block", True), ("oak_slab[type=top]", True),
                                       ("oak_slab[type=bottom]", False), ("honey_block", False),
                                       ("cobblestone_wall", False), ("hopper", False), ("air", False)])
def test_fire_needs_a_whole_top_face_below(under, ok):
    w = World()
    w.set_block((0, -1, 0), "stone")
    if under != "air":
        w.set_block((0, 0, 0), under)
    if ok:
        w.set_block((0, 1, 0), "fire")
        assert w.get_block((0, 1, 0)) == FIRE
    else:
        with pytest.raises(PlacementError) as e:
            w.set_block((0, 1, 0), "fire")
        assert str(e.value).startswith("cannot place fire at (0, 1, 0): it needs a block below with a whole face "
                                       "toward it (a flammable neighbour does not hold fire here) at (0, 0, 0)")
        assert name(w, (0, 1, 0)) == "air"


def test_fire_stays_and_goes_in_the_same_update_as_the_block_below():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "fire")
    w.step(400)  # no ageing, no burning out: it stays while its support does
    assert w.get_block((0, 1, 0)) == FIRE
    w.remove_block((0, 0, 0))
    assert w.blocks() == {}
    assert [(e.kind, e.pos) for e in w.events][-2:] == [("removed", (0, 0, 0)), ("popped", (0, 1, 0))]


def test_fire_conducts_nothing_and_gives_no_power():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "repeater[facing=west]")
    w.set_block((2, 1, 0), "fire")
    w.set_block((3, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    w.step(4)
    assert on(w, (1, 1, 0)) and not on(w, (3, 1, 0))
    assert w.power((2, 1, 0)).level == 0


def test_an_observer_sees_fire_placed_and_put_out():
    w = new_world()
    w.set_block((0, 1, 0), "observer[facing=up]")
    got = run(w, 12, lambda: on(w, (0, 1, 0)),
              {w.tick: [lambda: w.set_block((0, 2, 0), "fire")], w.tick + 6: [lambda: w.remove_block((0, 2, 0))]})
    t0 = got[0][0]
    assert got == [(t0, False), (t0 + 2, True), (t0 + 4, False), (t0 + 8, True), (t0 + 10, False)]


@pytest.mark.parametrize("sticky", [False, True])
def test_a_piston_breaks_fire_in_its_way(sticky):
    w = new_world()
    w.set_block((0, 1, 0), f"{'sticky_' if sticky else ''}piston[facing=east]")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), "fire")
    w.use((0, 1, 1))
    w.step(3)
    assert name(w, (1, 1, 0)) == "piston_head" and name(w, (2, 1, 0)) == "stone"
    assert name(w, (3, 1, 0)) == "air"


def test_slime_does_not_drag_fire_and_fire_goes_when_the_slime_under_it_leaves():
    """A piston pushes a slime block east; the fire on it is not carried along (a piston never drags a block it would
    break), and goes when the slime block leaves from under it."""
    w = World()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((1, 1, 0), "slime_block")
    w.set_block((1, 2, 0), "fire")
    w.set_block((-1, 1, 0), "redstone_block")
    w.step(3)
    assert name(w, (1, 1, 0)) == "piston_head" and name(w, (2, 1, 0)) == "slime_block"
    assert name(w, (1, 2, 0)) == "air" and name(w, (2, 2, 0)) == "air"


def test_the_views_draw_fire_as_two_crossed_sheets_and_say_what_it_is():
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "fire")])
    f = frame_from_world(w)
    g = geometry.build(f.layout)
    boxes = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]  # in world units
    drawn = [box for b, box in zip(g.block.tolist(), boxes.tolist(), strict=True) if f.layout.positions[b] == (0, 1, 0)]
    assert drawn == [[0, 1, 0.46875, 1, 1.875, 0.53125], [0.46875, 1, 0, 0.53125, 1.875, 1]]
    assert describe_block(f, (0, 1, 0)).endswith("· decorative, never powered; needs a whole face below; a piston "
                                                 "breaks it")
