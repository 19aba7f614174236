"""Hoppers, droppers, dispensers and furnaces as containers a comparator reads (Java Edition 1.20): their
states, slots, fill levels and what they are as blocks. What hoppers, droppers and dispensers do with items is
in test_rules_hopper.py and test_rules_dropper.py.

Layout as in test_rules_comparator.py: a stone floor at y=0; the comparator C at (1, 1, 0) faces west, so it
reads the block at (0, 1, 0)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, on, prop

from scicraft_viz import World
from scicraft_viz.engine import compiled
from scicraft_viz.engine.blocks import DISPENSER, DROPPER, FURNACE, HOPPER
from scicraft_viz.engine.containers import fill_level, slot_stacks
from scicraft_viz.errors import InputError, PlacementError

REAR, C, OUT = (0, 1, 0), (1, 1, 0), (2, 1, 0)


@pytest.mark.parametrize("given, canonical", [
    ("hopper", "minecraft:hopper[enabled=true,facing=down]"),
    # a hopper works out `enabled` when placed (vanilla onPlace), a player's dispenser is placed untriggered
    ("hopper[facing=east,enabled=false]", "minecraft:hopper[enabled=true,facing=east]"),
    ("dropper[facing=up]", "minecraft:dropper[facing=up,triggered=false]"),
    ("dispenser[triggered=true]", "minecraft:dispenser[facing=north,triggered=false]"),
    ("furnace[lit=true,facing=south]", "minecraft:furnace[facing=south,lit=true]"),
    ("blast_furnace", "minecraft:blast_furnace[facing=north,lit=false]"),
    ("minecraft:smoker[facing=west]", "minecraft:smoker[facing=west,lit=false]"),
])
def test_container_states_are_read_and_written(given, canonical):
    w = World()
    w.set_block((0, 0, 0), given)
    assert w.get_block((0, 0, 0)) == canonical
    w2 = World(replay=True)
    w2.set_block((0, 0, 0), canonical)
    assert w2.blocks() == w.blocks()


def test_hopper_cannot_face_up():
    with pytest.raises(InputError, match="facing"):
        World().set_block((0, 0, 0), "hopper[facing=up]")


def test_power_decides_enabled_and_triggered_not_lit():
    """Beside a redstone block a hopper is locked at once (vanilla onPlace) and a dropper placed by /setblock
    keeps `triggered=false` until a neighbour update (vanilla checks it on neighbour updates only); a furnace's
    `lit` stays as placed (nothing smelts)."""
    w = new_world()
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), "hopper[enabled=true]")
    w.set_block((-1, 1, 0), "dropper[triggered=false]")
    w.set_block((0, 1, 1), "furnace[lit=true]")
    w.step(10)
    assert prop(w, (1, 1, 0), "enabled") == "false"
    assert prop(w, (-1, 1, 0), "triggered") == "false"
    assert prop(w, (0, 1, 1), "lit") == "true"


@pytest.mark.parametrize("block, slots", [(HOPPER, 5), (DROPPER, 9), (DISPENSER, 9), (FURNACE, 3)])
def test_slots_and_fill_level(block, slots):
    assert fill_level(slot_stacks(64 * slots, block, "t"), block) == 15
    assert fill_level(slot_stacks(1, block, "t"), block) == 1
    # one full stack: 1 + floor(14 / slots)
    assert fill_level(slot_stacks(64, block, "t"), block) == 1 + 14 // slots
    with pytest.raises(InputError, match=f"need {slots + 1} slots; a .* has {slots}"):
        slot_stacks(64 * slots + 1, block, "t")


@pytest.mark.parametrize("block, items, level", [
    ("hopper", [("stone", 64)], 3),  # 1 + floor(14 / 5)
    ("hopper", [("ender_pearl", 16), ("stone", 64)], 6),  # 1 + floor(14 * 2 / 5)
    ("dropper", [("stone", 64)], 2),  # 1 + floor(14 / 9)
    ("dispenser", [("stone", 9 * 64)], 15),
    ("furnace", [("stone", 64)], 5),  # 1 + floor(14 / 3)
    ("smoker", [("coal", 32)], 3),  # 1 + floor(14 * 0.5 / 3)
    ("blast_furnace", [("iron_ingot", 64), ("coal", 64), ("iron_ingot", 64)], 15),
])
def test_comparator_reads_the_container_two_game_ticks_after_its_items_change(block, items, level):
    w = new_world()
    w.set_block(REAR, block)
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "redstone_lamp")
    t = w.tick
    w.set_items(REAR, items)
    assert w.fill_level(REAR) == level and w.power(REAR).level == level
    w.step(1)
    assert not on(w, C)
    w.step(1)
    assert w.tick == t + 2 and on(w, C) and w.power(C).level == level and on(w, OUT)
    w.set_items(REAR, 0)
    w.step(2)
    assert not on(w, C) and w.items(REAR) == []


def test_dropper_dispenser_and_furnace_conduct_a_hopper_does_not():
    """Droppers, dispensers and furnaces are full conductive blocks; a hopper is neither full nor a
    conductor, and its top holds dust only."""
    for block, strong in (("dropper", 15), ("dispenser", 15), ("furnace", 15), ("blast_furnace", 15)):
        w = new_world()
        w.set_block((0, 1, 0), block)
        w.set_block((1, 1, 0), "lever[face=wall,facing=east]")
        w.use((1, 1, 0))
        w.set_block((-1, 1, 0), "redstone_wire")
        assert w.power((0, 1, 0)).strong == strong and w.power((-1, 1, 0)).level == 15
    w = new_world()
    w.set_block((0, 1, 0), "hopper")
    w.set_block((0, 2, 0), "redstone_wire")  # dust stands on a hopper
    assert w.get_block((0, 2, 0)).startswith("minecraft:redstone_wire")
    for attached in ("redstone_torch", "lever[face=floor]", "comparator", "redstone_repeater"):
        with pytest.raises(PlacementError, match="needs a solid block below"):
            w.set_block((0, 2, 0), attached)
    with pytest.raises(PlacementError, match="behind it"):
        w.set_block((1, 1, 0), "lever[face=wall,facing=east]")


def test_a_comparator_reads_a_container_through_a_dropper_it_is_not_behind():
    """A comparator behind a dropper reads the dropper itself (a container), not what lies beyond."""
    w = new_world()
    w.set_block((-1, 1, 0), "barrel")
    w.set_block(REAR, "dropper")
    w.set_block(C, "comparator[facing=west]")
    w.set_items((-1, 1, 0), 27 * 64)
    w.set_items(REAR, 64)
    w.step(2)
    assert w.power(C).level == 2


def test_note_block_instruments_over_the_new_blocks():
    w = World()
    for x, (below, instrument) in enumerate([("dropper", "basedrum"), ("furnace", "basedrum"), ("hopper", "harp"),
                                             ("daylight_detector", "bass"), ("iron_trapdoor", "harp")]):
        w.set_block((x, 0, 0), below)
        w.set_block((x, 1, 0), "note_block")
        assert prop(w, (x, 1, 0), "instrument") == instrument, below


def test_items_of_new_containers_and_refusal_names_them():
    w = World()
    w.set_block((0, 0, 0), "hopper")
    w.set_items((0, 0, 0), [("redstone", 3)])
    assert w.items((0, 0, 0)) == [("redstone", 3)]
    w.set_block((1, 0, 0), "iron_trapdoor")
    with pytest.raises(InputError, match="not a container .*hopper.*furnace"):
        w.set_items((1, 0, 0), 1)


def test_compiled_engine_takes_the_new_containers_only_where_they_cannot_act():
    """Each compiles as a container at its fixed level; a hopper, dropper or dispenser that power can reach
    is refused (tests/test_compiled_more.py has the rest)."""
    for block, named in (("hopper", "hopper"), ("dropper", "dropper"), ("dispenser", "dispenser"),
                         ("smoker", "furnace")):
        w = new_world()
        w.set_blocks([((0, 1, 0), block), (C, "comparator[facing=west]")])
        w.set_items((0, 1, 0), 64)
        w.step(2)
        cw = compiled.compile_world(w)
        assert cw.output_signals()[cw.node_of[C]] == w.fill_level((0, 1, 0)) > 0
        w.set_block((0, 1, 1), "lever[face=floor]")
        if named == "furnace":
            compiled.compile_world(w)
        else:
            with pytest.raises(compiled.CompileRefused, match=f"^{named} at \\(0, 1, 0\\): power can reach it"):
                compiled.compile_world(w)


@pytest.mark.parametrize("fmt", ["litematic", "schem", "mcfunction", "nbt"])
def test_build_files_carry_the_new_blocks_as_saved(fmt):
    """Schematics and structures load them as a paste does: states as saved, a door's two halves, a plate
    saved pressed, a sensor's power."""
    from scicraft_viz.engine.formats import write_build

    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "iron_door[half=lower,facing=east,hinge=right]"),
                  ((0, 2, 0), "iron_door[half=upper,facing=east,hinge=right]"), ((1, 0, 0), "stone"),
                  ((1, 1, 0), "oak_pressure_plate[powered=true]"), ((2, 1, 0), "daylight_detector[power=6]"),
                  ((3, 1, 0), "hopper[facing=west,enabled=false]"), ((4, 1, 0), "smoker[lit=true]"),
                  ((5, 1, 0), "iron_trapdoor[half=top,open=true]"), ((6, 0, 0), "stone"),
                  ((6, 1, 0), "heavy_weighted_pressure_plate[power=3]"), ((8, 1, 0), "dispenser[facing=down]")])
    back = World.from_build_file(write_build(w.blocks(), fmt), replay=True, fmt=fmt)
    assert back.blocks() == w.blocks()


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([(HOPPER, 5), (DROPPER, 9), (DISPENSER, 9), (FURNACE, 3)]), st.integers(0, 64 * 9))
def test_fill_level_of_a_64_stack_item_is_the_exact_formula_in_every_container(block_slots, n):
    block, slots = block_slots
    n = min(n, 64 * slots)
    want = 0 if n == 0 else 1 + (14 * n) // (slots * 64)
    assert fill_level(slot_stacks(n, block, "t"), block) == want


