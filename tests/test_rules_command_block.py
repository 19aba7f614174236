"""Command blocks run as vanilla's CommandBlock runs them: docs/redstone.md sections 70-73."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine import commands, formats
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.errors import BuildFileError, InputError

AIR = "minecraft:air"


def _world(*blocks, cmds=None):
    w = World()
    w.set_blocks(list(blocks))
    for p, c in (cmds or {}).items():
        if isinstance(c, str):
            w.set_command(p, c)
        else:
            w.set_command(p, c[0], **c[1])
    return w


def _said(w):
    return [(m.tick, m.pos, m.text) for m in w.command_messages() if m.kind == "say"]


# ----------------------------------------------------------------------------- section 70: impulse and repeating
def test_an_impulse_block_runs_once_1_gt_after_a_rising_edge_and_not_again_while_powered():
    w = _world(((0, 0, 0), "command_block[facing=up]"), ((1, 0, 0), "stone"), ((1, 1, 0), "lever[face=floor]"),
               cmds={(0, 0, 0): "setblock ~ ~3 ~ redstone_block"})
    w.set_block((0, 1, 0), "redstone_wire")
    w.step(3)
    w.use((1, 1, 0))  # the lever powers the dust on the command block, which powers it
    t = w.tick
    cb = w.command_block((0, 0, 0))
    assert cb.powered and cb.condition_met and cb.success_count == 0
    assert w.get_block((0, 3, 0)) == AIR
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(t + 1, (0, 0, 0))]
    w.step(1)
    assert w.get_block((0, 3, 0)) == "minecraft:redstone_block"
    cb = w.command_block((0, 0, 0))
    assert (cb.success_count, cb.last_execution, cb.last_output) == (1, t + 1, "Changed the block at 0, 3, 0")
    w.step(20)  # held power runs nothing more
    assert w.command_block((0, 0, 0)).last_execution == t + 1
    w.use((1, 1, 0))
    w.step(2)
    assert not w.command_block((0, 0, 0)).powered
    w.use((1, 1, 0))  # a second rising edge: the block is already there, so the command fails
    t2 = w.tick
    w.step(1)
    cb = w.command_block((0, 0, 0))
    assert (cb.success_count, cb.last_execution, cb.last_output) == (0, t2 + 1, "Could not set the block")


def test_a_repeating_block_runs_every_tick_while_powered_and_from_1_gt_after_auto_is_set():
    w = _world(((0, 0, 0), "repeating_command_block[facing=up]"), ((0, 1, 0), "lever[face=floor]"),
               ((4, 0, 0), "repeating_command_block[facing=up]"),
               cmds={(0, 0, 0): "say lever", (4, 0, 0): "say auto"})
    w.step(2)
    w.use((0, 1, 0))
    t = w.tick
    w.step(5)
    w.use((0, 1, 0))  # off at t + 5: the tick already scheduled for t + 6 runs, then no more
    w.step(5)
    assert [m[0] for m in _said(w) if m[1] == (0, 0, 0)] == list(range(t + 1, t + 7))
    t3 = w.tick
    w.set_command((4, 0, 0), auto=True)
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(t3 + 1, (4, 0, 0))]
    w.step(4)
    assert [m[0] for m in _said(w) if m[1] == (4, 0, 0)] == [t3 + 1, t3 + 2, t3 + 3, t3 + 4]
    assert _said(w)[-1][2] == "[@] auto"
    w.set_command((4, 0, 0), auto=False)
    w.step(3)  # the tick scheduled last still runs, then it stops
    assert [m[0] for m in _said(w) if m[1] == (4, 0, 0)][-1] == t3 + 5


def test_an_always_active_impulse_block_ignores_power_and_an_empty_command_counts_0():
    w = _world(((0, 0, 0), "command_block[facing=up]"), ((0, 1, 0), "lever[face=floor]"),
               cmds={(0, 0, 0): ("say once", {"auto": True})})
    w.step(3)
    assert [m[0] for m in _said(w)] == [1]
    w.use((0, 1, 0))
    w.step(3)
    assert [m[0] for m in _said(w)] == [1]  # auto: power does not trigger it
    w.set_command((0, 0, 0), "", auto=False)
    w.use((0, 1, 0))
    w.step(1)
    w.use((0, 1, 0))
    w.step(2)
    cb = w.command_block((0, 0, 0))
    assert cb.success_count == 0 and cb.problem == "" and cb.last_execution == 1  # nothing ran


# ----------------------------------------------------------------------------- section 71: chains and conditions
LEVER = (-1, 1, 0)  # on stone beside the impulse block: it powers that block, not the chain beyond


def _chain_world(second: str, third: str = "setblock ~ ~2 ~ stone"):
    return _world(((0, 0, 0), "command_block[facing=east]"), ((1, 0, 0), "chain_command_block[facing=east]"),
                  ((2, 0, 0), "chain_command_block[conditional=true,facing=east]"),
                  ((3, 0, 0), "chain_command_block[facing=south]"), ((3, 0, 1), "chain_command_block[facing=east]"),
                  ((-1, 0, 0), "stone"), (LEVER, "lever[face=floor]"),
                  cmds={(0, 0, 0): "setblock ~ ~3 ~ redstone_block", (1, 0, 0): second, (2, 0, 0): third,
                        (3, 0, 0): "", (3, 0, 1): "say end"})


def test_a_chain_runs_in_the_same_tick_following_each_blocks_facing_and_a_conditional_block_reads_the_one_behind():
    w = _chain_world("setblock ~ ~2 ~ stone")
    w.step(2)
    w.use(LEVER)
    t = w.tick
    w.step(1)
    assert [w.get_block(p) for p in ((0, 3, 0), (1, 2, 0), (2, 2, 0))] == [
        "minecraft:redstone_block", "minecraft:stone", "minecraft:stone"]
    assert _said(w) == [(t + 1, (3, 0, 1), "[@] end")]
    assert [w.command_block(p).last_execution for p in ((0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 1))] == [t + 1] * 4
    assert w.command_block((3, 0, 0)).last_execution == t + 1  # an empty command runs and counts 0

    w = _chain_world("summon pig")  # the block behind the conditional one fails: it does not run, counts 0
    w.step(2)
    w.use(LEVER)
    t = w.tick
    w.step(1)
    assert w.get_block((2, 2, 0)) == AIR
    cond = w.command_block((2, 0, 0))
    assert (cond.condition_met, cond.success_count, cond.last_execution) == (False, 0, -1)
    assert _said(w) == [(t + 1, (3, 0, 1), "[@] end")]  # the chain goes on past it
    bad = [m for m in w.command_messages() if m.kind == "unsupported"]
    assert [(m.tick, m.pos) for m in bad] == [(t + 1, (1, 0, 0))]
    assert "'summon' is not a command the engine runs" in bad[0].text and "(1, 0, 0)" in bad[0].text
    assert w.command_block((1, 0, 0)).success_count == 0


def test_a_chain_block_that_needs_redstone_is_skipped_and_one_pointing_away_ends_the_chain():
    w = _chain_world("say two")
    w.set_command((1, 0, 0), auto=False)
    w.step(2)
    w.use(LEVER)
    w.step(1)
    assert w.command_block((1, 0, 0)).last_execution == -1  # unpowered, not auto: skipped, the chain goes on
    assert w.get_block((2, 2, 0)) == AIR  # the conditional one reads the skipped block's count (0)
    assert [m[2] for m in _said(w)] == ["[@] end"]


def test_a_chain_loop_stops_at_a_block_that_already_ran_this_tick_or_at_the_chain_limit():
    w = _world(((0, 0, 0), "command_block[facing=east]"), ((1, 0, 0), "chain_command_block[facing=south]"),
               ((1, 0, 1), "chain_command_block[facing=west]"), ((0, 0, 1), "chain_command_block[facing=north]"),
               ((0, 1, 0), "lever[face=floor]"),
               cmds={(0, 0, 0): "say start", (1, 0, 0): "say a", (1, 0, 1): "say b", (0, 0, 1): "say c"})
    w.step(2)
    w.use((0, 1, 0))
    w.step(1)
    # (0, 0, 1) points back into the impulse block, which is no chain block: the chain ends there
    assert [m[2] for m in _said(w)] == ["[@] start", "[@] a", "[@] b", "[@] c"]

    loop = _world(((0, 0, 0), "command_block[facing=east]"), ((1, 0, 0), "chain_command_block[facing=east]"),
                  ((2, 0, 0), "chain_command_block[facing=west]"), ((0, 1, 0), "lever[face=floor]"),
                  cmds={(0, 0, 0): "say start", (1, 0, 0): "say a", (2, 0, 0): "say b"})
    loop.step(2)
    loop.use((0, 1, 0))
    loop.step(1)
    assert [m[2] for m in _said(loop)] == ["[@] start", "[@] a", "[@] b"]  # (1, 0, 0) already ran: stop
    for p in ((1, 0, 0), (2, 0, 0)):
        loop.set_command(p, update_last_execution=False)
    loop.use((0, 1, 0))
    loop.step(1)
    loop.use((0, 1, 0))
    t = loop.tick
    loop.step(1)
    log = loop.command_messages()  # 65,537 messages in the tick: the world keeps the newest 10,000
    assert len(log) == commands.MAX_MESSAGES
    assert [m.text for m in log[-3:-1]] == ["[@] a", "[@] b"]  # step 65,536 is (2, 0, 0)'s
    assert (log[-1].tick, log[-1].pos, log[-1].kind) == (t + 1, (0, 0, 0), "failed")
    assert "chain from (0, 0, 0) tried to execute more than 65,536 steps" in log[-1].text


# ----------------------------------------------------------------------------- section 72: comparators and outputs
def test_a_comparator_reads_the_success_count_2_gt_after_the_command_ran():
    w = _world(((1, -1, 0), "stone"), ((2, -1, 0), "stone"), ((0, 0, 0), "command_block[facing=up]"),
               ((0, 1, 0), "lever[face=floor]"), ((1, 0, 0), "comparator[facing=west]"), ((2, 0, 0), "redstone_wire"),
               cmds={(0, 0, 0): "setblock ~ ~3 ~ stone"})
    w.step(2)
    w.use((0, 1, 0))
    t = w.tick
    w.step(2)
    assert w.command_block((0, 0, 0)).success_count == 1 and w.output_signal((1, 0, 0)) == 0
    w.step(1)
    assert w.output_signal((1, 0, 0)) == 1 and w.power((2, 0, 0)).level == 1
    assert w.tick == t + 3
    w.use((0, 1, 0))
    w.step(2)
    w.use((0, 1, 0))  # runs again at the next tick and fails (the stone is there): the comparator falls to 0
    t2 = w.tick
    w.step(2)
    assert w.command_block((0, 0, 0)).success_count == 0 and w.output_signal((1, 0, 0)) == 1
    w.step(1)
    assert w.output_signal((1, 0, 0)) == 0 and w.tick == t2 + 3


def test_a_command_block_conducts_and_a_piston_cannot_move_it():
    w = _world(((0, 0, 0), "command_block[facing=up]"), ((0, 1, 0), "lever[face=floor]"),
               ((1, 0, 0), "redstone_lamp"), ((-2, 0, 0), "piston[facing=east]"), ((-3, -1, 0), "stone"),
               ((-3, 0, 0), "lever[face=floor]"), ((-1, 0, 0), "stone"), ((-1, 0, 1), "chain_command_block[facing=up]"))
    w.use((0, 1, 0))
    w.step(2)
    assert w.get_block((1, 0, 0)) == "minecraft:redstone_lamp[lit=true]"  # strongly powered through it
    w.use((-3, 0, 0))
    w.step(4)
    assert w.get_block((-1, 0, 0)) == "minecraft:stone"  # the piston could not push stone into a command block
    assert w.get_block((-2, 0, 0)).startswith("minecraft:piston[extended=false")


# ----------------------------------------------------------------------------- section 73: the commands
def test_setblock_and_fill_modes_relative_and_absolute_coordinates_with_vanillas_messages():
    w = _world(((0, 0, 0), "command_block[facing=up]"), ((0, 1, 0), "lever[face=floor]"))
    w.set_blocks([((x, 5, 0), "stone") for x in range(3)])

    def run(cmd):
        w.set_command((0, 0, 0), cmd)
        w.use((0, 1, 0))
        w.step(1)
        w.use((0, 1, 0))
        w.step(1)
        return w.command_block((0, 0, 0))

    assert run("setblock ~1 ~0.7 ~ glass").last_output == "Changed the block at 1, 1, 0"  # floor(0.5 + 0.7)
    assert run("setblock 1 1 0 glass keep").last_output == "Could not set the block"
    assert run("/minecraft:setblock 1 1 0 stone replace").success_count == 1
    assert run("setblock 1 1 0 stone destroy").last_output == "Changed the block at 1, 1, 0"
    assert run("fill 0 5 0 2 5 0 glass replace stone").last_output == "Successfully filled 3 block(s)"
    assert run("fill 0 5 0 2 5 0 glass replace stone").last_output == "No blocks were filled"
    assert run("fill 5 0 0 7 2 2 stone hollow").last_output == "Successfully filled 26 block(s)"
    assert w.get_block((6, 1, 1)) == AIR and w.get_block((6, 0, 1)) == "minecraft:stone"
    assert run("fill 5 0 0 7 2 2 glass outline").last_output == "Successfully filled 26 block(s)"
    assert w.get_block((6, 1, 1)) == AIR
    assert run("fill 5 0 0 7 2 2 redstone_block keep").last_output == "Successfully filled 1 block(s)"
    assert w.get_block((6, 1, 1)) == "minecraft:redstone_block"
    cb = run("fill 0 0 10 40 40 40 stone")
    assert cb.success_count == 0 and cb.last_output == ("Too many blocks in the specified area (maximum 32768, "
                                                          "specified 52111)")
    assert run("clone 5 0 0 5 0 0 9 0 0").last_output == "Successfully cloned 1 block(s)"
    assert w.get_block((9, 0, 0)) == "minecraft:glass"
    cb = run("setblock ~ 400 ~ stone")
    assert cb.success_count == 0 and "out of this world" in cb.problem and "(0, 0, 0)" in cb.problem


def test_a_placed_redstone_block_powers_its_neighbours_as_a_setblock_would():
    w = _world(((0, 0, 0), "command_block[facing=up]"), ((0, 1, 0), "lever[face=floor]"),
               ((3, 0, 0), "redstone_lamp"), cmds={(0, 0, 0): "setblock ~2 ~ ~ redstone_block"})
    w.use((0, 1, 0))
    t = w.tick
    w.step(1)
    assert w.get_block((3, 0, 0)) == "minecraft:redstone_lamp[lit=true]" and w.tick == t + 1


def test_messages_and_unsupported_commands_are_recorded_and_shown_in_hover_text():
    from scicraft_viz.views.canvas import describe_block
    from scicraft_viz.views.frame import frame_from_world

    w = _world(((0, 0, 0), "command_block[facing=up]"), ((2, 0, 0), "command_block[facing=up]"),
               ((4, 0, 0), "command_block[facing=up]"),
               cmds={(0, 0, 0): ("tell @a hello there", {"auto": True}),
                     (2, 0, 0): ('tellraw @p {"text":"hi"}', {"auto": True}),
                     (4, 0, 0): ("scoreboard players add x y 1", {"auto": True})})
    w.step(1)
    got = [(m.kind, m.pos, m.text) for m in w.command_messages()]
    assert got[0] == ("tell", (0, 0, 0), "@ whispers to @a: hello there")
    assert got[1] == ("tellraw", (2, 0, 0), 'to @p: {"text":"hi"}')
    assert got[2][:2] == ("unsupported", (4, 0, 0)) and "'scoreboard'" in got[2][2] and "(4, 0, 0)" in got[2][2]
    assert [w.command_block((x, 0, 0)).success_count for x in (0, 2, 4)] == [1, 1, 0]
    text = describe_block(frame_from_world(w), (4, 0, 0))
    assert "'scoreboard players add x y 1'" in text and "unsupported command at (4, 0, 0)" in text


# ----------------------------------------------------------------------------- hostile input
def test_hostile_command_text_is_refused_or_fails_with_a_clear_message():
    w = _world(((0, 0, 0), "command_block[facing=up]"))
    with pytest.raises(InputError, match="32,501 characters; a command block holds at most 32,500"):
        w.set_command((0, 0, 0), "say " + "x" * 32_497)
    with pytest.raises(InputError, match=r"set_command: \(1, 0, 0\) holds minecraft:air, not a command block"):
        w.set_command((1, 0, 0), "say hi")
    w.set_command((0, 0, 0), "say " + "x" * 32_496, auto=True)  # the longest command runs
    w.step(1)
    assert len(_said(w)[0][2]) == 4 + 32_496
    w.set_command((0, 0, 0), "setblock ~ ~1 ~\nstone", auto=False)
    w.set_command((0, 0, 0), auto=True)
    w.step(1)
    cb = w.command_block((0, 0, 0))
    assert cb.success_count == 0 and "control character U+000A at column 16" in cb.problem
    assert "\\n" in cb.describe() and "\n" not in cb.describe()


_WORDS = st.sampled_from(["setblock", "fill", "clone", "say", "tellraw", "~", "~1", "~-0.5", "^", "0", "-3", "400",
                          "stone", "redstone_block", "air", "keep", "destroy", "hollow", "outline", "replace",
                          "masked", "move", "force", "{a:1}", "#wool", "lever[face=wall", "facing=up]", "\n", ""])


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.text(max_size=60), st.lists(_WORDS, max_size=12).map(" ".join)))
def test_any_command_text_runs_or_fails_with_a_message_and_never_raises(text):
    w = _world(((0, 0, 0), "command_block[facing=up]"))
    w.set_command((0, 0, 0), text, auto=True)
    w.step(1)
    cb = w.command_block((0, 0, 0)) if w.get_block((0, 0, 0)) != AIR else None
    if cb is not None and text:
        assert cb.last_execution == 1
        assert (cb.success_count == 1) == (cb.problem == "")  # a failure always says why
        if cb.problem:
            assert "at (0, 0, 0)" in cb.problem and w.command_messages()[-1].text == cb.problem


def test_the_compiled_engine_declines_a_world_with_command_blocks():
    w = _world(((0, 0, 0), "chain_command_block[facing=up]"))
    with pytest.raises(CompileRefused, match=r"command_block at \(0, 0, 0\): a command block runs its command through"):
        compile_world(w)


def test_command_blocks_are_drawn_in_their_kinds_colours_with_a_mark_on_their_front():
    from scicraft_viz.views import geometry
    from scicraft_viz.views.frame import frame_from_world

    w = _world(((0, 0, 0), "command_block[facing=up]"), ((2, 0, 0), "repeating_command_block[facing=east]"),
               ((4, 0, 0), "chain_command_block[conditional=true,facing=north]"))
    f = frame_from_world(w)
    g = geometry.build(f.layout)
    col = geometry.box_colors(g, f)
    lo = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]
    body = {f.layout.positions[b]: tuple(c) for b, c, part in zip(g.block.tolist(), col.tolist(), g.part.tolist(),
                                                                 strict=True) if part == geometry.P_CMD}
    marks = {f.layout.positions[b]: (box, tuple(c)) for b, box, c, part in
             zip(g.block.tolist(), lo.tolist(), col.tolist(), g.part.tolist(), strict=True)
             if part == geometry.P_CMD_MARK}
    assert sorted(body) == [(0, 0, 0), (2, 0, 0), (4, 0, 0)] and len(set(body.values())) == 3
    assert marks[(0, 0, 0)][0][4] > 1.0  # on the top face
    assert marks[(2, 0, 0)][0][3] > 3.0  # on the east face
    assert marks[(4, 0, 0)][0][2] < 0.0  # on the north face
    assert marks[(4, 0, 0)][1] != marks[(0, 0, 0)][1]  # a conditional block's mark stands out


# ----------------------------------------------------------------------------- build files
def test_a_structure_files_command_blocks_load_with_their_data_and_write_back():
    w = _world(((0, 0, 0), "command_block[facing=east]"), ((1, 0, 0), "chain_command_block[facing=east]"),
               ((0, 0, 2), "repeating_command_block[conditional=true,facing=up]"),
               cmds={(0, 0, 0): ("setblock ~ ~2 ~ redstone_block", {"auto": True}), (1, 0, 0): "say loaded",
                     (0, 0, 2): ("say r", {"track_output": False, "update_last_execution": False})})
    for fmt in ("nbt", "litematic", "schem", "mcfunction"):
        data = formats.write_build(w, fmt)
        v = World.from_build_file(data, fmt=fmt)
        assert v.command_block((0, 0, 0)).command == "setblock ~ ~2 ~ redstone_block"
        assert v.command_block((0, 0, 0)).auto and v.command_block((1, 0, 0)).auto
        r = v.command_block((0, 0, 2))
        assert (r.command, r.kind, r.conditional, r.track_output, r.update_last_execution) == (
            "say r", "repeating", True, False, False)
        # an always-active impulse block schedules its tick as it loads (vanilla setAutomatic)
        assert [(s.tick, s.pos) for s in v.scheduled()] == [(1, (0, 0, 0))]
        v.step(1)
        assert v.get_block((0, 2, 0)) == "minecraft:redstone_block" and _said(v) == [(1, (1, 0, 0), "[@] loaded")]


def test_a_files_command_block_without_data_takes_vanillas_defaults_and_bad_data_is_named():
    def snbt(tag):
        return (b'{DataVersion: 3465, size: [2, 1, 1], palette: [{Name: "minecraft:command_block", Properties: '
                b'{facing: "east", conditional: "false"}}, {Name: "minecraft:chain_command_block", Properties: '
                b'{facing: "east", conditional: "false"}}], blocks: [{pos: [0, 0, 0], state: 0, nbt: '
                b'{id: "minecraft:command_block", ' + tag + b'}}, {pos: [1, 0, 0], state: 1}], entities: []}')

    w = World.from_build_file(snbt(b'Command: "say hi", SuccessCount: 3, LastOutput: \'{"text":"done"}\''),
                              fmt="snbt")
    cb = w.command_block((0, 0, 0))
    assert (cb.command, cb.success_count, cb.last_output, cb.auto, cb.powered) == ("say hi", 3, "done", False, False)
    assert w.command_block((1, 0, 0)).auto  # no block entity: a chain block starts always active
    w = World.from_build_file(snbt(b'Command: "say hi", LastOutput: {text: "[12:00:00] Done"}'), fmt="snbt")
    assert w.command_block((0, 0, 0)).last_output == "[12:00:00] Done"  # 1.21.5 saves text components as NBT
    with pytest.raises(BuildFileError, match=r"the command block at \(0, 0, 0\)\): Command is Int"):
        World.from_build_file(snbt(b"Command: 5"), fmt="snbt")
    with pytest.raises(BuildFileError, match=r"auto is 2, expected an integer from 0 to 1"):
        World.from_build_file(snbt(b"auto: 2b"), fmt="snbt")
    huge = b'Command: "' + b"x" * 40_000 + b'"'
    with pytest.raises(BuildFileError, match="Command is 40,000 characters; a command block holds at most 32,500"):
        World.from_build_file(snbt(huge), fmt="snbt")


def test_setblock_text_carries_a_command_blocks_data_after_its_state():
    text = ('setblock 0 0 0 minecraft:command_block[conditional=false,facing=up]{Command: "say hi there", auto: 1b}\n'
            "setblock 2 0 0 minecraft:chain_command_block[conditional=false,facing=up]{Command: 'say \\'q\\''} keep\n")
    w = World.from_build_file(text.encode(), fmt="mcfunction")
    assert (w.command_block((0, 0, 0)).command, w.command_block((0, 0, 0)).auto) == ("say hi there", True)
    assert (w.command_block((2, 0, 0)).command, w.command_block((2, 0, 0)).auto) == ("say 'q'", False)
    assert "{Command: \"say hi there\"" in w.to_mcfunction()
    with pytest.raises(BuildFileError, match=r"<bytes>:1: .*read only for command blocks"):
        World.from_build_file(b'setblock 0 0 0 stone{Command: "x"}\n', fmt="mcfunction")
    with pytest.raises(BuildFileError, match=r"<bytes>:1: cannot read the command block's data"):
        World.from_build_file(b'setblock 0 0 0 command_block{Command: "x"\n', fmt="mcfunction")
