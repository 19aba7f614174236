"""Wooden doors, trapdoors and fence gates (Java Edition 1.20): every wood's, named by Minecraft's block data,
follows power as the iron doors and trapdoors do (tests/test_rules_doors.py), and a player opens and closes them
by hand, which iron cannot. Layout: a stone floor at y=0 (docs/redstone.md section 37)."""

import minecraft_data
import pytest
from redstone_helpers import new_world, on, prop

from scicraft_viz import World
from scicraft_viz.engine.blocks import OPENERS, PALETTE
from scicraft_viz.engine.compiled import compile_world
from tests.test_compiled_analog import compare

LO, UP, LEVER = (0, 1, 0), (0, 2, 0), (1, 1, 0)
DOORS = OPENERS[PALETTE["iron_door"][0]][1:]
TRAPDOORS = OPENERS[PALETTE["iron_trapdoor"][0]][1:]
GATES = OPENERS[PALETTE["oak_fence_gate"][0]]


def door(w, pos=LO):
    """(open, powered) of the door or trapdoor at pos."""
    return prop(w, pos, "open") == "true", prop(w, pos, "powered") == "true"


def test_every_wooden_door_and_trapdoor_in_minecraft_data_is_known():
    data = minecraft_data("1.20").blocks_name
    assert set(DOORS) == {n for n in data if n.endswith("_door")} - {"iron_door"}
    assert set(TRAPDOORS) == {n for n in data if n.endswith("_trapdoor")} - {"iron_trapdoor"}
    assert set(GATES) == {n for n in data if n.endswith("_fence_gate")}
    assert len(DOORS) == len(TRAPDOORS) == len(GATES) == 11


@pytest.mark.parametrize("name", DOORS)
def test_a_lever_opens_a_wooden_door_in_the_same_tick_and_it_keeps_its_name(name):
    w = new_world()
    w.set_block(LO, f"{name}[facing=east,hinge=right]")
    assert w.get_block(UP) == f"minecraft:{name}[facing=east,half=upper,hinge=right,open=false,powered=false]"
    w.set_block(LEVER, "lever[face=floor]")
    t = w.tick
    w.use(LEVER)
    assert w.tick == t and door(w, LO) == door(w, UP) == (True, True)
    assert w.get_block(LO) == f"minecraft:{name}[facing=east,half=lower,hinge=right,open=true,powered=true]"
    w2 = World(replay=True)
    w2.set_blocks(list(w.blocks().items()))
    assert w2.blocks() == w.blocks()


@pytest.mark.parametrize("name", TRAPDOORS)
def test_a_lever_opens_a_wooden_trapdoor_in_the_same_tick(name):
    w = new_world()
    w.set_block(LO, f"{name}[half=top,facing=south]")
    w.set_block(LEVER, "lever[face=floor]")
    t = w.tick
    w.use(LEVER)
    assert w.tick == t and door(w, LO) == (True, True)
    assert w.get_block(LO) == f"minecraft:{name}[facing=south,half=top,open=true,powered=true,waterlogged=false]"


def test_a_hand_opens_and_closes_both_halves_and_powered_stays():
    """Use flips `open` only: a powered door closed by hand stays shut until its power changes, then follows it."""
    w = new_world()
    w.set_block(LO, "oak_door")
    t = w.tick
    assert w.use(UP) is True
    assert w.tick == t and door(w, LO) == door(w, UP) == (True, False)
    assert w.use(LO) is True and door(w, LO) == door(w, UP) == (False, False)
    w.set_block(LEVER, "lever[face=floor]")
    w.use(LEVER)
    assert door(w, LO) == (True, True)
    w.use(LO)
    assert door(w, LO) == door(w, UP) == (False, True)
    w.step(5)
    assert door(w, LO) == (False, True)
    w.use(LEVER)
    assert door(w, LO) == (False, False)
    w.use(LEVER)
    assert door(w, LO) == (True, True)


def test_a_hand_toggle_updates_no_neighbour_but_an_observer_sees_it():
    """A lamp beside a hand-opened trapdoor hears nothing; an observer watching it pulses 2 gt later for 2 gt."""
    w = new_world()
    w.set_block(LO, "spruce_trapdoor")
    w.set_block((0, 1, 1), "observer[facing=north]")  # watches the trapdoor to its north
    w.set_block((0, 1, 2), "redstone_lamp")
    w.step(5)
    t = w.tick
    w.use(LO)
    assert door(w, LO) == (True, False)
    seen = []
    for _ in range(6):
        w.step(1)
        seen.append(on(w, (0, 1, 1)))
    assert seen == [False, True, True, False, False, False] and w.tick == t + 6


