
import pytest
from redstone_helpers import name, new_world, on, prop, run

from scicraft_viz import World


def test_step_advances_game_ticks():
    w = World()
    assert w.tick == 0
    w.step()
    assert w.tick == 1
    w.step(9)
    assert w.tick == 10
    tr = w.record(5)
    assert w.tick == 15
    assert list(tr.ticks) == [10, 11, 12, 13, 14, 15]


def test_actions_in_one_tick_act_in_call_order_with_immediate_updates():
    # lever on then off in the same tick: the lamp lit at once, then scheduled off 4 gt later
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    flip = [lambda: w.use((0, 1, 0))]
    got = run(w, 10, lambda: (on(w, (0, 1, 0)), on(w, (1, 1, 0))), {0: flip + flip})
    assert got == [(0, (False, True)), (4, (False, False))]


def test_off_then_on_in_one_tick_keeps_lamp_lit():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    flip = [lambda: w.use((0, 1, 0))]
    got = run(w, 10, lambda: on(w, (1, 1, 0)), {0: flip + flip})
    assert got == [(0, True)]


def test_delay_started_at_tick_t_lands_at_t_plus_d():
    w = new_world()
    w.set_block((0, 1, 0), "stone")
    w.set_block((1, 1, 0), "lever[face=wall,facing=east]")
    w.set_block((0, 2, 0), "redstone_torch")
    w.step(7)
    w.use((1, 1, 0))
    assert on(w, (0, 2, 0)) is True
    w.step()
    assert (w.tick, on(w, (0, 2, 0))) == (8, True)
    w.step()
    assert (w.tick, on(w, (0, 2, 0))) == (9, False)


# ---------------------------------------------------------------- one pending tick per position


def test_lamp_holds_only_one_pending_tick():
    # off at 10 schedules the lamp for 14; on at 11; off at 12 cannot schedule a second tick:
    # the tick at 14 finds the lamp unpowered and turns it off (not at 16)
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    flip = [lambda: w.use((0, 1, 0))]
    got = run(w, 30, lambda: on(w, (1, 1, 0)), {0: flip, 10: flip, 11: flip, 12: flip})
    assert got == [(0, True), (14, False)]


def test_repeater_holds_only_one_pending_tick():
    # delay 4 (8 gt): on at 0 -> tick at 8; off at 1 and on at 3 do not add ticks
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_repeater[facing=west,delay=4]")
    flip = [lambda: w.use((0, 1, 0))]
    got = run(w, 30, lambda: on(w, (1, 1, 0)), {0: flip, 1: flip, 3: flip})
    assert got == [(0, False), (8, True)]


# ---------------------------------------------------------------- priorities

S = (2, 1, 0)            # stone: attachment of torch T, front of repeater R
T = (2, 2, 0)
L = (2, 1, 1)            # wall lever on S (facing=south -> attached at (2,1,0))
L2 = (0, 1, 0)           # floor lever feeding R
R = (1, 1, 0)            # repeater facing=west: input L2, output into S


def _torch_vs_repeater(delay):
    w = new_world()
    w.set_block(S, "stone")
    w.set_block(L, "lever[face=wall,facing=south]")
    w.set_block(T, "redstone_torch")
    w.set_block(L2, "lever[face=floor,facing=north]")
    w.set_block(R, f"redstone_repeater[facing=west,delay={delay}]")
    return w


@pytest.mark.parametrize("order", ["torch_first", "repeater_first"])
def test_repeater_tick_runs_before_torch_tick_due_the_same_tick(order):
    # At 10: L off schedules T to relight at 12 (normal priority); L2 on schedules R on at 12 (high).
    # R ticks first and powers S, so T's tick finds S powered and T never relights.
    w = _torch_vs_repeater(1)
    acts = [lambda: w.use(L), lambda: w.use(L2)]
    if order == "repeater_first":
        acts.reverse()
    got = run(w, 40, lambda: (on(w, T), on(w, R)), {0: [lambda: w.use(L)], 10: acts})
    assert got == [(0, (True, False)), (2, (False, False)), (12, (False, True))]


def test_torch_relights_when_repeater_lands_later():
    # control: with delay 2 the repeater lands at 14, so T relights at 12 and goes out at 16
    w = _torch_vs_repeater(2)
    got = run(w, 40, lambda: on(w, T), {0: [lambda: w.use(L)], 10: [lambda: w.use(L), lambda: w.use(L2)]})
    assert got == [(0, True), (2, False), (12, True), (16, False)]


C = (2, 1, 0)            # repeater facing=west, input lever L1 at (1,1,0)
L1 = (1, 1, 0)
B = (2, 1, 1)            # repeater facing=south, input lever LB at (2,1,2), output into C's side
LB = (2, 1, 2)


def _lock_race(b_delay):
    w = new_world()
    w.set_block(L1, "lever[face=floor,facing=north]")
    w.set_block(C, "redstone_repeater[facing=west,delay=1]")
    w.set_block(LB, "lever[face=floor,facing=north]")
    w.set_block(B, f"redstone_repeater[facing=south,delay={b_delay}]")
    return w


