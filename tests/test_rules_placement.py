import re

import pytest
from redstone_helpers import floor, name, new_world, on, run

from scicraft_viz import World
from scicraft_viz.errors import BlockStateError, PlacementError, PositionError


def snapshot(w):
    return w.blocks(), w.tick, len(w.events)


_POS_RE = r"3\D{1,4}7\D{1,4}-2"  # the position (3, 7, -2) named in any reasonable format


@pytest.mark.parametrize("state", [
    "redstone_wire",
    "redstone_repeater[facing=east]",
    "redstone_torch",
    "stone_button[face=floor,facing=north]",
    "lever[face=floor,facing=north]",
    "stone_button[face=ceiling,facing=north]",
    "stone_button[face=wall,facing=north]",
    "lever[face=wall,facing=west]",
    "redstone_wall_torch[facing=south]",
])
def test_unsupported_placement_is_refused_naming_the_position(state):
    w = new_world()
    w.set_block((5, 5, 5), "stone")
    before = snapshot(w)
    with pytest.raises(PlacementError) as ei:
        w.set_block((3, 7, -2), state)
    assert issubclass(PlacementError, ValueError)
    msg = str(ei.value)
    assert re.search(_POS_RE, msg), msg
    assert len(msg) > 20
    assert snapshot(w) == before
    assert name(w, (3, 7, -2)) == "air"


def test_placement_error_message_names_missing_support():
    w = World()
    with pytest.raises(PlacementError) as ei:
        w.set_block((0, 1, 0), "redstone_wire")
    msg = str(ei.value).lower()
    assert re.search(r"0\D{1,4}1\D{1,4}0", msg)
    assert any(word in msg for word in ("below", "under", "support", "beneath")), msg


@pytest.mark.parametrize("below", ["stone", "glass", "redstone_lamp", "redstone_block"])
def test_dust_accepts_full_blocks_below(below):
    w = World()
    w.set_block((0, 0, 0), below)
    w.set_block((0, 1, 0), "redstone_wire")
    assert name(w, (0, 1, 0)) == "redstone_wire"


@pytest.mark.parametrize("below", ["redstone_wire", "redstone_torch", "redstone_repeater", "air"])
def test_dust_refused_on_non_full_blocks(below):
    w = World()
    floor(w, xs=range(0, 1), zs=range(0, 1))
    w.set_block((0, 1, 0), below)
    before = snapshot(w)
    with pytest.raises(PlacementError):
        w.set_block((0, 2, 0), "redstone_wire")
    assert snapshot(w) == before


@pytest.mark.parametrize("state, support", [
    ("redstone_torch", (0, 0, 0)),
    ("redstone_repeater[facing=north]", (0, 0, 0)),
    ("stone_button[face=floor,facing=north]", (0, 0, 0)),
    ("stone_button[face=ceiling,facing=north]", (0, 2, 0)),
    ("stone_button[face=wall,facing=east]", (-1, 1, 0)),
    ("lever[face=wall,facing=north]", (0, 1, 1)),
    ("redstone_wall_torch[facing=west]", (1, 1, 0)),
])
@pytest.mark.parametrize("support_block", ["stone", "glass"])
def test_supported_placement_accepted(state, support, support_block):
    w = World()
    w.set_block(support, support_block)
    w.set_block((0, 1, 0), state)
    assert name(w, (0, 1, 0)) == state.split("[")[0]