def test_a_hand_opened_top_trapdoor_drops_the_torch_on_it():
    w = new_world()
    w.set_block(LO, "birch_trapdoor[half=top]")
    w.set_block(UP, "redstone_torch")
    w.use(LO)
    assert w.get_block(UP) == "minecraft:air" and door(w, LO) == (True, False)
    w.use(LO)
    assert door(w, LO) == (False, False)


def test_iron_still_cannot_be_opened_by_hand():
    w = new_world()
    w.set_block(LO, "iron_door")
    w.set_block((2, 1, 0), "iron_trapdoor")
    assert w.use(LO) is False and w.use((2, 1, 0)) is False


def test_the_compiled_engine_drives_wooden_doors_as_iron_ones():
    w = new_world()
    w.set_blocks([(LO, "dark_oak_door"), (LEVER, "lever[face=floor]"), ((2, 1, 0), "redstone_wire"),
                  ((3, 1, 0), "cherry_trapdoor"), ((2, 1, 1), "redstone_wire"), ((2, 1, 2), "lever[face=floor]")])
    cw = compile_world(w)
    assert compare(w, cw, [(LEVER, 4), ((2, 1, 2), 4), (LEVER, 4), ((2, 1, 2), 4)]) == 4 * 5


@pytest.mark.parametrize("name", GATES)
def test_a_lever_opens_a_fence_gate_in_the_same_tick_and_a_hand_toggles_it(name):
    w = new_world()
    w.set_block(LO, f"{name}[facing=west,in_wall=true]")
    assert w.get_block(LO) == f"minecraft:{name}[facing=west,in_wall=true,open=false,powered=false]"
    w.set_block(LEVER, "lever[face=floor]")
    t = w.tick
    w.use(LEVER)
    assert w.tick == t and door(w, LO) == (True, True)
    assert w.use(LO) is True and door(w, LO) == (False, True)
    w.use(LEVER)
    assert door(w, LO) == (False, False)
    assert w.use(LO) is True and door(w, LO) == (True, False)
    w2 = World(replay=True)
    w2.set_blocks(list(w.blocks().items()))
    assert w2.blocks() == w.blocks()


def test_a_fence_gate_conducts_nothing_and_holds_nothing():
    w = new_world()
    w.set_block(LO, "acacia_fence_gate")
    w.set_block((0, 1, 1), "redstone_repeater[facing=south]")  # pointing into the gate
    w.set_block((0, 1, 2), "lever[face=floor]")
    w.set_block((-1, 1, 0), "redstone_lamp")
    w.use((0, 1, 2))
    w.step(3)
    assert door(w, LO) == (True, True) and w.power(LO).strong == 0 and not on(w, (-1, 1, 0))
    with pytest.raises(Exception, match="solid block below"):
        w.set_block(UP, "redstone_wire")


@pytest.mark.parametrize("below, instrument", [("oak_fence_gate", "bass"), ("oak_trapdoor", "bass"),
                                               ("iron_trapdoor", "harp"), ("warped_trapdoor", "bass")])
def test_a_note_block_on_wood_plays_bass(below, instrument):
    w = World()
    w.set_block((0, 0, 0), below)
    w.set_block((0, 1, 0), "note_block")
    assert prop(w, (0, 1, 0), "instrument") == instrument


def test_the_compiled_engine_drives_fence_gates():
    w = new_world()
    w.set_blocks([(LO, "mangrove_fence_gate"), (LEVER, "lever[face=floor]"), ((0, 1, 1), "redstone_wire"),
                  ((0, 1, 2), "redstone_wire"), ((1, 1, 2), "redstone_repeater[facing=west,delay=3]"),
                  ((2, 1, 2), "lever[face=floor]")])
    cw = compile_world(w)
    assert compare(w, cw, [(LEVER, 4), ((2, 1, 2), 9), (LEVER, 4), ((2, 1, 2), 9)]) == 5 + 10 + 5 + 10
