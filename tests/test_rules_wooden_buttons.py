"""Buttons of every kind (docs/redstone.md section 47): stone and polished blackstone stay pressed 20 gt, every
wooden one 30 gt; otherwise they are the same block, on both engines and in build files."""

import pytest
from redstone_helpers import new_world, on, run
from vanilla_capture import NUCLEATION, Action, differences

from scicraft_viz import World
from scicraft_viz.engine.blocks import BUTTONS, WOODS
from scicraft_viz.engine.compiled import compile_world
from scicraft_viz.engine.rules import Ruleset

BTN, LAMP = (0, 1, 0), (1, 1, 0)


@pytest.mark.parametrize("button", BUTTONS)
def test_each_button_stays_pressed_its_own_time_and_the_lamp_follows(button):
    w = new_world()
    w.set_block(BTN, f"{button}[face=floor,facing=north]")
    w.set_block(LAMP, "redstone_lamp")
    assert w.get_block(BTN) == f"minecraft:{button}[face=floor,facing=north,powered=false]"
    got = run(w, 50, lambda: (on(w, BTN), on(w, LAMP)), {3: [lambda: w.use(BTN)]})
    held = 20 if button in ("stone_button", "polished_blackstone_button") else 30
    assert got == [(0, (False, False)), (3, (True, True)), (3 + held, (False, True)), (3 + held + 4, (False, False))]


def test_every_wood_has_a_button():
    assert set(BUTTONS) == {"stone_button", "polished_blackstone_button", *(f"{w}_button" for w in WOODS)}


def test_a_ruleset_changes_the_stone_buttons_time_not_the_wooden_ones():
    w = World(rules=Ruleset(name="long", button_ticks=40))
    w.set_blocks([((x, 0, 0), "stone") for x in range(3)])
    w.set_blocks([((0, 1, 0), "stone_button[face=floor]"), ((2, 1, 0), "oak_button[face=floor]")])
    got = run(w, 50, lambda: (on(w, (0, 1, 0)), on(w, (2, 1, 0))),
              {0: [lambda: w.use((0, 1, 0)), lambda: w.use((2, 1, 0))]})
    assert got == [(0, (True, True)), (30, (True, False)), (40, (False, False))]


def test_the_compiled_engine_keeps_each_buttons_time():
    """A stone and a wooden button each lighting a lamp, pressed on the compiled graph: the same states as the
    reference engine every tick."""
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(4)])
    w.set_blocks([((0, 1, 0), "stone_button[face=floor]"), ((1, 1, 0), "redstone_lamp"),
                  ((3, 1, 0), "birch_button[face=floor]"), ((2, 1, 0), "redstone_lamp")])
    cw = compile_world(w)
    for p in ((0, 1, 0), (3, 1, 0)):
        assert cw.use(p) is True and w.use(p) is True
    on_rows, _ = cw.record(40)
    ref = w.record(40)
    lamps = [cw.node_of[p] for p in ref.lamp_positions]
    assert (on_rows[:, lamps].astype(bool) == ref.lamp_lit[: len(on_rows)]).all()
    assert len(on_rows) == 41
    # the birch button's lamp (2, 1, 0) goes out 34 gt after the press, the stone button's after 24
    lit = dict(zip(ref.lamp_positions, ref.lamp_lit.T.tolist()))
    assert lit[(1, 1, 0)].index(False) == 24 and lit[(2, 1, 0)].index(False) == 34


def test_nucleations_wooden_button_capture_matches():
    """An oak button pressed at capture tick 2 lets go at tick 32 (vanilla 26.2, tests/data/nucleation)."""
    assert differences("button_wood.snbt", "button_wood.json", [Action(2, "use", (0, 1, 0))], placement=True) == []


def test_a_build_file_keeps_which_button_it_is():
    w = World.from_build_file(NUCLEATION / "button_support.snbt")
    assert w.get_block((3, 1, 0)) == "minecraft:oak_button[face=floor,facing=north,powered=false]"
    assert w.get_block((1, 1, 0)) == "minecraft:stone_button[face=floor,facing=north,powered=false]"
