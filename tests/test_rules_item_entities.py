"""Item entities (docs/redstone.md sections 58-60): exact positions, velocities and ticks, and the invariant that
items are neither made nor lost except by despawning."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine import tracefile
from scicraft_viz.engine.items import JavaRandom, eject
from scicraft_viz.errors import InputError

DRAG = 0.9800000190734863  # 0.98F


def floor(n=3, block="stone"):
    return World.from_blocks([((x, 0, z), block) for x in range(n) for z in range(n)])


def test_a_falling_item_takes_gravity_then_drag_each_tick():
    w = floor()
    w.spawn_item("redstone", 1, (1.5, 3.0, 1.5))
    w.step(1)
    (e,) = w.item_entities()
    assert e.pos == (1.5, 2.96, 1.5) and e.velocity == (0.0, -0.04 * DRAG, 0.0)
    assert (e.age, e.on_ground) == (1, False)


def test_an_item_lands_on_the_top_of_the_block_and_stops():
    w = floor()
    w.spawn_item("redstone", 1, (1.5, 3.0, 1.5))
    w.step(10)
    (e,) = w.item_entities()
    assert e.pos == (1.5, 1.0, 1.5) and e.velocity == (0.0, 0.0, 0.0) and e.on_ground


def test_ice_keeps_an_item_sliding_longer_than_stone():
    far = {}
    for block in ("stone", "blue_ice"):
        w = World.from_blocks([((x, 0, 0), block) for x in range(12)])
        w.spawn_item("iron_ingot", 1, (0.5, 1.0, 0.5), (0.25, 0.0, 0.0))
        w.step(60)
        far[block] = w.item_entities()[0].pos[0]
    # stone: 0.25 a tick times 0.98F * 0.6F each grounded tick; blue ice 0.98F * 0.989F
    assert far["stone"] == pytest.approx(0.5 + 0.25 / (1 - DRAG * 0.6000000238418579), abs=0.01)
    k = DRAG * 0.9890000224113464
    assert far["blue_ice"] == pytest.approx(0.5 + 0.25 * (1 - k**60) / (1 - k), abs=0.01)


def test_a_wall_stops_an_item_at_its_face():
    w = World.from_blocks([*(((x, 0, 0), "stone") for x in range(4)), ((3, 1, 0), "stone")])
    w.spawn_item("redstone", 1, (1.5, 1.0, 0.5), (1.0, 0.0, 0.0))
    w.step(2)  # 1.0 a tick, then 0.588 (ground drag 0.98F * 0.6F) but only 0.375 before the wall
    (e,) = w.item_entities()
    assert e.pos[0] == 3.0 - 0.125 and e.velocity[0] == 0.0


def test_two_stacks_merge_into_the_larger_on_the_fortieth_tick():
    w = floor()
    w.spawn_item("redstone", 3, (1.35, 1.0, 1.5))
    w.spawn_item("redstone", 5, (1.65, 1.0, 1.5))
    w.step(39)
    assert [e.count for e in w.item_entities()] == [3, 5]
    w.step(1)
    assert [(e.id, e.count) for e in w.item_entities()] == [(2, 8)]


def test_stacks_that_would_overflow_or_differ_do_not_merge():
    w = floor()
    w.spawn_item("redstone", 40, (1.35, 1.0, 1.5))
    w.spawn_item("redstone", 30, (1.65, 1.0, 1.5))
    w.spawn_item("stick", 1, (1.5, 1.0, 1.4))
    w.step(80)
    assert sorted(e.count for e in w.item_entities()) == [1, 30, 40]


def test_an_item_despawns_at_age_6000_and_never_with_age_minus_32768():
    w = floor()
    w.spawn_item("redstone", 1, (1.5, 1.0, 1.5), age=5990)
    w.spawn_item("stick", 1, (0.5, 1.0, 0.5), age=-32768)
    w.step(9)
    assert len(w.item_entities()) == 2
    w.step(1)
    assert [e.item for e in w.item_entities()] == ["stick"]


def test_pickup_delay_counts_down_and_32767_never_does():
    w = floor()
    w.spawn_item("redstone", 1, (1.5, 1.0, 1.5), pickup_delay=10)
    w.spawn_item("stick", 1, (0.5, 1.0, 0.5), pickup_delay=32767)
    w.step(4)
    assert [e.pickup_delay for e in w.item_entities()] == [6, 32767]


def test_a_hopper_takes_a_resting_stack_and_waits_eight_ticks():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "hopper[facing=down]")])
    w.spawn_item("redstone", 2, (0.5, 2.0, 0.5))
    w.step(1)
    assert w.item_entities() == [] and w.items((0, 1, 0)) == [("redstone", 2)]


def test_a_full_block_on_a_hopper_keeps_it_from_taking_items():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "hopper[facing=down]"), ((0, 2, 0), "glass")])
    w.spawn_item("redstone", 2, (0.5, 3.0, 0.5))
    w.step(20)
    assert w.items((0, 1, 0)) == [] and len(w.item_entities()) == 1


def test_a_hopper_takes_what_fits_and_leaves_the_rest():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "hopper[facing=down]")])
    w.set_items((0, 1, 0), [("stone", 64)] * 4 + [("redstone", 60)])
    w.spawn_item("redstone", 10, (0.5, 2.0, 0.5))
    w.step(1)
    assert w.slots((0, 1, 0))[4] == ("redstone", 64) and [e.count for e in w.item_entities()] == [6]


def test_a_locked_hopper_leaves_items_alone():
    w = World.from_blocks([((0, 0, 0), "stone"), ((1, 1, 0), "redstone_block"),
                           ((0, 1, 0), "hopper[facing=down,enabled=false]")])
    w.spawn_item("redstone", 1, (0.5, 2.0, 0.5))
    w.step(5)
    assert w.items((0, 1, 0)) == [] and len(w.item_entities()) == 1


def test_a_dropper_facing_air_throws_from_its_front_with_vanillas_random_draw():
    w = World.from_blocks([((x, 0, 0), "stone") for x in range(6)] + [((0, 1, 0), "dropper[facing=east]")])
    w.set_items((0, 1, 0), [("redstone", 2)])
    w.set_random_seed(42)
    w.set_block((0, 2, 0), "redstone_block")
    w.step(3)
    assert w.item_entities() == []
    w.step(1)
    (e,) = w.item_entities()
    pos, vel = eject(JavaRandom(42), (0, 1, 0), (1, 0, 0))
    assert e.velocity == pytest.approx((vel[0] * DRAG, (vel[1] - 0.04) * DRAG, vel[2] * DRAG), abs=1e-15)
    assert e.pos == pytest.approx((pos[0] + vel[0], pos[1] + vel[1] - 0.04, pos[2] + vel[2]), abs=1e-15)
    assert w.items((0, 1, 0)) == [("redstone", 1)]


def test_the_java_random_source_matches_java_util_random():
    r = JavaRandom(0)
    # new java.util.Random(0).nextDouble(), twice
    assert (r.next_double(), r.next_double()) == (0.730967787376657, 0.24053641567148587)


@pytest.mark.parametrize("wooden, stone", [("oak", "stone"), ("warped", "polished_blackstone"),
                                           ("bamboo", "stone")])
def test_an_item_on_a_wooden_plate_presses_it_and_a_stone_plate_ignores_it(wooden, stone):
    w = World.from_blocks([((0, 0, 0), "stone"), ((1, 0, 0), "stone"), ((0, 1, 0), f"{wooden}_pressure_plate"),
                           ((1, 1, 0), f"{stone}_pressure_plate")])
    w.spawn_item("redstone", 1, (0.5, 1.5, 0.5))
    w.spawn_item("redstone", 1, (1.5, 1.5, 0.5))
    w.step(12)
    assert w.get_block((0, 1, 0)) == f"minecraft:{wooden}_pressure_plate[powered=true]"
    assert w.get_block((1, 1, 0)) == f"minecraft:{stone}_pressure_plate[powered=false]"
    assert w.entities((0, 1, 0)) == 1 and w.entities((1, 1, 0)) == 0


def test_a_light_weighted_plate_counts_item_entities_not_items():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "light_weighted_pressure_plate")])
    for k in range(3):
        w.spawn_item(("stick", "redstone", "string")[k], 10, (0.3 + 0.2 * k, 1.0, 0.5))
    w.step(1)
    assert w.get_block((0, 1, 0)) == "minecraft:light_weighted_pressure_plate[power=3]"


def test_a_plate_lets_go_at_its_recheck_after_a_hopper_takes_the_item():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "oak_pressure_plate")])
    w.spawn_item("redstone", 1, (0.5, 1.0, 0.5))
    w.step(1)
    assert w.get_block((0, 1, 0)) == "minecraft:oak_pressure_plate[powered=true]"
    w.set_block((0, 2, 0), "hopper[facing=down]")  # takes nothing: the item is below its column
    w.step(30)
    assert w.get_block((0, 1, 0)) == "minecraft:oak_pressure_plate[powered=true]"


@pytest.mark.parametrize("bad, message", [
    (("nothing", 1, (0, 0, 0)), "not a Minecraft 1.20 item"),
    (("redstone", 0, (0, 0, 0)), "holds 1 to 64 redstone"),
    (("redstone", 65, (0, 0, 0)), "holds 1 to 64 redstone"),
    (("redstone", 1, (0, float("nan"), 0)), "three finite numbers"),
    (("redstone", 1, (0, 0)), "three finite numbers"),
    (("redstone", 1, (0, 0, 0), (0, 11, 0)), "within 10 blocks a tick"),
])
def test_bad_spawns_are_refused_naming_what_is_wrong(bad, message):
    with pytest.raises(InputError, match=message):
        World().spawn_item(*bad)


def test_copies_keep_their_own_items():
    w = floor()
    w.spawn_item("redstone", 1, (1.5, 3.0, 1.5))
    c = w.copy()
    c.step(5)
    assert w.item_entities()[0].pos == (1.5, 3.0, 1.5) and c.item_entities()[0].pos != (1.5, 3.0, 1.5)


_spawn = st.tuples(st.sampled_from(["redstone", "stick", "iron_ingot"]), st.integers(1, 40),
                   st.floats(0.2, 3.8), st.floats(1.0, 4.0), st.floats(0.2, 3.8),
                   st.floats(-0.4, 0.4), st.floats(-0.4, 0.4), st.floats(-0.4, 0.4))


@settings(max_examples=25, deadline=None)
@given(st.lists(_spawn, min_size=1, max_size=8), st.integers(1, 120), st.booleans())
def test_items_are_never_made_nor_lost(spawns, ticks, hopper):
    """Whatever the items do (fall, slide, merge, go into a hopper), each item's total over entities and the
    hopper stays what was spawned (nothing despawns this young), and a copy stepped tick by tick agrees."""
    blocks = [((x, 0, z), "stone") for x in range(4) for z in range(4)]
    if hopper:
        blocks[5] = ((1, 0, 1), "hopper[facing=down]")
    w = World.from_blocks(blocks)
    want: dict[str, int] = {}
    for item, n, x, y, z, vx, vy, vz in spawns:
        w.spawn_item(item, n, (x, y, z), (vx, vy, vz))
        want[item] = want.get(item, 0) + n
    twin = w.copy()
    w.step(ticks)
    for _ in range(ticks):  # the same world stepped one tick at a time does exactly the same
        twin.step(1)
    assert twin.item_entities() == w.item_entities()
    have: dict[str, int] = {}
    for e in w.item_entities():
        assert e.count > 0
        have[e.item] = have.get(e.item, 0) + e.count
    for name, n in w.items((1, 0, 1)) if hopper else ():
        have[name] = have.get(name, 0) + n
    assert have == want


def test_a_recorded_trace_lists_the_item_entities_of_every_row():
    w = floor()
    assert w.record(3).items is None
    w.spawn_item("redstone", 1, (1.5, 3.0, 1.5))
    tr = w.record(10)
    assert len(tr.items) == 11 and tr.items[0][0].pos == (1.5, 3.0, 1.5)
    assert tr.items[1][0].pos == (1.5, 2.96, 1.5) and tr.items[10][0].pos == (1.5, 1.0, 1.5)
    assert tr.items[10] == tuple(w.item_entities())


def _items_trace():
    w = floor()
    w.spawn_item("redstone", 3, (1.5, 3.0, 1.5), (0.05, 0.2, -0.01), pickup_delay=10)
    w.spawn_item("ender_pearl", 1, (2.25, 1.0, 1.5))
    return w.record(12)


_ITEMS_TRACE = _items_trace()


def test_a_trace_file_keeps_every_rows_item_entities(tmp_path):
    tr = _items_trace()
    f = tmp_path / "items.trace.json"
    tracefile.save(tr, f)
    back = tracefile.load(f)
    assert back.items == tr.items and len(back.items) == 13 and back.items[12][0].pickup_delay == 0
    assert back.items[0][0] == (1, "redstone", 3, (1.5, 3.0, 1.5), (0.05, 0.2, -0.01), False, 0, 10)
    obj = tracefile.to_json(tr)
    del obj["items"]
    assert tracefile.from_json(obj).items is None


def _set(path, value):
    def edit(obj):
        cur = obj
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = value
    return edit


@pytest.mark.parametrize("edit, where", [
    (_set(["items", 3, 0, "item"], "unobtainium"), "items[3][0]: item entity: 'unobtainium'"),
    (_set(["items", 3, 0, "count"], 65), "items[3][0]: item entity: an item entity holds 1 to 64 redstone"),
    (_set(["items", 3, 1, "count"], 17), "items[3][1]: item entity: an item entity holds 1 to 16 ender_pearl"),
    (_set(["items", 3, 0, "velocity"], [0.0, 11.0, 0.0]), "items[3][0]: item entity: the position must lie"),
    (_set(["items", 3, 0, "pos"], [1.0, 2.0]), "items[3][0].pos"),
    (_set(["items", 3, 1, "id"], 1), "items[3][1].id: item entity 1 is listed twice in row 3"),
    (_set(["items", 3, 0, "age"], 40000), "items[3][0].age"),
    (_set(["items", 3, 0, "colour"], "red"), "items[3][0]"),
    (lambda obj: obj["items"].append([]), "items: holds 14 rows, the trace 13"),
])
def test_a_trace_files_bad_item_entity_is_refused_naming_it(edit, where):
    obj = tracefile.to_json(_items_trace())
    edit(obj)
    with pytest.raises(InputError) as e:
        tracefile.from_json(obj, "trace file t.json")
    assert str(e.value).startswith(f"trace file t.json: {where}")


@settings(max_examples=60, deadline=None)
@given(row=st.integers(0, 12), entity=st.integers(0, 1),
       field=st.sampled_from(["id", "item", "count", "pos", "velocity", "on_ground", "age", "pickup_delay"]),
       value=st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                       st.text(max_size=12), st.lists(st.floats(-1e9, 1e9), max_size=4)))
def test_any_edit_of_a_traces_item_entity_loads_or_is_refused_with_an_input_error(row, entity, field, value):
    obj = tracefile.to_json(_ITEMS_TRACE)
    obj["items"][row][entity][field] = value
    try:
        tr = tracefile.from_json(obj)
    except InputError:
        return
    got = getattr(tr.items[row][entity], field)
    assert len(tr.items) == 13 and (field == "item" or got == (tuple(value) if isinstance(value, list) else value))


@pytest.mark.parametrize("piston", [False, True])
def test_a_trace_shows_a_thrown_item_from_the_tick_it_is_thrown(piston):
    blocks = [((x, 0, 0), "stone") for x in range(6)] + [((0, 1, 0), "dropper[facing=east]")]
    if piston:  # a world with a piston records one tick at a time
        blocks.append(((5, 1, 0), "piston[facing=up]"))
    w = World.from_blocks(blocks)
    w.set_items((0, 1, 0), [("redstone", 1)])
    w.set_block((0, 2, 0), "redstone_block")
    tr = w.record(6)
    assert [len(row) for row in tr.items] == [0, 0, 0, 0, 1, 1, 1]
    assert tr.items[6] == tuple(w.item_entities())


def _structure(entity: str) -> bytes:
    return ("{DataVersion: 4903, size: [1, 2, 1], palette: [{Name: \"minecraft:stone\"}], "
            "blocks: [{pos: [0, 0, 0], state: 0}], entities: [" + entity + "]}").encode()


def test_a_structures_item_entities_load_in_order_with_their_fields():
    item = ('{{blockPos: [0, 1, 0], pos: [0.5d, {y}d, 0.5d], nbt: {{id: "minecraft:item", Item: {{id: '
            '"minecraft:{name}", count: {n}}}, Motion: [0.0d, 0.5d, 0.0d], PickupDelay: 7s, Age: 12s}}}}')
    w = World.from_build_file(_structure(item.format(y=1.0, name="stick", n=3) + ", "
                                         + item.format(y=1.5, name="redstone", n=1)), fmt="snbt")
    assert [(e.id, e.item, e.count, e.pos, e.velocity, e.pickup_delay, e.age) for e in w.item_entities()] == [
        (1, "stick", 3, (0.5, 1.0, 0.5), (0.0, 0.5, 0.0), 7, 12),
        (2, "redstone", 1, (0.5, 1.5, 0.5), (0.0, 0.5, 0.0), 7, 12)]


@pytest.mark.parametrize("entity, message", [
    ('{pos: [0.5d, 1.0d], nbt: {id: "minecraft:item", Item: {id: "minecraft:stick", count: 1}}}',
     r"root.entities\[0\].pos is .*expected a list of 3 Doubles"),
    ('{pos: [0.5d, 1.0d, 0.5d], nbt: {id: "minecraft:item", Item: {id: "minecraft:nope", count: 1}}}',
     r"root.entities\[0\].nbt.Item.id: 'nope' is not a Minecraft 1.20 item"),
    ('{pos: [0.5d, 1.0d, 0.5d], nbt: {id: "minecraft:item", Item: {id: "minecraft:stick", count: 99}}}',
     "holds 1 to 64 stick, got 99"),
    ('{pos: [0.5d, 1.0d, 0.5d], nbt: {id: "minecraft:item", Item: "stick"}}',
     r"root.entities\[0\].nbt.Item is .*expected a compound"),
    ('{pos: [0.5d, 1.0d, 0.5d], nbt: {id: "minecraft:item", Item: {id: "minecraft:stick", count: 1}, '
     'Motion: [0.0d, 50.0d, 0.0d]}}', "within 10 blocks a tick"),
    ('{pos: [0.5d, 1.0d, 0.5d], nbt: {id: "minecraft:pig"}}', "holds 1 entities \\(minecraft:pig x1\\)"),
])
def test_a_structures_bad_item_entity_is_refused_naming_the_field(entity, message):
    from scicraft_viz.errors import BuildFileError

    with pytest.raises(BuildFileError, match=message):
        World.from_build_file(_structure(entity), fmt="snbt")


def test_a_plate_placed_anew_under_a_resting_item_counts_it():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "oak_pressure_plate")])
    w.spawn_item("redstone", 1, (0.5, 1.0, 0.5))
    w.step(1)
    w.set_block((0, 1, 0), "air")
    w.set_block((0, 1, 0), "birch_pressure_plate")
    assert w.entities((0, 1, 0)) == 0
    w.step(1)
    assert w.entities((0, 1, 0)) == 1 and w.get_block((0, 1, 0)) == "minecraft:birch_pressure_plate[powered=true]"


def test_set_entities_counts_the_others_beside_the_items():
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "light_weighted_pressure_plate")])
    w.spawn_item("redstone", 1, (0.5, 1.0, 0.5))
    w.step(1)
    w.set_entities((0, 1, 0), 4)
    assert w.entities((0, 1, 0)) == 5
    w.step(10)
    assert w.get_block((0, 1, 0)) == "minecraft:light_weighted_pressure_plate[power=5]"


def test_a_thrown_item_lands_in_a_hopper_and_a_comparator_counts_it():
    """A dropper facing down over a gap throws its item out (vanilla throws 0.2 upward whatever the facing); it falls
    into the column above the hopper, which takes it whole and passes it to the chest a comparator reads."""
    w = World.from_blocks([((1, -1, 0), "stone"), ((0, 0, 0), "chest"), ((0, 1, 0), "hopper[facing=down]"),
                           ((0, 5, 0), "dropper[facing=down]"), ((1, 0, 0), "comparator[facing=west]"),
                           ((2, 0, 0), "redstone_lamp")])
    w.set_items((0, 5, 0), [("stone", 3)])
    w.set_block((0, 6, 0), "redstone_block")  # fires 4 gt later: the item is thrown into the gap (upward 0.2)
    w.step(4)
    (e,) = w.item_entities()
    assert e.pos[1] > 5.0 - 0.825 and w.items((0, 1, 0)) == []
    got = []
    for _ in range(40):
        w.step(1)
        got.append((len(w.item_entities()), sum(n for _, n in w.items((0, 1, 0))),
                    sum(n for _, n in w.items((0, 0, 0)))))
    assert (1, 0, 0) in got and (0, 1, 0) in got and got[-1] == (0, 0, 1)  # falls, taken, passed to the chest
    assert w.get_block((2, 0, 0)) == "minecraft:redstone_lamp[lit=true]"


@pytest.mark.parametrize("ground", ["soul_sand", "mud"])
def test_soul_sand_and_mud_conduct_and_an_item_rests_on_them_at_14_16(ground):
    w = World.from_blocks([((0, 0, 0), ground), ((1, 0, 0), "redstone_lamp"),
                           ((0, 1, 0), "lever[face=floor,facing=north]")])
    w.use((0, 1, 0))
    w.step(1)
    assert w.get_block((1, 0, 0)) == "minecraft:redstone_lamp[lit=true]"
    w = World.from_blocks([((0, 0, 0), ground)])
    w.spawn_item("stick", 1, (0.5, 1.5, 0.5))
    w.step(40)
    (e,) = w.item_entities()
    assert e.on_ground and e.pos[1] == 0.875


def test_a_piston_breaks_a_cobweb():
    w = World.from_blocks([((0, 0, 0), "piston[facing=east]"), ((1, 0, 0), "cobweb"), ((0, 0, 1), "redstone_block")])
    w.step(3)
    assert w.get_block((1, 0, 0)).startswith("minecraft:piston_head") and w.get_block((2, 0, 0)) == "minecraft:air"


def test_an_item_over_an_edge_feels_the_block_that_holds_it_up():
    """Its centre is over air, but it rests on the blue ice beside: the ice's slipperiness applies (vanilla's
    supporting block), not the default under its centre."""
    w = World.from_blocks([((0, 0, 0), "blue_ice")])
    w.spawn_item("stick", 1, (1.1, 1.0, 0.5), (-0.05, 0.0, 0.0))
    w.step(1)
    (e,) = w.item_entities()
    assert e.on_ground and e.pos == pytest.approx((1.05, 1.0, 0.5), abs=1e-15)
    assert e.velocity[0] == -0.05 * float(np.float32(np.float32(0.989) * np.float32(0.98)))


@pytest.mark.parametrize("block, taken", [("glass", False), ("beehive", True)])
def test_a_full_block_on_a_hopper_blocks_it_but_a_beehive_does_not(block, taken):
    """An item inside the block on a hopper is in its column: glass keeps the hopper from taking it, a beehive
    (vanilla's tag does_not_block_hoppers) does not."""
    w = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "hopper[facing=down]"), ((0, 2, 0), block)])
    w.spawn_item("redstone", 1, (0.5, 2.5, 0.5))
    w.step(1)
    assert (w.items((0, 1, 0)) == [("redstone", 1)]) is taken and len(w.item_entities()) == 1 - taken
