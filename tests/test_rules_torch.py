
import pytest
from redstone_helpers import new_world, on, power, prop, run

S = (0, 1, 0)          # the torch's attachment block
T = (0, 2, 0)          # standing torch on S
LEVER = (1, 1, 0)      # lever on the east side of S: facing=east -> attached at LEVER - (1,0,0) = S


def _torch_on_lever_block():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block(LEVER, "lever[face=wall,facing=east]")
    w.set_block(T, "redstone_torch")
    return w


def test_torch_canonical_and_lit_on_unpowered_block():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block(T, "redstone_torch[lit=false]")  # lit is derived on placement
    assert w.get_block(T) == "minecraft:redstone_torch[lit=true]"
    w.set_block((2, 1, 0), "stone")
    w.set_block((3, 1, 0), "redstone_wall_torch[facing=east]")
    assert w.get_block((3, 1, 0)) == "minecraft:redstone_wall_torch[facing=east,lit=true]"


def test_torch_turns_off_and_on_two_gt_after_its_input():
    w = _torch_on_lever_block()
    flip = [lambda: w.use(LEVER)]
    got = run(w, 30, lambda: on(w, T), {0: flip, 10: flip})
    assert got == [(0, True), (2, False), (12, True)]


def test_torch_two_gt_pulse_and_scheduled_tick_before_action():
    # input on at 0 -> torch off at 2; the input goes off at tick 2 after the torch ticked -> on at 4
    w = _torch_on_lever_block()
    flip = [lambda: w.use(LEVER)]
    got = run(w, 20, lambda: on(w, T), {0: flip, 2: flip})
    assert got == [(0, True), (2, False), (4, True)]


def test_torch_ignores_one_gt_pulse():
    w = _torch_on_lever_block()
    flip = [lambda: w.use(LEVER)]
    got = run(w, 20, lambda: on(w, T), {0: flip, 1: flip})
    assert got == [(0, True)]


def test_torch_ignores_zero_gt_pulse():
    w = _torch_on_lever_block()
    flip = [lambda: w.use(LEVER)]
    got = run(w, 20, lambda: on(w, T), {3: flip + flip})
    assert got == [(0, True)]


def test_wall_torch_timing_and_lamp_beside_it():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block((0, 1, -1), "lever[face=wall,facing=north]")   # attached to S
    wt = (1, 1, 0)
    w.set_block(wt, "redstone_wall_torch[facing=east]")        # attached to S
    w.set_block((2, 1, 0), "redstone_lamp")                    # beside the wall torch
    flip = [lambda: w.use((0, 1, -1))]
    got = run(w, 30, lambda: (on(w, wt), on(w, (2, 1, 0))), {0: flip, 10: flip})
    assert got == [(0, (True, True)), (2, (False, True)), (6, (False, False)), (12, (True, True))]


def test_torch_powers_adjacent_dust_lamp_and_repeater():
    w = new_world()
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((-1, 1, 0), "redstone_lamp")
    w.set_block((0, 1, 1), "redstone_repeater[facing=north,delay=1]")  # input = (0,1,0)

    def probe():
        return power(w, (1, 1, 0)), on(w, (-1, 1, 0)), on(w, (0, 1, 1))

    got = run(w, 10, probe, {1: [lambda: w.set_block((0, 1, 0), "redstone_torch")]})
    assert got == [(0, (0, False, False)), (1, (15, True, False)), (3, (15, True, True))]
    assert prop(w, (1, 1, 0), "west") == "side"


@pytest.mark.parametrize("torch, pos", [
    ("redstone_torch", (0, 2, 0)),
    ("redstone_wall_torch[facing=east]", (1, 1, 0)),
])
def test_torch_never_powers_its_attachment_block(torch, pos):
    w = new_world()
    w.set_block((0, 1, 0), "redstone_lamp")
    w.set_block(pos, torch)
    w.step(10)
    assert on(w, pos) is True
    assert on(w, (0, 1, 0)) is False


def test_wall_torch_strongly_powers_block_above_it():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block((0, 1, -1), "lever[face=wall,facing=north]")   # attached to S
    w.set_block((1, 2, 0), "stone")            # above the wall torch
    w.set_block((2, 1, 0), "stone")            # beside the wall torch: not powered by it
    w.set_block((2, 2, 0), "redstone_wire")    # beside (1,2,0), on (2,1,0)
    w.set_block((3, 1, 0), "redstone_wire")    # beside (2,1,0)
    w.set_block((1, 1, 0), "redstone_wall_torch[facing=east]")
    got = run(w, 10, lambda: (power(w, (2, 2, 0)), power(w, (3, 1, 0))), {4: [lambda: w.use((0, 1, -1))]})
    # (3,1,0) only gets the dust step-down from (2,2,0): 14
    assert got == [(0, (15, 14)), (6, (0, 0))]


