"""Test blocks (Java 1.21.5) and block-based game tests run as vanilla runs them: docs/redstone.md sections 64-66."""

import json
from pathlib import Path

import pytest

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.engine.gametest import run_game_test
from scicraft_viz.errors import BuildFileError, InputError

DATA = Path(__file__).resolve().parent / "data" / "nucleation"
FLOOR = [((x, 0, z), "stone") for x in range(-1, 8) for z in range(-1, 2)]


def _world(*blocks, messages=None):
    w = World(replay=True)
    w.set_blocks(FLOOR + list(blocks))
    for p, m in (messages or {}).items():
        w.set_test_message(p, m)
    return w


# ----------------------------------------------------------------------------- section 64: the block
def test_a_start_block_emits_nothing_until_the_test_starts_then_15_to_every_side_weakly():
    w = _world(((0, 1, 0), "test_block[mode=start]"), ((1, 1, 0), "redstone_lamp"), ((-1, 1, 0), "redstone_wire"),
               ((0, 2, 0), "stone"), ((0, 3, 0), "redstone_lamp"), ((0, 1, 1), "redstone_wire"))
    w.step(5)
    assert w.get_block((1, 1, 0)) == "minecraft:redstone_lamp[lit=false]"
    result = run_game_test(w, 3)
    assert result.status == "failed" and result.tick == 0 and result.reason == "Missing test block: accept"
    assert w.get_block((1, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
    assert "power=15" in w.get_block((-1, 1, 0)) and "power=15" in w.get_block((0, 1, 1))
    # weak power only: the stone above is not powered, so the lamp on it stays off
    assert w.get_block((0, 3, 0)) == "minecraft:redstone_lamp[lit=false]"
    # the block state never changes: mode is all it has
    assert w.get_block((0, 1, 0)) == "minecraft:test_block[mode=start]"


def test_a_test_block_is_a_conductor_a_piston_cannot_move():
    w = _world(((2, 1, 0), "test_block[mode=accept]"), ((1, 1, 0), "piston[facing=east]"),
               ((0, 1, 0), "lever[face=floor,facing=north]"), ((3, 1, 0), "redstone_repeater[facing=west]"),
               ((4, 1, 0), "redstone_lamp"), ((2, 2, 0), "redstone_torch"))
    w.use((0, 1, 0))
    w.step(4)
    assert w.get_block((2, 1, 0)) == "minecraft:test_block[mode=accept]"  # not pushed
    assert "extended=false" in w.get_block((1, 1, 0))
    # a torch on it stands (full faces); a repeater reads nothing through it while nothing powers it
    assert w.get_block((2, 2, 0)) == "minecraft:redstone_torch[lit=true]"
    assert w.get_block((4, 1, 0)) == "minecraft:redstone_lamp[lit=false]"


def test_the_compiled_engine_refuses_a_world_with_test_blocks():
    w = _world(((0, 1, 0), "test_block[mode=log]"))
    with pytest.raises(CompileRefused, match="test_block at"):
        compile_world(w)


def test_a_structures_test_block_keeps_message_and_powered_and_bad_data_is_named():
    def snbt(tag):
        return (b'{DataVersion: 4903, size: [2, 1, 1], palette: [{Name: "minecraft:test_block", Properties: {mode: '
                b'"fail"}}, {Name: "minecraft:test_block", Properties: {mode: "start"}}], blocks: [{pos: [0, 0, 0], '
                b'state: 0, nbt: {id: "minecraft:test_block", mode: "fail", ' + tag + b'}}, {pos: [1, 0, 0], '
                b'state: 1}], entities: []}')

    w = World.from_build_file(snbt(b'message: "the door opened early", powered: 0b'), fmt="snbt")
    assert w.test_message((0, 0, 0)) == "the door opened early"
    assert w.test_message((1, 0, 0)) == ""
    with pytest.raises(BuildFileError, match=r"the test block at \(0, 0, 0\).*message is Int"):
        World.from_build_file(snbt(b"message: 3"), fmt="snbt")
    with pytest.raises(InputError, match="not a test block"):
        w.set_test_message((5, 5, 5), "x")


# ----------------------------------------------------------------------------- section 65: log, fail, accept
def test_log_fail_and_accept_blocks_trigger_on_a_rising_edge_at_exact_ticks():
    # start -> repeater (delay 2) -> dust -> log block -> repeater (delay 4) -> accept
    w = _world(((0, 1, 0), "test_block[mode=start]"), ((1, 1, 0), "redstone_repeater[facing=west,delay=2]"),
               ((2, 1, 0), "redstone_wire"), ((3, 1, 0), "test_block[mode=log]"),
               ((4, 1, 0), "redstone_repeater[facing=west,delay=4]"), ((5, 1, 0), "test_block[mode=accept]"),
               messages={(3, 1, 0): "halfway", (0, 1, 0): "go"})
    result = run_game_test(w, 40)
    assert (result.status, result.tick, result.block, result.start) == ("passed", 12, (5, 1, 0), (0, 1, 0))
    assert result.log == ((0, (0, 1, 0), "start", "go"), (4, (3, 1, 0), "log", "halfway"))
    assert w.tick == 12


def test_a_fail_block_fails_the_test_with_its_message_unless_an_accept_block_fires_in_the_same_tick():
    fail_first = _world(((0, 1, 0), "test_block[mode=start]"), ((1, 1, 0), "redstone_repeater[facing=west]"),
                        ((2, 1, 0), "test_block[mode=fail]"), ((0, 1, 1), "redstone_repeater[facing=north,delay=2]"),
                        ((0, 1, 2), "test_block[mode=accept]"), messages={(2, 1, 0): "too fast"})
    r = run_game_test(fail_first, 40)
    assert (r.status, r.tick, r.block, r.reason) == ("failed", 2, (2, 1, 0), "too fast")
    same_tick = _world(((0, 1, 0), "test_block[mode=start]"), ((1, 1, 0), "redstone_repeater[facing=west]"),
                       ((2, 1, 0), "test_block[mode=fail]"), ((0, 1, 1), "redstone_repeater[facing=north]"),
                       ((0, 1, 2), "test_block[mode=accept]"))
    r = run_game_test(same_tick, 40)
    assert (r.status, r.tick, r.block) == ("passed", 2, (0, 1, 2))


def test_an_observers_pulse_triggers_accept_and_a_block_saved_powered_is_not_triggered():
    # the lamp lights at tick 2, the observer watching it pulses at tick 4: the accept block fires then
    w = _world(((0, 1, 0), "test_block[mode=start]"), ((1, 1, 0), "redstone_repeater[facing=west]"),
               ((2, 1, 0), "redstone_lamp"), ((3, 1, 0), "observer[facing=west]"),
               ((4, 1, 0), "test_block[mode=accept]"))
    r = run_game_test(w, 40)
    assert (r.status, r.tick) == ("passed", 4)
    # an accept block saved powered stays powered: no rising edge, no pass
    snbt = (b'{DataVersion: 4903, size: [3, 1, 1], palette: [{Name: "minecraft:test_block", Properties: {mode: '
            b'"start"}}, {Name: "minecraft:test_block", Properties: {mode: "accept"}}, '
            b'{Name: "minecraft:redstone_block"}], blocks: [{pos: [0, 0, 0], state: 0}, {pos: [1, 0, 0], state: 1, '
            b'nbt: {id: "minecraft:test_block", '
            b'mode: "accept", powered: 1b}}, {pos: [2, 0, 0], state: 2}], entities: []}')
    r = run_game_test(World.from_build_file(snbt, fmt="snbt"), 10)
    assert (r.status, r.tick, r.reason) == ("timed_out", 11, "Didn't succeed or fail within 10 ticks")


# ----------------------------------------------------------------------------- section 66: the game test
def test_a_structure_without_one_start_block_fails_at_tick_0():
    r = run_game_test(_world(((0, 1, 0), "test_block[mode=accept]")), 10)
    assert (r.status, r.tick, r.reason) == ("failed", 0, "Missing test block: start")
    r = run_game_test(_world(((0, 1, 0), "test_block[mode=start]"), ((3, 1, 0), "test_block[mode=start]"),
                             ((5, 1, 0), "test_block[mode=accept]")), 10)
    assert (r.status, r.tick) == ("failed", 0) and r.reason.startswith("Too many test blocks: start (2, at (0, 1, 0)")


def test_nucleations_torch_inverts_game_test_passes_and_times_out_without_its_dust_as_in_vanilla():
    instance = json.loads((DATA / "torch_inverts.test_instance.json").read_text())
    assert instance["type"] == "minecraft:block_based"
    path = DATA / "torch_inverts.snbt"
    r = run_game_test(path, instance["max_ticks"], setup_ticks=instance["setup_ticks"])
    assert (r.status, r.tick, r.block, r.start) == ("passed", 0, (2, 1, 0), (0, 1, 0))
    w = World.from_build_file(path)
    w.remove_block((1, 1, 0))
    r = run_game_test(w, instance["max_ticks"])
    assert (r.status, r.tick, r.reason) == ("timed_out", 41, "Didn't succeed or fail within 40 ticks")
    assert w.tick == 41


def test_a_game_tests_structure_starts_with_nothing_scheduled_so_a_placed_observer_does_not_fire(tmp_path):
    # the observer is placed before the stone it watches: the stone's placing schedules the observer's pulse, which
    # would trigger the accept block at tick 2; a test's structure is cleared of it once placed, as in vanilla
    snbt = (b'{DataVersion: 4903, size: [5, 1, 1], palette: [{Name: "minecraft:test_block", Properties: {mode: '
            b'"accept"}}, {Name: "minecraft:observer", Properties: {facing: "east", powered: "false"}}, '
            b'{Name: "minecraft:stone"}, {Name: "minecraft:test_block", Properties: {mode: "start"}}], '
            b'blocks: [{pos: [0, 0, 0], state: 0}, {pos: [1, 0, 0], state: 1}, {pos: [2, 0, 0], state: 2}, '
            b'{pos: [4, 0, 0], state: 3}], entities: []}')
    path = tmp_path / "observer_watch.snbt"
    path.write_bytes(snbt)
    r = run_game_test(path, 10)
    assert (r.status, r.tick, r.reason) == ("timed_out", 11, "Didn't succeed or fail within 10 ticks")
    # a World is run as it stands: the pulse its loading scheduled fires
    r = run_game_test(World.from_build_file(path), 10)
    assert (r.status, r.tick, r.block) == ("passed", 2, (0, 0, 0))
    w = World.from_build_file(path)
    w.clear_scheduled()
    w.step(5)
    assert "powered=false" in w.get_block((1, 0, 0)) and w.get_block((2, 0, 0)) == "minecraft:stone"


def test_run_game_test_refuses_bad_tick_counts_naming_them():
    w = _world(((0, 1, 0), "test_block[mode=start]"))
    for bad in (0, -1, True, 2.5, "10"):
        with pytest.raises(InputError, match="max_ticks must be an integer"):
            run_game_test(w, bad)
    with pytest.raises(InputError, match="setup_ticks must be an integer"):
        run_game_test(w, 10, setup_ticks=-1)


def test_the_gametest_command_prints_the_outcome_with_its_exit_code(tmp_path):
    from typer.testing import CliRunner

    from scicraft_viz.cli import app

    r = CliRunner().invoke(app, ["gametest", str(DATA / "torch_inverts.snbt"), "--max-ticks", "40"])
    assert (r.exit_code, r.output.strip()) == (0, "passed at tick 0 by the accept block at (2, 1, 0)")
    broken = tmp_path / "broken.snbt"
    broken.write_text((DATA / "torch_inverts.snbt").read_text().replace("{pos: [1, 1, 0], state: 3},", ""))
    r = CliRunner().invoke(app, ["gametest", str(broken), "--max-ticks", "40"])
    assert (r.exit_code, r.output.strip()) == (1, "timed out at tick 41: Didn't succeed or fail within 40 ticks")
    r = CliRunner().invoke(app, ["gametest", str(broken), "--max-ticks", "0"])
    assert r.exit_code == 2 and "max_ticks must be an integer" in r.output


def test_test_blocks_are_drawn_as_full_cubes_in_their_modes_colours_with_hover_text():
    import numpy as np

    from scicraft_viz.views import geometry
    from scicraft_viz.views.canvas import describe_block
    from scicraft_viz.views.frame import frame_from_world

    w = _world(*(((x, 1, 0), f"test_block[mode={m}]") for x, m in enumerate(("start", "log", "fail", "accept"))))
    f = frame_from_world(w)
    g = geometry.build(f.layout)
    col = geometry.box_colors(g, f)
    lo = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]
    drawn = {f.layout.positions[b]: (box, tuple(c)) for b, box, c, part in
             zip(g.block.tolist(), lo.tolist(), col.tolist(), g.part.tolist(), strict=True) if part == geometry.P_TEST}
    assert sorted(drawn) == [(0, 1, 0), (1, 1, 0), (2, 1, 0), (3, 1, 0)]
    assert all(box == [x, 1, 0, x + 1, 2, 1] for (x, _, _), (box, _) in drawn.items())
    assert len({c for _, c in drawn.values()}) == 4  # a colour for each mode
    assert "test_block[mode=fail]" in describe_block(f, (2, 1, 0))
