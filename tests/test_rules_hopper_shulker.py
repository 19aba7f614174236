"""Shulker boxes as containers (docs/redstone.md section 96, vanilla ShulkerBoxBlockEntity and
ShulkerBoxDispenseBehavior): 27 slots that hoppers and droppers fill and drain, but never with a shulker box item;
a comparator reads their fill level; a dispenser places a box item as the block with the items it carries, or keeps
it when the place in front is not air; a piston breaking a box drops it as an item that carries its items; build
files keep a box's items and a box item's."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import run

from scicraft_viz import World, builds
from scicraft_viz.engine import containers as C
from scicraft_viz.engine.formats import write_build
from scicraft_viz.errors import InputError

HOP, BOX, CMP, WIRE = (0, 1, 0), (1, 1, 0), (2, 1, 0), (3, 1, 0)


def floor(w, xs=range(-1, 5), zs=range(-1, 3)):
    for x in xs:
        for z in zs:
            w.set_block((x, 0, z), "stone")


def count(w, p):
    return sum(n for _, n in w.items(p))


def hopper_into_box(items):
    """A hopper facing east into a white shulker box, a comparator reading the box, dust after it."""
    w = World()
    floor(w)
    w.set_block(BOX, "white_shulker_box[facing=up]")
    w.set_block(HOP, "hopper[facing=east]")
    w.set_block(CMP, "comparator[facing=west]")
    w.set_block(WIRE, "redstone_wire")
    w.set_items(HOP, items)
    return w


def test_a_hopper_fills_a_shulker_box_one_item_every_8_gt_and_a_comparator_reads_its_level():
    w = hopper_into_box([("ender_pearl", 3)])
    got = run(w, 30, lambda: (count(w, HOP), count(w, BOX), w.fill_level(BOX), w.power(WIRE).level))
    # 1 ender pearl of 16 in 27 slots gives 1; the comparator's output follows 2 gt after the level
    assert got == [(0, (3, 0, 0, 0)), (1, (2, 1, 1, 0)), (3, (2, 1, 1, 1)), (9, (1, 2, 1, 1)), (17, (0, 3, 1, 1))]
    assert w.slots(BOX) == [("ender_pearl", 3)] + [None] * 26


def test_a_full_shulker_box_reads_15_and_holds_the_hopper():
    w = hopper_into_box([("stone", 5)])
    w.set_items(BOX, [("stone", 64 * 27)])
    assert w.fill_level(BOX) == 15
    w.step(20)
    assert (count(w, HOP), count(w, BOX)) == (5, 64 * 27) and w.power(WIRE).level == 15


def test_a_hopper_under_a_shulker_box_drains_it():
    w = World()
    floor(w)
    w.set_block((1, 1, 0), "chest")
    w.set_block((0, 1, 0), "hopper[facing=east]")
    w.set_block((0, 2, 0), "shulker_box[facing=up]")
    w.set_items((0, 2, 0), [("diamond", 2)])
    got = run(w, 20, lambda: (count(w, (0, 2, 0)), count(w, (0, 1, 0)), count(w, (1, 1, 0))))
    assert got == [(0, (2, 0, 0)), (1, (1, 1, 0)), (9, (0, 1, 1)), (17, (0, 0, 2))]


def test_a_hopper_passes_a_shulker_box_item_over_and_moves_the_next_item_into_a_box():
    """vanilla canPlaceItemThroughFace: a shulker box takes no shulker box item, so the hopper tries its next slot."""
    w = hopper_into_box([("red_shulker_box", 1), ("stone", 1)])
    w.step(1)
    assert w.slots(HOP) == [("red_shulker_box", 1), None, None, None, None]
    assert w.slots(BOX)[:2] == [("stone", 1), None]
    w.step(30)
    assert w.items(HOP) == [("red_shulker_box", 1)] and w.items(BOX) == [("stone", 1)]


def test_a_dropper_keeps_a_shulker_box_item_the_box_in_front_refuses():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "dropper[facing=east]")
    w.set_block((1, 1, 0), "lime_shulker_box")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.set_items((0, 1, 0), [("lime_shulker_box", 1), ("stone", 1)])
    w.use((0, 1, 1))
    w.step(4)  # it fires its first filled slot: the box item, which stays
    assert w.items((0, 1, 0)) == [("lime_shulker_box", 1), ("stone", 1)]
    assert w.items((1, 1, 0)) == [] and w.item_entities() == []


def dispenser(facing="east", below_front="air", front="air", item=None):
    """A dispenser at (0, 1, 0) on a stone floor (y 0), its front cell `front` above `below_front`, a lever beside
    it, holding `item` (a white shulker box carrying 5 redstone and 2 diamonds by default) and 3 stone after it."""
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 0, 1), "stone")
    ahead = {"east": (1, 1, 0), "up": (0, 2, 0)}[facing]
    w.set_block((ahead[0], ahead[1] - 1, ahead[2]), below_front)
    w.set_block((0, 1, 0), f"dispenser[facing={facing}]")
    w.set_block(ahead, front)
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    if item is None:
        item = C.with_contents("white_shulker_box", (("redstone", 5), None, ("diamond", 2)))
    w.set_items((0, 1, 0), [(item, 1), ("stone", 3)])
    return w, ahead


@pytest.mark.parametrize("below, facing", [("air", "east"), ("stone", "up"), ("hopper[facing=down]", "up")])
def test_a_dispenser_places_a_shulker_box_with_its_items_facing_away_or_up(below, facing):
    """ShulkerBoxDispenseBehavior: placed in front, facing the dispenser's way when the block below that place is
    air, else up; the box holds what the item held, slot for slot, and the dispenser's slot is emptied."""
    w, at = dispenser(below_front=below)
    w.use((0, 1, 1))
    w.step(3)
    assert w.get_block(at) == "minecraft:air"
    w.step(1)
    assert w.get_block(at) == f"minecraft:white_shulker_box[facing={facing}]"
    held = [("redstone", 5), None, ("diamond", 2)]
    if below.startswith("hopper"):  # the hopper under it drains its first slot in the same tick
        held = [("redstone", 4), None, ("diamond", 2)]
    assert w.slots(at)[:3] == held and w.slots(at)[3:] == [None] * 24
    assert w.slots((0, 1, 0)) == [None, ("stone", 3)] + [None] * 7
    assert w.item_entities() == []


