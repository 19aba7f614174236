
import pytest
from redstone_helpers import name, new_world, on, run

from scicraft_viz import World
from scicraft_viz.errors import BlockStateError, PositionError


def snapshot(w):
    return w.blocks(), w.tick, len(w.events)


@pytest.mark.parametrize("given, canonical", [
    ("stone", "minecraft:stone"),
    ("minecraft:stone", "minecraft:stone"),
    ("glass", "minecraft:glass"),
    ("minecraft:redstone_block", "minecraft:redstone_block"),
    ("redstone_lamp", "minecraft:redstone_lamp[lit=false]"),
    ("redstone_repeater", "minecraft:redstone_repeater[delay=1,facing=north,locked=false,powered=false]"),
    ("redstone_repeater[facing=west,delay=2]",
     "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]"),
    ("minecraft:redstone_repeater[powered=false,locked=false,facing=south,delay=4]",
     "minecraft:redstone_repeater[delay=4,facing=south,locked=false,powered=false]"),
    ("redstone_torch", "minecraft:redstone_torch[lit=true]"),
    ("redstone_wire", "minecraft:redstone_wire[east=side,north=side,power=0,south=side,west=side]"),
    ("redstone_wire[power=9,north=none]",
     "minecraft:redstone_wire[east=side,north=side,power=0,south=side,west=side]"),
    ("stone_button[face=floor]", "minecraft:stone_button[face=floor,facing=north,powered=false]"),
    ("lever[facing=west,face=floor]", "minecraft:lever[face=floor,facing=west,powered=false]"),
])
def test_canonical_get_block(given, canonical):
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), given)
    assert w.get_block((0, 1, 0)) == canonical
    assert w.blocks()[(0, 1, 0)] == canonical


def test_wall_states_default_facing_north_attached_to_the_south():
    w = World()
    w.set_block((0, 1, 1), "stone")
    w.set_block((0, 1, 0), "redstone_wall_torch")
    assert w.get_block((0, 1, 0)) == "minecraft:redstone_wall_torch[facing=north,lit=true]"
    w.set_block((1, 1, 1), "stone")
    w.set_block((1, 1, 0), "lever")
    assert w.get_block((1, 1, 0)) == "minecraft:lever[face=wall,facing=north,powered=false]"


def test_air_is_canonical_and_not_listed():
    w = World()
    assert w.get_block((100, -64, 7)) == "minecraft:air"
    w.set_block((0, 0, 0), "glass")
    w.set_block((1, 0, 0), "minecraft:air")
    assert w.blocks() == {(0, 0, 0): "minecraft:glass"}
    w.remove_block((0, 0, 0))
    assert w.blocks() == {}
    assert w.get_block((0, 0, 0)) == "minecraft:air"


def test_blocks_returns_a_copy():
    w = World()
    w.set_block((0, 0, 0), "stone")
    b = w.blocks()
    b[(9, 9, 9)] = "minecraft:stone"
    assert w.get_block((9, 9, 9)) == "minecraft:air"


def test_negative_and_large_coordinates():
    w = World()
    w.set_block((-1000, -60, 2000), "stone")
    w.set_block((-1000, -59, 2000), "redstone_wire")
    assert w.get_block((-1000, -60, 2000)) == "minecraft:stone"
    assert name(w, (-1000, -59, 2000)) == "redstone_wire"


@pytest.mark.parametrize("state, token", [
    # unknown blocks
    ("tnt", "tnt"),
    ("minecraft:sculk_sensor", "sculk_sensor"),
    ("redstone_dust", "redstone_dust"),
    ("mod:stone", "mod"),
    # unknown properties
    ("redstone_lamp[color=red]", "color"),
    ("stone[lit=true]", "lit"),
    ("redstone_repeater[speed=2]", "speed"),
    ("redstone_torch[facing=north]", "facing"),
    # values out of range
    ("redstone_repeater[delay=5]", "5"),
    ("redstone_repeater[delay=0]", "0"),
    ("redstone_repeater[delay=two]", "two"),
    ("redstone_repeater[facing=up]", "up"),
    ("redstone_wire[power=16]", "16"),
    ("redstone_wire[east=maybe]", "maybe"),
    ("redstone_lamp[lit=yes]", "yes"),
    ("stone_button[face=side]", "side"),
    ("lever[powered=1]", "1"),
    ("redstone_wall_torch[facing=down]", "down"),
])
def test_bad_state_is_refused_naming_the_bad_token(state, token):
    w = World()
    w.set_block((0, 0, 0), "stone")
    before = snapshot(w)
    with pytest.raises(BlockStateError) as ei:
        w.set_block((0, 1, 0), state)
    assert token in str(ei.value)
    assert snapshot(w) == before


@pytest.mark.parametrize("state", [
    "",
    "redstone_repeater[delay=2",
    "redstone_repeater[delay]",
    "redstone_repeater[=2]",
    "redstone_repeater[delay=2]x",
    "[delay=2]",
])
def test_malformed_state(state):
    w = World()
    w.set_block((0, 0, 0), "stone")
    before = snapshot(w)
    with pytest.raises(BlockStateError):
        w.set_block((0, 1, 0), state)
    assert snapshot(w) == before


@pytest.mark.parametrize("pos", [
    (0.5, 1, 0),
    (0, 1),
    (0, 1, 0, 0),
    "0,1,0",
    None,
    ("0", "1", "0"),
    (0, None, 0),
])
def test_bad_positions(pos):
    w = World()
    w.set_block((0, 0, 0), "stone")
    before = snapshot(w)
    with pytest.raises(PositionError):
        w.set_block(pos, "stone")
    with pytest.raises(PositionError):
        w.get_block(pos)
    with pytest.raises(PositionError):
        w.use(pos)
    with pytest.raises(PositionError):
        w.remove_block(pos)
    assert snapshot(w) == before


def test_failed_call_leaves_world_unchanged_mid_circuit():
    w = new_world()
    w.set_block((0, 1, 0), "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    w.step(3)
    ref = w.copy()
    for bad in [lambda: w.set_block((1, 1, 0), "redstone_lamp[lit=maybe]"),
                lambda: w.set_block((2, 5, 0), "redstone_wire"),
                lambda: w.set_block((1.5, 1, 0), "stone"),
                lambda: w.set_block((1, 1, 0), "tnt")]:
        with pytest.raises(ValueError):
            bad()
    assert w.blocks() == ref.blocks()
    assert w.tick == ref.tick
    assert run(w, 30, lambda: on(w, (1, 1, 0))) == run(ref, 30, lambda: on(ref, (1, 1, 0)))


def test_error_message_lists_what_is_allowed_or_names_the_block():
    w = World()
    w.set_block((0, 0, 0), "stone")
    with pytest.raises(BlockStateError) as ei:
        w.set_block((0, 1, 0), "redstone_repeater[delay=9]")
    msg = str(ei.value)
    assert "delay" in msg and "9" in msg
    assert "redstone_repeater" in msg
