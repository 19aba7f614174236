"""docs/redstone.md section 79: a build loaded as it stood in its world (`World.from_build_file(in_world=True)`)
has nothing pending; pasted, the updates of its own placement leave ticks and block events due."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.errors import InputError

# An observer written before the stone it watches; a piston written after the redstone block that powers it,
# saved retracted (as a world saves a piston whose power came without an update reaching it).
STRUCTURE = b"""{DataVersion: 4903, size: [5, 2, 1], palette: [
  {Name: "minecraft:observer", Properties: {facing: "east", powered: "false"}}, {Name: "minecraft:stone"},
  {Name: "minecraft:piston", Properties: {extended: "false", facing: "up"}}, {Name: "minecraft:redstone_block"}],
 blocks: [{pos: [4, 0, 0], state: 3}, {pos: [0, 0, 0], state: 0}, {pos: [1, 0, 0], state: 1},
  {pos: [3, 0, 0], state: 2}], entities: []}"""
OBSERVER, PISTON, ABOVE = (0, 0, 0), (3, 0, 0), (3, 1, 0)


def _run(w: World, ticks: int) -> list[tuple[str, str, str]]:
    out = []
    for _ in range(ticks):
        w.step(1)
        out.append((w.get_block(OBSERVER), w.get_block(PISTON), w.get_block(ABOVE)))
    return out


def test_a_pasted_build_reacts_to_its_own_placement():
    w = World.from_build_file(STRUCTURE, fmt="snbt")
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(2, OBSERVER)]
    run = _run(w, 4)
    assert [o.endswith("powered=true]") for o, _, _ in run] == [False, True, True, False]
    assert run[0][1:] == ("minecraft:piston[extended=true,facing=up]", "minecraft:moving_piston[facing=up,type=normal]")


def test_a_build_loaded_as_it_stood_in_its_world_stays_at_rest_until_something_reaches_it():
    w = World.from_build_file(STRUCTURE, fmt="snbt", in_world=True)
    assert w.scheduled() == []
    saved = w.blocks()
    assert _run(w, 6) == [("minecraft:observer[facing=east,powered=false]",
                           "minecraft:piston[extended=false,facing=up]", "minecraft:air")] * 6
    assert w.blocks() == saved
    w.set_block((2, 0, 0), "minecraft:stone")  # an update reaches the piston: it finds its power
    w.step(1)
    assert w.get_block(PISTON) == "minecraft:piston[extended=true,facing=up]"
    assert w.get_block(ABOVE) == "minecraft:moving_piston[facing=up,type=normal]"


@pytest.mark.parametrize("kwargs, message", [
    ({"in_world": "yes"}, "in_world must be True or False, got 'yes'"),
    ({"in_world": True, "replay": False}, "in_world=True loads the states as saved"),
])
def test_in_world_refuses_what_it_cannot_mean(kwargs, message):
    with pytest.raises(InputError, match=message):
        World.from_build_file(STRUCTURE, fmt="snbt", **kwargs)


PALETTE = ['{Name: "minecraft:stone"}', '{Name: "minecraft:redstone_block"}', '{Name: "minecraft:oak_leaves", '
           'Properties: {distance: "1", persistent: "true", waterlogged: "false"}}',
           '{Name: "minecraft:observer", Properties: {facing: "east", powered: "false"}}',
           '{Name: "minecraft:observer", Properties: {facing: "up", powered: "false"}}',
           '{Name: "minecraft:piston", Properties: {extended: "false", facing: "up"}}',
           '{Name: "minecraft:sticky_piston", Properties: {extended: "false", facing: "west"}}',
           '{Name: "minecraft:redstone_lamp", Properties: {lit: "false"}}', '{Name: "minecraft:water", '
           'Properties: {level: "0"}}']


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2)),
                       st.integers(0, len(PALETTE) - 1), min_size=1, max_size=20))
def test_loaded_as_it_stood_a_build_keeps_the_pasted_states_and_has_nothing_due(cells):
    blocks = ", ".join(f"{{pos: [{x}, {y}, {z}], state: {i}}}" for (x, y, z), i in cells.items())
    snbt = (f"{{DataVersion: 4903, size: [4, 3, 3], palette: [{', '.join(PALETTE)}], blocks: [{blocks}], "
            "entities: []}").encode()
    pasted = World.from_build_file(snbt, fmt="snbt")
    w = World.from_build_file(snbt, fmt="snbt", in_world=True)
    assert w.blocks() == pasted.blocks()
    assert w.scheduled() == [] and w.fluid_ticks() == []
    assert w.tick == 0


def test_an_observer_saved_mid_pulse_comes_out_unpowered_as_a_paste_leaves_it():
    snbt = (b'{DataVersion: 4903, size: [1, 1, 1], palette: [{Name: "minecraft:observer", Properties: '
            b'{facing: "east", powered: "true"}}], blocks: [{pos: [0, 0, 0], state: 0}], entities: []}')
    w = World.from_build_file(snbt, fmt="snbt", in_world=True)
    assert w.blocks() == {(0, 0, 0): "minecraft:observer[facing=east,powered=false]"}
    assert w.scheduled() == []
