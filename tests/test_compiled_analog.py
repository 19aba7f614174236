"""The compiled engine on analog circuits (comparators, containers, note blocks) against the reference
engine: every node's state, every comparator's output strength and every dust's power at every game
tick, on fixed circuits, random circuits and under random rulesets."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine import kernels as sim
from scicraft_viz.engine.blocks import PLATES
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.engine.rules import random_ruleset
from tests.test_compiled import drive, place_layers


def _rows(ref: World, cw, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reference's node states, dust power and output strengths (comparators, plates, daylight sensors)
    now and after each of n more ticks, in the graph's column order (a lamp group's members must all agree:
    each is checked)."""
    find = ref._find
    cells = [[find(p) for p in ps] for ps in cw.members]
    dust = [find(p) for p in cw.dust_positions]
    on = np.zeros((n + 1, sum(map(len, cells))), np.uint8)
    pw = np.zeros((n + 1, len(dust)), np.uint8)
    out = np.zeros((n + 1, cw.n), np.uint8)
    flat = [c for cs in cells for c in cs]
    comps = [i for i in range(cw.n) if cw.kinds[i] in (sim.COMPARATOR, *PLATES, sim.DAYLIGHT)]
    for r in range(n + 1):
        if r:
            ref.step(1)
        U = ref.g.U
        on[r] = U[flat, sim.ON]
        pw[r] = U[dust, sim.POWER]
        for i in comps:
            out[r, i] = U[cells[i][0], sim.POWER]
    return on, pw, out


def compare(ref: World, cw, actions) -> int:
    """`drive` (tests/test_compiled.py), asserting equal node states, dust power and output strengths every
    tick."""
    ref.log_events = True  # the reference world never switches to the compiled engine itself
    expand = [i for i, ps in enumerate(cw.members) for _ in ps]

    def check(n: int) -> int:
        on, pw, out = cw.record(n, outputs=True)
        r_on, r_pw, r_out = _rows(ref, cw, n)
        rows = len(on)
        np.testing.assert_array_equal(on[:, expand], r_on[:rows])
        np.testing.assert_array_equal(pw, r_pw[:rows])
        np.testing.assert_array_equal(out, r_out[:rows])
        return rows

    return drive(ref, cw, actions, check)


def floor(w: World, size: int = 6) -> None:
    w.set_blocks([((x, 0, z), "stone") for x in range(-2, size + 2) for z in range(-2, size + 2)])


# ------------------------------------------------------------------------------------- fixed circuits
def test_subtraction_clock_tick_for_tick():
    """A comparator in subtract mode whose output dust feeds its side: it alternates every redstone tick."""
    w = World()
    floor(w)
    w.set_blocks([((0, 1, 0), "lever[face=floor,facing=north]"), ((1, 1, 0), "comparator[facing=west,mode=subtract]"),
                  ((2, 1, 0), "redstone_wire"), ((2, 1, 1), "redstone_wire"), ((1, 1, 1), "redstone_wire"),
                  ((3, 1, 0), "redstone_lamp")])
    cw = compile_world(w)
    assert compare(w, cw, [((0, 1, 0), 40), ((0, 1, 0), 10), ((0, 1, 0), 25)]) == 41 + 11 + 26


