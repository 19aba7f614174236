"""Dispensers fire buckets (docs/redstone.md section 90): a filled bucket empties into the cell in front when that
cell is air, and an empty bucket takes a water or lava source, powder snow or a waterlogged block's water; the
bucket left over takes the slot, or the first slot with room, or is thrown out. Vanilla's own record of the
water and powder snow cases is compared tick by tick in tests/test_vanilla_components.py."""

import pytest

from scicraft_viz import World

DISPENSER, FRONT, TRIGGER = (0, 1, 0), (1, 1, 0), (0, 2, 0)
FIRES = 4  # game ticks from the rising edge to the dispense (a dispenser's scheduled tick)


def rig(items, front: str = "minecraft:air") -> World:
    """A dispenser facing east on stone, holding `items`, with `front` in the cell it faces (on stone too)."""
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((1, 0, 0), "stone")
    w.set_block(DISPENSER, "dispenser[facing=east]")
    w.set_items(DISPENSER, items)
    if front != "minecraft:air":
        w.set_block(FRONT, front)
    return w


def fire(w: World) -> int:
    """Power the dispenser once and step past its dispense; the tick it fired at."""
    w.set_block(TRIGGER, "redstone_block")
    start = w.tick
    w.step(FIRES - 1)
    before = w.contents().get(DISPENSER)
    w.step(1)
    assert w.contents().get(DISPENSER) != before  # fired exactly FIRES ticks after the edge
    return w.tick - start


@pytest.mark.parametrize(("bucket", "placed"), [
    ("water_bucket", "minecraft:water[level=0]"),
    ("lava_bucket", "minecraft:lava[level=0]"),
    ("powder_snow_bucket", "minecraft:powder_snow"),
])
def test_a_filled_bucket_empties_into_air_and_leaves_an_empty_bucket(bucket, placed):
    w = rig([(bucket, 1)])
    assert fire(w) == FIRES
    assert w.get_block(FRONT) == placed
    assert w.contents()[DISPENSER] == [("bucket", 1)]
    assert w.item_entities() == []


@pytest.mark.parametrize(("front", "left", "filled"), [
    ("water[level=0]", "minecraft:air", "water_bucket"),
    ("lava[level=0]", "minecraft:air", "lava_bucket"),
    ("powder_snow", "minecraft:air", "powder_snow_bucket"),
    ("oak_slab[type=bottom,waterlogged=true]", "minecraft:oak_slab[type=bottom,waterlogged=false]", "water_bucket"),
])
def test_an_empty_bucket_takes_what_is_in_front(front, left, filled):
    w = rig([("bucket", 1)], f"minecraft:{front}")
    fire(w)
    assert w.get_block(FRONT) == left
    assert w.contents()[DISPENSER] == [(filled, 1)]
    assert w.item_entities() == []


@pytest.mark.parametrize(("bucket", "front"), [
    ("water_bucket", "stone"), ("lava_bucket", "redstone_lamp[lit=false]"),
    ("powder_snow_bucket", "barrel[facing=up,open=false]"),  # a filled bucket facing a full block
    ("bucket", "air"), ("bucket", "water[level=3]"), ("bucket", "stone"),  # an empty one with nothing to take
])
def test_a_bucket_with_nothing_to_do_is_thrown_out_and_the_cell_stays(bucket, front):
    w = rig([(bucket, 1)], f"minecraft:{front}")
    state = w.get_block(FRONT)
    fire(w)
    assert w.get_block(FRONT) == state
    assert DISPENSER not in w.contents()
    assert [(e.item, e.count) for e in w.item_entities()] == [(bucket, 1)]


def test_of_several_buckets_the_filled_one_goes_to_the_first_slot_with_room_or_out():
    w = rig([None, ("bucket", 3)], "minecraft:water[level=0]")
    fire(w)
    assert w.contents()[DISPENSER] == [("water_bucket", 1), ("bucket", 2)]
    # every slot full: the water bucket left over is thrown out of the front
    w = rig([("bucket", 16)] + [("stone", 64)] * 8, "minecraft:water[level=0]")
    fire(w)
    assert w.get_block(FRONT) == "minecraft:air"
    assert w.contents()[DISPENSER] == [("bucket", 15)] + [("stone", 64)] * 8
    assert [(e.item, e.count) for e in w.item_entities()] == [("water_bucket", 1)]


def test_a_dropper_does_not_use_buckets():
    w = rig([("water_bucket", 1)])
    w.set_block(DISPENSER, "dropper[facing=east]")
    w.set_items(DISPENSER, [("water_bucket", 1)])
    fire(w)
    assert w.get_block(FRONT) == "minecraft:air"
    assert [(e.item, e.count) for e in w.item_entities()] == [("water_bucket", 1)]
