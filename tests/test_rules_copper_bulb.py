"""Copper bulbs (docs/redstone.md section 63): a rising edge of power toggles `lit` in the tick the power comes;
`powered` follows the power; a comparator reads 15 from a lit bulb; the eight bulbs differ only in light."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine.blocks import BULB_LIGHT, COPPER_BULBS
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world


def rig(name="copper_bulb"):
    """A floor lever at (0, 1, 0), dust at (1, 1, 0), the bulb at (2, 1, 0), all on stone."""
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(5)])
    w.set_blocks([((0, 1, 0), "lever[face=floor]"), ((1, 1, 0), "redstone_wire"), ((2, 1, 0), name)])
    return w


def bulb(w, p=(2, 1, 0)):
    """(lit, powered) of the bulb at p."""
    s = w.get_block(p)
    return "lit=true" in s, "powered=true" in s


def test_a_rising_edge_toggles_lit_in_the_same_tick_and_a_falling_edge_keeps_it():
    w = rig()
    assert bulb(w) == (False, False)
    w.step(3)
    w.use((0, 1, 0))  # on: the bulb lights in this tick
    assert w.tick == 3 and bulb(w) == (True, True)
    w.step(5)
    w.use((0, 1, 0))  # off: powered goes, lit stays
    assert bulb(w) == (True, False)
    w.step(1)
    assert bulb(w) == (True, False)
    w.use((0, 1, 0))  # on again: the bulb goes out
    assert bulb(w) == (False, True)
    events = [(e.tick, e.kind, e.old, e.new) for e in w.events if e.pos == (2, 1, 0) and e.kind in ("state", "power")]
    assert events == [(3, "power", 0, 1), (3, "state", 0, 1), (8, "power", 1, 0), (9, "power", 0, 1),
                      (9, "state", 1, 0)]


@pytest.mark.parametrize("name", COPPER_BULBS)
def test_every_bulb_toggles_alike_and_only_its_light_differs(name):
    w = rig(name)
    w.use((0, 1, 0))
    assert w.get_block((2, 1, 0)) == f"minecraft:{name}[lit=true,powered=true]"
    light = BULB_LIGHT[COPPER_BULBS.index(name) % 4]
    assert f"lit (light {light})" in describe_block(frame_from_world(w), (2, 1, 0))
    w.use((0, 1, 0))
    w.use((0, 1, 0))
    assert w.get_block((2, 1, 0)) == f"minecraft:{name}[lit=false,powered=true]"
    assert "dark, comparator reads 0" in describe_block(frame_from_world(w), (2, 1, 0))


def test_a_comparator_reads_15_from_a_lit_bulb_two_ticks_after_it_toggles():
    w = rig()
    w.set_block((3, 1, 0), "comparator[facing=west]")  # its back to the bulb
    w.set_block((4, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    assert bulb(w) == (True, True) and w.power((3, 1, 0)).level == 0
    w.step(1)
    assert w.power((3, 1, 0)).level == 0
    w.step(1)
    assert w.power((3, 1, 0)).level == 15 and "lit=true" in w.get_block((4, 1, 0))
    w.use((0, 1, 0))  # off: the bulb stays lit, so does the comparator
    w.step(4)
    assert w.power((3, 1, 0)).level == 15
    w.use((0, 1, 0))  # on: the bulb goes out, the comparator 2 gt later
    w.step(1)
    assert w.power((3, 1, 0)).level == 15
    w.step(1)
    assert w.power((3, 1, 0)).level == 0


def test_a_placed_or_pasted_bulb_checks_its_power_at_once():
    """A player's bulb starts unlit and unpowered; /setblock and a paste keep the state given. Then, however it was
    placed, it compares powered with its neighbour signal at once (vanilla onPlace), toggling on a rising edge."""
    w = World()
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "redstone_block")])
    w.set_block((1, 1, 0), "copper_bulb[lit=true,powered=false]")
    assert bulb(w, (1, 1, 0)) == (True, True)  # a player's: placed unlit, then toggled by the power
    r = World(replay=True)
    r.set_blocks([((0, 1, 0), "redstone_block"), ((1, 1, 0), "copper_bulb[lit=true,powered=false]"),
                  ((5, 1, 0), "copper_bulb[lit=true,powered=true]")])
    assert bulb(r, (1, 1, 0)) == (False, True)  # as given, then toggled off
    assert bulb(r, (5, 1, 0)) == (True, False)  # as given; no power, so powered goes and lit stays


def test_a_bulb_conducts_no_power_but_holds_what_stands_on_it():
    """Vanilla makes copper bulbs no redstone conductor: a repeater into one powers nothing beyond it. Its faces
    are whole, so dust stands on it."""
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(4)])
    w.set_blocks([((0, 1, 0), "redstone_block"), ((1, 1, 0), "redstone_repeater[facing=west]"),
                  ((2, 1, 0), "copper_bulb"), ((3, 1, 0), "redstone_lamp"), ((2, 2, 0), "redstone_wire")])
    w.step(2)
    assert bulb(w) == (True, True)
    assert "lit=false" in w.get_block((3, 1, 0))
    assert w.get_block((2, 2, 0)).startswith("minecraft:redstone_wire") and w.power((2, 2, 0)).level == 0


def test_an_observer_sees_the_bulb_toggle():
    w = rig()
    w.set_block((2, 2, 0), "observer[facing=down]")  # watches the bulb, output up
    w.use((0, 1, 0))
    w.step(1)
    assert "powered=false" in w.get_block((2, 2, 0))
    w.step(1)
    assert "powered=true" in w.get_block((2, 2, 0))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=12), st.booleans())
def test_lit_flips_once_for_each_rising_edge(waits, start_lit):
    """Whatever the timing of the lever's clicks, the bulb is lit after n rising edges iff it started lit xor n is
    odd (the T flip-flop of vanilla checkAndFlip), and powered while the lever is on."""
    w = World(replay=True)
    w.set_blocks([((x, 0, 0), "stone") for x in range(3)])
    w.set_blocks([((0, 1, 0), "lever[face=floor]"), ((1, 1, 0), "redstone_wire[east=side,west=side]"),
                  ((2, 1, 0), f"copper_bulb[lit={'true' if start_lit else 'false'}]")])
    rising = 0
    for i, wait in enumerate(waits):
        w.step(wait)
        w.use((0, 1, 0))
        lever_on = i % 2 == 0
        rising += lever_on
        assert bulb(w) == (start_lit != (rising % 2 == 1), lever_on)


def test_the_compiled_engine_refuses_a_copper_bulb_naming_why():
    w = rig()
    with pytest.raises(CompileRefused, match="copper bulb toggles on each rising edge"):
        compile_world(w)
