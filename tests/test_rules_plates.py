"""Pressure plates (Java Edition 1.20): entities set through World.set_entities press a plate at once; a
pressed plate re-checks its entities 20 game ticks (stone, wooden) or 10 (weighted) after each press or
check, and keeps its output until then. Layout: a stone floor at y=0, the plate P at (0, 1, 0)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, on, prop

from scicraft_viz import World
from scicraft_viz.engine import compiled
from scicraft_viz.errors import InputError, PlacementError

P, LAMP = (0, 1, 0), (1, 1, 0)


def plate_world(plate="stone_pressure_plate"):
    w = new_world()
    w.set_block(P, plate)
    w.set_block(LAMP, "redstone_lamp")
    return w


def out(w):
    return w.power(P).level


@pytest.mark.parametrize("name", ["stone_pressure_plate", "oak_pressure_plate", "crimson_pressure_plate",
                                  "polished_blackstone_pressure_plate", "bamboo_pressure_plate"])
def test_stone_and_wooden_plate_states_keep_their_names(name):
    w = new_world()
    w.set_block(P, name)
    assert w.get_block(P) == f"minecraft:{name}[powered=false]"
    w.set_entities(P, 1)
    assert w.get_block(P) == f"minecraft:{name}[powered=true]"
    assert w.scheduled()[0].block == f"minecraft:{name}"
    assert w.events[-1].describe() == f"tick 0: {name} at (0, 1, 0) powered=true"


def test_stone_plate_presses_at_once_and_releases_at_its_re_check():
    w = plate_world()
    t = w.tick
    w.set_entities(P, 2)
    assert w.tick == t and out(w) == 15 and on(w, P) and on(w, LAMP)
    assert [(s.tick, s.pos, s.priority) for s in w.scheduled()] == [(t + 20, P, 3)]
    w.set_entities(P, 0)  # a pressed plate notices only at its re-check
    w.step(19)
    assert out(w) == 15
    w.step(1)
    assert w.tick == t + 20 and out(w) == 0 and not on(w, P) and w.scheduled()[0].pos == LAMP
    w.step(4)
    assert not on(w, LAMP)  # the lamp goes off 4 game ticks later, as always


def test_a_plate_stays_pressed_while_entities_stay_and_re_checks_every_20_gt():
    w = plate_world("oak_pressure_plate")
    t = w.tick
    w.set_entities(P, 1)
    w.step(20)
    assert out(w) == 15 and [s.tick for s in w.scheduled()] == [t + 40]
    w.set_entities(P, 0)
    w.step(19)
    assert out(w) == 15
    w.step(1)
    assert out(w) == 0 and w.scheduled() == [] or w.scheduled()[0].pos == LAMP


def test_light_weighted_plate_follows_its_count_at_each_10_gt_check():
    w = plate_world("light_weighted_pressure_plate")
    t = w.tick
    w.set_entities(P, 3)
    assert out(w) == 3 and w.get_block(P) == "minecraft:light_weighted_pressure_plate[power=3]"
    w.set_entities(P, 7)
    w.step(9)
    assert out(w) == 3
    w.step(1)
    assert w.tick == t + 10 and out(w) == 7
    w.set_entities(P, 40)
    w.step(10)
    assert out(w) == 15
    w.set_entities(P, 0)
    w.step(9)
    assert out(w) == 15
    w.step(1)
    assert w.tick == t + 30 and out(w) == 0
    assert [(e.tick - t, e.old, e.new) for e in w.events if e.pos == P and e.kind == "power"] == [
        (0, 0, 3), (10, 3, 7), (20, 7, 15), (30, 15, 0)]


@pytest.mark.parametrize("n, level", [(1, 1), (10, 1), (11, 2), (55, 6), (149, 15), (150, 15), (300, 15)])
def test_heavy_weighted_plate_gives_one_per_ten_entities_begun(n, level):
    w = plate_world("heavy_weighted_pressure_plate")
    w.set_entities(P, n)
    assert out(w) == level and w.entities(P) == min(n, 255)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 255))
def test_weighted_plate_outputs_are_vanilla_float_formula(n):
    import numpy as np

    w = World()
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "light_weighted_pressure_plate"),
                  ((1, 0, 0), "stone"), ((1, 1, 0), "heavy_weighted_pressure_plate")])
    w.set_entities((0, 1, 0), n)
    w.set_entities((1, 1, 0), n)
    for pos, cap in (((0, 1, 0), 15), ((1, 1, 0), 150)):
        f = np.float32(min(n, cap)) / np.float32(cap)
        assert w.power(pos).level == int(np.ceil(np.float32(f * np.float32(15))))


def test_plate_strongly_powers_the_block_below_and_weakly_its_neighbours():
    w = World()
    w.set_blocks([((0, 0, 0), "stone"), (P, "stone_pressure_plate"), ((1, -1, 0), "stone"),
                  ((1, 0, 0), "redstone_wire"), ((0, 1, 1), "redstone_lamp"), ((0, 2, 0), "stone")])
    w.set_entities(P, 1)
    assert w.power((0, 0, 0)).strong == 15  # the block below
    assert w.power((1, 0, 0)).level == 15  # dust beside that block
    assert on(w, (0, 1, 1))  # a lamp beside the plate
    assert w.power((0, 2, 0)).strong == 0 and w.power((0, 2, 0)).weak == 0  # the block above: nothing


def test_dust_points_into_a_plate():
    w = new_world()
    w.set_block(P, "stone_pressure_plate")
    w.set_block((1, 1, 0), "redstone_wire")
    assert prop(w, (1, 1, 0), "west") == "side"
    w.set_entities(P, 1)
    assert w.power((1, 1, 0)).level == 15


def test_a_comparator_reads_a_weighted_plate():
    w = new_world()
    w.set_block(P, "light_weighted_pressure_plate")
    w.set_block((1, 1, 0), "comparator[facing=west]")
    w.set_entities(P, 6)
    w.step(2)
    assert w.power((1, 1, 0)).level == 6


def test_a_plate_needs_a_block_below_and_pops_with_it():
    w = World()
    with pytest.raises(PlacementError, match="needs a solid block below"):
        w.set_block(P, "stone_pressure_plate")
    w.set_blocks([((0, 0, 0), "stone"), (P, "stone_pressure_plate"), ((1, 1, 0), "redstone_lamp")])
    w.set_entities(P, 1)
    w.remove_block((0, 0, 0))
    assert w.get_block(P) == "minecraft:air"
    w.step(4)
    assert not on(w, (1, 1, 0))


def test_a_plate_saved_pressed_stays_pressed():
    """A pasted pressed plate has no re-check pending and nothing standing on it: in vanilla it stays
    pressed until an entity steps on and off it."""
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "stone"), (P, "heavy_weighted_pressure_plate[power=4]")])
    w.step(100)
    assert out(w) == 4 and w.scheduled() == []
    w.set_entities(P, 1)  # a pressed plate ignores entities until a re-check
    assert out(w) == 4


def test_bad_entity_counts_and_non_plates_are_refused():
    w = plate_world()
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(InputError, match="non-negative integer"):
            w.set_entities(P, bad)
    with pytest.raises(InputError, match=r"\(1, 1, 0\) holds minecraft:redstone_lamp.*not a pressure plate"):
        w.set_entities(LAMP, 1)
    with pytest.raises(InputError, match="not a pressure plate"):
        w.entities((5, 5, 5))


def test_replacing_a_plate_forgets_its_entities():
    w = plate_world("light_weighted_pressure_plate")
    w.set_entities(P, 5)
    w.set_block(P, "heavy_weighted_pressure_plate")
    assert w.entities(P) == 0 and out(w) == 0


def test_compiled_engine_runs_plates():
    w = plate_world()
    assert compiled.compile_world(w).plates == {P: 0}
    w.set_entities(P, 1)
    w.log_events = False
    w.step(5000)
    assert w._cg is not None  # the long step ran on the graph
    w.set_entities(P, 0)  # on the graph: seen at the re-check of tick 5020
    w.step(19)
    assert w._cg is not None
    assert out(w) == 15 and on(w, LAMP)  # (reading writes the graph back)
    w.step(1)
    assert out(w) == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 25)), min_size=1, max_size=12),
       st.sampled_from(["light_weighted_pressure_plate", "heavy_weighted_pressure_plate", "oak_pressure_plate"]))
def test_plates_follow_the_press_and_re_check_model_tick_by_tick(ops, plate):
    """Random entity counts set at random ticks: the plate's output after every game tick is what vanilla's
    rules give (pressed at once when unpressed; otherwise changed only at a re-check, every 10 or 20 gt)."""
    w = World()
    w.set_blocks([((0, 0, 0), "stone"), (P, plate)])
    f = {"light_weighted_pressure_plate": lambda n: min(n, 15),
         "heavy_weighted_pressure_plate": lambda n: -(-min(n, 150) // 10),
         "oak_pressure_plate": lambda n: 15 if n else 0}[plate]
    delay = 20 if plate == "oak_pressure_plate" else 10
    power, entities, due = 0, 0, None
    for n, wait in ops:
        w.set_entities(P, n)
        entities = n
        if power == 0 and n > 0:
            power, due = f(n), w.tick + delay
        assert w.power(P).level == power
        for _ in range(wait):
            w.step(1)
            if w.tick == due:
                power = f(entities)
                due = w.tick + delay if power else None
            assert w.power(P).level == power, (w.tick, entities)