def test_a_dispenser_places_an_empty_box_item_as_an_empty_box_facing_up():
    w, at = dispenser(facing="up", item="orange_shulker_box")
    w.use((0, 1, 1))
    w.step(4)
    assert w.get_block(at) == "minecraft:orange_shulker_box[facing=up]" and w.items(at) == []
    assert w.items((0, 1, 0)) == [("stone", 3)]


@pytest.mark.parametrize("front", ["stone", "glass", "redstone_wire", "white_shulker_box", "oak_slab[type=bottom]"])
def test_a_dispenser_facing_a_block_keeps_the_box_item_and_throws_nothing(front):
    """The place in front cannot be replaced (a block, even one water would break): the dispense fails (the game
    plays the fail sound), the item stays in its slot with its items, no item entity appears, and the next firing
    tries the same item again."""
    w, at = dispenser(front=front, below_front="stone")
    before = w.get_block(at)
    for _ in range(2):
        w.use((0, 1, 1))
        w.step(4)
        w.use((0, 1, 1))
        w.step(2)
    assert w.get_block(at) == before and w.item_entities() == []
    slots = w.slots((0, 1, 0))
    assert slots[:2] == [("white_shulker_box", 1), ("stone", 3)]
    assert C.contents_of(slots[0][0])[:3] == (("redstone", 5), None, ("diamond", 2))


@pytest.mark.parametrize("front", [
    "water[level=0]", "water[level=5]", "lava[level=0]", "fire", "bubble_column[drag=true]"])
def test_a_dispenser_places_a_box_into_a_block_it_replaces_which_goes_without_a_drop(front):
    """DirectionalPlaceContext.canPlace: a replaceable block (a fluid, fire...) gives way to the box (setBlock, no
    drop; the box is not waterloggable, so water leaves nothing), in the dispense's tick."""
    w, at = dispenser(below_front="stone", front=front)
    before = w.get_block(at)
    w.use((0, 1, 1))
    w.step(3)
    assert w.get_block(at) == before
    w.step(1)
    assert w.get_block(at) == "minecraft:white_shulker_box[facing=up]"
    assert w.slots(at)[:3] == [("redstone", 5), None, ("diamond", 2)]
    assert w.items((0, 1, 0)) == [("stone", 3)] and w.item_entities() == []
    w.step(10)
    assert w.get_block(at) == "minecraft:white_shulker_box[facing=up]"


@pytest.mark.parametrize(("cart_x", "placed"), [(2.4, False), (2.5, True)])
def test_a_minecart_overlapping_the_place_keeps_the_box_item(cart_x, placed):
    """Level.isUnobstructed: a minecart (blocksBuilding) whose box overlaps the cell with some volume stops the
    placement and the item stays; one whose box only reaches the cell's face (x 2.5: its box starts 0.49 further)
    does not."""
    w, at = dispenser(below_front="stone")
    w.set_block((2, 0, 0), "stone")
    w.spawn_minecart((cart_x, 1.0, 0.5))
    w.use((0, 1, 1))
    w.step(4)
    if placed:
        assert w.get_block(at) == "minecraft:white_shulker_box[facing=up]"
        assert w.items((0, 1, 0)) == [("stone", 3)]
    else:
        assert w.get_block(at) == "minecraft:air"
        assert w.slots((0, 1, 0))[0][0] == C.with_contents("white_shulker_box", (("redstone", 5), None, ("diamond", 2)))
    assert w.item_entities() == []


