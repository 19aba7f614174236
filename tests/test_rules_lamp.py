
from redstone_helpers import new_world, on, power, run

LEVER = (-1, 1, 0)
LAMP = (0, 1, 0)


def _lever_lamp():
    w = new_world()
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_block(LAMP, "redstone_lamp")
    return w


def test_lamp_canonical_states():
    w = _lever_lamp()
    assert w.get_block(LAMP) == "minecraft:redstone_lamp[lit=false]"
    w.use(LEVER)
    assert w.get_block(LAMP) == "minecraft:redstone_lamp[lit=true]"


def test_lamp_on_same_tick_off_four_gt_later():
    w = _lever_lamp()
    flip = [lambda: w.use(LEVER)]
    got = run(w, 30, lambda: on(w, LAMP), {3: flip, 10: flip})
    assert got == [(0, False), (3, True), (14, False)]


def test_lamp_repowered_within_off_delay_stays_lit():
    w = _lever_lamp()
    flip = [lambda: w.use(LEVER)]
    got = run(w, 30, lambda: on(w, LAMP), {0: flip, 10: flip, 12: flip})
    assert got == [(0, True)]


def test_lamp_placed_next_to_power_is_lit_at_once():
    w = new_world()
    w.set_block((1, 1, 0), "redstone_block")
    w.set_block(LAMP, "redstone_lamp")
    assert on(w, LAMP) is True


def test_lamp_placed_with_lit_true_but_unpowered_is_unlit():
    w = new_world()
    w.set_block(LAMP, "redstone_lamp[lit=true]")
    assert w.get_block(LAMP) == "minecraft:redstone_lamp[lit=false]"


def test_lamp_off_delay_after_power_source_removed():
    w = new_world()
    w.set_block(LAMP, "redstone_lamp")
    got = run(w, 20, lambda: on(w, LAMP),
              {2: [lambda: w.set_block((1, 1, 0), "redstone_block")], 5: [lambda: w.remove_block((1, 1, 0))]})
    assert got == [(0, False), (2, True), (9, False)]


def test_lamp_with_button_lit_0_to_23():
    w = new_world()
    w.set_block((0, 1, 1), "stone_button[face=floor,facing=north]")
    w.set_block(LAMP, "redstone_lamp")
    got = run(w, 40, lambda: on(w, LAMP), {0: [lambda: w.use((0, 1, 1))]})
    assert got == [(0, True), (24, False)]


def test_lamp_lit_by_repeater_in_front():
    w = new_world()
    w.set_block((-2, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((-1, 1, 0), "redstone_repeater[facing=west,delay=3]")
    w.set_block(LAMP, "redstone_lamp")
    flip = [lambda: w.use((-2, 1, 0))]
    got = run(w, 40, lambda: on(w, LAMP), {0: flip, 10: flip})
    assert got == [(0, False), (6, True), (20, False)]


def test_lamp_not_lit_by_repeater_pointing_away_or_sideways():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), "redstone_repeater[facing=west]")   # output east, into (2,1,0)
    w.set_block((1, 1, 1), "redstone_lamp")                   # beside the repeater
    w.set_block((2, 1, 0), "redstone_lamp")                   # in front
    w.step(10)
    assert on(w, (1, 1, 0)) is True
    assert on(w, (1, 1, 1)) is False
    assert on(w, (2, 1, 0)) is True


def test_lamp_is_not_a_power_source():
    # a lit lamp does not power dust or another lamp next to it
    w = new_world()
    w.set_block(LAMP, "redstone_lamp")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((0, 1, 1), "redstone_wire")
    w.set_block((0, 2, 0), "redstone_block")  # powers LAMP (above it), not (1,1,0)/(0,1,1)
    assert on(w, LAMP) is True
    assert on(w, (1, 1, 0)) is False
    assert power(w, (0, 1, 1)) == 0


def test_trace_records_lamp_per_game_tick():
    w = _lever_lamp()
    w.step(5)
    w.use(LEVER)
    tr = w.record(20)
    assert list(tr.ticks) == list(range(5, 26))
    assert tr.lamp_positions == [LAMP]
    assert tr.lamp_lit.shape == (21, 1)
    assert tr.lamp_lit[:, 0].tolist() == [True] * 21
    assert tr.first_on(LAMP) == 5
    w.use(LEVER)
    tr = w.record(6)
    assert tr.lamp_lit[:, 0].tolist() == [True, True, True, True, False, False, False]
    assert tr.first_on(LAMP) == 25


