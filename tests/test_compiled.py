"""The compiled engine against the reference engine: every lamp, component and dust power at every
game tick, on the 25 reference solutions and on random circuits; refusals; World running on it."""

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import World, evaluator, tasks
from scicraft_viz.engine.compiled import CompileRefused, compile_world, world_dynamic_state
from scicraft_viz.errors import PlacementError, PositionError

SOLUTIONS = sorted(Path(__file__).resolve().parent.parent.joinpath("tasks", "solutions").glob("*.mcfunction"))


def drive(ref: World, cw, actions, check) -> int:
    """Run (action, ticks) actions on both engines, an action being None, a position to `use`, or a call
    (method name, arguments...) such as ("set_entities", pos, 3); after each, `check(n)` records n more ticks
    on both, asserts they agree and returns the rows it compared. Returns the number of ticks compared
    (fewer if the graph stopped)."""
    done = 0
    for pos, n in actions:
        if pos is not None and isinstance(pos[0], str):
            assert getattr(cw, pos[0])(*pos[1:]) == getattr(ref, pos[0])(*pos[1:])
        elif pos is not None:
            assert cw.use(pos) == ref.use(pos)
        rows = check(n)
        done += rows
        if rows < n + 1:
            assert cw.stopped
            return done
        ref.step(1)
        cw.step(1)
    return done


def _compare(ref: World, cw, actions) -> int:
    """`drive`, asserting equal lamp, component and dust rows every tick."""
    def check(n: int) -> int:
        tr = ref.record(n)
        on, pw = cw.record(n)
        rows = len(on)
        lamp_cols = [cw.node_of[p] for p in tr.lamp_positions]
        comp_cols = [cw.node_of[p] for p in tr.component_positions]
        dust_cols = [cw.dust_positions.index(p) for p in tr.dust_positions]
        np.testing.assert_array_equal(on[:, lamp_cols].astype(bool), tr.lamp_lit[:rows])
        np.testing.assert_array_equal(on[:, comp_cols].astype(bool), tr.component_on[:rows])
        np.testing.assert_array_equal(pw[:, dust_cols], tr.dust_power[:rows])
        return rows

    return drive(ref, cw, actions, check)


