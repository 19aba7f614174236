"""Dispensers fire buckets (docs/redstone.md sections 90 and 98): a filled bucket empties into the cell in front
(water and lava also into a block they may replace or break, water into a waterloggable block), and an empty
bucket takes a water or lava source, powder snow or a waterlogged block's water; the bucket left over takes the
slot, or the first slot with room, or is thrown out. Vanilla's own record of the water and powder snow cases is
compared tick by tick in tests/test_vanilla_components.py."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    ("lava_bucket", "oak_slab[type=bottom]"), ("lava_bucket", "oak_stairs[facing=east]"),  # lava waterlogs nothing
    ("powder_snow_bucket", "water[level=0]"), ("powder_snow_bucket", "redstone_wire"),  # powder snow: air only
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


@pytest.mark.parametrize(("front", "wet"), [
    ("oak_slab[type=bottom]", "minecraft:oak_slab[type=bottom,waterlogged=true]"),
    ("oak_stairs[facing=west]", "minecraft:oak_stairs[facing=west,half=bottom,shape=straight,waterlogged=true]"),
    ("oak_wall_sign[facing=east]", "minecraft:oak_wall_sign[facing=east,waterlogged=true]"),  # not solid: still kept
])
def test_a_water_bucket_waterlogs_a_waterloggable_block_whose_water_flows_5_gt_later(front, wet):
    """BucketItem.emptyContents: a LiquidBlockContainer takes the water (placeLiquid) before any other rule, even a
    block water could break; its fluid tick comes TICK_DELAY = 5 game ticks after, and the source spreads east."""
    w = rig([("water_bucket", 1)], f"minecraft:{front}")
    assert fire(w) == FIRES
    assert w.get_block(FRONT) == wet
    assert w.contents()[DISPENSER] == [("bucket", 1)]
    assert w.item_entities() == []
    beside = (2, 1, 0)
    w.step(4)
    assert w.get_block(beside) == "minecraft:air"
    w.step(1)
    assert w.get_block(beside) == "minecraft:water[level=1]"


def test_a_water_bucket_facing_a_waterlogged_block_is_emptied_and_the_block_stays():
    """placeLiquid refuses a block already waterlogged, but emptyContents still reports success: the dispenser keeps
    an empty bucket and nothing is thrown."""
    w = rig([("water_bucket", 1)], "minecraft:oak_slab[type=bottom,waterlogged=true]")
    fire(w)
    assert w.get_block(FRONT) == "minecraft:oak_slab[type=bottom,waterlogged=true]"
    assert w.contents()[DISPENSER] == [("bucket", 1)]
    assert w.item_entities() == []


@pytest.mark.parametrize(("bucket", "front", "drops"), [
    ("water_bucket", "redstone_wire", [("redstone", 1)]),
    ("lava_bucket", "repeater[facing=east]", [("repeater", 1)]),
    ("water_bucket", "redstone_wall_torch[facing=east]", [("redstone_torch", 1)]),
    ("water_bucket", "lever[face=floor,facing=north]", [("lever", 1)]),
    ("lava_bucket", "oak_pressure_plate", [("oak_pressure_plate", 1)]),
    ("water_bucket", "white_carpet", [("white_carpet", 1)]),
    ("lava_bucket", "candle[candles=3]", [("candle", 3)]),  # waterloggable: water would waterlog it
    ("water_bucket", "cobweb", [("string", 1)]),
    ("lava_bucket", "oak_wall_sign[facing=east]", [("oak_sign", 1)]),  # waterloggable, but lava breaks it
    ("water_bucket", "fire", []),
    ("lava_bucket", "powder_snow", []),  # no collision shape in its cached state: not solid; its loot: nothing
])
def test_a_bucket_breaks_a_block_that_is_not_solid_with_its_drops_and_places_its_source(bucket, front, drops):
    """canBeReplaced(Fluid): a block without a solid shape is broken (Level.destroyBlock: its loot, each stack an
    item entity thrown up from the cell, pickup delay 10) and the fluid's source set in its place."""
    w = rig([(bucket, 1)], f"minecraft:{front}")
    fire(w)
    assert w.get_block(FRONT) == f"minecraft:{bucket.split('_')[0]}[level=0]"
    assert w.contents()[DISPENSER] == [("bucket", 1)]
    got = w.item_entities()
    assert [(e.item, e.count) for e in got] == drops
    for e in got:  # popResource: a quarter block about the centre, then one tick of motion (up 0.2, less gravity)
        assert 1.25 - 0.1 <= e.pos[0] <= 1.75 + 0.1 and 0.5 - 0.1 <= e.pos[2] <= 0.75 + 0.1 + 0.25
        assert e.pickup_delay == 9  # 10, less the tick it has lived


def test_lava_breaks_a_waterlogged_lantern_which_leaves_its_water_then_the_lava():
    w = rig([("lava_bucket", 1)], "minecraft:lantern[hanging=false,waterlogged=true]")
    fire(w)
    assert w.get_block(FRONT) == "minecraft:lava[level=0]"
    assert [(e.item, e.count) for e in w.item_entities()] == [("lantern", 1)]


