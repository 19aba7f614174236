"""Iron doors and iron trapdoors (Java Edition 1.20): opened by power on the neighbour update that brings it,
in the same game tick; a door's two halves share their state. Layout: a stone floor at y=0."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, prop

from scicraft_viz import World
from scicraft_viz.engine import compiled
from scicraft_viz.errors import PlacementError

LO, UP = (0, 1, 0), (0, 2, 0)


def door(w, pos=LO):
    """(open, powered) of the door half at pos."""
    return prop(w, pos, "open") == "true", prop(w, pos, "powered") == "true"


def test_a_player_places_both_halves():
    w = new_world()
    w.set_block(LO, "iron_door[facing=east,hinge=right]")
    assert w.get_block(LO) == "minecraft:iron_door[facing=east,half=lower,hinge=right,open=false,powered=false]"
    assert w.get_block(UP) == "minecraft:iron_door[facing=east,half=upper,hinge=right,open=false,powered=false]"
    assert [(e.kind, e.pos) for e in w.events[-2:]] == [("placed", LO), ("placed", UP)]


def test_a_player_cannot_place_an_upper_half_or_a_door_without_room():
    w = new_world()
    with pytest.raises(PlacementError, match="by its lower half"):
        w.set_block(LO, "iron_door[half=upper]")
    w.set_block(UP, "glass")
    with pytest.raises(PlacementError, match=r"needs air at \(0, 2, 0\)"):
        w.set_block(LO, "iron_door")
    with pytest.raises(PlacementError, match="item 1: .*needs air"):
        w.set_blocks([((3, 1, 0), "iron_door"), (LO, "iron_door")])
    assert w.get_block((3, 1, 0)) == "minecraft:air"  # all or nothing
    errors = w.set_blocks([((3, 1, 0), "iron_door"), ((1, 2, 0), "stone"), ((1, 1, 0), "iron_door")],
                          skip_errors=True)
    assert [i for i, _ in errors] == [2]
    assert w.get_block((3, 2, 0)).startswith("minecraft:iron_door[facing=north,half=upper")
    with pytest.raises(PlacementError, match="needs a solid block below"):
        w.set_block((0, 5, 0), "iron_door")


def test_a_lever_beside_the_lower_half_opens_both_in_the_same_tick():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((1, 1, 0), "lever[face=floor]")
    t = w.tick
    w.use((1, 1, 0))
    assert w.tick == t and door(w, LO) == (True, True) and door(w, UP) == (True, True)
    w.use((1, 1, 0))
    assert w.tick == t and door(w, LO) == (False, False) and door(w, UP) == (False, False)
    assert [(e.pos, e.new) for e in w.events if e.kind == "state" and e.pos in (LO, UP)] == [
        (LO, 1), (UP, 1), (LO, 0), (UP, 0)]


def test_setblock_text_with_both_halves_loads_as_a_player_places_it():
    """A build saved as setblock lines names both halves; placed as a player would, the lower half brings
    the upper one and the line for the upper half changes nothing."""
    w = new_world()
    w.set_block(LO, "iron_door[facing=west,hinge=right]")
    w.set_block((1, 1, 0), "lever[face=floor,powered=true]")
    back = World.from_mcfunction(w.to_mcfunction())
    assert back.blocks() == w.blocks()
    with pytest.raises(PlacementError, match="by its lower half"):
        back.set_block(UP, "iron_door[half=upper,facing=east]")


def test_power_beside_the_upper_half_opens_both():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((1, 2, 0), "redstone_block")
    assert door(w, LO) == (True, True) and door(w, UP) == (True, True)
    w.remove_block((1, 2, 0))
    assert door(w, LO) == (False, False) and door(w, UP) == (False, False)


def test_stays_open_while_either_half_is_powered():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((1, 2, 0), "redstone_block")
    w.set_block((-1, 1, 0), "redstone_block")
    w.set_block((1, 2, 0), "air")
    assert door(w, LO) == (True, True) and door(w, UP) == (True, True)
    w.set_block((-1, 1, 0), "air")
    assert door(w, UP) == (False, False)


def test_a_button_opens_it_for_the_button_pulse():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((1, 1, 0), "stone_button[face=floor]")
    w.use((1, 1, 0))
    t = w.tick
    assert door(w, LO) == (True, True)
    w.step(19)
    assert door(w, LO) == (True, True)
    w.step(1)
    assert w.tick == t + 20 and door(w, LO) == (False, False)


def test_use_does_not_open_an_iron_door_or_trapdoor():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((2, 1, 0), "iron_trapdoor")
    assert w.use(LO) is False and w.use(UP) is False and w.use((2, 1, 0)) is False
    assert door(w, LO) == (False, False) and door(w, (2, 1, 0)) == (False, False)


def test_both_halves_fall_when_the_block_below_goes():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block(LO, "iron_door")
    w.remove_block((0, 0, 0))
    assert w.get_block(LO) == w.get_block(UP) == "minecraft:air"
    assert sorted(e.pos for e in w.events if e.kind == "popped") == [LO, UP]


def test_removing_one_half_takes_the_other():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.remove_block(UP)
    assert w.get_block(LO) == "minecraft:air"
    w.set_block(LO, "iron_door")
    w.remove_block(LO)
    assert w.get_block(UP) == "minecraft:air"


def test_setblock_keeps_the_saved_state_and_a_door_ignores_a_doors_update():
    """/setblock (replay) places halves as saved; the update the upper half's placement sends does not
    reach the lower half (vanilla: a door ignores updates from a door). Another update does."""
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((1, 1, 0), "redstone_block")
    w.set_block(LO, "iron_door[half=lower]")
    w.set_block(UP, "iron_door[half=upper]")
    assert door(w, LO) == (False, False) and door(w, UP) == (False, False)
    w.set_block((3, 1, 0), "stone")  # too far to reach it
    assert door(w, LO) == (False, False)
    w.set_block((-1, 1, 0), "glass")
    assert door(w, LO) == (True, True) and door(w, UP) == (True, True)


def test_a_lone_half_placed_by_setblock_stays_until_the_block_above_changes():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block(LO, "iron_door")
    w.set_block((1, 1, 0), "stone")  # an update from beside: the half stays
    assert w.get_block(LO).startswith("minecraft:iron_door[")
    w.set_block(UP, "glass")
    assert w.get_block(LO) == "minecraft:air"
    assert [e.pos for e in w.events if e.kind == "popped"] == [LO]


def test_a_half_placed_by_setblock_gives_its_state_to_the_other():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block(LO, "iron_door[facing=south,hinge=left]")
    w.set_block(UP, "iron_door[half=upper,facing=west,hinge=right,open=true,powered=true]")
    assert w.get_block(LO) == "minecraft:iron_door[facing=west,half=lower,hinge=right,open=true,powered=true]"


def test_placed_next_to_power_a_player_door_starts_open():
    w = new_world()
    w.set_block((1, 2, 0), "redstone_block")
    w.set_block(LO, "iron_door")
    assert door(w, LO) == (True, True) and door(w, UP) == (True, True)


# ----------------------------------------------------------------------------- trapdoors
TD = (0, 2, 0)


def test_trapdoor_states():
    w = World()
    w.set_block((0, 0, 0), "iron_trapdoor[half=top,facing=west]")
    assert w.get_block((0, 0, 0)) == ("minecraft:iron_trapdoor[facing=west,half=top,open=false,powered=false,"
                                      "waterlogged=false]")
    with pytest.raises(ValueError, match="waterlogged"):
        w.set_block((0, 0, 0), "iron_trapdoor[waterlogged=true]")


def test_trapdoor_opens_and_closes_with_power_in_the_same_tick():
    w = new_world()
    w.set_block(TD, "iron_trapdoor")  # it hangs in the air: trapdoors need no support
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 2, 0), "lever[face=floor]")
    t = w.tick
    w.use((1, 2, 0))
    assert w.tick == t and door(w, TD) == (True, True)
    w.use((1, 2, 0))
    assert door(w, TD) == (False, False)
    assert [(e.kind, e.new) for e in w.events if e.pos == TD][1:] == [("state", 1), ("state", 0)]


def test_a_player_trapdoor_placed_next_to_power_starts_open():
    w = new_world()
    w.set_block((1, 1, 0), "redstone_block")
    w.set_block(LO, "iron_trapdoor")
    assert door(w, LO) == (True, True)


def test_dust_on_a_closed_top_trapdoor_pops_when_it_opens():
    w = new_world()
    w.set_block(TD, "iron_trapdoor[half=top]")
    w.set_block((0, 3, 0), "redstone_wire")
    w.set_block((3, 3, 0), "iron_trapdoor")  # a closed bottom trapdoor: its top is not whole
    with pytest.raises(PlacementError, match="needs a solid block below"):
        w.set_block((3, 4, 0), "redstone_wire")
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 2, 0), "lever[face=floor]")
    w.use((1, 2, 0))
    assert door(w, TD) == (True, True)
    assert w.get_block((0, 3, 0)) == "minecraft:air"
    assert [e.pos for e in w.events if e.kind == "popped"] == [(0, 3, 0)]


def test_compiled_engine_runs_doors_and_trapdoors():
    """A door is one node for both halves; a trapdoor power can move with a block resting on it is refused."""
    w = new_world()
    w.set_block(LO, "iron_door")
    assert compiled.compile_world(w).members == [[LO, UP]]
    w = new_world()
    w.set_blocks([(LO, "iron_trapdoor[half=top]"), ((0, 2, 0), "redstone_wire"), ((1, 1, 0), "lever[face=floor]")])
    with pytest.raises(compiled.CompileRefused, match=r"^iron_trapdoor at \(0, 1, 0\): redstone_wire at \(0, 2, 0\)"):
        compiled.compile_world(w)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), max_size=12))
def test_a_door_is_open_exactly_while_a_lever_beside_either_half_is_on(clicks):
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((2, 2, 0), "stone")
    levers = [(1, 1, 0), (-1, 1, 0), (1, 2, 0)]
    w.set_block(levers[0], "lever[face=floor]")
    w.set_block(levers[1], "lever[face=floor]")
    w.set_block(levers[2], "lever[face=wall,facing=west]")  # beside the upper half
    on_ = [False] * 3
    for i in clicks:
        w.use(levers[i])
        on_[i] = not on_[i]
        assert door(w, LO) == door(w, UP) == (any(on_), any(on_))
