"""The observer (Java Edition 1.20): a change of the block it faces schedules a tick 2 game ticks on; it
then sends a 2 game tick pulse of strong power out of its back; observers chain and clock."""

import pytest
from redstone_helpers import new_world, on, run

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world

LEVER, OBS, BEHIND = (0, 1, 0), (1, 1, 0), (2, 1, 0)


def watched_lever(w):
    """A floor lever watched by an observer whose back faces a lamp."""
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_block(OBS, "observer[facing=west]")
    w.set_block(BEHIND, "redstone_lamp")


def test_canonical_state_and_no_pulse_of_its_own_on_placement():
    w = new_world()
    w.set_block(OBS, "observer[facing=west]")
    assert w.get_block(OBS) == "minecraft:observer[facing=west,powered=false]"
    w.step(10)
    assert not on(w, OBS)


def test_a_change_in_front_gives_a_2gt_pulse_2gt_later_and_lights_the_lamp_behind():
    w = new_world()
    watched_lever(w)
    got = run(w, 12, lambda: (on(w, OBS), on(w, BEHIND)), {0: [lambda: w.use(LEVER)]})
    # powered at ticks 2-3; the lamp lights with it and goes dark 4 game ticks after the pulse ends
    assert got == [(0, (False, False)), (2, (True, True)), (4, (False, True)), (8, (False, False))]


def test_it_strongly_powers_the_block_behind():
    w = new_world()
    watched_lever(w)
    w.set_block(BEHIND, "stone")
    w.set_block((2, 1, 1), "redstone_wire")  # dust beside the stone reads its strong power
    w.use(LEVER)
    w.step(2)
    assert w.power(BEHIND).strong == 15
    assert w.power((2, 1, 1)).level == 15
    assert w.power(OBS).level == 15
    w.step(2)
    assert w.power(BEHIND).strong == 0 and w.power((2, 1, 1)).level == 0


def test_it_sees_dust_power_placement_and_removal_but_not_a_comparator_output():
    w = new_world()
    w.set_block(OBS, "observer[facing=west]")
    seen = []

    def pulses(action):
        action()
        t = w.tick
        got = run(w, 6, lambda: on(w, OBS))
        seen.append([tick - t for tick, v in got if v])

    pulses(lambda: w.set_block(LEVER, "stone"))  # placed in front
    pulses(lambda: w.remove_block(LEVER))  # removed
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    pulses(lambda: w.set_block(LEVER, "redstone_wire"))
    pulses(lambda: w.use((-1, 1, 0)))  # the dust in front changes power
    assert seen == [[2], [2], [2], [2]]
    w.set_block(BEHIND, "stone")
    # a block behind it, at its side or above is not watched
    pulses(lambda: w.set_block(BEHIND, "glass"))
    pulses(lambda: w.set_block((1, 2, 0), "stone"))
    assert seen[-2:] == [[], []]


def test_a_chain_adds_2gt_per_observer():
    w = new_world()
    watched_lever(w)
    w.set_block(BEHIND, "observer[facing=west]")  # watches the first observer
    w.set_block((3, 1, 0), "redstone_lamp")
    w.step(4)
    got = run(w, 12, lambda: (on(w, OBS), on(w, BEHIND)), {w.tick: [lambda: w.use(LEVER)]})
    t = got[0][0]
    assert [(k - t, v) for k, v in got] == [
        (0, (False, False)), (2, (True, False)), (4, (False, True)), (6, (False, False))]


def test_two_observers_facing_each_other_make_a_clock_of_6gt():
    w = new_world()
    a, b = (0, 1, 0), (1, 1, 0)
    w.set_block(a, "observer[facing=east]")
    w.set_block(b, "observer[facing=west]")  # a sees b placed: a fires at tick 2
    got = run(w, 20, lambda: (on(w, a), on(w, b)))
    # each pulse is 2 gt; a observer ignores what it sees while powered, so b's rise (seen by a while a
    # is still on) is missed and only b's fall restarts a
    assert got == [(0, (False, False)), (2, (True, False)), (4, (False, True)), (6, (False, False)),
                   (8, (True, False)), (10, (False, True)), (12, (False, False)), (14, (True, False)),
                   (16, (False, True)), (18, (False, False)), (20, (True, False))]


def test_an_observer_whose_tick_is_due_but_not_run_still_starts_a_new_pulse():
    """Vanilla collects a tick's due ticks out of the containers before running any: an observer seeing a change
    while its own due tick waits no longer has a tick scheduled (hasScheduledTick), so it schedules another."""
    w = new_world()
    front, back = (1, 1, 1), (1, 1, 2)  # back watches front; both pulse from the structure pass, front first
    w.set_block(front, "observer[facing=north]")
    w.set_block(back, "observer[facing=north]")
    w.structure_updates([front, back])
    got = run(w, 12, lambda: (on(w, front), on(w, back)))
    # at tick 2 front turns on before back's due tick runs: back schedules tick 4 (which runs before front's
    # own, scheduled after it); at 4 back goes off first, then front's fall restarts back: on again 6-8
    assert got == [(0, (False, False)), (2, (True, True)), (4, (False, False)), (6, (False, True)),
                   (8, (False, False))]


def test_setblock_placed_powered_switches_off_at_once():
    w = World(replay=True)
    w.set_block((0, 0, 0), "observer[facing=up,powered=true]")
    assert w.get_block((0, 0, 0)) == "minecraft:observer[facing=up,powered=false]"
    assert any(e.kind == "state" and e.new == 0 for e in w.events)


def test_dust_connects_to_its_back_only():
    w = new_world()
    w.set_block((1, 1, 1), "observer[facing=south]")  # back faces north, toward z=0
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((0, 1, 1), "redstone_wire")  # beside it, in a north-south line of dust
    w.set_block((0, 1, 2), "redstone_wire")
    assert "south=side" in w.get_block((1, 1, 0))
    assert "east=none" in w.get_block((0, 1, 1))


def test_the_compiled_engine_refuses_it():
    w = new_world()
    w.set_block(OBS, "observer[facing=west]")
    with pytest.raises(CompileRefused, match=r"observer at \(1, 1, 0\)"):
        compile_world(w)
