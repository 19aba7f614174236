"""Bells follow their power and ring, a bed's half goes with its other half, a dirt path under a solid block turns to
dirt, and a wall bell takes one wall or two as blocks come and go. docs/redstone.md section 99."""

import pytest
from redstone_helpers import name, new_world, prop, run
from test_compiled import _compare

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world

BELL = "bell[attachment=floor,facing=north]"


def _rang(w, since=0):
    return [(e.tick, e.pos, e.old) for e in w.events_since(since, "rang")]


def _bell_beside_lever():
    """Floor, a lever at (0, 1, 0), a floor bell facing north at (1, 1, 0)."""
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), BELL)
    return w


def test_a_bell_takes_powered_from_the_lever_beside_it_and_rings_on_the_rising_edge():
    w = _bell_beside_lever()
    total = w.events_total
    lever = (0, 1, 0)
    changes = run(w, 10, lambda: prop(w, (1, 1, 0), "powered"),
                  {0: [lambda: w.use(lever)], 4: [lambda: w.use(lever)], 7: [lambda: w.use(lever)]})
    assert changes == [(0, "true"), (4, "false"), (7, "true")]
    # it rings at each rising edge only, struck on the side it faces (north: index 0 of blocks.HORIZONTAL)
    assert _rang(w, total) == [(0, (1, 1, 0), 0), (7, (1, 1, 0), 0)]


def test_a_ring_is_told_as_an_event():
    w = _bell_beside_lever()
    total = w.events_total
    w.use((0, 1, 0))
    texts = [e.describe() for e in w.events_since(total)]
    assert "tick 0: bell at (1, 1, 0) rang (struck on its north side)" in texts
    assert "tick 0: bell at (1, 1, 0) powered=true" in texts


def test_an_east_facing_bell_is_struck_on_its_east_side():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "bell[attachment=floor,facing=east]")
    w.use((0, 1, 0))
    assert _rang(w) == [(0, (1, 1, 0), 1)]


def test_an_observer_watching_a_bell_pulses_two_game_ticks_after_each_change_of_powered():
    """The bell's new state is set with shape updates: the observer's tick is 2 gt on, its pulse 2 gt long."""
    w = _bell_beside_lever()
    w.set_block((2, 1, 0), "observer[facing=west]")  # its face toward the bell
    lever = (0, 1, 0)
    changes = run(w, 12, lambda: prop(w, (2, 1, 0), "powered"),
                  {0: [lambda: w.use(lever)], 6: [lambda: w.use(lever)]})
    assert changes == [(0, "false"), (2, "true"), (4, "false"), (8, "true"), (10, "false")]


def test_a_repeater_into_a_bell_rings_it_when_its_output_rises():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "repeater[facing=west,delay=2]")  # 4 game ticks
    w.set_block((2, 1, 0), BELL)
    w.use((0, 1, 0))
    changes = run(w, 8, lambda: prop(w, (2, 1, 0), "powered"))
    assert changes == [(0, "false"), (4, "true")]
    assert _rang(w) == [(4, (2, 1, 0), 0)]


def test_a_bell_set_beside_power_waits_for_a_neighbour_update():
    """vanilla sets no powered when a bell is placed and calls no neighborChanged on the placed block itself."""
    w = new_world()
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), BELL)
    w.step(3)
    assert prop(w, (1, 1, 0), "powered") == "false" and _rang(w) == []
    w.set_block((1, 1, 1), "stone")  # a neighbour update
    assert prop(w, (1, 1, 0), "powered") == "true"
    assert _rang(w) == [(3, (1, 1, 0), 0)]


def test_a_bell_set_powered_with_nothing_powering_it_turns_off_at_the_next_update_without_ringing():
    w = new_world()
    w.set_block((1, 1, 0), "bell[attachment=floor,facing=north,powered=true]")
    w.set_block((1, 1, 1), "stone")
    assert prop(w, (1, 1, 0), "powered") == "false" and _rang(w) == []


@pytest.mark.parametrize("gone", ["foot", "head"])
def test_removing_one_half_of_a_bed_removes_the_other(gone):
    w = World()
    w.set_block((0, 0, 0), "red_bed[facing=east,part=foot]")  # a foot's other half lies where it faces
    w.set_block((1, 0, 0), "red_bed[facing=east,part=head]")
    w.set_block((0, 0, 0) if gone == "foot" else (1, 0, 0), "air")
    assert name(w, (0, 0, 0)) == "air" and name(w, (1, 0, 0)) == "air"
    assert w.tick == 0


