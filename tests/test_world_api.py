"""The World API as outside code uses it: states, errors, events, copies, traces, build files."""

import numpy as np
import pytest

from scicraft_viz import BlockStateError, BuildFileError, PlacementError, PositionError, World
from scicraft_viz.demo import BUTTON, demo_world, run_demo
from scicraft_viz.engine.mcfunction import parse_mcfunction


def floor(w: World, xs=range(-2, 6), zs=range(-2, 3), y=0):
    for x in xs:
        for z in zs:
            w.set_block((x, y, z), "stone")


def test_demo_lamp_ticks_are_exact():
    w = demo_world()
    w.step(4)
    t0 = w.tick
    w.use(BUTTON)
    tr = w.record(40)
    assert tr.ticks[0] == t0 and len(tr) == 41
    on = [tr.first_on(p) - t0 for p in tr.lamp_positions]
    assert on == [0, 2, 6, 8]
    offs = []
    for j in range(4):
        lit = tr.lamp_lit[:, j]
        first = int(np.argmax(lit))
        offs.append(first + int(np.argmax(~lit[first:])))
    assert offs == [24, 26, 30, 32]


def test_demo_text_names_every_lamp():
    text = run_demo(40)
    assert "lamp at (1, 4, 2): on at +0 gt (+0 rt), off at +24 gt" in text
    assert "lamp at (7, 4, 2): on at +8 gt (+4 rt), off at +32 gt" in text


@pytest.mark.parametrize(
    "given, canonical",
    [
        ("stone", "minecraft:stone"),
        ("minecraft:glass", "minecraft:glass"),
        ("redstone_lamp", "minecraft:redstone_lamp[lit=false]"),
        ("redstone_torch", "minecraft:redstone_torch[lit=true]"),
        ("redstone_repeater[facing=west,delay=2]",
         "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]"),
        ("stone_button[face=floor]", "minecraft:stone_button[face=floor,facing=north,powered=false]"),
        ("lever[face=floor,facing=east,powered=true]", "minecraft:lever[face=floor,facing=east,powered=true]"),
        ("redstone_wire", "minecraft:redstone_wire[east=side,north=side,power=0,south=side,west=side]"),
        ("redstone_wire[north=none,east=none,south=none,west=none]",
         "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]"),
    ],
)
def test_canonical_states(given, canonical):
    w = World()
    floor(w)
    w.set_block((0, 1, 0), given)
    assert w.get_block((0, 1, 0)) == canonical


def test_unknown_places_are_air():
    w = World()
    assert w.get_block((5, 5, 5)) == "minecraft:air"
    assert w.get_block((10**6, 0, 0)) == "minecraft:air"


@pytest.mark.parametrize(
    "state, fragment",
    [
        ("redstone_dust", "unknown block 'redstone_dust'"),
        ("redstone_repeater[delay=5]", "'delay' cannot be '5'"),
        ("redstone_lamp[powered=true]", "redstone_lamp has no property 'powered'"),
        ("redstone_repeater[facing]", "not of the form key=value"),
        ("stone[", "cannot read block state"),
        (42, "must be a string"),
    ],
)
def test_bad_states_are_refused_and_world_unchanged(state, fragment):
    w = World()
    floor(w)
    before = w.blocks()
    with pytest.raises(BlockStateError) as e:
        w.set_block((0, 1, 0), state)
    assert fragment in str(e.value)
    assert isinstance(e.value, ValueError)
    assert w.blocks() == before


@pytest.mark.parametrize("pos", [(0, 1), (0.0, 1, 0), (True, 1, 0), "0 1 0", None, (0, 1, 0, 0), (0, 40_000_000, 0)])
def test_bad_positions(pos):
    w = World()
    with pytest.raises(PositionError):
        w.set_block(pos, "stone")
    with pytest.raises(PositionError):
        w.get_block(pos)


def test_unsupported_placement_names_position_and_support():
    w = World()
    with pytest.raises(PlacementError) as e:
        w.set_block((3, 7, -2), "redstone_wire")
    msg = str(e.value)
    assert "(3, 7, -2)" in msg and "(3, 6, -2)" in msg and "minecraft:air" in msg
    with pytest.raises(PlacementError) as e:
        w.set_block((0, 1, 0), "redstone_wall_torch[facing=east]")
    assert "(-1, 1, 0)" in str(e.value)
    assert w.blocks() == {}


