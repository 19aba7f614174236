"""The daylight sensor (Java Edition 1.20) under open sky in clear weather: its output follows the day time
set with World.set_time_of_day, worked out on every game tick that is a multiple of 20."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, on, prop

from scicraft_viz import World
from scicraft_viz.engine import compiled
from scicraft_viz.engine.daylight import sensor_output, sky_darken
from scicraft_viz.errors import InputError

S, LAMP = (0, 1, 0), (1, 1, 0)


@pytest.mark.parametrize("day_time, darken, normal, inverted", [
    (6000, 0, 15, 0),  # noon
    (18000, 11, 0, 11),  # midnight
    (1000, 0, 10, 0),
    (13000, 6, 2, 6),  # dusk
    (23000, 6, 2, 6),  # dawn
    (0, 0, 7, 0),  # sunrise
    (12000, 0, 7, 0),  # sunset
])
def test_output_by_day_time(day_time, darken, normal, inverted):
    assert sky_darken(day_time - 1) == darken
    assert sensor_output(day_time, 0) == normal and sensor_output(day_time, 1) == inverted


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**7))
def test_outputs_stay_in_range_and_inverted_is_the_sky_darkness(t):
    assert 0 <= sensor_output(t, 0) <= 15
    assert sensor_output(t, 1) == sky_darken(t - 1)
    assert sensor_output(t, 0) == sensor_output(t + 24000, 0)  # a day is 24000 ticks


def test_output_is_worked_out_on_ticks_that_are_multiples_of_20():
    w = new_world()
    w.set_block(S, "daylight_detector")
    w.set_block(LAMP, "redstone_lamp")
    assert w.tick == 0 and w.time_of_day == 0
    w.set_time_of_day(6000)
    w.step(19)
    assert w.power(S).level == 0 and not on(w, LAMP)
    w.step(1)
    assert w.tick == 20 and w.get_block(S) == "minecraft:daylight_detector[inverted=false,power=15]"
    assert on(w, LAMP)
    w.set_time_of_day(18000)
    w.step(19)
    assert w.power(S).level == 15
    w.step(1)
    assert w.power(S).level == 0 and w.time_of_day == 18020
    assert [(e.tick, e.old, e.new) for e in w.events if e.pos == S and e.kind == "power"] == [(20, 0, 15), (40, 15, 0)]


def test_day_time_advances_with_the_game_tick():
    w = World()
    w.step(5)
    w.set_time_of_day(1000)
    w.step(20)
    assert w.time_of_day == 1020 and w.tick == 25
    w2 = w.copy()
    w2.step(3)
    assert w2.time_of_day == 1023 and w.time_of_day == 1020


def test_use_toggles_inverted_and_updates_at_once():
    w = new_world()
    w.set_block(S, "daylight_detector")
    w.set_time_of_day(18000)
    w.step(20)
    assert w.power(S).level == 0
    t = w.tick
    assert w.use(S) is True
    assert w.tick == t and w.get_block(S) == "minecraft:daylight_detector[inverted=true,power=11]"
    assert w.use(S) is True
    assert prop(w, S, "inverted") == "false" and w.power(S).level == 0


def test_dust_connects_and_reads_the_sensor():
    w = new_world()
    w.set_block(S, "daylight_detector")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((2, 1, 0), "redstone_wire")
    assert prop(w, (1, 1, 0), "west") == "side"
    w.set_time_of_day(1000)
    w.step(20)
    assert w.power((1, 1, 0)).level == 10 and w.power((2, 1, 0)).level == 9


def test_record_rows_show_the_update():
    w = new_world()
    w.set_block(S, "daylight_detector[inverted=true]")
    w.set_block(LAMP, "redstone_lamp")
    w.set_time_of_day(18000)
    tr = w.record(25)
    assert tr.first_on(LAMP) == 20 and tr.changes(LAMP) == [(20, 1)]


def test_sensor_saved_keeps_its_power_until_the_next_multiple_of_20():
    w = World(replay=True)
    w.set_block(S, "daylight_detector[power=9,inverted=true]")
    assert w.get_block(S) == "minecraft:daylight_detector[inverted=true,power=9]"
    w.step(19)
    assert w.power(S).level == 9
    w.step(1)
    assert w.power(S).level == sensor_output(20, 1)


def test_bad_day_times_are_refused():
    w = World()
    for bad in (-1, 1.0, True, "noon"):
        with pytest.raises(InputError, match="day time must be a non-negative integer"):
            w.set_time_of_day(bad)


def test_compiled_engine_runs_daylight_sensors():
    w = new_world()
    w.set_block(S, "daylight_detector")
    assert compiled.compile_world(w).sensors == {S: 0}
    w.set_time_of_day(6000)
    w.log_events = False
    w.step(5000)
    assert w._cg is not None  # the long step ran on the graph, stopping every 20 gt for the sensor
    assert w.power(S).level == sensor_output(5000 + 6000, 0) == 10
