"""Beds, bells, turtle eggs, dirt paths, powder snow and big dripleaves: blocks that builds hold for their looks or for
the entities they test. None conducts; their faces hold what their vanilla support shapes say; a piston moves a dirt
path and powder snow and breaks the others; a bell hangs as its attachment says. docs/redstone.md section 83."""

import pytest
from redstone_helpers import name, new_world, on
from test_compiled import _compare

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import compile_world
from scicraft_viz.errors import BlockStateError, PlacementError

# (the lone bed halves face away from where the tests put blocks: a half goes when its other half's place changes)
BLOCKS = ["dirt_path", "powder_snow", "turtle_egg[eggs=3,hatch=1]", "white_bed[facing=south,part=foot]",
          "red_bed[facing=north,part=head]", "bell[attachment=double_wall,facing=east]",
          "big_dripleaf[facing=south,waterlogged=true]", "big_dripleaf_stem[facing=west]"]


@pytest.mark.parametrize("state", BLOCKS)
def test_they_are_known_by_their_vanilla_states(state):
    st = B.parse_state(state)
    assert st.id == B.PARTIAL and B.is_known(st.name)
    assert B.vanilla_state_of(B.vanilla_number(st.name, st.props)) == str(st)
    assert B.analog_output(st.name, st.props) == -1  # a comparator reads none of them


def test_every_bed_colour_is_known():
    assert all(B.is_known(f"{c}_bed") for c in B.DYE_COLOURS)


@pytest.mark.parametrize("tilt", ["unstable", "partial", "full"])
def test_a_tilted_big_dripleaf_is_refused_naming_why(tilt):
    with pytest.raises(BlockStateError, match="tilted big dripleaf .*scheduled ticks"):
        B.parse_state(f"big_dripleaf[tilt={tilt}]")


@pytest.mark.parametrize("block", BLOCKS)
def test_none_of_them_conducts(block):
    """A repeater pointing into the block: the lamp behind it stays dark (stone, the control, lights it)."""
    for middle, lit in (("stone", True), (block, False)):
        w = new_world()
        w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
        w.set_block((1, 1, 0), "repeater[facing=west]")
        w.set_block((2, 1, 0), middle)
        w.set_block((3, 1, 0), "redstone_lamp")
        w.use((0, 1, 0))
        w.step(4)
        assert on(w, (1, 1, 0)) and on(w, (3, 1, 0)) == lit, middle


@pytest.mark.parametrize("support, holds", [("powder_snow", True), ("dirt_path", False), ("turtle_egg", False),
                                            ("white_bed", False), ("big_dripleaf", False), ("stone", True)])
def test_what_their_tops_hold(support, holds):
    """Powder snow's support shape is a whole cube (entities sink in, dust does not); a dirt path is 15/16 high, so
    its top is not a whole face; eggs, beds and leaves cover no face whole."""
    for thing in ("redstone_wire", "repeater", "lever[face=floor]"):
        w = World()
        w.set_block((0, 0, 0), "stone")
        w.set_block((0, 1, 0), support)
        if holds:
            w.set_block((0, 2, 0), thing)
            assert name(w, (0, 2, 0)) == thing.split("[")[0].replace("repeater", "redstone_repeater")
        else:
            with pytest.raises(PlacementError, match="cannot place .* at \\(0, 2, 0\\)"):
                w.set_block((0, 2, 0), thing)


def test_a_dirt_path_holds_a_lantern_hung_under_it_but_not_a_torch_on_it():
    w = World()
    w.set_block((0, 2, 0), "dirt_path")
    w.set_block((0, 1, 0), "lantern[hanging=true]")  # its bottom face is whole
    assert name(w, (0, 1, 0)) == "lantern"
    with pytest.raises(PlacementError):
        w.set_block((0, 3, 0), "torch")


@pytest.mark.parametrize("block, moved", [("dirt_path", True), ("powder_snow", True), ("turtle_egg", False),
                                          ("white_bed[facing=north,part=foot]", False),
                                          ("bell[attachment=double_wall,facing=north]", False),
                                          ("big_dripleaf", False), ("big_dripleaf_stem", False)])
def test_a_piston_moves_a_dirt_path_and_powder_snow_and_breaks_the_rest(block, moved):
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=north]")
    w.set_block((1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, -1), block)
    w.use((1, 1, 0))
    w.step(3)
    assert name(w, (0, 1, -1)) == "piston_head"
    assert name(w, (0, 1, -2)) == (block.split("[")[0] if moved else "air")


def test_a_wall_bell_hangs_on_the_block_it_faces_and_pops_when_it_goes():
    """vanilla BellBlock.canSurvive: a single-wall bell facing east needs the west face of the block east of it."""
    w = new_world()
    bell = "bell[attachment=single_wall,facing=east]"
    w.set_block((-1, 1, 0), "stone")  # behind it: no help
    with pytest.raises(PlacementError, match="bell .*whole face.* at \\(1, 1, 0\\)"):
        w.set_block((0, 1, 0), bell)
    w.set_block((1, 1, 0), "glass")
    w.set_block((0, 1, 0), bell)
    assert name(w, (0, 1, 0)) == "bell"
    w.set_block((1, 1, 0), "air")
    assert name(w, (0, 1, 0)) == "air"


def test_a_double_wall_bell_floats_and_a_floor_bell_pops_without_its_floor():
    w = World()
    w.set_block((0, 1, 0), "bell[attachment=double_wall,facing=north]")
    assert name(w, (0, 1, 0)) == "bell"
    w.set_block((2, 0, 0), "stone")
    w.set_block((2, 1, 0), "bell[attachment=floor,facing=north]")
    w.set_block((2, 0, 0), "air")
    assert name(w, (2, 1, 0)) == "air"


def test_a_ceiling_bell_hangs_from_the_centre_of_a_fence_post():
    """vanilla canSupportCenter: a fence post's bottom holds it at its centre, a bed's does not reach the ceiling."""
    w = World()
    w.set_block((0, 2, 0), "oak_fence")
    w.set_block((0, 1, 0), "bell[attachment=ceiling,facing=north]")
    assert name(w, (0, 1, 0)) == "bell"
    w.set_block((2, 2, 0), "white_bed")
    with pytest.raises(PlacementError, match="centre"):
        w.set_block((2, 1, 0), "bell[attachment=ceiling,facing=north]")


def test_beds_and_eggs_need_nothing_under_them():
    """vanilla gives beds, turtle eggs and big dripleaves no canSurvive rule on their own block below."""
    w = World()
    for x, block in enumerate(("white_bed", "turtle_egg", "big_dripleaf", "dirt_path", "powder_snow")):
        w.set_block((2 * x, 5, 0), block)
        assert name(w, (2 * x, 5, 0)) == block


def test_the_compiled_engine_runs_dust_over_powder_snow_as_the_reference_does():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "powder_snow")
    w.set_block((1, 2, 0), "redstone_wire")
    w.set_block((2, 1, 0), "bell[attachment=floor,facing=north]")
    w.set_block((0, 1, 1), "redstone_wire")
    w.set_block((1, 1, 1), "redstone_lamp")
    cw = compile_world(w)
    _compare(w, cw, [((0, 1, 0), 3), ((0, 1, 0), 5)])