def test_trace_first_on_none_for_dark_lamp():
    w = _lever_lamp()
    tr = w.record(5)
    assert tr.first_on(LAMP) is None
    assert tr.lamp_lit.sum() == 0


def test_lamp_changes_are_logged_as_events():
    w = _lever_lamp()
    w.step(3)
    w.use(LEVER)
    w.step(2)
    w.use(LEVER)
    tr = w.record(10)
    assert [e.tick for e in w.events if tuple(e.pos) == LAMP and e.tick > 0] == [3, 9]
    rec = [(e.tick, tuple(e.pos)) for e in tr.events]
    assert (9, LAMP) in rec
    assert all(5 <= t <= 15 for t, _ in rec)


def _lamp_beside_a_repeaters_front():
    """A lamp lit by lever A, and beside the air in front of a delay-1 repeater fed by lever B: the repeater's
    switch updates the block in front and that block's neighbours, the lamp among them, without powering it."""
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")  # A
    w.set_block(LAMP, "redstone_lamp")
    w.set_block((-2, 1, 1), "lever[face=floor,facing=north]")  # B
    w.set_block((-1, 1, 1), "redstone_repeater[facing=west,delay=1]")  # its front: (0, 1, 1), beside the lamp
    w.use((-1, 1, 0))
    w.step(10)
    return w


def test_a_lamp_whose_off_tick_is_due_but_not_run_schedules_a_second_one():
    """Vanilla collects a tick's due ticks out of the containers before running any: a lit, unpowered lamp that
    hears a neighbour update before its own due off tick runs finds no tick scheduled and schedules one 4 gt on.
    Lit again and unpowered before that tick, it goes out then, not 4 gt after it lost power."""
    w = _lamp_beside_a_repeaters_front()
    t0 = w.tick
    a, b = [lambda: w.use((-1, 1, 0))], [lambda: w.use((-2, 1, 1))]
    # A off at t0 (off tick due t0+4); B on at t0+2, so the repeater turns on at t0+4 (high priority, before the
    # lamp's tick): the lamp, still unpowered, schedules t0+8; its due tick puts it out at t0+4. A on at t0+5 and
    # off at t0+6: the tick of t0+8 is still in the containers, so none is scheduled, and it goes out at t0+8
    got = run(w, 16, lambda: on(w, LAMP), {t0: a, t0 + 2: b, t0 + 5: a, t0 + 6: a})
    assert [(t - t0, v) for t, v in got] == [(0, True), (4, False), (5, True), (8, False)]


def test_without_an_update_in_its_due_tick_the_lamp_keeps_its_4gt_delay():
    """The same lamp without the repeater's switch: lit again and unpowered, it waits its full 4 gt."""
    w = _lamp_beside_a_repeaters_front()
    t0 = w.tick
    a = [lambda: w.use((-1, 1, 0))]
    got = run(w, 16, lambda: on(w, LAMP), {t0: a, t0 + 5: a, t0 + 6: a})
    assert [(t - t0, v) for t, v in got] == [(0, True), (4, False), (5, True), (10, False)]


def test_an_update_vanilla_does_not_send_schedules_no_second_tick():
    """A repeater updates only the block in front and that block's neighbours: a lamp beside the repeater itself
    (two steps from the front, diagonally) hears nothing of its switch and keeps its 4 gt delay."""
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")  # A
    w.set_block(LAMP, "redstone_lamp")
    w.set_block((-1, 1, 1), "lever[face=floor,facing=north]")  # B
    w.set_block((0, 1, 1), "redstone_repeater[facing=west,delay=1]")  # beside the lamp; its front (1, 1, 1)
    w.use((-1, 1, 0))
    w.step(10)
    t0 = w.tick
    a, b = [lambda: w.use((-1, 1, 0))], [lambda: w.use((-1, 1, 1))]
    got = run(w, 16, lambda: on(w, LAMP), {t0: a, t0 + 2: b, t0 + 5: a, t0 + 6: a})
    assert [(t - t0, v) for t, v in got] == [(0, True), (4, False), (5, True), (10, False)]