def test_comparators_reading_containers_and_dust_levels():
    """Barrel levels read directly and through a block (where a weaker signal into the block gives way to
    the level, 15 does not), dust losing strength into a rear and a side, a comparator into a repeater
    (high priority), and a comparator's strength through a strongly powered block into dust."""
    w = World()
    floor(w, 8)
    lever = "lever[face=floor,facing=north]"
    w.set_blocks([
        ((0, 1, 0), "barrel"), ((0, 1, -1), "lever[face=wall,facing=north]"), ((1, 1, 0), "comparator[facing=west]"),
        ((2, 1, 0), "redstone_wire"), ((3, 1, 0), "redstone_wire"), ((4, 1, 0), "redstone_wire"),
        ((5, 1, 0), "comparator[facing=west,mode=subtract]"), ((5, 1, 1), "redstone_wire"), ((5, 1, 2), lever),
        ((6, 1, 0), "redstone_repeater[facing=west]"), ((7, 1, 0), "redstone_lamp"),
        ((0, 1, 3), "barrel"), ((1, 1, 3), "stone"), ((1, 1, 4), "redstone_wire"), ((1, 1, 5), lever),
        ((1, 1, 2), "redstone_repeater[facing=north]"), ((1, 1, 1), lever),
        ((2, 1, 3), "comparator[facing=west]"), ((2, 1, 4), "redstone_wire"), ((2, 1, 5), lever),
        ((3, 1, 3), "stone"), ((4, 1, 3), "redstone_wire"), ((5, 1, 3), "redstone_wire"), ((6, 1, 3), "redstone_lamp"),
    ])
    w.set_items((0, 1, 0), 27 * 64 // 2)
    w.set_items((0, 1, 3), 200)
    w.step(10)
    cw = compile_world(w)
    assert sorted(set(cw.output_signals().tolist())) == [0, 2, 6, 8]  # half a barrel 8, two dust on 6, 200 items 2
    levers = [(1, 1, 5), (1, 1, 1), (2, 1, 5), (5, 1, 2), (0, 1, -1), (1, 1, 5), (2, 1, 5), (1, 1, 1)]
    assert compare(w, cw, [(None, 5)] + [(p, 9) for p in levers]) == 6 + 8 * 10


def test_note_blocks_follow_their_input_at_once():
    w = World()
    floor(w)
    w.set_blocks([((0, 1, 0), "lever[face=floor,facing=north]"), ((1, 1, 0), "redstone_wire"),
                  ((2, 1, 0), "note_block"), ((3, 1, 0), "redstone_wire"), ((2, 1, 1), "redstone_torch")])
    cw = compile_world(w)
    compare(w, cw, [((0, 1, 0), 8), ((0, 1, 0), 8), ((0, 1, 0), 8)])


def test_container_level_change_drops_the_graph_and_the_world_goes_on_exactly():
    def build() -> World:
        w = World(log_events=False)
        floor(w)
        w.set_blocks([((0, 1, 0), "barrel"), ((1, 1, 0), "comparator[facing=west]"), ((2, 1, 0), "redstone_wire"),
                      ((3, 1, 0), "redstone_lamp"), ((2, 1, 1), "lever[face=floor,facing=north]")])
        return w

    fast, ref = build(), build()
    ref._cg_after_calls = ref._cg_after_ticks = 1 << 62
    for w in (fast, ref):
        w.step(5000)
    assert fast._cg is not None  # the long step ran on the graph
    for i in range(5):
        for w in (fast, ref):
            w.set_items((0, 1, 0), 300 * i)
            w.step(3)
        assert fast.blocks() == ref.blocks()
        assert fast.output_signal((1, 1, 0)) == ref.output_signal((1, 1, 0))


def test_a_player_placed_note_block_beside_power_is_refused():
    """Placed by a player it starts unpowered beside power and waits for any neighbour update."""
    w = World()
    floor(w)
    w.set_blocks([((0, 1, 0), "redstone_block"), ((1, 1, 0), "note_block")])
    with pytest.raises(CompileRefused, match=r"note_block at \(1, 1, 0\) disagrees with its input"):
        compile_world(w)


# ------------------------------------------------------------------------------------- random circuits
_DIRS = ("north", "east", "south", "west")
_LOW = ["air", "stone", "stone", "glass", "redstone_wire", "redstone_wire", "redstone_wire", "redstone_lamp",
        "redstone_torch", "redstone_block", "lever[face=floor]", "stone_button[face=floor]", "target", "barrel",
        "chest", "note_block"]
_HIGH = ["air", "air", "air", "redstone_wire", "redstone_lamp", "stone", "redstone_torch"]


def _random_state(rnd: random.Random, pool: list[str], low: bool) -> str:
    r = rnd.random()
    if low and r < 0.2:
        return f"comparator[facing={rnd.choice(_DIRS)},mode={rnd.choice(['compare', 'subtract'])}]"
    if r < 0.32:
        return f"redstone_repeater[facing={rnd.choice(_DIRS)},delay={rnd.randint(1, 4)}]"
    if r < 0.36:
        return f"redstone_wall_torch[facing={rnd.choice(_DIRS)}]"
    return rnd.choice(pool)


def random_analog_circuit(rnd: random.Random, size: int = 5, rules=None) -> World:
    """A stone floor with two random layers on it (comparators, barrels and chests with random contents
    among them), placed as a player would, then run a little."""
    w = World(rules=rules)
    floor(w, size)
    place_layers(w, size, ((1, _LOW), (2, _HIGH)), lambda pool, low: _random_state(rnd, pool, low))
    for p, s in w.blocks().items():
        if s.startswith(("minecraft:barrel", "minecraft:chest")) and rnd.random() < 0.8:
            w.set_items(p, rnd.randint(0, 27 * 64))
    w.step(rnd.randint(0, 40))
    return w


def _inputs(w: World) -> list:
    return [p for p, s in w.blocks().items() if s.startswith(("minecraft:lever", "minecraft:stone_button"))]


def _check_random(rnd: random.Random, rules=None) -> bool:
    w = random_analog_circuit(rnd, rules=rules)
    try:
        cw = compile_world(w)
    except CompileRefused as e:
        assert str(e)
        return False
    inputs = _inputs(w) or [None]
    compare(w, cw, [(rnd.choice(inputs), rnd.randint(0, 30)) for _ in range(5)])
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_random_analog_circuits_tick_identical_or_refused(rnd):
    _check_random(rnd)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False), seed=st.integers(0, 10**6))
def test_random_analog_circuits_under_random_rulesets(rnd, seed):
    _check_random(rnd, random_ruleset(seed))


def test_random_analog_circuits_mostly_compile_with_comparators():
    """The differential tests above mean something only if most random circuits compile, comparators
    with a non-zero output among them."""
    rnd = random.Random(11)
    compiled, lit = 0, 0
    for _ in range(30):
        w = random_analog_circuit(rnd)
        try:
            cw = compile_world(w)
        except CompileRefused:
            continue
        compiled += 1
        lit += int(cw.output_signals().max(initial=0) > 0)
    assert compiled >= 18 and lit >= 5


def test_a_comparator_locks_a_repeater_on_both_engines():
    """A comparator facing into a repeater's side locks it while its output is above 0 (a barrel's level
    here, then a lever through dust that it subtracts)."""
    w = World()
    floor(w)
    lever = "lever[face=floor,facing=north]"
    w.set_blocks([((0, 1, 0), lever), ((1, 1, 0), "redstone_repeater[facing=west]"), ((2, 1, 0), "redstone_lamp"),
                  ((1, 1, 2), "barrel"), ((1, 1, 1), "comparator[facing=south,mode=subtract]"),
                  ((2, 1, 1), "redstone_wire"), ((3, 1, 1), "redstone_wire"), ((4, 1, 1), lever)])
    w.set_items((1, 1, 2), 900)
    w.step(4)
    assert w.get_block((1, 1, 0)).endswith("locked=true,powered=false]")
    cw = compile_world(w)
    compare(w, cw, [((0, 1, 0), 6), ((4, 1, 1), 8), ((4, 1, 1), 8), ((0, 1, 0), 8), ((4, 1, 1), 8)])