@pytest.mark.parametrize("order", ["main_first", "side_first"])
def test_repeater_into_another_repeater_has_highest_priority(order):
    # both land at tick 2; B (output faces a diode that does not face back) goes first and locks C
    # before C's own tick, so C never turns on
    w = _lock_race(1)
    acts = [lambda: w.use(L1), lambda: w.use(LB)]
    if order == "side_first":
        acts.reverse()
    got = run(w, 30, lambda: (on(w, B), prop(w, C, "locked"), on(w, C)), {0: acts})
    assert got == [(0, (False, "false", False)), (2, (True, "true", False))]


def test_lock_race_control_side_repeater_later():
    w = _lock_race(2)
    got = run(w, 30, lambda: (on(w, B), prop(w, C, "locked"), on(w, C)),
              {0: [lambda: w.use(L1), lambda: w.use(LB)], 10: [lambda: w.use(L1)]})
    assert got == [(0, (False, "false", False)), (2, (False, "false", True)), (4, (True, "true", True))]


def test_repeater_turning_off_ticks_before_repeater_turning_on():
    # X (west of S) turns off and Y (south of S) turns on, both due at 12, Y scheduled first.
    # X first (vanilla: turning off > turning on): S is unpowered for a moment, so torch T on S
    # schedules a relight for 14; Y then powers S again. Y is removed at 13: T's pending tick at 14
    # finds S unpowered and T relights at 14. (Y first would schedule nothing at 12 and relight at 15.)
    w = new_world()
    s, t = (2, 1, 0), (2, 2, 0)
    lx, x = (0, 1, 0), (1, 1, 0)
    ly, y = (2, 1, 2), (2, 1, 1)
    w.set_block(s, "stone")
    w.set_block(t, "redstone_torch")
    w.set_block(lx, "lever[face=floor,facing=north]")
    w.set_block(x, "redstone_repeater[facing=west,delay=1]")
    w.set_block(ly, "lever[face=floor,facing=north]")
    w.set_block(y, "redstone_repeater[facing=south,delay=1]")
    got = run(w, 30, lambda: on(w, t), {
        0: [lambda: w.use(lx)],
        10: [lambda: w.use(ly), lambda: w.use(lx)],
        13: [lambda: w.remove_block(y)],
    })
    assert got == [(0, True), (4, False), (14, True)]


# ---------------------------------------------------------------- scheduled ticks before actions


def test_scheduled_ticks_run_before_actions_of_the_same_tick():
    w = new_world()
    w.set_block((0, 1, 0), "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    press = [lambda: w.use((0, 1, 0))]
    got = run(w, 50, lambda: (on(w, (0, 1, 0)), on(w, (1, 1, 0))), {0: press, 20: press})
    assert got == [(0, (True, True)), (40, (False, True)), (44, (False, False))]


# ---------------------------------------------------------------- copy and determinism


def _clock_world():
    """A self-clocking torch (4 gt clock that burns out) plus a button-driven lamp."""
    w = new_world()
    w.set_block((0, 1, 0), "stone")
    w.set_block((1, 1, 0), "stone")
    for p in [(1, 2, 0), (2, 1, 0), (2, 1, 1), (2, 1, 2), (1, 1, 2), (0, 1, 2), (0, 1, 1)]:
        w.set_block(p, "redstone_wire")
    w.set_block((0, 2, 0), "redstone_torch")
    w.set_block((4, 1, 0), "stone_button[face=floor,facing=north]")
    w.set_block((5, 1, 0), "redstone_lamp")
    return w


def test_copy_keeps_tick_and_pending_ticks_and_is_independent():
    w = new_world()
    w.set_block((0, 1, 0), "stone_button[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    w.step(5)
    c = w.copy()
    assert c.tick == 5
    assert c.blocks() == w.blocks()
    got_c = run(c, 30, lambda: on(c, (1, 1, 0)))
    assert got_c == [(5, True), (24, False)]
    assert w.tick == 5 and on(w, (0, 1, 0)) is True  # original untouched by stepping the copy
    c.set_block((2, 1, 0), "redstone_block")
    assert name(w, (2, 1, 0)) == "air"
    got_w = run(w, 30, lambda: on(w, (1, 1, 0)))
    assert got_w == got_c


def test_same_build_same_trace_twice():
    def build_and_record():
        w = _clock_world()
        w.use((4, 1, 0))
        tr = w.record(60)
        return (tr.ticks.tolist(), tr.lamp_lit.tolist(), tr.dust_power.tolist(), tr.component_on.tolist(),
                tr.component_positions, list(tr.component_kinds), w.blocks())

    assert build_and_record() == build_and_record()


def test_trace_arrays_match_world_state():
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_repeater[facing=west,delay=2]")
    w.set_block((2, 1, 0), "redstone_lamp")
    w.use((-1, 1, 0))
    tr = w.record(6)
    assert tr.dust_positions == [(0, 1, 0)]
    assert tr.dust_power.dtype.name == "uint8"
    assert tr.dust_power[:, 0].tolist() == [15] * 7
    assert tr.component_positions == [(-1, 1, 0), (1, 1, 0)]
    assert tr.component_on.shape == (7, 2)
    assert tr.component_on[:, 0].tolist() == [True] * 7
    assert tr.component_on[:, 1].tolist() == [False] * 4 + [True] * 3
    assert tr.lamp_lit[:, 0].tolist() == [False] * 4 + [True] * 3
    assert tr.first_on((2, 1, 0)) == 4