def _solution_world(path: Path) -> tuple[World, object]:
    task = tasks.load(path.stem)
    w = evaluator.build_world(task, path.read_text())
    w.step(task.settle_game_ticks)
    (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
    return w, button


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_reference_solutions_tick_identical(path):
    w, button = _solution_world(path)
    cw = compile_world(w)
    ticks = _compare(w, cw, [(button, 29)] * 5)  # pressed every 30 gt, as in the benchmark
    assert ticks == 5 * 30
    assert cw.tick == w.tick


@pytest.mark.parametrize("name", ["A_simultaneous_lights_L5", "C_sequential_activation_L5", "E_pulse_shaping_L5"])
def test_pending_ticks_in_the_reference_order(name):
    """Mid-run, the graph holds the reference engine's pending ticks (lamps aside: a group of lamps is
    one node) in the same order: due tick, priority, then scheduling order."""
    w, button = _solution_world(next(p for p in SOLUTIONS if p.stem == name))
    cw = compile_world(w)
    for n in (30, 30, 9):
        assert cw.use(button) == w.use(button)
        w.step(n)
        assert cw.step(n)
    lamps = {p for p, s in w.blocks().items() if "lamp" in s}

    def order(entries):
        return [(due, rank, p) for due, rank, _, p in sorted(entries) if p not in lamps]

    ref = order(world_dynamic_state(w)[1])
    assert ref and order(cw.pending()) == ref
    on = cw.on_states()
    assert [bool(on[cw.node_of[p]]) for p in sorted(cw.node_of)] == [
        w.get_block(p).endswith(("lit=true]", "powered=true]")) for p in sorted(cw.node_of)
    ]
    assert not cw.locked_states().any()


# ------------------------------------------------------------------------------------- random circuits
_LOW = ["air", "air", "stone", "stone", "glass", "redstone_wire", "redstone_wire", "redstone_wire",
        "redstone_lamp", "redstone_lamp", "redstone_torch", "redstone_block", "lever[face=floor]",
        "stone_button[face=floor]", "target"]
_HIGH = ["air", "air", "air", "redstone_wire", "redstone_lamp", "stone", "redstone_torch"]
_DIRS = ("north", "east", "south", "west")


def _random_state(rnd: random.Random, pool: list[str]) -> str:
    r = rnd.random()
    if r < 0.18:
        return f"redstone_repeater[facing={rnd.choice(_DIRS)},delay={rnd.randint(1, 4)}]"
    if r < 0.24:
        return f"redstone_wall_torch[facing={rnd.choice(_DIRS)}]"
    if r < 0.28:
        return f"stone_button[face=wall,facing={rnd.choice(_DIRS)}]"
    return rnd.choice(pool)


def random_circuit(rnd: random.Random, size: int = 5) -> World:
    """A stone floor with two random layers of the palette on it, placed as a player would."""
    w = World(log_events=False)
    w.set_blocks([((x, 3, z), "stone") for x in range(-1, size + 1) for z in range(-1, size + 1)])
    place_layers(w, size, ((4, _LOW), (5, _HIGH)), lambda pool, low: _random_state(rnd, pool))
    w.step(rnd.randint(0, 40))
    return w


def place_layers(w: World, size: int, layers, state) -> None:
    """Fill the size x size cells of each (y, pool) layer, in order, with `state(pool, low)` (low: the first
    layer), placed as a player would: a state the player could not place there is skipped."""
    for i, (y, pool) in enumerate(layers):
        for x in range(size):
            for z in range(size):
                try:
                    w.set_block((x, y, z), state(pool, i == 0))
                except PlacementError:
                    pass


def _inputs(w: World) -> list:
    return [p for p, s in w.blocks().items() if s.startswith(("minecraft:lever", "minecraft:stone_button"))]


def _compare_or_refused(w: World, rnd, presses: int, wait: int) -> None:
    """Compile w and compare it with the reference engine over `presses` random uses of its levers and
    buttons, each followed by up to `wait` ticks; a refusal must say why."""
    try:
        cw = compile_world(w)
    except CompileRefused as e:
        assert str(e)  # a reason is always given
        return
    inputs = _inputs(w) or [None]
    _compare(w, cw, [(rnd.choice(inputs), rnd.randint(0, wait)) for _ in range(presses)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_random_circuits_tick_identical_or_refused(rnd):
    _compare_or_refused(random_circuit(rnd), rnd, 6, 40)


def test_random_circuits_mostly_compile():
    """The differential test above means something only if most random circuits compile."""
    rnd = random.Random(7)
    outcomes = []
    for _ in range(30):
        try:
            compile_world(random_circuit(rnd))
            outcomes.append(True)
        except CompileRefused:
            outcomes.append(False)
    assert sum(outcomes) >= 20


# ------------------------------------------------------------------------------------- refusals
def test_refuses_unsupported_block():
    w = World(replay=True)
    w.set_block((0, 4, 0), "redstone_wire")  # /setblock keeps it, floating: it pops at its first update
    with pytest.raises(CompileRefused, match=r"redstone_wire at \(0, 4, 0\) has no support"):
        compile_world(w)


def test_refuses_state_its_surroundings_contradict():
    w = World(replay=True)
    w.set_block((0, 3, 0), "stone")
    w.set_block((0, 4, 0), "redstone_lamp[lit=true]")  # lit with nothing powering it, nothing pending
    with pytest.raises(CompileRefused, match=r"redstone_lamp at \(0, 4, 0\) disagrees with its input"):
        compile_world(w)


def _two_repeaters_one_lamp() -> World:
    """A button feeding two delay-1 repeaters through dust; both repeaters feed one lamp's dust."""
    w = World()
    w.set_blocks([((x, 3, z), "stone") for x in range(-4, 5) for z in range(-3, 4)])
    build = [((0, 4, 0), "stone"), ((0, 5, 0), "stone_button[face=floor]")]
    build += [((x, 4, 1), "redstone_wire") for x in range(-3, 4)]
    build += [((-3, 4, 2), "redstone_repeater[facing=north,delay=1]"),
              ((3, 4, 2), "redstone_repeater[facing=north,delay=1]")]
    build += [((x, 4, 3), "redstone_wire") for x in range(-3, 4)]
    build += [((4, 4, 3), "redstone_wire"), ((5, 4, 3), "redstone_lamp")]
    w.set_blocks(build)
    return w


def test_refuses_order_that_depends_on_dust():
    with pytest.raises(CompileRefused, match="only through dust, with the same delay"):
        compile_world(_two_repeaters_one_lamp())


def _torch_clock() -> World:
    """A wall torch whose own dust powers its block: it clocks every 2 gt and burns out."""
    w = World()
    w.set_blocks([((x, 3, z), "stone") for x in range(-2, 4) for z in range(-2, 4)])
    w.set_blocks([((0, 4, 0), "stone"), ((1, 4, 0), "redstone_wall_torch[facing=east]"),
                  ((1, 4, 1), "redstone_wire"), ((0, 4, 1), "redstone_wire"), ((0, 5, 0), "redstone_wire")])
    return w


def test_stops_before_a_burnt_out_torch_and_the_world_goes_on_exactly():
    w = _torch_clock()
    cw = compile_world(w)
    ref = w.copy()
    ticks = _compare(ref, cw, [(None, 400)])
    assert cw.stopped and ticks < 401  # it stopped where the torch stayed dark with nothing pending
    assert not cw.step(10)
    # the World itself switches to the graph for a long step, stops there and finishes on the reference
    a, b = _torch_clock(), _torch_clock()
    a.log_events = False
    a.step(World._cg_after_ticks + 500)
    b.step(World._cg_after_ticks + 500)
    assert a.tick == b.tick and a.blocks() == b.blocks()


# ------------------------------------------------------------------------------------- World on the graph
def _assert_same(a: World, b: World, button, presses: int = 3) -> None:
    assert a.tick == b.tick
    assert a.blocks() == b.blocks()
    for _ in range(presses):  # pending ticks were written back: both go on identically
        assert a.use(button) == b.use(button)
        ta, tb = a.record(30), b.record(30)
        np.testing.assert_array_equal(ta.lamp_lit, tb.lamp_lit)
        np.testing.assert_array_equal(ta.component_on, tb.component_on)
        np.testing.assert_array_equal(ta.dust_power, tb.dust_power)


@pytest.mark.parametrize("name", ["A_simultaneous_lights_L5", "C_sequential_activation_L5", "E_pulse_shaping_L3"])
def test_world_runs_on_the_graph_and_stays_truthful(name):
    path = next(p for p in SOLUTIONS if p.stem == name)
    fast, button = _solution_world(path)
    ref, _ = _solution_world(path)
    fast.log_events = False
    engaged = False
    for i in range(40):
        assert fast.use(button) == ref.use(button)
        assert fast.use(button) == ref.use(button)  # pressed already: False on both
        fast.step(30 + i % 3)
        ref.step(30 + i % 3)
        engaged |= fast._cg is not None
        assert fast.tick == ref.tick
    assert engaged
    # stop mid-pulse, read everything, then keep going
    fast.use(button)
    ref.use(button)
    fast.step(7)
    ref.step(7)
    state = fast.get_block(button)
    assert state == ref.get_block(button) and state.endswith("powered=true]")
    assert fast._cg is None  # the read wrote the graph's state back
    _assert_same(fast, ref, button)


def _pressed_pair():
    """A_simultaneous_lights_L5's solution twice, with its button pressed 20 times 30 gt apart: one world
    without its event log (so it runs on the graph) and one with it (the reference engine); and the button."""
    path = next(p for p in SOLUTIONS if p.stem == "A_simultaneous_lights_L5")
    fast, button = _solution_world(path)
    ref, _ = _solution_world(path)
    fast.log_events = False
    for w in (fast, ref):
        for _ in range(20):
            w.use(button)
            w.step(30)
    return fast, ref, button


def test_use_on_the_graph_checks_positions_as_the_reference_does():
    """The graph's press path remembers the tuple it last pressed; anything else is checked again."""
    fast, ref, button = _pressed_pair()
    assert fast._cg is not None
    x, y, z = button
    for bad in [(float(x), y, z), (x, y), None, f"{x} {y} {z}", (x, y, z, 0)]:
        for w in (fast, ref):
            with pytest.raises(PositionError):
                w.use(bad)
    assert fast._cg is not None
    spot = [x, y, z]  # a list equal to the button's position presses it, and is not taken for it once changed
    floor = (x, 3, z + 1)
    for pos in (spot, button, spot, "edit", spot, button):
        if pos == "edit":
            assert fast._cg is not None  # every press so far went through the graph
            spot[1] = 3  # now the floor under the button: the reference engine takes over for that use
            continue
        assert fast.use(pos) == ref.use(pos)
        assert fast.use(pos) == ref.use(pos)
        fast.step(30)
        ref.step(30)
    assert fast.use(floor) == ref.use(floor) is False
    _assert_same(fast, ref, button)


def test_block_edit_drops_the_graph_and_later_recompiles():
    fast, ref, button = _pressed_pair()
    assert fast._cg is not None
    lamp = next(p for p, s in ref.blocks().items() if "lamp" in s)
    for w in (fast, ref):
        w.use(button)
        w.step(3)
        w.remove_block(lamp)  # mid-pulse
    assert fast._cg is None
    for w in (fast, ref):
        for _ in range(20):
            w.use(button)
            w.step(30)
    assert fast._cg is not None  # compiled again from the edited world
    _assert_same(fast, ref, button)


def test_refused_world_stays_on_the_reference():
    fast, ref = _two_repeaters_one_lamp(), _two_repeaters_one_lamp()
    fast.log_events = False
    for w in (fast, ref):
        for _ in range(20):
            w.use((0, 5, 0))
            w.step(30)
    assert fast._cg is None and fast._cg_refused
    _assert_same(fast, ref, (0, 5, 0))


def test_event_log_on_keeps_the_reference_engine():
    path = next(p for p in SOLUTIONS if p.stem == "A_simultaneous_lights_L5")
    w, button = _solution_world(path)
    n0 = w.events_total
    for _ in range(20):
        w.use(button)
        w.step(30)
    assert w._cg is None and w.events_total > n0


# ------------------------------------------------------------------------------------- a lamp's due off tick
def _lamp_beside_a_repeaters_front(lazy: bool = False) -> World:
    """A lamp lit by lever A (or, `lazy`, by a repeater A feeds: a lamp fed by repeaters only is settled
    lazily), beside the air in front of a delay-1 repeater fed by lever B (tests/test_rules_lamp.py)."""
    w = World()
    w.set_blocks([((x, 0, z), "stone") for x in range(-4, 3) for z in range(-2, 3)])
    if lazy:
        w.set_blocks([((0, 1, -2), "lever[face=floor,facing=north]"),
                      ((0, 1, -1), "redstone_repeater[facing=north,delay=1]")])
    else:
        w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_blocks([((0, 1, 0), "redstone_lamp"), ((-2, 1, 1), "lever[face=floor,facing=north]"),
                  ((-1, 1, 1), "redstone_repeater[facing=west,delay=1]")])
    w.use((0, 1, -2) if lazy else (-1, 1, 0))
    w.step(10)
    return w


@pytest.mark.parametrize("lazy", [False, True], ids=["queued", "lazy"])
def test_stops_before_an_update_reaches_a_lamp_whose_off_tick_is_due_and_the_world_goes_on_exactly(lazy):
    """The reference lamp schedules a second off tick when it hears an update while its own due tick waits
    (redstone.md section 12); the graph cannot queue a lamp twice, so it stops before the repeater's tick that
    sends the update, and the reference engine finishes that tick."""
    a = (0, 1, -2) if lazy else (-1, 1, 0)
    d = 2 if lazy else 0  # the repeater between lever A and the lamp adds 2 gt
    w = _lamp_beside_a_repeaters_front(lazy)
    cw = compile_world(w)
    assert bool(cw.kinds[cw.node_of[(0, 1, 0)]]) and cw._lazy[cw.node_of[(0, 1, 0)]] == lazy
    ref = w.copy()
    # A off now (the lamp's off tick due 4 gt after it loses power), B on 2 gt before that tick
    ticks = _compare(ref, cw, [(a, 1 + d), ((-2, 1, 1), 5)])
    assert cw.stopped and ticks == (2 + d) + 2  # the rows before the tick it stopped in
    assert cw.tick == w.tick + 4 + d
    # World itself: on the graph, it stops there and goes on on the reference, tick for tick
    fast, slow = _lamp_beside_a_repeaters_front(lazy), _lamp_beside_a_repeaters_front(lazy)
    fast.log_events = False
    fast._cg_after_calls = 1
    t0 = fast.tick
    plan = {t0: a, t0 + 2 + d: (-2, 1, 1), t0 + 5: a, t0 + 6: a}
    lit = {}
    for t in range(t0, t0 + 14 + d):
        if t in plan:
            assert fast.use(plan[t]) == slow.use(plan[t])
        lit[t] = fast.get_block((0, 1, 0)).endswith("lit=true]")  # after the tick and its actions
        fast.step(1)
        slow.step(1)
        assert fast.blocks() == slow.blocks()
    # off at its due tick, lit again, and out at the second tick, 4 gt after the first (not 4 gt after it lost
    # power again, 1 gt after it was lit): with lever A at once, through A's repeater 2 gt later
    assert [t - t0 for t in sorted(lit)[1:] if lit[t] != lit[t - 1]] == [4 + d, 5 + d, 8 + d]


def test_does_not_stop_when_no_update_reaches_the_lamp_in_its_due_tick():
    """The same lamp with B pressed a tick later: the repeater switches after the lamp's due tick, the graph runs
    on and agrees with the reference every tick."""
    w = _lamp_beside_a_repeaters_front()
    cw = compile_world(w)
    ref = w.copy()
    ticks = _compare(ref, cw, [((-1, 1, 0), 2), ((-2, 1, 1), 2), ((-1, 1, 0), 0), ((-1, 1, 0), 12)])
    assert not cw.stopped and ticks == 3 + 3 + 1 + 13
