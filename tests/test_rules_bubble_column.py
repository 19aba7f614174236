"""Bubble columns: loaded as vanilla's `bubble_column[drag=...]`, a water source that stays (its fluid state is
vanilla's water source): it spreads as a source does, feeds flowing water, turns lava beside it to obsidian, and a
piston breaks it; the compiled engine refuses it as it refuses water. docs/redstone.md section 85."""

import pytest
from redstone_helpers import name

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import CompileRefused, compile_world


def floor(w, xs=range(-9, 10), zs=range(-9, 10)):
    """A floor wide enough that water spreading from near (0, 1, 0) finds no drop within 4 blocks."""
    for x in xs:
        for z in zs:
            w.set_block((x, 0, z), "stone")


@pytest.mark.parametrize("drag", ["true", "false"])
def test_a_bubble_column_is_known_by_its_vanilla_states(drag):
    st = B.parse_state(f"bubble_column[drag={drag}]")
    assert st.id == B.PARTIAL and B.vanilla_kind(st.name, st.props)[1] == 0
    assert B.PUSH_REACTION[B.vanilla_number(st.name, st.props)] == B.PUSH_DESTROY


def test_a_bubble_column_spreads_as_a_water_source_and_stays():
    """Over soul sand, with open floor round it: its fluid tick 5 game ticks after it is placed sends level-1 water to
    its four sides; 40 game ticks later the column is unchanged and counts among the world's water."""
    w = World()
    floor(w)
    w.set_block((0, 0, 0), "soul_sand")
    w.set_block((0, 1, 0), "bubble_column[drag=false]")
    assert w.fluid_ticks() == [(5, (0, 1, 0), "water")]
    w.step(4)
    assert w.get_block((1, 1, 0)) == "minecraft:air"
    w.step(1)
    assert [w.get_block(p) for p in ((1, 1, 0), (-1, 1, 0), (0, 1, 1), (0, 1, -1))] == ["minecraft:water[level=1]"] * 4
    w.step(40)
    assert w.get_block((0, 1, 0)) == "minecraft:bubble_column[drag=false]"
    assert w.water()[(0, 1, 0)] == "minecraft:bubble_column[drag=false]"


def test_two_bubble_columns_make_a_source_between_them_over_a_solid_block():
    w = World()
    floor(w)
    for x in (0, 2):
        w.set_block((x, 0, 0), "magma_block")
        w.set_block((x, 1, 0), "bubble_column[drag=true]")
    w.step(10)
    assert w.get_block((1, 1, 0)) == "minecraft:water[level=0]"


def test_lava_beside_a_bubble_column_turns_to_obsidian():
    w = World()
    floor(w)
    w.set_block((0, 0, 0), "soul_sand")
    w.set_block((0, 1, 0), "bubble_column[drag=false]")
    w.set_block((1, 1, 0), "lava")
    assert name(w, (1, 1, 0)) == "obsidian"


def test_a_piston_breaks_a_bubble_column():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "piston[facing=north]")
    w.set_block((0, 1, -1), "bubble_column[drag=false]")
    w.set_block((1, 1, 0), "redstone_block")
    w.step(3)
    assert name(w, (0, 1, -1)) == "piston_head" and name(w, (0, 1, -2)) == "air"  # broken, not pushed


def test_the_compiled_engine_refuses_a_bubble_column():
    w = World()
    w.set_block((0, 0, 0), "soul_sand")
    w.set_block((0, 1, 0), "bubble_column[drag=false]")
    with pytest.raises(CompileRefused, match="water at \\(0, 1, 0\\)"):
        compile_world(w)