def test_blocks_far_apart_cost_no_more_than_blocks_side_by_side():
    w, near = World(), World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((5000, 0, -5000), "stone")
    near.set_block((0, 0, 0), "stone")
    near.set_block((1, 0, 0), "stone")
    assert w.blocks() == {(0, 0, 0): "minecraft:stone", (5000, 0, -5000): "minecraft:stone"}
    assert w.memory_bytes() == near.memory_bytes()
    with pytest.raises(PositionError, match="outside the Minecraft world"):
        w.set_block((30_000_001, 0, 0), "stone")


def test_removing_support_pops_dust_and_logs_it():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "redstone_wire")
    w.remove_block((0, 0, 0))
    assert w.get_block((0, 1, 0)) == "minecraft:air"
    popped = [e for e in w.events if e.kind == "popped"]
    assert [(e.pos, e.block) for e in popped] == [((0, 1, 0), "minecraft:redstone_wire")]
    assert "popped off" in popped[0].describe()


def test_replay_mode_keeps_floating_block_until_a_neighbour_update():
    w = World(replay=True)
    w.set_block((0, 5, 0), "redstone_wire")
    assert w.get_block((0, 5, 0)).startswith("minecraft:redstone_wire")
    w.step(10)
    assert w.get_block((0, 5, 0)).startswith("minecraft:redstone_wire")
    w.set_block((1, 5, 0), "glass")
    assert w.get_block((0, 5, 0)) == "minecraft:air"
    assert [e.kind for e in w.events if e.pos == (0, 5, 0)] == ["placed", "popped"]


def test_growth_keeps_pending_ticks():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "lever[face=floor]")
    w.set_block((1, 1, 0), "redstone_repeater[facing=west,delay=4]")
    w.set_block((2, 1, 0), "redstone_lamp")
    w.use((0, 1, 0))
    w.step(3)
    w.set_block((300, -40, 250), "stone")  # forces the arrays to be reallocated
    w.step(4)
    assert w.get_block((2, 1, 0)) == "minecraft:redstone_lamp[lit=false]"
    w.step(1)
    assert w.tick == 8
    assert w.get_block((2, 1, 0)) == "minecraft:redstone_lamp[lit=true]"


def test_copy_is_independent_and_identical():
    w = demo_world()
    w.step(4)
    c = w.copy()
    w.use(BUTTON)
    assert c.get_block((1, 4, 2)) == "minecraft:redstone_lamp[lit=false]"
    c.use(BUTTON)
    a, b = w.record(30), c.record(30)
    assert np.array_equal(a.lamp_lit, b.lamp_lit) and np.array_equal(a.dust_power, b.dust_power)


def test_record_row_zero_is_now_and_counts():
    w = demo_world()
    w.step(4)
    w.use(BUTTON)
    tr = w.record(5)
    assert tr.lamp_lit.shape == (6, 4)
    assert tr.dust_power.shape == (6, len(tr.dust_positions)) == (6, 8)
    assert tr.lamp_lit[0].tolist() == [True, False, False, False]
    kinds = sorted(set(tr.component_kinds))
    assert kinds == ["minecraft:redstone_repeater", "minecraft:stone_button"]
    assert tr.component_on[0, tr.component_positions.index(BUTTON)]
    assert all(e.tick > tr.start_tick for e in tr.events)
    assert any(e.kind == "state" and e.pos == (3, 4, 2) and e.new == 1 for e in tr.events)


def test_pure_python_kernels_match_jit():
    traces = []
    for jit in (True, False):
        w = World(jit=jit)
        for x in range(-1, 10):
            for z in range(-1, 4):
                w.set_block((x, 3, z), "stone")
        for (x, y, z), s in demo_world().blocks().items():
            if y == 4:
                w.set_block((x, y, z), s.split("[")[0] + ("[" + s.split("[")[1] if "[" in s else ""))
        w.step(4)
        w.use(BUTTON)
        traces.append(w.record(40))
    assert traces[1] is not traces[0]
    assert np.array_equal(traces[0].lamp_lit, traces[1].lamp_lit)
    assert np.array_equal(traces[0].dust_power, traces[1].dust_power)


