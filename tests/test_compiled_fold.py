"""The compiled engine's folded lamps (a lamp whose only input is one repeater is checked by that repeater
without a link) against the reference engine: every node's state, dust power and output strength every game
tick, with the lamp re-powered inside its off delay, read through its block by a comparator and a repeater,
and written back to a World mid-delay; lamps that must not be folded are not."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine.compiled import (
    K_FOLD_FIRST,
    K_FOLD_LAST,
    LAMP,
    S_CNT,
    S_FOLD,
    S_KIND,
    S_ON,
    S_PEND,
    S_PTIME,
    compile_world,
    world_dynamic_state,
)
from scicraft_viz.engine.rules import random_ruleset
from tests.test_compiled_analog import compare, floor

LEVER = "lever[face=floor,facing=north]"


def folded(cw) -> dict:
    """{repeater position: (folded lamp position, 'first' or 'last')} of a compiled world."""
    st = cw._views()[1]
    out = {}
    for i, p in enumerate(cw.positions):
        k = int(st[i, S_KIND])
        if k & (K_FOLD_FIRST | K_FOLD_LAST):
            out[p] = (cw.positions[int(st[i, S_FOLD])], "first" if k & K_FOLD_FIRST else "last")
    return out


def line(w: World, x0: int, step: int, z: int, cells: list[str]) -> None:
    """A lever at x0, then `cells` along x in direction `step` (+1 east, -1 west); 'R1'..'R4' is a repeater
    of that delay taking its input from the lever's side, 'L' a lamp, 'S' stone, '.' air."""
    facing = "west" if step > 0 else "east"
    blocks = [((x0, 1, z), LEVER)]
    for i, c in enumerate(cells, 1):
        p = (x0 + step * i, 1, z)
        if c.startswith("R"):
            blocks.append((p, f"redstone_repeater[facing={facing},delay={c[1]}]"))
        elif c in ("L", "S"):
            blocks.append((p, "redstone_lamp" if c == "L" else "stone"))
    w.set_blocks(blocks)


def toggles(pos, gaps) -> list:
    return [(pos, g) for g in gaps]


def ticks(actions) -> int:
    """The rows `compare` checks for these actions when the graph never stops."""
    return sum(n + 1 for _, n in actions)


def test_folded_lamp_re_powered_inside_its_off_delay_tick_for_tick():
    """A repeater line lit by a lever flipped with gaps of 1 to 9 gt: off and on again inside the lamps' 4 gt
    off delay keeps them lit, longer gaps let them go dark; the lamps between repeaters are folded, the lamp
    ahead of a repeater first in its check order going east, last going west."""
    w = World()
    floor(w, 14)
    line(w, 0, 1, 0, ["R1", "L", "R2", "L", "R1", "L"])
    line(w, 13, -1, 3, ["R1", "L", "R1", "L", "R3", "L"])
    cw = compile_world(w)
    f = folded(cw)
    assert sorted(f.values()) == [((2, 1, 0), "first"), ((4, 1, 0), "first"), ((6, 1, 0), "first"),
                                  ((7, 1, 3), "first"), ((9, 1, 3), "last"), ((11, 1, 3), "last")]
    gaps = [3, 1, 6, 2, 9, 1, 1, 4, 5, 2, 8, 3]
    actions = [a for pair in zip(toggles((0, 1, 0), gaps), toggles((13, 1, 3), gaps[::-1])) for a in pair]
    actions.append((None, 30))
    assert compare(w, cw, actions) == ticks(actions)


def test_lamp_read_through_its_block_by_a_comparator_is_folded_and_agrees():
    """A comparator behind the lamp reads the power in the lamp's block (the repeater's), not its light, so
    the lamp stays folded; the comparator's output and the lamp beside it follow the reference."""
    w = World()
    floor(w)
    w.set_blocks([((0, 1, 0), LEVER), ((1, 1, 0), "redstone_repeater[facing=west]"), ((2, 1, 0), "redstone_lamp"),
                  ((3, 1, 0), "comparator[facing=west]"), ((4, 1, 0), "redstone_lamp")])
    cw = compile_world(w)
    assert folded(cw) == {(1, 1, 0): ((2, 1, 0), "first")}
    actions = toggles((0, 1, 0), [2, 1, 5, 3, 1, 12])
    assert compare(w, cw, actions) == ticks(actions)


@pytest.mark.parametrize("extra, why", [
    ([((2, 1, 1), "redstone_torch")], "a torch beside it: two inputs, one not a repeater"),
    ([((2, 1, -1), "redstone_repeater[facing=north]"), ((2, 1, -2), LEVER)], "two repeaters feed it"),
])
def test_lamp_with_another_input_is_not_folded(extra, why):
    w = World()
    floor(w)
    w.set_blocks([((0, 1, 0), LEVER), ((1, 1, 0), "redstone_repeater[facing=west]"), ((2, 1, 0), "redstone_lamp"),
                  *extra])
    cw = compile_world(w)
    assert folded(cw) == {}, why
    actions = toggles((0, 1, 0), [3, 1, 6, 2])
    assert compare(w, cw, actions) == ticks(actions)