def test_static_states_leave_out_what_power_decides():
    """A build's static state keeps what a builder chooses: a door's facing and hinge, a furnace's kind,
    a sensor's inversion; not a door's or trapdoor's open, a hopper's enabled or a dropper's triggered."""
    from scicraft_viz.engine.blocks import static_state

    assert static_state("minecraft:hopper[enabled=false,facing=east]") == "minecraft:hopper[facing=east]"
    assert static_state("minecraft:dropper[facing=up,triggered=true]") == "minecraft:dropper[facing=up]"
    assert static_state("minecraft:iron_door[facing=east,half=lower,hinge=right,open=true,powered=true]") == (
        "minecraft:iron_door[facing=east,half=lower,hinge=right]")
    assert static_state("minecraft:iron_trapdoor[facing=north,half=top,open=true,powered=false,waterlogged=false]") == (
        "minecraft:iron_trapdoor[facing=north,half=top,waterlogged=false]")
    assert static_state("minecraft:barrel[facing=up,open=true]") == "minecraft:barrel[facing=up,open=true]"
    assert static_state("minecraft:daylight_detector[inverted=true,power=3]") == (
        "minecraft:daylight_detector[inverted=true]")
    assert static_state("minecraft:smoker[facing=west,lit=true]") == "minecraft:smoker[facing=west]"