def test_a_bed_half_stays_while_changes_come_from_other_sides():
    w = World()
    w.set_block((0, 0, 0), "red_bed[facing=north,part=head]")  # its other half belongs south, at (0, 0, 1)
    for p in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, 0, -1)):
        w.set_block(p, "stone")
    assert name(w, (0, 0, 0)) == "red_bed"
    w.set_block((0, 0, 1), "stone")
    assert name(w, (0, 0, 0)) == "air"


def test_a_lone_bed_half_goes_when_a_lamp_where_its_other_half_belongs_switches_off():
    """A lamp's tick sets lit with shape updates only; the half beside it hears one and goes in that tick."""
    w = World(replay=True)
    w.set_block((1, 0, 0), "redstone_lamp[lit=true]")
    w.set_block((0, 0, 0), "red_bed[facing=east,part=foot]")  # its other half's place holds the lamp
    w.set_block((1, 0, 1), "glass")  # a neighbour update: the unpowered lamp's off tick, 4 gt on
    changes = run(w, 6, lambda: (prop(w, (1, 0, 0), "lit"), name(w, (0, 0, 0))))
    assert changes == [(0, ("true", "red_bed")), (4, ("false", "air"))]


def test_a_bed_half_goes_when_a_bed_of_another_colour_comes_to_its_other_half_place():
    """vanilla BedBlock.updateShape keeps a half only beside the other part of the same bed block; the second half,
    left alone by the first one going, goes with it."""
    w = World()
    w.set_block((0, 0, 0), "red_bed[facing=east,part=foot]")
    w.set_block((1, 0, 0), "blue_bed[facing=east,part=head]")
    assert name(w, (0, 0, 0)) == "air" and name(w, (1, 0, 0)) == "air"


def test_a_piston_breaking_one_half_of_a_bed_takes_the_other_in_the_same_tick():
    w = new_world()
    w.set_block((-1, 1, 0), "piston[facing=east]")
    w.set_block((0, 1, 0), "white_bed[facing=east,part=foot]")
    w.set_block((1, 1, 0), "white_bed[facing=east,part=head]")
    w.set_block((-2, 1, 0), "redstone_block")
    changes = run(w, 4, lambda: (name(w, (0, 1, 0)), name(w, (1, 1, 0))))
    assert changes == [(0, ("white_bed", "white_bed")), (1, ("moving_piston", "air")), (3, ("piston_head", "air"))]


def test_a_dirt_path_under_a_placed_solid_block_turns_to_dirt_one_game_tick_later():
    w = World()
    w.set_block((0, 0, 0), "dirt_path")
    w.set_block((0, 1, 0), "stone")
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(1, (0, 0, 0))]
    changes = run(w, 3, lambda: name(w, (0, 0, 0)))
    assert changes == [(0, "dirt_path"), (1, "dirt")]


@pytest.mark.parametrize("above, stays", [("oak_fence_gate", True), ("white_carpet", True), ("glass", False),
                                          ("oak_fence", False), ("white_bed", False)])
def test_what_a_dirt_path_survives_under(above, stays):
    """vanilla DirtPathBlock.canSurvive: the block above is not solid, or is a fence gate."""
    w = World()
    w.set_block((0, 0, 0), "dirt_path")
    w.set_block((0, 1, 0), above)
    w.step(2)
    assert name(w, (0, 0, 0)) == ("dirt_path" if stays else "dirt")


def test_a_dirt_path_set_under_a_solid_block_stays_until_a_shape_update_from_above():
    """The path itself hears no shape update when it is placed; the next change above schedules its tick."""
    w = World()
    w.set_block((0, 1, 0), "stone")
    w.set_block((0, 0, 0), "dirt_path")
    w.step(5)
    assert name(w, (0, 0, 0)) == "dirt_path"
    w.set_block((0, 1, 0), "glass")
    w.step(1)
    assert (w.tick, name(w, (0, 0, 0))) == (6, "dirt")


def test_a_piston_pushing_a_block_over_a_dirt_path_turns_it_to_dirt_a_tick_after_the_block_starts_moving():
    """The moving block (moving_piston, solid) arrives over the path at the push: the path's tick comes 1 gt later,
    before the block lands."""
    w = World()
    w.set_block((0, 0, 0), "dirt_path")
    w.set_block((-2, 1, 0), "piston[facing=east]")
    w.set_block((-1, 1, 0), "stone")
    w.set_block((-3, 1, 0), "redstone_block")
    changes = run(w, 4, lambda: (name(w, (0, 0, 0)), name(w, (0, 1, 0))))
    assert changes == [(0, ("dirt_path", "air")), (1, ("dirt_path", "moving_piston")), (2, ("dirt", "moving_piston")),
                       (3, ("dirt", "stone"))]


