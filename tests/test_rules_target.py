"""The target block as a redstone component (Java Edition 1.20): a solid conductive block that dust
always connects to. Its own output comes from projectile hits only, which the engine has none of."""

import pytest
from redstone_helpers import new_world, on, power, prop

from scicraft_viz.engine.compiled import compile_world
from scicraft_viz.errors import BlockStateError


def test_canonical_state_and_only_power_zero():
    w = new_world()
    w.set_block((1, 1, 0), "target")
    assert w.get_block((1, 1, 0)) == "minecraft:target[power=0]"
    with pytest.raises(BlockStateError, match="target property 'power' cannot be '3'"):
        w.set_block((1, 1, 0), "target[power=3]")


def _line_beside(block):
    """Dust from a lever at (1,1,-2) running south past `block` at (2,1,0); a lamp at (3,1,0) behind it."""
    w = new_world()
    w.set_block((1, 1, -2), "lever[face=floor,facing=north]")
    for z in (-1, 0, 1):
        w.set_block((1, 1, z), "redstone_wire")
    w.set_block((2, 1, 0), block)
    w.set_block((3, 1, 0), "redstone_lamp")
    w.use((1, 1, -2))
    return w


def test_dust_bends_into_a_target_and_powers_it():
    w = _line_beside("target")
    assert prop(w, (1, 1, 0), "east") == "side"
    assert w.power((2, 1, 0)).weak == 14
    assert on(w, (3, 1, 0))  # the weakly powered target lights the lamp behind it
    # beside stone the same line runs straight past and powers nothing
    s = _line_beside("stone")
    assert prop(s, (1, 1, 0), "east") == "none"
    assert s.power((2, 1, 0)).weak == 0 and not on(s, (3, 1, 0))


def test_a_lone_dust_beside_a_target_points_into_it():
    w = new_world()
    w.set_block((2, 1, 0), "target")
    w.set_block((1, 1, 0), "redstone_wire")
    assert w.get_block((1, 1, 0)) == "minecraft:redstone_wire[east=side,north=none,power=0,south=none,west=side]"


def test_target_conducts_strong_power_and_carries_dust():
    w = new_world()
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), "redstone_repeater[facing=west]")
    w.set_block((2, 1, 0), "target")
    w.set_block((2, 2, 0), "redstone_wire")  # dust may lie on it
    w.set_block((2, 1, 1), "redstone_wire")
    w.step(2)
    assert w.power((2, 1, 0)).strong == 15
    assert power(w, (2, 1, 1)) == 15 and power(w, (2, 2, 0)) == 15


def test_compiled_engine_runs_targets_tick_for_tick():
    from test_compiled import _compare

    w = _line_beside("target")
    w.set_block((2, 1, 1), "redstone_repeater[facing=north]")  # reads the target's south face
    w.set_block((2, 1, 2), "redstone_lamp")
    w.step(4)
    lever = (1, 1, -2)
    assert _compare(w, compile_world(w), [(lever, 7), (lever, 12), (lever, 0), (lever, 20)]) == 8 + 13 + 1 + 21
