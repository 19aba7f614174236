"""The explorer's model: recording, scrubbing without simulating, edits with undo/redo, reset."""

import numpy as np
import pytest

from scicraft_viz import World, tasks
from scicraft_viz.demo import BUTTON, demo_world
from scicraft_viz.views import Session, static_state
from scicraft_viz.views.session import placement_order


@pytest.fixture
def demo():
    return Session(demo_world())


def test_recording_matches_the_engine(demo):
    demo.press()
    demo.step(12)
    w = demo_world()
    w.use(BUTTON)
    ref = w.record(12)
    tr = demo.trace
    assert tr.lamp_positions == ref.lamp_positions
    assert np.array_equal(tr.lamp_lit, ref.lamp_lit)
    assert tr.dust_positions == ref.dust_positions
    assert np.array_equal(tr.dust_power, ref.dust_power)
    assert [t - tr.start_tick for t in tr.on_ticks()] == [0, 2, 6, 8]
    assert (demo.start, demo.end, demo.tick) == (0, 12, 12)
    assert demo.presses == [0]


def test_scrubbing_shows_recorded_rows_and_never_simulates(demo):
    demo.press()
    demo.step(10)
    world_tick = demo.world.tick
    demo.seek(3)
    assert demo.tick == 3 and demo.world.tick == world_tick == 10
    f = demo.frame()
    lamps = f.layout.kind == 8  # blocks.LAMP
    assert f.on[lamps].tolist() == [True, True, False, False]
    demo.step(2)  # still inside the recording: the cursor moves, the world does not
    assert demo.tick == 5 and demo.world.tick == 10
    demo.step(7)  # 2 ticks past the end are simulated
    assert demo.tick == 12 and demo.world.tick == 12 and demo.end == 12
    assert demo.seek(99).message == "tick 12"
    assert demo.seek(-5).message == "tick 0"


def test_place_remove_undo_redo(demo):
    out = demo.place((2, 4, 3), "redstone_lamp")
    assert out.ok and out.message == "placed redstone_lamp at (2, 4, 3)"
    assert demo.world.get_block((2, 4, 3)) == "minecraft:redstone_lamp[lit=false]"
    assert demo.frame().layout.at((2, 4, 3)) is not None
    out = demo.remove((2, 3, 2))  # the stone under a lamp? no: under nothing; a floor block
    assert out.ok and demo.world.get_block((2, 3, 2)) == "minecraft:air"
    assert demo.undo().message == "undid: removed stone at (2, 3, 2)"
    assert demo.world.get_block((2, 3, 2)) == "minecraft:stone"
    assert demo.undo().message == "undid: placed redstone_lamp at (2, 4, 3)"
    assert demo.world.get_block((2, 4, 3)) == "minecraft:air"
    assert demo.undo().message == "nothing to undo"
    assert demo.redo().message == "redid: placed redstone_lamp at (2, 4, 3)"
    assert demo.world.get_block((2, 4, 3)) == "minecraft:redstone_lamp[lit=false]"


def test_removing_a_support_pops_what_it_carried_and_undo_restores_both(demo):
    out = demo.remove((1, 3, 1))  # the stone under the dust at (1, 4, 1)
    assert out.message == "removed stone at (1, 3, 1) (1 supported block popped off)"
    assert demo.world.get_block((1, 4, 1)) == "minecraft:air"
    demo.undo()
    assert demo.world.get_block((1, 3, 1)) == "minecraft:stone"
    assert demo.world.get_block((1, 4, 1)).startswith("minecraft:redstone_wire[")


@pytest.mark.parametrize("pos, state, message", [
    ((4, 7, 4), "redstone_wire",
     "cannot place redstone_wire at (4, 7, 4): it needs a solid block below at (4, 6, 4), but there is minecraft:air"),
    ((40, 4, 0), "stone", "(40, 4, 0) is outside the build region (-4, 0, -4)..(12, 8, 6)"),
    ((1, 4, 2), "stone", "(1, 4, 2) is taken by redstone_lamp: remove it first"),
    ((1, 4.5, 2), "stone", "position must be three integers (x, y, z), got (1, 4.5, 2)"),
    ((2, 5, 2), "redstone_lampp", "unknown block 'redstone_lampp'"),
])
def test_refused_edits_explain_and_change_nothing(demo, pos, state, message):
    before = demo.world.blocks()
    version = demo.version
    out = demo.place(pos, state)
    assert not out.ok
    assert out.message.startswith(message)
    assert demo.message == out.message
    assert demo.world.blocks() == before and demo.version == version and demo.undo_stack == []


def test_nothing_to_remove_and_nothing_to_use(demo):
    assert demo.remove((0, 7, 0)).message == "nothing to remove at (0, 7, 0)"
    assert demo.use((0, 7, 0)).message == "nothing to use at (0, 7, 0)"
    assert demo.use((0, 3, 0)).message == "stone at (0, 3, 0) does nothing when used"


def test_use_cycles_a_repeater_delay_as_an_undoable_edit(demo):
    assert demo.use((2, 4, 0)).ok
    assert "delay=2" in demo.world.get_block((2, 4, 0))
    assert demo.undo().ok
    assert "delay=1" in demo.world.get_block((2, 4, 0))