def test_torch_placed_on_powered_block_appears_lit_then_turns_off():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block(LEVER, "lever[face=wall,facing=east]")
    w.use(LEVER)
    w.step(3)
    got = run(w, 10, lambda: on(w, T), {3: [lambda: w.set_block(T, "redstone_torch")]})
    assert got == [(3, True), (5, False)]


def test_torch_on_glass_always_lit():
    w = new_world()
    w.set_block(S, "glass")
    w.set_block(T, "redstone_torch")
    w.set_block((-1, 1, 0), "lever[face=wall,facing=west]")  # on the glass
    got = run(w, 10, lambda: on(w, T), {0: [lambda: w.use((-1, 1, 0))]})
    assert got == [(0, True)]


# ---------------------------------------------------------------- burn-out


def _toggle_plan(w, n_offs, period):
    """Lever on at k*period, off at k*period + period/2, for k < n_offs."""
    acts = {}
    for k in range(n_offs):
        acts.setdefault(k * period, []).append(lambda: w.use(LEVER))
        acts.setdefault(k * period + period // 2, []).append(lambda: w.use(LEVER))
    return acts


def test_torch_burns_out_on_8th_off_within_60_gt_and_rechecks_160_gt_later():
    w = _torch_on_lever_block()
    # offs at 2, 10, ..., 58 (8 within 60 gt); the input goes off for good at tick 60
    got = run(w, 240, lambda: on(w, T), _toggle_plan(w, 8, 8))
    expected = [(0, True)]
    for k in range(7):
        expected += [(8 * k + 2, False), (8 * k + 6, True)]
    expected += [(58, False), (218, True)]
    assert got == expected


def test_torch_with_seven_fast_offs_does_not_burn_out():
    w = _torch_on_lever_block()
    got = run(w, 120, lambda: on(w, T), _toggle_plan(w, 7, 8))
    expected = [(0, True)]
    for k in range(7):
        expected += [(8 * k + 2, False), (8 * k + 6, True)]
    assert got == expected


def test_torch_with_eight_offs_spread_over_more_than_60_gt_does_not_burn_out():
    w = _torch_on_lever_block()
    got = run(w, 120, lambda: on(w, T), _toggle_plan(w, 8, 10))
    expected = [(0, True)]
    for k in range(8):
        expected += [(10 * k + 2, False), (10 * k + 7, True)]
    assert got == expected


def _self_clock(w):
    """Torch T on S; its dust runs round and points back into S: a 4 gt clock."""
    w.set_block(S, "stone")
    w.set_block((1, 1, 0), "stone")
    for p in [(1, 2, 0), (2, 1, 0), (2, 1, 1), (2, 1, 2), (1, 1, 2), (0, 1, 2), (0, 1, 1)]:
        w.set_block(p, "redstone_wire")
    w.set_block(T, "redstone_torch")


def test_self_clocking_torch_burns_out_and_stays_dark_until_updated():
    w = new_world()
    _self_clock(w)
    assert power(w, (0, 1, 1)) == 9
    assert prop(w, (0, 1, 1), "north") == "side"
    got = run(w, 400, lambda: on(w, T))
    expected = [(0, True)]
    for k in range(7):
        expected += [(4 * k + 2, False), (4 * k + 4, True)]
    expected += [(30, False)]
    assert got == expected
    # some other update reaches it: it re-checks 2 gt later and starts clocking again
    got = run(w, 8, lambda: on(w, T), {400: [lambda: w.set_block((-1, 2, 0), "stone")]})
    assert got == [(400, False), (402, True), (404, False), (406, True), (408, False)]


def test_wall_torch_off_when_dust_lies_on_its_block():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block((1, 1, 0), "redstone_wall_torch[facing=east]")
    w.set_block((0, 2, 0), "redstone_wire")
    got = run(w, 20, lambda: on(w, (1, 1, 0)),
              {2: [lambda: w.set_block((-1, 2, 0), "redstone_block")], 9: [lambda: w.remove_block((-1, 2, 0))]})
    assert got == [(0, True), (4, False), (11, True)]


def test_wall_torch_placed_on_powered_block_appears_lit_then_turns_off():
    w = new_world()
    w.set_block(S, "stone")
    w.set_block((0, 1, -1), "lever[face=wall,facing=north]")
    w.use((0, 1, -1))
    w.step(5)
    wt = (1, 1, 0)
    got = run(w, 10, lambda: on(w, wt), {5: [lambda: w.set_block(wt, "redstone_wall_torch[facing=east]")]})
    assert got == [(5, True), (7, False)]


def test_copy_keeps_burn_out_history():
    w = _torch_on_lever_block()
    plan = _toggle_plan(w, 8, 8)
    run(w, 40, lambda: on(w, T), plan)  # 5 offs so far, tick 40
    c = w.copy()
    plan_c = {t: [lambda: c.use(LEVER)] * len(a) for t, a in plan.items() if t > 40}
    got = run(c, 200, lambda: on(c, T), plan_c)
    assert got == [(40, True), (42, False), (46, True), (50, False), (54, True), (58, False), (218, True)]