def test_the_dirt_a_path_turns_into_conducts():
    """Dirt is a full conductive block: a repeater into it now powers the lamp on its far side."""
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "repeater[facing=west]")
    w.set_block((2, 1, 0), "dirt_path")
    w.set_block((3, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    w.step(4)
    assert prop(w, (3, 1, 0), "lit") == "false"
    w.set_block((2, 2, 0), "stone")
    w.step(2)
    assert name(w, (2, 1, 0)) == "dirt" and prop(w, (3, 1, 0), "lit") == "true"


def test_a_single_wall_bell_becomes_double_wall_when_a_whole_face_arrives_on_its_free_side():
    w = World()
    w.set_block((0, 1, 0), "stone")
    w.set_block((1, 1, 0), "bell[attachment=single_wall,facing=west]")  # hangs on the stone west of it
    w.set_block((2, 1, 0), "oak_fence")  # no whole face toward the bell: it stays single
    assert prop(w, (1, 1, 0), "attachment") == "single_wall"
    w.set_block((2, 1, 0), "glass")
    assert w.get_block((1, 1, 0)) == "minecraft:bell[attachment=double_wall,facing=west,powered=false]"


def test_an_observer_watching_a_wall_bell_fires_when_it_takes_a_second_wall():
    w = World()
    w.set_block((0, 1, 0), "stone")
    w.set_block((1, 1, 0), "bell[attachment=single_wall,facing=west]")
    w.set_block((1, 1, 1), "observer[facing=north]")  # its face toward the bell
    changes = run(w, 5, lambda: prop(w, (1, 1, 1), "powered"), {0: [lambda: w.set_block((2, 1, 0), "stone")]})
    assert prop(w, (1, 1, 0), "attachment") == "double_wall"
    assert changes == [(0, "false"), (2, "true"), (4, "false")]


@pytest.mark.parametrize("gone, facing", [((0, 1, 0), "east"), ((2, 1, 0), "west")])
def test_a_double_wall_bell_hangs_on_the_wall_that_stays(gone, facing):
    w = World()
    w.set_block((0, 1, 0), "stone")
    w.set_block((2, 1, 0), "stone")
    w.set_block((1, 1, 0), "bell[attachment=double_wall,facing=west]")
    w.set_block(gone, "air")
    assert w.get_block((1, 1, 0)) == f"minecraft:bell[attachment=single_wall,facing={facing},powered=false]"
    w.set_block((2, 1, 0) if facing == "east" else (0, 1, 0), "air")  # and then that one goes: it falls
    assert name(w, (1, 1, 0)) == "air"


def test_a_double_wall_bell_ignores_changes_across_its_axis():
    w = World()
    w.set_block((1, 1, 0), "bell[attachment=double_wall,facing=west]")
    w.set_block((1, 1, 1), "stone")
    w.set_block((1, 1, 1), "air")
    assert prop(w, (1, 1, 0), "attachment") == "double_wall"


def test_the_compiled_engine_refuses_a_bell_power_can_reach_naming_why():
    w = _bell_beside_lever()
    with pytest.raises(CompileRefused, match="bell at \\(1, 1, 0\\): power can reach it"):
        compile_world(w)


def test_the_compiled_engine_refuses_a_lone_bed_half():
    w = new_world()
    w.set_block((1, 1, 0), "red_bed[facing=east,part=foot]")
    with pytest.raises(CompileRefused, match="red_bed at \\(1, 1, 0\\) has no other half"):
        compile_world(w)


def test_the_compiled_engine_runs_beside_a_whole_bed_and_an_unpowered_bell_as_the_reference_does():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 1), "redstone_wire")
    w.set_block((1, 1, 1), "redstone_lamp")
    w.set_block((3, 1, 0), "red_bed[facing=east,part=foot]")
    w.set_block((4, 1, 0), "red_bed[facing=east,part=head]")
    w.set_block((3, 1, 2), BELL)
    cw = compile_world(w)
    _compare(w, cw, [((0, 1, 0), 3), ((0, 1, 0), 5)])