def test_press_twice_while_pressed_is_refused(demo):
    assert demo.press().message == "pressed stone_button at (0, 4, 0) at tick 0"
    assert demo.press().message == "stone_button at (0, 4, 0) does nothing when used (the button is already pressed)"


def test_reset_restores_the_start_or_rebuilds_the_edited_build(demo):
    demo.press()
    demo.step(30)
    assert demo.reset().message == "reset to tick 0"
    assert (demo.start, demo.end, demo.tick, demo.presses) == (0, 0, 0, [])
    assert demo.world.blocks() == demo_world().blocks()
    demo.place((2, 4, 3), "redstone_lamp")
    demo.step(5)
    demo.reset()
    assert demo.world.tick == 0
    assert demo.world.get_block((2, 4, 3)) == "minecraft:redstone_lamp[lit=false]"


def test_a_lamp_placed_later_gets_a_column_dark_before_it_existed(demo):
    demo.step(3)
    demo.place((2, 4, 3), "redstone_lamp")
    demo.press()
    demo.step(3)
    tr = demo.trace
    j = tr.lamp_positions.index((2, 4, 3))
    assert tr.lamp_lit.shape == (7, 5)
    assert tr.lamp_lit[:, j].tolist() == [False] * 7


def test_locked_repeaters_are_recorded_from_events():
    w = World()
    for x in range(0, 5):
        for z in range(-1, 4):
            w.set_block((x, 0, z), "stone")
    w.set_block((3, 1, 2), "stone_button[face=floor]")
    w.set_block((3, 1, 1), "redstone_repeater[facing=south,delay=1]")
    w.set_block((3, 1, 0), "redstone_repeater[facing=west,delay=1]")
    probe = w.copy()
    s = Session(w)
    s.press((3, 1, 2))
    s.step(30)
    i = s.frame().layout.at((3, 1, 0))
    locked = [bool(s.frame(t).locked[i]) for t in range(0, 31)]
    # the side repeater turns on 2 gt after the press and off 2 gt after the 20 gt button pulse
    assert locked == [False] * 2 + [True] * 20 + [False] * 9
    probe.use((3, 1, 2))
    truth = []
    for _ in range(31):
        truth.append("locked=true" in probe.get_block((3, 1, 0)))
        probe.step(1)
    assert locked == truth


def test_task_session_matches_the_evaluator():
    task = tasks.load("C_sequential_activation_L1")
    s = Session(task=task, build="tasks/solutions/C_sequential_activation_L1.mcfunction")
    assert s.tick == task.settle_game_ticks
    assert s.region == ((-10, -6, -10), (10, 14, 10))
    s.run_test()
    result = s.evaluate()
    tr = s.trace
    press = s.presses[-1]
    got = [None if t is None else (t - press) // 2 for t in tr.on_ticks()]
    assert got == [m["on"] for m in result.measured["lamps"]]
    assert result.passed


def test_static_state_keeps_choices_and_drops_derived_values():
    assert static_state("minecraft:redstone_wire[east=side,north=none,power=7,south=none,west=side]") \
        == "minecraft:redstone_wire"
    assert static_state("minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]") \
        == "minecraft:redstone_wire[east=none,north=none,south=none,west=none]"
    assert static_state("minecraft:redstone_repeater[delay=3,facing=west,locked=true,powered=true]") \
        == "minecraft:redstone_repeater[delay=3,facing=west]"
    assert static_state("minecraft:lever[face=floor,facing=north,powered=true]") \
        == "minecraft:lever[face=floor,facing=north,powered=true]"
    assert static_state("minecraft:redstone_lamp[lit=true]") == "minecraft:redstone_lamp"


def test_placement_order_puts_supports_first_and_removes_hangers_first():
    order = placement_order({(0, 2, 0): "minecraft:redstone_wire", (0, 1, 0): "minecraft:stone",
                             (5, 1, 0): "minecraft:air", (5, 2, 0): "minecraft:air"})
    assert order == [((5, 2, 0), "minecraft:air"), ((5, 1, 0), "minecraft:air"),
                     ((0, 1, 0), "minecraft:stone"), ((0, 2, 0), "minecraft:redstone_wire")]


def _piston_build():
    w = World()
    for x in range(-1, 4):
        w.set_block((x, 0, 0), "stone")
    w.set_block((0, 0, 1), "stone")
    w.set_block((0, 1, 0), "sticky_piston[facing=east]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    return w


def test_a_piston_world_keeps_a_layout_per_tick_when_stepped_in_one_go():
    s = Session(_piston_build())
    s.use((0, 1, 1))
    s.step(5)
    seen = {}
    for t in range(s.start, s.end + 1):
        s.seek(t)
        seen[t] = s.frame().describe((2, 1, 0))
    w2 = _piston_build()
    w2.use((0, 1, 1))
    want = {w2.tick: w2.get_block((2, 1, 0))}
    for _ in range(5):
        w2.step()
        want[w2.tick] = w2.get_block((2, 1, 0))
    assert seen == {t: v.removeprefix("minecraft:") for t, v in want.items()}
    assert seen[s.start + 1].startswith("moving_piston") and seen[s.start + 3] == "stone"
