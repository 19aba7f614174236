"""Item entities run against what vanilla Minecraft (26.2) did with the same structures: Nucleation's game-test
captures (tests/data/nucleation/README.md), which list every item entity's position and velocity at the end of
each tick it moved, its removal, and the block and slot changes. The engine must make the same changes at the same
ticks, positions and velocities within 1e-9 (the captures' worlds stood away from the origin, which rounds their
doubles by about 1e-14)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vanilla_capture import (
    NUCLEATION,
    Action,
    capture_window,
    differences,
    engine_entities,
    entity_differences,
    vanilla_entities,
)

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world

RB, AIR = "minecraft:redstone_block", "minecraft:air"
CAPTURES = {
    # a redstone item falls three blocks onto stone: gravity, drag, landing
    "item_fall": [],
    # a falling stack of two is taken whole by the hopper below on the tick its box reaches the column above it
    "item_into_hopper": [],
    # two resting stacks 0.3 apart merge on the 40th tick of their lives: the smaller one goes
    "item_merge": [],
    # a falling item lands on an oak plate: plate and lamp go on on the landing tick
    "plate_item": [],
    # two items thrown at 0.25 a tick, over blue ice and over stone: slipperiness, then the one-tick-in-four moves
    # of an item too slow to count (its id decides which ticks)
    "item_ice": [],
    # an item falls through a cobweb, each move scaled by (0.25, 0.05F, 0.25) and its velocity zeroed
    "item_web": [],
    # one item lands on soul sand at 14/16 of a block, its twin on stone at 1
    "item_soulsand": [],
    # items dropped on three light and three heavy weighted plates: each entity counts one, whatever its item
    "weighted_plates": [],
}
# placed without the structure update pass, as they were captured
QUIET = ("item_ice", "item_web", "item_soulsand", "weighted_plates")


def _capture(name):
    return json.loads((NUCLEATION / f"{name}.json").read_text())


@pytest.mark.parametrize("name", CAPTURES)
def test_item_entities_move_and_go_as_in_vanilla(name):
    cap = _capture(name)
    ticks = max(t["tick"] for t in cap["ticks"]) + 1
    want = vanilla_entities(cap)
    assert want, "a capture without entity events proves nothing here"
    got = engine_entities(World.from_build_file(NUCLEATION / f"{name}.snbt"), CAPTURES[name], ticks)
    assert entity_differences(want, got) == []


@pytest.mark.parametrize("name", CAPTURES)
def test_block_and_slot_changes_match_with_item_entities(name):
    assert differences(f"{name}.snbt", f"{name}.json", CAPTURES[name], inventories=True,
                       placement=name not in QUIET) == []


DROPPER = [Action(0, "place", (0, 2, 0), RB), Action(2, "place", (0, 2, 0), AIR)]


def test_a_dropper_facing_air_throws_its_item_out_at_vanillas_tick():
    """dropper_eject: the block and slot changes match exactly; the item appears on the capture's tick."""
    assert differences("dropper_eject.snbt", "dropper_eject.json", DROPPER, inventories=True, placement=True) == []
    w = World.from_build_file(NUCLEATION / "dropper_eject.snbt")
    got = engine_entities(w, DROPPER, 4)
    assert list(got) == [3] and list(got[3]) == [("entity", 1)]


def test_the_captured_throw_starts_where_vanilla_throws_from_with_a_velocity_vanilla_can_draw():
    """The capture's velocity is one draw of the game's level random (seeded from the clock), which no seed here
    reproduces. Undoing its first tick (gravity 0.04, drag 0.98F) gives where and how fast it was thrown: from 0.7
    east of the dropper's centre, 0.15625 lower, at a speed within vanilla's spread (0.2-0.3 east, each component
    +- 0.103365); and run on from its first captured state the engine follows the rest of the flight."""
    cap = _capture("dropper_eject")
    moves = {t["tick"]: e for t in cap["ticks"] for e in t["events"] if e["kind"] == "entity_moved"}
    drag = 0.9800000190734863
    (x, y, z), (vx, vy, vz) = moves[3]["pos"], moves[3]["velocity"]
    v0 = (vx / drag, vy / drag + 0.04, vz / drag)
    start = (x - v0[0], y - (v0[1] - 0.04), z - v0[2])
    assert start == pytest.approx((1.2, 1.34375, 0.5), abs=1e-12)
    assert 0.2 - 0.103365 <= v0[0] <= 0.3 + 0.103365
    assert abs(v0[1] - 0.2) <= 0.103365 and abs(v0[2]) <= 0.103365
    w = World.from_blocks([((x0, 0, 0), "stone") for x0 in range(4)])
    w.spawn_item("redstone", 1, moves[3]["pos"], moves[3]["velocity"])
    w._entities[0].tick_count = 1  # it has lived one tick (its rest cadence counts from spawning)
    for k in range(4, 8):
        w.step(1)
        (e,) = w.item_entities()
        assert e.pos == pytest.approx(tuple(moves[k]["pos"]), abs=1e-9)
        assert e.velocity == pytest.approx(tuple(moves[k]["velocity"]), abs=1e-9)


