"""Lava: loaded as vanilla's `lava[level=N]`, a still fluid here; water above or beside it turns a source to obsidian
and flowing lava to cobblestone at once (LiquidBlock.shouldSpreadLiquid); blue ice beside lava over soul soil makes
basalt; a piston breaks lava. docs/redstone.md section 84."""

import pytest
from redstone_helpers import name, on

from scicraft_viz import World
from scicraft_viz.engine import blocks as B


def floor(w, xs=range(-9, 14), zs=range(-9, 10)):
    """A floor wide enough that water spreading from near (0, 1, 0) finds no drop within 4 blocks."""
    for x in xs:
        for z in zs:
            w.set_block((x, 0, z), "stone")


@pytest.mark.parametrize("level", ["0", "3", "8", "15"])
def test_lava_is_known_by_its_vanilla_states_and_conducts_nothing(level):
    st = B.parse_state(f"lava[level={level}]")
    assert st.id == B.PARTIAL and B.vanilla_kind(st.name, st.props)[1] == 0  # no face holds anything
    assert B.PUSH_REACTION[B.vanilla_number(st.name, st.props)] == B.PUSH_DESTROY


@pytest.mark.parametrize("lava, made", [("lava", "obsidian"), ("lava[level=2]", "cobblestone"),
                                        ("lava[level=8]", "cobblestone")])
def test_water_placed_beside_lava_turns_it_to_stone_at_once(lava, made):
    w = World()
    floor(w)
    w.set_block((0, 1, 0), lava)
    w.set_block((1, 1, 0), "water")
    assert w.tick == 0 and name(w, (0, 1, 0)) == made and w.get_block((1, 1, 0)) == "minecraft:water[level=0]"


@pytest.mark.parametrize("water_at, made", [((0, 2, 0), "obsidian"), ((0, 1, 1), "obsidian"),
                                            ((0, 1, -1), "obsidian"), ((-1, 1, 0), "obsidian"),
                                            ((1, 1, 0), "obsidian")])
def test_lava_looks_for_water_above_and_on_its_four_sides(water_at, made):
    w = World()
    floor(w)
    w.set_block(water_at, "stone_slab[type=bottom,waterlogged=true]")  # a waterlogged block is water too
    w.set_block((0, 1, 0), "lava")
    assert name(w, (0, 1, 0)) == made


def test_water_under_lava_leaves_it():
    """vanilla looks at every side but the one below."""
    w = World()
    w.set_block((0, 0, 0), "stone_slab[type=bottom,waterlogged=true]")
    w.set_block((0, 1, 0), "lava")
    w.step(10)
    assert w.get_block((0, 1, 0)) == "minecraft:lava[level=0]"


def test_spreading_water_reaches_lava_and_makes_cobblestone_in_that_tick():
    """A source at (0, 1, 0) on a wide floor: level 1 at (1, 1, 0) at tick 5, level 2 at (2, 1, 0) at tick 10; flowing
    lava at (3, 1, 0) turns to cobblestone when the water arrives beside it, and the source lava beyond the
    cobblestone stays lava."""
    w = World()
    floor(w)
    w.set_block((3, 1, 0), "lava[level=4]")
    w.set_block((4, 1, 0), "lava")
    w.set_block((0, 1, 0), "water")
    seen = {}
    for _ in range(12):
        w.step(1)
        seen[w.tick] = (w.get_block((2, 1, 0)), name(w, (3, 1, 0)))
    assert seen[9] == ("minecraft:air", "lava")
    assert seen[10] == ("minecraft:water[level=2]", "cobblestone")
    assert w.get_block((4, 1, 0)) == "minecraft:lava[level=0]"


def test_blue_ice_beside_lava_over_soul_soil_makes_basalt():
    w = World()
    w.set_block((0, 0, 0), "soul_soil")
    w.set_block((1, 1, 0), "blue_ice")
    w.set_block((0, 1, 0), "lava")
    assert w.get_block((0, 1, 0)) == "minecraft:basalt[axis=y]"
    w.set_block((3, 0, 0), "stone")  # not over soul soil: it stays
    w.set_block((4, 1, 0), "blue_ice")
    w.set_block((3, 1, 0), "lava")
    assert name(w, (3, 1, 0)) == "lava"


def test_lava_stays_as_loaded():
    """The engine keeps lava still (docs/limits.md): a source and flowing lava on a floor are unchanged 100 game ticks
    later, and no fluid tick is pending for them."""
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "lava")
    w.set_block((3, 1, 0), "lava[level=6]")
    w.step(100)
    assert w.get_block((0, 1, 0)) == "minecraft:lava[level=0]" and w.get_block((1, 1, 0)) == "minecraft:air"
    assert w.get_block((3, 1, 0)) == "minecraft:lava[level=6]" and w.fluid_ticks() == []
    assert w.water() == {}


def test_a_piston_breaks_lava_and_an_observer_sees_it_turn_to_obsidian():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "piston[facing=north]")
    w.set_block((1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, -1), "lava")
    w.use((1, 1, 0))
    w.step(3)
    assert name(w, (0, 1, -1)) == "piston_head" and name(w, (0, 1, -2)) == "air"
    w.set_block((3, 1, 0), "lava")
    w.set_block((3, 1, 1), "observer[facing=north]")  # watches the lava to its north
    w.step(5)
    w.set_block((4, 1, 0), "water")
    assert name(w, (3, 1, 0)) == "obsidian"
    powered = []
    for _ in range(4):
        w.step(1)
        powered.append(on(w, (3, 1, 1)))
    assert powered == [False, True, True, False]  # 2 game ticks after the change, for 2