def test_an_item_entity_in_the_place_does_not_stop_the_box():
    w, at = dispenser(below_front="stone")
    w.spawn_item("redstone", 1, (1.5, 1.0, 0.5))
    w.use((0, 1, 1))
    w.step(4)
    assert w.get_block(at) == "minecraft:white_shulker_box[facing=up]"
    assert [(e.item, e.count) for e in w.item_entities()] == [("redstone", 1)]


def test_a_piston_breaks_a_box_which_drops_as_an_item_carrying_its_items_that_a_hopper_takes():
    """PistonBaseBlock.moveBlocks drops a box it breaks (Block.popResource, pickup delay 10) with its block entity's
    items; a hopper under it, locked until then, takes the dropped item whole once unlocked."""
    w = World()
    floor(w)
    w.set_block((-1, 1, 0), "redstone_block")  # locks the hopper
    w.set_block((0, 1, 0), "hopper[facing=east]")
    w.set_block((0, 2, 0), "blue_shulker_box[facing=up]")
    w.set_block((0, 3, 0), "piston[facing=down]")
    w.set_block((1, 2, 0), "stone")
    w.set_block((1, 3, 0), "lever[face=floor,facing=north]")
    w.set_items((0, 2, 0), [None, ("diamond", 3)])
    w.step(10)
    assert w.items((0, 2, 0)) == [("diamond", 3)] and w.items((0, 1, 0)) == []  # locked: it pulls nothing
    w.use((1, 3, 0))
    got = run(w, 4, lambda: (w.get_block((0, 2, 0)).split("[")[0], [(e.item, e.count) for e in w.item_entities()]))
    assert got == [(10, ("minecraft:blue_shulker_box", [])),
                   (11, ("minecraft:moving_piston", [("blue_shulker_box", 1)])),
                   (13, ("minecraft:piston_head", [("blue_shulker_box", 1)]))]
    (e,) = w.item_entities()
    assert e.pickup_delay <= 10 and w.contents() == {}
    w.use((1, 3, 0))  # the piston retracts
    w.set_block((-1, 1, 0), "air")  # the hopper unlocks
    w.step(10)
    assert w.item_entities() == []
    (stack,) = w.items((0, 1, 0))
    assert stack == ("blue_shulker_box", 1)
    assert C.contents_of(stack[0])[:2] == (None, ("diamond", 3))


FAR_BOX = (6, 1, 4)  # on no line of the observer clock's piston (builds.CLOCK_PISTON pushes west at y 1, z 0)
BROKEN_BOX = (-3, 1, 0)  # where the clock's first push moves its stone (builds.CLOCK_PUSHED): the push breaks it


def clocked_box(at):
    """The observer clock of scicraft_viz.builds with its piston, started, and a lime box holding items at `at`, a
    comparator south of it reading its level into dust."""
    w = builds.observer_clock()
    x, y, z = at
    for dz in (1, 2):
        w.set_block((x, y - 1, z + dz), "stone")
    w.set_block(at, "lime_shulker_box[facing=up]")
    w.set_items(at, [("redstone", 20), ("repeater", 3)])
    w.set_block((x, y, z + 1), "comparator[facing=north]")
    w.set_block((x, y, z + 2), "redstone_wire")
    builds.start_observer_clock(w)
    return w


def seen(w):
    """All a trace shows of the world now: its blocks, items and item entities, and every change so far."""
    return w.tick, w.blocks(), w.contents(), w.item_entities(), w.events


def one_tick_a_call(ticks, at):
    w = clocked_box(at)
    for _ in range(ticks):
        w.step(1)
    return w


def test_a_push_breaking_a_box_inside_one_step_drops_it_in_the_tick_it_breaks():
    """One step of 30 gt in which the clock's first push breaks the box (at +2, its stone moving into the box's
    place): the box drops in that tick with its items, and the world after is the one stepped one tick a call."""
    w = clocked_box(BROKEN_BOX)
    t0 = w.tick
    w.step(30)
    gone = [e.tick - t0 for e in w.events if e.pos == BROKEN_BOX and e.kind == "removed"]
    assert gone == [2, 4]  # the box, then the moving block that lands there as the stone
    (e,) = w.item_entities()
    assert (e.item, e.count) == ("lime_shulker_box", 1) and e.age == 29  # it ticks in the entity phase of +2 too
    assert C.contents_of(e.item) == (("redstone", 20), ("repeater", 3)) + (None,) * 25
    assert w.contents() == {} and w.boxes_holding_items() == []
    assert seen(w) == seen(one_tick_a_call(30, BROKEN_BOX))