def test_the_compiled_engine_refuses_a_world_with_item_entities():
    w = World.from_build_file(NUCLEATION / "item_fall.snbt")
    with pytest.raises(CompileRefused, match="1 item entities"):
        compile_world(w)


# Items in water (docs/redstone.md section 95), each capture placed without the update pass, as captured:
# structure -> (capture, the structure's size, which sets the box the harness watched entities in)
IN_WATER = {
    # an ingot in a pool of still water swims up at 0.0005 a tick, drags, and sinks back where the water is shallow
    "item_float": ("item_float_water.json", (3, 5, 3)),
    # an ingot in a stream of flowing water is carried along it to the wall at its end, where it bobs
    "item_stream": ("item_stream.json", (10, 4, 3)),
    # an ingot in a column over soul sand is lifted out of it and falls back in; one in a column over magma is
    # dragged to the floor and rests
    "bubble": ("bubble.json", (5, 6, 3)),
}


@pytest.mark.parametrize("name", IN_WATER)
def test_items_swim_drift_and_ride_bubble_columns_as_in_vanilla(name):
    """Every tick's item position and velocity, within 1e-9, and the blocks (none change). The lifted ingot of
    `bubble` leaves the harness's window at tick 25 (its box above y = 11) and is logged back at tick 28."""
    capture, size = IN_WATER[name]
    cap = _capture(capture.removesuffix(".json"))
    ticks = max(t["tick"] for t in cap["ticks"]) + 1
    want = vanilla_entities(cap)
    assert len(want) > 90, "a capture without entity events proves nothing here"
    got = engine_entities(World.from_build_file(NUCLEATION / f"{name}.snbt"), [], ticks, capture_window(size))
    assert entity_differences(want, got) == []
    assert differences(f"{name}.snbt", capture) == []


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.floats(0.0, 0.9), st.floats(-0.3, 0.3), st.floats(-0.5, 0.5),
       st.sampled_from(["water[level=0]", "bubble_column[drag=false]", "bubble_column[drag=true]"]))
def test_in_a_shaft_of_still_water_an_item_never_gains_speed_sideways_and_a_drag_column_lays_it_on_the_floor(
        depth, y, vx, vy, water):
    """Sources have no current (section 95): an item in a one-block shaft of them, walled with stone, never gains
    speed sideways and never sinks through the floor; a drag column has it resting on the floor within 60 ticks (or
    hovering where it started, when that is within sqrt(1e-7) of the floor); the same run twice agrees."""
    from scicraft_viz.engine import items as I

    def at(p):
        x, h, z = p
        if (x, z) != (0, 0) or h < 0:
            return "minecraft:stone"
        return "minecraft:" + water if h < depth else "minecraft:air"

    def run():
        e = I.ItemEntity(1, "iron_ingot", 1, [0.5, y, 0.5], [vx, vy, 0.0])
        out = []
        for _ in range(60):
            before = abs(e.vel[0])
            I.tick_item(e, I.Surroundings(at))
            out.append((tuple(e.pos), tuple(e.vel)))
            assert abs(e.vel[0]) <= before + 1e-12 and e.vel[2] == 0.0
            assert e.pos[1] >= 0.0
        return out

    first = run()
    assert first == run()
    if "drag=true" in water:  # or it hovers where it started, closer to the floor than vanilla's Entity.move goes
        # (a move cut short by a collision to less than sqrt(1e-7) is not made)
        assert first[-1][0][1] == 0.0 or first[-1][0][1] == y < 1e-7 ** 0.5