def test_lamp_in_the_middle_of_a_check_order_is_not_folded():
    """A repeater whose strongly powered lamp also powers repeaters on both sides of it: the lamp's check is
    neither the first nor the last, so it keeps its link (the side lamps, first or last, are folded)."""
    w = World()
    floor(w)
    w.set_blocks([((0, 1, 2), LEVER), ((1, 1, 2), "redstone_repeater[facing=west]"), ((2, 1, 2), "redstone_lamp"),
                  ((2, 1, 1), "redstone_repeater[facing=south]"), ((2, 1, 3), "redstone_repeater[facing=north]"),
                  ((2, 1, 0), "redstone_lamp"), ((2, 1, 4), "redstone_lamp")])
    cw = compile_world(w)
    f = folded(cw)
    assert (1, 1, 2) not in f and {v[0] for v in f.values()} == {(2, 1, 0), (2, 1, 4)}
    actions = toggles((0, 1, 2), [2, 1, 4, 2, 7])
    assert compare(w, cw, actions) == ticks(actions)


def test_world_writes_a_folded_lamp_back_inside_its_off_delay():
    """A World running on the graph, read while folded lamps (first and last in their repeaters' order) wait
    for their off ticks: the lamps are still lit, their off ticks are pending with the reference engine's
    scheduling numbers, and both go on identically."""
    fast, ref = World(), World()
    for w in (fast, ref):
        floor(w, 8)
        line(w, 0, 1, 0, ["R1", "L", "R2", "L"])
        line(w, 5, -1, 2, ["R1", "L", "R2", "L"])
    fast.log_events = False
    levers = [(0, 1, 0), (5, 1, 2)]
    for i in range(20):
        for w in (fast, ref):
            for lever in levers:
                w.use(lever)
            w.step(5 + i % 4)
    assert fast._cg is not None
    on = ref.get_block(levers[0]).endswith("powered=true]")
    for n in ([3] if on else [6, 3]):  # the levers end off, flipped 3 gt ago: the lamps wait to go off
        for w in (fast, ref):
            for lever in levers:
                w.use(lever)
            w.step(n)
    assert folded(compile_world(ref)).keys() == {(1, 1, 0), (3, 1, 0), (4, 1, 2), (2, 1, 2)}
    assert fast.get_block((2, 1, 0)) == ref.get_block((2, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
    assert fast._cg is None  # the read wrote the graph's state back
    assert fast.blocks() == ref.blocks()
    pending = sorted(world_dynamic_state(ref)[1])
    assert sorted(world_dynamic_state(fast)[1]) == pending
    assert {(ref.tick + 3, 3, p) for p in [(2, 1, 0), (3, 1, 2)]} <= {(due, rank, p) for due, rank, _, p in pending}
    for n in (1, 2, 3, 6):
        ta, tb = fast.record(n), ref.record(n)
        np.testing.assert_array_equal(ta.lamp_lit, tb.lamp_lit)
        np.testing.assert_array_equal(ta.component_on, tb.component_on)
        for lever in levers:
            fast.use(lever)
            ref.use(lever)


_CELLS = ["R1", "R2", "R3", "R4", "L", "L", "L", "S", "."]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False), seed=st.integers(0, 10**6))
def test_random_repeater_lamp_lines_under_random_rulesets(rnd, seed):
    """Random lines of repeaters, lamps and stone both ways, driven by levers flipped at random short gaps,
    under a random ruleset (lamp off delay, repeater step): tick-identical to the reference, up to a tick where
    the graph stops because a lit, unpowered lamp's off tick is due and a switch before it may update it
    (redstone.md section 12: the reference engine takes over there)."""
    w = World(rules=random_ruleset(seed))
    floor(w, 14)
    for z, (x0, step) in enumerate([(0, 1), (13, -1), (0, 1)]):
        line(w, x0, step, 2 * z, [rnd.choice(_CELLS) for _ in range(12)])
    cw = compile_world(w)
    levers = [(0, 1, 0), (13, 1, 2), (0, 1, 4)]
    actions = [(rnd.choice(levers), rnd.randint(0, 9)) for _ in range(25)] + [(None, 40)]
    if compare(w, cw, actions) < ticks(actions):
        st = cw._views()[1]
        assert any(cw.kinds[i] == LAMP and st[i, S_PEND] and st[i, S_PTIME] == cw.tick and st[i, S_ON]
                   and st[i, S_CNT] == 0 for i in range(cw.n))


def test_random_lines_fold_lamps_both_ways():
    """The property test above means something only if its lines fold lamps first and last in the order."""
    rnd = random.Random(3)
    seen = set()
    for _ in range(10):
        w = World()
        floor(w, 14)
        for z, (x0, step) in enumerate([(0, 1), (13, -1), (0, 1)]):
            line(w, x0, step, 2 * z, [rnd.choice(_CELLS) for _ in range(12)])
        seen |= {how for _, how in folded(compile_world(w)).values()}
    assert seen == {"first", "last"}
