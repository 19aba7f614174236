
import pytest
from redstone_helpers import floor, name, new_world, on, power, prop, run

from scicraft_viz import World

LEVER = (0, 1, 0)
R = (1, 1, 0)          # repeater facing=west: input (0,1,0), output into (2,1,0)
OUT = (2, 1, 0)


def _lever_repeater(delay):
    w = new_world()
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_block(R, f"redstone_repeater[facing=west,delay={delay}]")
    w.set_block(OUT, "redstone_wire")
    return w


def test_repeater_canonical_default_and_parsed():
    w = new_world()
    w.set_block(R, "redstone_repeater")
    assert w.get_block(R) == "minecraft:redstone_repeater[delay=1,facing=north,locked=false,powered=false]"
    w.set_block(R, "minecraft:redstone_repeater[facing=west,delay=2]")
    assert w.get_block(R) == "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]"


@pytest.mark.parametrize("delay", [1, 2, 3, 4])
def test_repeater_delay_both_edges(delay):
    w = _lever_repeater(delay)
    flip = [lambda: w.use(LEVER)]
    got = run(w, 40, lambda: (on(w, R), power(w, OUT)), {0: flip, 20: flip})
    d = 2 * delay
    assert got == [(0, (False, 0)), (d, (True, 15)), (20 + d, (False, 0))]


@pytest.mark.parametrize("delay", [2, 3, 4])
def test_short_pulse_is_stretched_to_the_delay(delay):
    w = _lever_repeater(delay)
    flip = [lambda: w.use(LEVER)]
    got = run(w, 30, lambda: on(w, R), {0: flip, 2: flip})
    d = 2 * delay
    assert got == [(0, False), (d, True), (2 * d, False)]


@pytest.mark.parametrize("delay", [1, 2, 4])
def test_zero_tick_pulse_gives_one_delay_long_output(delay):
    w = _lever_repeater(delay)
    flip = [lambda: w.use(LEVER)]
    got = run(w, 30, lambda: on(w, R), {0: flip + flip})
    d = 2 * delay
    assert got == [(0, False), (d, True), (2 * d, False)]


def test_pulse_longer_than_delay_keeps_its_length():
    w = new_world()
    w.set_block(LEVER, "stone_button[face=floor,facing=north]")
    w.set_block(R, "redstone_repeater[facing=west,delay=3]")
    got = run(w, 40, lambda: on(w, R), {0: [lambda: w.use(LEVER)]})
    assert got == [(0, False), (6, True), (26, False)]


def test_repeater_chain_adds_delays():
    w = World()
    floor(w, xs=range(-1, 8), zs=range(-1, 2))
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    for x, d in [(1, 1), (2, 2), (3, 3)]:
        w.set_block((x, 1, 0), f"redstone_repeater[facing=west,delay={d}]")
    w.set_block((4, 1, 0), "redstone_lamp")
    flip = [lambda: w.use((0, 1, 0))]
    got = run(w, 60, lambda: tuple(on(w, (x, 1, 0)) for x in range(1, 5)), {0: flip, 30: flip})
    assert got == [
        (0, (False, False, False, False)),
        (2, (True, False, False, False)),
        (6, (True, True, False, False)),
        (12, (True, True, True, True)),
        (32, (False, True, True, True)),
        (36, (False, False, True, True)),
        (42, (False, False, False, True)),
        (46, (False, False, False, False)),
    ]


def test_repeater_ignores_side_input_and_does_not_output_sideways_or_back():
    w = new_world()
    w.set_block((1, 1, 1), "lever[face=floor,facing=north]")  # beside R
    w.set_block(R, "redstone_repeater[facing=west]")
    w.set_block((1, 1, -1), "redstone_lamp")
    w.use((1, 1, 1))
    w.step(10)
    assert w.get_block(R) == "minecraft:redstone_repeater[delay=1,facing=west,locked=false,powered=false]"
    # now power it from its back: the side lamp and the lamp behind stay dark
    w2 = new_world()
    w2.set_block((0, 1, 0), "redstone_block")
    w2.set_block(R, "redstone_repeater[facing=west]")
    w2.set_block((1, 1, -1), "redstone_lamp")
    w2.set_block((1, 1, 1), "redstone_lamp")
    w2.set_block((2, 1, 0), "redstone_lamp")
    w2.step(10)
    assert on(w2, R) is True
    assert (on(w2, (1, 1, -1)), on(w2, (1, 1, 1)), on(w2, (2, 1, 0))) == (False, False, True)