@pytest.mark.parametrize("state, support", [
    ("redstone_wire", (0, 0, 0)),
    ("redstone_torch", (0, 0, 0)),
    ("redstone_repeater[facing=north]", (0, 0, 0)),
    ("stone_button[face=floor,facing=north]", (0, 0, 0)),
    ("lever[face=floor,facing=north]", (0, 0, 0)),
    ("stone_button[face=ceiling,facing=north]", (0, 2, 0)),
    ("stone_button[face=wall,facing=east]", (-1, 1, 0)),
    ("redstone_wall_torch[facing=west]", (1, 1, 0)),
])
def test_removing_support_pops_the_block(state, support):
    w = World()
    w.set_block(support, "stone")
    w.set_block((0, 1, 0), state)
    w.set_block((5, 0, 5), "stone")
    w.set_block((5, 1, 5), "redstone_wire")  # unrelated, stays
    w.remove_block(support)
    assert name(w, (0, 1, 0)) == "air"
    assert name(w, (5, 1, 5)) == "redstone_wire"
    assert set(w.blocks()) == {(5, 0, 5), (5, 1, 5)}


def test_set_block_air_pops_like_remove_block():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_torch")
    w.set_block((1, 0, 0), "stone")
    w.set_block((-1, 0, 0), "redstone_wall_torch[facing=west]")
    w.set_block((0, 0, 0), "air")
    assert w.blocks() == {(1, 0, 0): "minecraft:stone"}


def test_popping_updates_the_circuit():
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.use((-1, 1, 0))
    got = run(w, 10, lambda: on(w, (1, 1, 0)), {2: [lambda: w.remove_block((0, 0, 0))]})
    assert name(w, (0, 1, 0)) == "air"
    assert got == [(0, True), (6, False)]


def test_neighbours_not_supported_by_removed_block_stay():
    w = new_world()
    w.set_block((0, 1, 0), "stone")
    w.set_block((1, 1, 0), "redstone_wire")                        # on the floor beside it
    w.set_block((-1, 1, 0), "stone_button[face=floor,facing=north]")
    w.set_block((0, 2, 0), "redstone_wire")                        # on it
    w.remove_block((0, 1, 0))
    assert name(w, (0, 2, 0)) == "air"
    assert name(w, (1, 1, 0)) == "redstone_wire"
    assert name(w, (-1, 1, 0)) == "stone_button"


# ---------------------------------------------------------------- replay mode


def test_replay_accepts_unsupported_block_and_pops_it_at_first_neighbour_update():
    w = World(replay=True)
    pos = (0, 5, 0)
    w.set_block(pos, "redstone_repeater[facing=west,delay=3]")
    assert w.get_block(pos) == "minecraft:redstone_repeater[delay=3,facing=west,locked=false,powered=false]"
    w.step(5)
    assert name(w, pos) == "redstone_repeater"
    n_events = len(w.events)
    w.set_block((1, 5, 0), "stone")  # neighbour update
    assert name(w, pos) == "air"
    popped = [e for e in w.events[n_events:] if e.kind == "popped"]
    assert len(popped) == 1
    e = popped[0]
    assert tuple(e.pos) == pos
    assert e.tick == 5
    assert "redstone_repeater" in e.block


def test_replay_keeps_supported_blocks():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_repeater[facing=west]")
    w.set_block((1, 1, 0), "stone")
    assert name(w, (0, 1, 0)) == "redstone_repeater"
    assert not [e for e in w.events if e.kind == "popped"]


def test_replay_removing_support_pops_with_event():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_torch")
    w.step(3)
    w.remove_block((0, 0, 0))
    assert name(w, (0, 1, 0)) == "air"
    assert [tuple(e.pos) for e in w.events if e.kind == "popped"] == [(0, 1, 0)]


def test_replay_places_state_as_given():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_repeater[facing=west,delay=2,powered=true]")
    assert w.get_block((0, 1, 0)) == "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=true]"


def test_interactive_unsupported_placement_logs_no_event():
    w = World()
    n = len(w.events)
    with pytest.raises(PlacementError):
        w.set_block((0, 1, 0), "redstone_torch")
    assert len(w.events) == n
    assert w.blocks() == {}


def test_error_classes_are_value_errors():
    for cls in (BlockStateError, PositionError, PlacementError):
        assert issubclass(cls, ValueError)
    assert len({BlockStateError, PositionError, PlacementError}) == 3
