"""Tripwire hooks: known by their vanilla states, hung on the face behind them, broken by a piston, a signal
source that dust turns toward, never a conductor. docs/redstone.md section 52 (strung hooks and tripwire: section
88, tests/test_rules_tripwire_line.py)."""

import pytest
from redstone_helpers import name, new_world, on
from test_compiled import _compare

from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import compile_world
from scicraft_viz.errors import PlacementError

HOOK = "tripwire_hook[facing=west]"  # hangs on the block to its east


@pytest.mark.parametrize("facing", B.HORIZONTAL)
def test_a_tripwire_hook_is_known_by_its_vanilla_states(facing):
    st = B.parse_state(f"tripwire_hook[facing={facing}]")
    assert st.id == B.PARTIAL and dict(st.props) == {"attached": "false", "facing": facing, "powered": "false"}
    assert B.vanilla_state_of(B.vanilla_number(st.name, st.props)) == str(st)
    behind = B.DIRECTIONS[(B.HORIZONTAL.index(facing) + 2) % 4]
    assert B.support_need(st.name, st.props) == (B.DIRECTIONS.index(behind), B.SUPPORT_FULL)


def test_a_hook_needs_a_whole_face_behind_it_and_pops_when_it_goes():
    w = new_world()
    with pytest.raises(PlacementError):
        w.set_block((0, 1, 0), HOOK)
    w.set_block((1, 1, 0), "glass")
    w.set_block((0, 1, 0), HOOK)
    assert name(w, (0, 1, 0)) == "tripwire_hook"
    w.set_block((1, 1, 0), "air")
    assert name(w, (0, 1, 0)) == "air"


def test_dust_beside_a_hook_turns_toward_it():
    """vanilla RedStoneWireBlock.shouldConnectTo: any signal source. Dust east of a hook connects west and runs on
    east, a line; beside stone it has no connection and is a cross."""
    line = {"east": "side", "north": "none", "south": "none", "west": "side"}
    cross = dict.fromkeys(line, "side")
    for block, want in (("tripwire_hook[facing=north]", line), ("stone", cross)):
        w = new_world()
        w.set_block((0, 1, 1), "stone")  # holds the hook
        w.set_block((0, 1, 0), block)
        w.set_block((1, 1, 0), "redstone_wire")
        got = B.split_state(w.get_block((1, 1, 0)))[1]
        assert {k: got[k] for k in line} == want, block


def test_a_hook_never_conducts():
    """A repeater pointing into the block, a lamp beyond it: stone (the control) lights the lamp, a hook not."""
    for middle, lit in (("stone", True), ("tripwire_hook[facing=north]", False)):
        w = new_world()
        w.set_block((-2, 1, 0), "lever[face=floor,facing=north]")
        w.set_block((-1, 1, 0), "repeater[facing=west]")  # output east, into (0, 1, 0)
        w.set_block((0, 1, 1), "stone")  # holds the hook
        w.set_block((0, 1, 0), middle)
        w.set_block((1, 1, 0), "redstone_lamp")
        w.use((-2, 1, 0))
        w.step(4)
        assert on(w, (-1, 1, 0)) and on(w, (1, 1, 0)) == lit, middle


def test_a_piston_breaks_a_hook():
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=north]")
    w.set_block((1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, -2), "stone")
    w.set_block((0, 1, -1), "tripwire_hook[facing=south]")  # hangs on the stone north of it
    w.use((1, 1, 0))
    w.step(3)
    assert name(w, (0, 1, -1)) == "piston_head" and name(w, (0, 1, -2)) == "stone"


def test_the_compiled_engine_runs_dust_beside_a_hook_as_the_reference_does():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((2, 1, 1), "stone")
    w.set_block((2, 1, 0), "tripwire_hook[facing=north]")
    w.set_block((1, 1, 1), "redstone_wire")
    w.set_block((1, 1, 2), "redstone_lamp")
    cw = compile_world(w)
    _compare(w, cw, [((0, 1, 0), 3), ((0, 1, 0), 5)])