def test_repeater_ignores_power_at_its_front():
    w = new_world()
    w.set_block((-1, 1, 0), "redstone_wire")
    w.set_block(R, "redstone_repeater[facing=west]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((3, 1, 0), "redstone_block")
    w.set_block(OUT, "redstone_repeater[facing=east]")  # points west into R's front... backwards
    w.step(10)
    # OUT faces east: input (3,1,0), output into R's front: R ignores it (input is only at its back)
    assert on(w, OUT) is True
    assert on(w, R) is False
    assert power(w, (0, 1, 0)) == 0


def test_use_cycles_delay_1_2_3_4_1():
    w = new_world()
    w.set_block(R, "redstone_repeater[facing=east]")
    seen = []
    for _ in range(4):
        assert w.use(R) is True
        seen.append(prop(w, R, "delay"))
    assert seen == ["2", "3", "4", "1"]
    assert w.get_block(R) == "minecraft:redstone_repeater[delay=1,facing=east,locked=false,powered=false]"


def test_changed_delay_changes_timing():
    w = _lever_repeater(1)
    w.use(R)
    w.use(R)  # delay 3
    got = run(w, 20, lambda: on(w, R), {0: [lambda: w.use(LEVER)]})
    assert got == [(0, False), (6, True)]


def test_use_on_powered_repeater_keeps_it_powered():
    w = _lever_repeater(1)
    w.use(LEVER)
    w.step(5)
    assert w.use(R) is True
    assert w.get_block(R) == "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=true]"
    got = run(w, 20, lambda: on(w, R), {6: [lambda: w.use(LEVER)]})
    assert got == [(5, True), (10, False)]


def test_repeater_placed_with_input_on_turns_on_one_gt_later():
    w = new_world()
    w.set_block(LEVER, "redstone_block")
    got = run(w, 10, lambda: on(w, R) if name(w, R) == "redstone_repeater" else None,
              {2: [lambda: w.set_block(R, "redstone_repeater[facing=west,delay=4,powered=true]")]})
    assert got == [(0, None), (2, False), (3, True)]


def test_repeater_placed_powered_without_input_is_unpowered():
    w = new_world()
    w.set_block(R, "redstone_repeater[facing=west,delay=2,powered=true,locked=true]")
    assert w.get_block(R) == "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]"
    w.step(10)
    assert on(w, R) is False


def test_repeater_input_from_weakly_powered_block():
    w = new_world()
    w.set_block((-2, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((-1, 1, 0), "redstone_wire")
    w.set_block(LEVER, "stone")  # (0,1,0): weakly powered by the dust pointing into it
    w.set_block(R, "redstone_repeater[facing=west,delay=2]")
    flip = [lambda: w.use((-2, 1, 0))]
    got = run(w, 20, lambda: on(w, R), {0: flip, 8: flip})
    assert got == [(0, False), (4, True), (12, False)]


# ---------------------------------------------------------------- locking

B_IN = (1, 1, 2)
B = (1, 1, 1)   # side repeater facing=south: input (1,1,2), output into R's south side


def _lock_rig(delay=1, side="south"):
    w = _lever_repeater(delay)
    if side == "south":
        w.set_block((1, 1, 2), "lever[face=floor,facing=north]")
        w.set_block((1, 1, 1), "redstone_repeater[facing=south]")
        return w, (1, 1, 2)
    w.set_block((1, 1, -2), "lever[face=floor,facing=north]")
    w.set_block((1, 1, -1), "redstone_repeater[facing=north]")
    return w, (1, 1, -2)


@pytest.mark.parametrize("side", ["south", "north"])
def test_powered_side_repeater_locks_and_unlock_releases(side):
    w, side_lever = _lock_rig(1, side)

    def probe():
        return prop(w, R, "locked"), on(w, R)

    got = run(w, 50, probe, {
        0: [lambda: w.use(side_lever)],      # side repeater on at 2 -> R locked at 2
        5: [lambda: w.use(LEVER)],           # input on while locked: no change
        30: [lambda: w.use(side_lever)],     # side repeater off at 32 -> unlocked -> R on at 34
    })
    assert got == [(0, ("false", False)), (2, ("true", False)), (32, ("false", False)), (34, ("false", True))]


def test_locked_repeater_holds_its_output_on():
    w, side_lever = _lock_rig(2)
    got = run(w, 40, lambda: (prop(w, R, "locked"), on(w, R), power(w, OUT)), {
        0: [lambda: w.use(LEVER)],           # R on at 4
        6: [lambda: w.use(side_lever)],      # locked at 8
        10: [lambda: w.use(LEVER)],          # input off: held
        20: [lambda: w.use(side_lever)],     # unlocked at 22 -> off at 26
    })
    assert got == [
        (0, ("false", False, 0)),
        (4, ("false", True, 15)),
        (8, ("true", True, 15)),
        (22, ("false", True, 15)),
        (26, ("false", False, 0)),
    ]


def test_unpowered_side_repeater_does_not_lock():
    w, _ = _lock_rig(1)
    got = run(w, 10, lambda: (prop(w, R, "locked"), on(w, R)), {0: [lambda: w.use(LEVER)]})
    assert got == [(0, ("false", False)), (2, ("false", True))]


def test_side_lever_or_dust_does_not_lock():
    w = _lever_repeater(1)
    w.set_block((1, 1, 1), "redstone_block")
    w.set_block((1, 1, -1), "redstone_wire")
    got = run(w, 10, lambda: (prop(w, R, "locked"), on(w, R)), {0: [lambda: w.use(LEVER)]})
    assert got == [(0, ("false", False)), (2, ("false", True))]


def test_repeater_placed_beside_powered_side_repeater_is_locked_at_once():
    w = new_world()
    w.set_block((1, 1, 2), "redstone_block")
    w.set_block((1, 1, 1), "redstone_repeater[facing=south]")
    w.step(4)
    assert on(w, (1, 1, 1)) is True
    w.set_block(R, "redstone_repeater[facing=west]")
    assert prop(w, R, "locked") == "true"


def test_repeater_locked_before_its_pending_tick_ignores_it_and_reschedules_on_unlock():
    w, side_lever = _lock_rig(4)
    got = run(w, 50, lambda: (prop(w, R, "locked"), on(w, R)), {
        0: [lambda: w.use(LEVER)],          # R would turn on at 8
        4: [lambda: w.use(side_lever)],     # side repeater on at 6: R locked before its tick
        20: [lambda: w.use(side_lever)],    # side off at 22: unlocked, R reschedules -> on at 30
    })
    assert got == [(0, ("false", False)), (6, ("true", False)), (22, ("false", False)), (30, ("false", True))]


def test_a_powered_comparator_facing_into_a_side_locks_it_too():
    """Vanilla isLocked counts any diode facing into a side: a comparator while it emits a signal."""
    w = _lever_repeater(1)
    w.set_block((1, 1, 2), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 1), "comparator[facing=south]")  # input (1,1,2), output into R's south side
    got = run(w, 40, lambda: (prop(w, R, "locked"), on(w, R)), {
        0: [lambda: w.use((1, 1, 2))],       # comparator on at 2 -> R locked at 2
        5: [lambda: w.use(LEVER)],           # input on while locked: no change
        20: [lambda: w.use((1, 1, 2))],      # comparator off at 22 -> unlocked -> R on at 24
    })
    assert got == [(0, ("false", False)), (2, ("true", False)), (22, ("false", False)), (24, ("false", True))]