@pytest.mark.parametrize(("bucket", "front", "after"), [
    ("water_bucket", "lava[level=0]", "minecraft:water[level=0]"),  # a fluid is replaced, not broken
    ("lava_bucket", "water[level=0]", "minecraft:lava[level=0]"),
    ("water_bucket", "water[level=3]", "minecraft:water[level=0]"),
    ("water_bucket", "water[level=0]", "minecraft:water[level=0]"),  # the same source: emptied all the same
    ("water_bucket", "bubble_column[drag=true]", "minecraft:water[level=0]"),
])
def test_a_bucket_replaces_a_fluid_in_front(bucket, front, after):
    w = rig([(bucket, 1)], f"minecraft:{front}")
    fire(w)
    assert w.get_block(FRONT) == after
    assert w.contents()[DISPENSER] == [("bucket", 1)]
    assert w.item_entities() == []


def test_a_water_bucket_facing_a_rail_is_thrown_out_as_the_engine_keeps_rails_dry():
    """Vanilla waterlogs the rail; the engine has no waterlogged rail (docs/limits.md), so the bucket fails and is
    thrown out, the rail left as it was."""
    w = rig([("water_bucket", 1)], "minecraft:rail[shape=north_south]")
    fire(w)
    assert w.get_block(FRONT) == "minecraft:rail[shape=north_south,waterlogged=false]"
    assert [(e.item, e.count) for e in w.item_entities()] == [("water_bucket", 1)]


FRONTS = ["air", "stone", "water[level=0]", "water[level=4]", "lava[level=0]", "redstone_wire", "repeater[facing=east]",
          "oak_slab[type=bottom]", "oak_slab[type=bottom,waterlogged=true]", "candle[candles=2]", "fire",
          "white_carpet", "rail[shape=north_south]", "powder_snow"]
KINDS = {"bucket": "bucket", "water_bucket": "bucket", "lava_bucket": "bucket", "powder_snow_bucket": "bucket",
         "white_shulker_box": "box", "stone": "stone"}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(front=st.sampled_from(FRONTS),
       slots=st.lists(st.one_of(st.none(), st.tuples(st.sampled_from(sorted(KINDS)), st.integers(1, 3))),
                      min_size=1, max_size=9))
def test_a_dispenser_firing_loses_and_makes_no_item(front, slots):
    """Whatever it fires at whatever stands in front: the buckets (filled or not), boxes and stone in its slots, plus
    those thrown out, plus a box placed, stay as many; any other item entity is a drop of the block that stood in
    front (items.block_drops), and the cell changes only when the slot it fired from held a bucket or a box."""
    from collections import Counter

    from scicraft_viz.engine.items import block_drops

    slots = [s if s is None or s[0] in ("bucket", "stone") else (s[0], 1) for s in slots]  # filled buckets, boxes: 1
    w = rig([s for s in slots], f"minecraft:{front}")
    was = w.get_block(FRONT)

    def tally():
        n = Counter()
        for slot in w.contents().get(DISPENSER, []):
            if slot is not None:
                n[KINDS[slot[0]]] += slot[1]
        for e in w.item_entities():
            if e.item in KINDS:
                n[KINDS[e.item]] += e.count
        if "shulker_box" in w.get_block(FRONT):
            n["box"] += 1
        return n

    before = tally()
    w.set_block(TRIGGER, "redstone_block")
    w.step(FIRES)
    assert tally() == before
    others = [(e.item, e.count) for e in w.item_entities() if e.item not in KINDS]
    assert others in ([], list(block_drops(was)))
    first = next((s[0] for s in slots if s is not None), None)
    if first is None or KINDS[first] == "stone":
        assert w.get_block(FRONT) == was


def test_every_engine_block_a_bucket_breaks_has_only_sure_drops():
    """What docs/limits.md claims: of the blocks the engine holds, those water or lava break (not solid, not a fluid)
    have loot that leaves nothing to chance, so block_drops gives all of it; and a full block is never broken."""
    from scicraft_viz.engine import blocks as B
    from scicraft_viz.engine import fluids
    from scicraft_viz.engine.items import block_drops, has_chance_drops

    broken = [n for n in sorted(set(B.PALETTE) | set(B.VANILLA))
              if n not in ("air", "water", "lava", "bubble_column") and fluids.fluid_replaceable(f"minecraft:{n}")]
    assert {"redstone_wire", "redstone_repeater", "comparator", "lever", "fire", "cobweb"} <= set(broken)
    assert not {"stone", "redstone_lamp", "oak_slab", "copper_bulb", "dispenser"} & set(broken)
    assert [n for n in broken if has_chance_drops(f"minecraft:{n}")] == []
    assert [n for n in broken if not block_drops(f"minecraft:{n}")] == ["fire", "powder_snow"]  # their loot: none