def test_step_rejects_bad_counts():
    w = World()
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError):
            w.step(bad)
    w.step(0)
    assert w.tick == 0
    w.step(7)
    assert w.tick == 7


def test_mcfunction_round_trip_reproduces_the_trace():
    w = demo_world()
    text = w.to_mcfunction()
    assert text.splitlines()[0].startswith("setblock ")
    w2 = World.from_mcfunction("# demo\n\n" + text, source="demo.mcfunction")
    assert w2.blocks() == w.blocks()
    for world in (w, w2):
        world.step(4)
        world.use(BUTTON)
    assert np.array_equal(w.record(40).lamp_lit, w2.record(40).lamp_lit)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("setblock 0 1 0 redstone_lamp\nfill 0 0 0 1 1 1 stone\n", "b.mcfunction:2: expected 'setblock X Y Z STATE'"),
        ("setblock ~ 1 0 stone\n", "b.mcfunction:1: relative coordinates"),
        ("setblock 0 1.5 0 stone\n", "b.mcfunction:1: coordinates must be integers"),
        ("# ok\nsetblock 0 1 0 lamp\n", "b.mcfunction:2: unknown block 'lamp'"),
        ("setblock 0 1 0\n", "b.mcfunction:1: expected 'setblock X Y Z STATE' (5 words)"),
    ],
)
def test_build_file_errors_name_file_and_line(text, fragment):
    with pytest.raises(BuildFileError) as e:
        parse_mcfunction(text, source="b.mcfunction")
    assert fragment in str(e.value)


def test_build_file_accepts_slash_and_mode():
    assert parse_mcfunction("/setblock 1 2 3 minecraft:stone replace\n") == [((1, 2, 3), "minecraft:stone")]


def test_unsupported_block_in_build_file_names_the_block():
    with pytest.raises(BuildFileError, match=r"block 1 \(minecraft:redstone_wire.*at \(0, 9, 0\)\).*needs"):
        World.from_mcfunction("setblock 0 9 0 redstone_wire\n", source="f.mcfunction")


def test_replay_pop_reaches_the_next_floating_block():
    w = World(replay=True)
    w.set_block((0, 5, 0), "redstone_wire")
    w.set_block((1, 5, 0), "redstone_wire")  # its update pops (0,5,0), whose removal updates it in turn
    assert w.get_block((0, 5, 0)) == "minecraft:air"
    assert w.get_block((1, 5, 0)) == "minecraft:air"
    popped = [(e.pos, e.block) for e in w.events if e.kind == "popped"]
    assert popped == [((0, 5, 0), "minecraft:redstone_wire"), ((1, 5, 0), "minecraft:redstone_wire")]


def test_events_name_the_block_as_it_was_when_logged():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_wire")  # floating, spared by its own placement
    n = w.events_total
    w.set_block((1, 1, 1), "redstone_wire")  # turns (1,1,0) into a corner; it then pops, and so does this one
    got = [(e.kind, e.pos, e.block) for e in w.events_since(n) if e.kind in ("shape", "popped")]
    assert ("shape", (1, 1, 0), "minecraft:redstone_wire") in got
    assert [g for g in got if g[0] == "popped"] == [
        ("popped", (1, 1, 0), "minecraft:redstone_wire"),
        ("popped", (1, 1, 1), "minecraft:redstone_wire"),
    ]
    assert w.get_block((0, 1, 0)).startswith("minecraft:redstone_wire")


def test_build_file_lone_slash_is_reported():
    with pytest.raises(BuildFileError, match=r"x.mcfunction:2: expected 'setblock X Y Z STATE'"):
        parse_mcfunction("setblock 0 0 0 stone\n/\n", source="x.mcfunction")


def test_overlong_block_state_is_refused_briefly():
    w = World()
    with pytest.raises(BlockStateError) as e:
        w.set_block((0, 0, 0), "x" * 5000)
    assert len(str(e.value)) < 120 and "5000 characters long" in str(e.value)