def test_a_box_no_push_reaches_leaves_the_world_as_stepping_it_tick_by_tick():
    """The box the piston never reaches keeps its items and its comparator's level through 60 gt of the clock."""
    w = clocked_box(FAR_BOX)
    w.step(60)
    assert w.items(FAR_BOX) == [("redstone", 20), ("repeater", 3)] and w.item_entities() == []
    assert w.power((FAR_BOX[0], 1, FAR_BOX[2] + 2)).level == w.fill_level(FAR_BOX) == 1
    assert seen(w) == seen(one_tick_a_call(60, FAR_BOX))


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(st.integers(1, 40), min_size=1, max_size=6), broken=st.booleans())
def test_stepping_a_world_with_a_box_in_any_steps_gives_the_tick_by_tick_world(steps, broken):
    at = BROKEN_BOX if broken else FAR_BOX
    w = clocked_box(at)
    for n in steps:
        w.step(n)
    assert seen(w) == seen(one_tick_a_call(sum(steps), at))


def test_world_api_sets_and_reads_a_box_and_refuses_too_many_stacks():
    w = World()
    w.set_block((0, 0, 0), "purple_shulker_box")
    w.set_items((0, 0, 0), [("stone", 64 * 27)])
    assert w.fill_level((0, 0, 0)) == 15 and len(w.items((0, 0, 0))) == 27
    with pytest.raises(InputError, match="a shulker box has 27"):
        w.set_items((0, 0, 0), [("stone", 64 * 27 + 1)])
    w.set_block((0, 0, 0), "glass")  # a placement replaces the box and its items
    with pytest.raises(InputError, match="not a container"):
        w.items((0, 0, 0))
    assert w.contents() == {}


@pytest.mark.parametrize("fmt", ["snbt", "nbt", "schem", "litematic"])
def test_a_box_and_a_box_item_keep_their_items_through_a_build_file(tmp_path, fmt):
    w, at = dispenser()
    w.set_block((2, 1, 0), "cyan_shulker_box[facing=north]")
    w.set_items((2, 1, 0), [None, ("redstone", 7)])
    f = tmp_path / f"b.{fmt}"
    write_build(w, f)
    r = World.from_build_file(f)
    assert r.slots((2, 1, 0))[:2] == [None, ("redstone", 7)] and r.fill_level((2, 1, 0)) == 1
    item = r.slots((0, 1, 0))[0][0]
    assert item == "white_shulker_box" and C.contents_of(item)[:3] == (("redstone", 5), None, ("diamond", 2))


@pytest.mark.parametrize("item", [
    '{Slot: 0b, id: "minecraft:white_shulker_box", count: 1, components: {"minecraft:container": '
    '[{slot: 2, item: {id: "minecraft:diamond", count: 2}}]}}',
    '{Slot: 0b, id: "minecraft:white_shulker_box", Count: 1b, tag: {BlockEntityTag: {Items: '
    '[{Slot: 2b, id: "minecraft:diamond", Count: 2b}]}}}',
])
def test_a_box_item_is_read_from_its_component_or_its_block_entity_tag(tmp_path, item):
    f = tmp_path / "d.snbt"
    f.write_text('{DataVersion: 3465, size: [1, 1, 1], palette: [{Name: "minecraft:dispenser", Properties: '
                 '{facing: "up", triggered: "false"}}], blocks: [{pos: [0, 0, 0], state: 0, nbt: {id: '
                 f'"minecraft:dispenser", Items: [{item}]}}}}], entities: []}}')
    (stack,) = World.from_build_file(f).items((0, 0, 0))
    assert C.contents_of(stack[0])[:3] == (None, None, ("diamond", 2))


def test_a_box_item_with_a_bad_component_is_refused_naming_where(tmp_path):
    f = tmp_path / "d.snbt"
    f.write_text('{DataVersion: 3465, size: [1, 1, 1], palette: [{Name: "minecraft:dispenser", Properties: '
                 '{facing: "up", triggered: "false"}}], blocks: [{pos: [0, 0, 0], state: 0, nbt: {id: '
                 '"minecraft:dispenser", Items: [{Slot: 0b, id: "minecraft:white_shulker_box", count: 1, '
                 'components: {"minecraft:container": [{slot: 30, item: {id: "minecraft:diamond", count: 2}}]}}]}}],'
                 ' entities: []}')
    from scicraft_viz.errors import BuildFileError

    with pytest.raises(BuildFileError, match=r"Items\[0\]: components.minecraft:container.*Slot 30 is outside"):
        World.from_build_file(f)
