"""The bulk paths give exactly what the plain paths give: set_block_arrays against set_blocks (world,
events, pending ticks, errors), narrowed records against full ones, lamp_transitions against a plain
definition, BlockTable.of_world against of_blocks, the M_LIVE dust count across both engines, and the
evaluator's text path against its dict path."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from scicraft_viz import World, tasks
from scicraft_viz.engine import kernels as sim
from scicraft_viz.engine.blocks import PALETTE, SUPPORTED_FAMILIES, VANILLA
from scicraft_viz.engine.mcfunction import parse_mcfunction
from scicraft_viz.engine.trace import lamp_transitions
from scicraft_viz.errors import InputError, PositionError
from scicraft_viz.tasks import structure
from scicraft_viz.tasks.evaluator import build_world, evaluate

SOLUTIONS = Path(__file__).resolve().parents[1] / "tasks" / "solutions"
TASK_IDS = tasks.task_ids()


def solution(tid: str) -> str:
    return (SOLUTIONS / f"{tid}.mcfunction").read_text()


# ------------------------------------------------------------------ 1. set_block_arrays == set_blocks

# indices into STATES: the last three are refused by the parser
STATES = [
    "stone", "glass", "redstone_block", "redstone_lamp", "minecraft:redstone_lamp[lit=true]", "air",
    "redstone_wire", "redstone_wire[north=side,south=side]", "redstone_wire[north=none,east=none,south=none,west=none]",
    "redstone_repeater[facing=east,delay=2]", "redstone_repeater[facing=north,delay=4]", "repeater[facing=west]",
    "redstone_torch", "redstone_torch[lit=false]",
    "redstone_wall_torch[facing=north]", "redstone_wall_torch[facing=east]", "redstone_wall_torch[facing=south]",
    "stone_button[face=floor,facing=north]", "stone_button[face=wall,facing=west]", "stone_button[face=ceiling]",
    "lever[face=floor,facing=east]", "lever[face=wall,facing=south]", "lever[face=floor,powered=true]",
    "tnt", "stone[foo=bar]", "redstone_repeater[delay=9]",
]
BOX = [(x, y, z) for x in range(-1, 6) for y in range(0, 4) for z in range(-1, 5)]
FAR = [(30_000_001, 1, 0), (0, -40_000_000, 0), (5, 1, -30_000_001), (-30_000_000, 1, 30_000_000),
       (30_000_000, 30_000_000, -30_000_000)]
FLOOR = [((x, 0, z), "stone") for x in range(5) for z in range(4)]

POS = st.one_of(st.sampled_from(BOX), st.sampled_from(BOX), st.sampled_from(BOX), st.sampled_from(FAR))
BUILD = st.lists(st.tuples(POS, st.integers(0, len(STATES) - 1)), min_size=1, max_size=40)
SID_DTYPE = st.sampled_from([np.int64, np.int32, np.int16, np.uint8, np.uint16, np.intp])
XYZ_DTYPE = st.sampled_from([np.int64, np.int32])


def outcome(fn):
    """('ok', [(index, type, message)]) or ('raised', type, message)."""
    try:
        errors = fn()
    except InputError as e:
        return ("raised", type(e), str(e))
    assert all(isinstance(e, InputError) for _, e in errors)
    return ("ok", [(i, type(e), str(e)) for i, e in errors])


def events(w: World) -> list:
    return [(e.tick, e.pos, e.kind, e.block, e.old, e.new) for e in w.events]


PRIMED = [((0, 1, 3), "stone_button[face=floor]"), ((1, 1, 3), "redstone_wire"),
          ((2, 1, 3), "redstone_repeater[facing=west,delay=3]"), ((3, 1, 3), "redstone_lamp")]


def base_world(replay: bool, with_floor: bool = True, primed: bool = False) -> World:
    """The stone floor (or nothing); primed: a pressed button feeding a line, so ticks are pending."""
    w = World(replay=replay)
    if with_floor:
        w.set_blocks(FLOOR + (PRIMED if primed else []))
        if primed:
            w.use((0, 1, 3))
            w.step(1)
    return w


def assert_same_placement(xyz, sid, states, replay, skip_errors, with_floor=True, ticks=50, primed=False):
    """set_block_arrays and set_blocks on the same items: same outcome, blocks, events and future."""
    arr, ref = base_world(replay, with_floor, primed), base_world(replay, with_floor, primed)
    before = (arr.blocks(), events(arr))
    items = [(tuple(xyz[i]), states[sid[i]]) for i in range(len(xyz))]
    got = outcome(lambda: arr.set_block_arrays(xyz, sid, states, skip_errors=skip_errors))
    want = outcome(lambda: ref.set_blocks(items, skip_errors=skip_errors))
    assert got == want
    if got[0] == "raised":
        assert not skip_errors  # skip_errors returns every error, it never raises
        assert (arr.blocks(), events(arr)) == before  # all or nothing
    assert arr.blocks() == ref.blocks()
    assert events(arr) == events(ref)
    for _ in range(ticks):  # pending ticks: the same future, tick by tick
        arr.step()
        ref.step()
        assert arr.blocks() == ref.blocks()
    assert events(arr) == events(ref) and arr.tick == ref.tick
    return got


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(build=BUILD, replay=st.booleans(), skip_errors=st.booleans(), with_floor=st.booleans(),
       xyz_dtype=XYZ_DTYPE, sid_dtype=SID_DTYPE, primed=st.booleans())
def test_set_block_arrays_equals_set_blocks(build, replay, skip_errors, with_floor, xyz_dtype, sid_dtype, primed):
    xyz = np.array([p for p, _ in build], xyz_dtype).reshape(-1, 3)
    sid = np.array([k for _, k in build], sid_dtype)
    assert_same_placement(xyz, sid, STATES, replay, skip_errors, with_floor, primed=primed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(build=BUILD, replay=st.booleans(), skip_errors=st.booleans())
def test_set_block_arrays_with_a_short_state_list_of_valid_states(build, replay, skip_errors):
    """Only the states the build uses, each listed once, and valid positions only: mostly no errors but support."""
    used = sorted({k for _, k in build if k < len(STATES) - 3})
    build = [(p, used.index(k)) for p, k in build if k in used and p in BOX]
    xyz = np.array([p for p, _ in build], np.int64).reshape(-1, 3)
    sid = np.array([k for _, k in build], np.int64)
    assert_same_placement(xyz, sid, [STATES[k] for k in used], replay, skip_errors)


def test_set_block_arrays_examples():
    states = ["stone", "redstone_wire", "tnt", "stone[foo=bar]", "redstone_wall_torch[facing=east]"]
    xyz = np.array([[0, 0, 0], [0, 1, 0], [1, 1, 0], [2, 1, 0], [5, 1, 5], [0, 0, 0], [30_000_001, 0, 0],
                    [3, 1, 0]])
    sid = np.array([0, 1, 1, 2, 4, 3, 0, 3])
    got = assert_same_placement(xyz, sid, states, False, True, with_floor=False)
    dirt = (f"unknown block 'tnt' in 'tnt'; supported blocks: "
            f"{', '.join(sorted(PALETTE))}, and {len(VANILLA)} full, transparent and partial vanilla blocks "
            f"({SUPPORTED_FAMILIES})")
    foo = "stone has no property 'foo' (in 'stone[foo=bar]'); its properties: none"
    assert [(i, t.__name__, m) for i, t, m in got[1]] == [
        (2, "PlacementError", "item 2: cannot place redstone_wire at (1, 1, 0): it needs a solid block below at "
                              "(1, 0, 0), but there is minecraft:air"),
        (3, "BlockStateError", f"item 3: {dirt}"),
        (4, "PlacementError", "item 4: cannot place redstone_wall_torch at (5, 1, 5): it needs a solid block behind "
                              "it (facing=east) at (4, 1, 5), but there is minecraft:air"),
        (5, "BlockStateError", f"item 5: {foo}"),
        (6, "PositionError", "item 6: position (30000001, 0, 0) is outside the Minecraft world "
                             "(|coordinate| <= 30,000,000)"),
        (7, "BlockStateError", f"item 7: {foo}"),
    ]
    w = World()
    with pytest.raises(InputError) as e:  # all or nothing: a bad state comes before any support check
        w.set_block_arrays(xyz, sid, states)
    assert str(e.value) == f"item 3: {dirt}"
    assert w.blocks() == {} and w.events == []
    # nothing bad but support: the support error names the first unsupported item
    with pytest.raises(InputError) as e:
        World().set_block_arrays(xyz[:3], sid[:3], states)
    assert str(e.value) == ("item 2: cannot place redstone_wire at (1, 1, 0): it needs a solid block below at "
                            "(1, 0, 0), but there is minecraft:air")


def test_set_block_arrays_uint64_positions_in_range_and_moderately_out_of_range():
    states = ["stone", "glass"]
    for big in (5, 30_000_000, 30_000_001, 2**40, 2**62):
        xyz = np.array([[0, 0, 0], [big, 1, 2], [3, 2, 1]], np.uint64)
        sid = np.array([0, 1, 1], np.uint8)
        for skip in (False, True):
            for replay in (False, True):
                assert_same_placement(xyz, sid, states, replay, skip, with_floor=False, ticks=2)


@pytest.mark.parametrize("big", [2**64 - 1, 2**63])
def test_set_block_arrays_names_a_huge_uint64_coordinate_as_given(big):
    xyz = np.array([[0, 0, 0], [big, 1, 2]], np.uint64)
    sid = np.array([0, 0])
    with pytest.raises(PositionError) as e:
        World().set_block_arrays(xyz, sid, ["stone"])
    with pytest.raises(PositionError) as ref:
        World().set_blocks([(tuple(xyz[i]), "stone") for i in range(2)])
    assert str(ref.value) == (f"item 1: position ({big}, 1, 2) is outside the Minecraft world "
                              "(|coordinate| <= 30,000,000)")
    assert str(e.value) == str(ref.value)


EDGE_TORCH = ((-30_000_000, 1, 30_000_000), "redstone_wall_torch[facing=north]")  # its support: z = 30,000,001
EDGE_MSG = ("item 1: cannot place redstone_wall_torch at (-30000000, 1, 30000000): it needs a solid block behind it "
            "(facing=north) at (-30000000, 1, 30000001), but there is minecraft:air")


@pytest.mark.parametrize("path", ["set_blocks", "set_block_arrays"])
def test_an_attached_block_at_the_world_edge_is_refused_as_unsupported(path):
    items = [((0, 0, 0), "stone"), EDGE_TORCH, ((0, 1, 0), "redstone_torch")]
    w = World()
    if path == "set_blocks":
        errors = w.set_blocks(items, skip_errors=True)
    else:
        errors = w.set_block_arrays(np.array([p for p, _ in items]), np.arange(3), [s for _, s in items],
                                    skip_errors=True)
    assert [(i, type(e).__name__, str(e)) for i, e in errors] == [(1, "PlacementError", EDGE_MSG)]
    assert w.blocks() == {(0, 0, 0): "minecraft:stone", (0, 1, 0): "minecraft:redstone_torch[lit=true]"}


@pytest.mark.parametrize("xyz, sid, shown", [
    (np.zeros((2, 2), np.int64), np.zeros(2, np.int64), "(2, 2) int64 and (2,) int64"),
    (np.zeros((2, 3), np.float64), np.zeros(2, np.int64), "(2, 3) float64 and (2,) int64"),
    (np.zeros((2, 3), np.int64), np.zeros(2, np.float64), "(2, 3) int64 and (2,) float64"),
    (np.zeros((2, 3), np.int64), np.zeros(3, np.int64), "(2, 3) int64 and (3,) int64"),
    (np.zeros((2, 3), np.int64), np.zeros((2, 1), np.int64), "(2, 3) int64 and (2, 1) int64"),
    (np.zeros((2, 3), bool), np.zeros(2, np.int64), "(2, 3) bool and (2,) int64"),
    (np.zeros((2, 3), np.int64), np.zeros(2, bool), "(2, 3) int64 and (2,) bool"),
    (np.zeros((3,), np.int64), np.zeros(3, np.int64), "(3,) int64 and (3,) int64"),
    (np.zeros((2, 3, 1), np.int64), np.zeros(2, np.int64), "(2, 3, 1) int64 and (2,) int64"),
    (np.zeros((1, 3), np.int64), np.int64(0), "(1, 3) int64 and () int64"),
    (np.array([["0", "0", "0"]]), np.zeros(1, np.int64), "(1, 3) <U1 and (1,) int64"),
])
def test_set_block_arrays_refuses_wrong_shapes_and_dtypes(xyz, sid, shown):
    w = World()
    with pytest.raises(InputError) as e:
        w.set_block_arrays(xyz, sid, ["stone"])
    assert str(e.value) == ("expected positions of shape (n, 3) and state indices of shape (n,) as integer arrays, "
                            f"got {shown}")
    assert w.blocks() == {}


def test_set_block_arrays_refuses_a_scalar_position_array():
    with pytest.raises(InputError):
        World().set_block_arrays(np.int64(5), np.zeros(1, np.int64), ["stone"])


@pytest.mark.parametrize("skip_errors", [False, True])
def test_set_block_arrays_state_index_out_of_range_names_the_item(skip_errors):
    xyz = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]])
    w = World()
    with pytest.raises(InputError) as e:
        w.set_block_arrays(xyz, np.array([0, 2, 1]), ["stone", "glass"], skip_errors=skip_errors)
    assert str(e.value) == "item 1: state index 2 is not in the 2 states given"
    with pytest.raises(InputError) as e:
        w.set_block_arrays(xyz, np.array([0, 1, -1]), ["stone", "glass"], skip_errors=skip_errors)
    assert str(e.value) == "item 2: state index -1 is not in the 2 states given"
    with pytest.raises(InputError) as e:
        w.set_block_arrays(xyz, np.array([0, 0, 0]), [], skip_errors=skip_errors)
    assert str(e.value) == "item 0: state index 0 is not in the 0 states given"
    assert w.blocks() == {} and w.events == []
    assert w.set_block_arrays(np.zeros((0, 3), np.int64), np.zeros(0, np.int64), []) == []


# ------------------------------------------------------------------ 2. record(lamps_only, dust)

def circuit_world(tid: str) -> World:
    """A reference solution's world, its button just pressed."""
    w = build_world(tasks.load(tid), solution(tid))
    w.use(next(p for p, s in w.blocks().items() if "stone_button" in s))
    return w


def assert_narrow_records_match(w: World, n: int, rng: random.Random):
    full = w.copy().record(n)
    lamps = w.copy().record(n, lamps_only=True)
    assert lamps.lamp_positions == full.lamp_positions
    assert lamps.lamp_lit.dtype == full.lamp_lit.dtype and np.array_equal(lamps.lamp_lit, full.lamp_lit)
    assert np.array_equal(lamps.ticks, full.ticks)
    assert lamps.component_positions == [] and lamps.component_kinds == [] and lamps.component_on.shape == (n + 1, 0)
    assert lamps.dust_positions == [] and lamps.dust_power.shape == (n + 1, 0)
    assert lamps.events == []
    # dust=: only positions holding dust, in the given order
    dust = list(full.dust_positions)
    other = [p for p in w.blocks() if p not in set(dust)][:5] + [(99, 99, 99), (-3, 400, 7)]
    given_ = rng.sample(dust, min(len(dust), 6)) + other
    rng.shuffle(given_)
    want = [p for p in given_ if p in set(dust)]
    cols = [full.dust_positions.index(p) for p in want]
    for lamps_only in (True, False):
        c = w.copy()
        tr = c.record(n, lamps_only=lamps_only, dust=given_)
        assert tr.dust_positions == want
        assert tr.dust_power.shape == (n + 1, len(want))
        assert np.array_equal(tr.dust_power, full.dust_power[:, cols])
        assert np.array_equal(tr.lamp_lit, full.lamp_lit) and tr.lamp_positions == full.lamp_positions
        if not lamps_only:
            assert tr.component_positions == full.component_positions
            assert np.array_equal(tr.component_on, full.component_on)
            assert [(e.tick, e.pos, e.kind, e.old, e.new) for e in tr.events] == \
                [(e.tick, e.pos, e.kind, e.old, e.new) for e in full.events]
    empty = w.copy().record(n, lamps_only=True, dust=[])
    assert empty.dust_positions == [] and empty.dust_power.shape == (n + 1, 0)
    # the world after a narrow record is the world after a full one
    a, b = w.copy(), w.copy()
    a.record(n, lamps_only=True, dust=given_[:2])
    b.record(n)
    assert a.blocks() == b.blocks() and a.tick == b.tick


@pytest.mark.parametrize("tid", ["A_simultaneous_lights_L3", "B_branch_reach_L5", "C_sequential_activation_L4",
                                 "D_equal_delay_distribution_L2", "E_pulse_shaping_L3"])
def test_narrow_records_equal_the_full_record(tid):
    rng = random.Random(tid)
    w = circuit_world(tid)
    assert_narrow_records_match(w, 60, rng)
    w.step(3)
    assert_narrow_records_match(w, 0, rng)


def test_lamps_only_record_example():
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(6)] + [
        ((0, 1, 0), "stone_button[face=floor]"), ((1, 1, 0), "redstone_wire"),
        ((2, 1, 0), "redstone_repeater[facing=west,delay=2]"), ((3, 1, 0), "redstone_lamp"),
        ((4, 1, 0), "redstone_wire")])
    w.use((0, 1, 0))
    tr = w.record(30, lamps_only=True, dust=[(4, 1, 0), (3, 1, 0), (1, 1, 0)])
    assert tr.lamp_positions == [(3, 1, 0)]
    assert lamp_transitions(tr.lamp_lit).ravel().tolist() == [4, 28, -1]
    assert tr.dust_positions == [(4, 1, 0), (1, 1, 0)]
    assert tr.dust_power[0].tolist() == [0, 15] and tr.dust_power[-1].tolist() == [0, 0]
    # the lamp, strongly powered by the repeater, powers the dust beside it until the repeater turns off
    assert tr.dust_power.T.tolist() == [[0] * 4 + [15] * 20 + [0] * 7, [15] * 20 + [0] * 11]
    assert tr.events == [] and tr.component_positions == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(build=BUILD, seed=st.integers(0, 2**16))
def test_narrow_records_equal_the_full_record_on_random_builds(build, seed):
    w = base_world(False)
    w.set_blocks([(p, STATES[k]) for p, k in build if p in BOX], skip_errors=True)
    for p, s in w.blocks().items():
        if s.startswith(("minecraft:stone_button", "minecraft:lever")):
            w.use(p)
    assert_narrow_records_match(w, 25, random.Random(seed))


# ------------------------------------------------------------------ 3. lamp_transitions

def transitions_plain(lit) -> list[list[int]]:
    out = [[], [], []]
    for col in np.asarray(lit, bool).T.tolist():
        on = next((t for t, v in enumerate(col) if v), -1)
        off = next((t for t in range(on, len(col)) if not col[t]), -1) if on >= 0 else -1
        again = next((t for t in range(off, len(col)) if col[t]), -1) if off >= 0 else -1
        for row, v in zip(out, (on, off, again)):
            row.append(v)
    return out


def test_lamp_transitions_examples():
    lit = np.array([
        # dark, lit from 0, on-off-on, lit to the end, one-row blip, off at the last row
        [0, 1, 0, 0, 0, 0],
        [0, 1, 1, 0, 1, 1],
        [0, 1, 1, 0, 0, 1],
        [0, 1, 0, 0, 0, 1],
        [0, 1, 0, 1, 0, 1],
        [0, 1, 1, 1, 0, 1],
        [0, 1, 0, 1, 1, 0],
    ], bool)
    out = lamp_transitions(lit)
    assert out.dtype == np.int64 and out.shape == (3, 6)
    assert out.tolist() == [[-1, 0, 1, 4, 1, 1],
                            [-1, -1, 3, -1, 2, 6],
                            [-1, -1, 5, -1, 6, -1]]
    assert lamp_transitions(np.zeros((0, 3), bool)).tolist() == [[-1] * 3] * 3
    assert lamp_transitions(np.zeros((5, 0), bool)).shape == (3, 0)
    assert lamp_transitions(np.ones((1, 2), bool)).tolist() == [[0, 0], [-1, -1], [-1, -1]]
    # uint8 rows as the engine records them, and a non-contiguous view
    assert lamp_transitions(lit.astype(np.uint8)).tolist() == out.tolist()
    assert lamp_transitions(lit[:, ::2]).tolist() == out[:, ::2].tolist()
    assert lamp_transitions(lit[::-1]).tolist() == transitions_plain(lit[::-1])


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(bool, hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=12)))
def test_lamp_transitions_match_the_plain_definition(lit):
    out = lamp_transitions(lit)
    assert out.dtype == np.int64 and out.shape == (3, lit.shape[1])
    assert out.tolist() == transitions_plain(lit)


# ------------------------------------------------------------------ 4. BlockTable.of_world == of_blocks

def mutants(task, w: World, rng: random.Random):
    """(name, world) pairs: the reference world and edits of it."""
    yield "reference", w
    blocks = w.blocks()
    ax, ay, az = task.anchor
    floor_y = task.floor[1]
    free_floor = [p for p in blocks if p[1] == floor_y and (p[0], p[1] + 1, p[2]) not in blocks
                  and abs(p[0] - ax) <= task.radius and abs(p[2] - az) <= task.radius]
    built = [p for p in blocks if p[1] > floor_y]
    for k in range(3):
        m = w.copy()
        m.remove_block(rng.choice(built))
        yield f"removed {k}", m
    lamps = [p for p, s in blocks.items() if "redstone_lamp" in s]
    m = w.copy()
    m.set_block((lamps[0][0], lamps[0][1] + 1, lamps[0][2]), "glass")
    yield "glass on a lamp", m
    m = w.copy()
    m.set_block((lamps[-1][0], lamps[-1][1] + 1, lamps[-1][2]), "redstone_lamp")
    yield "lamp on a lamp", m
    spot = rng.choice(free_floor)
    m = w.copy()
    m.set_block((spot[0], spot[1] + 1, spot[2]), "stone_button[face=floor,facing=south]")
    yield "second button", m
    m = w.copy()
    m.set_block((ax + task.radius + 7, ay, az - task.radius - 1), "stone")
    m.set_block((ax, ay + 40, az), "redstone_lamp")
    yield "far blocks", m
    m = w.copy()
    m.set_block((spot[0], spot[1] + 1, spot[2]), "lever[face=floor]")
    yield "lever", m
    m = w.copy()
    m.set_block(next(p for p, s in blocks.items() if "stone_button" in s), "air")
    yield "no button", m
    m = w.copy()
    m.use(next(p for p, s in blocks.items() if "stone_button" in s))
    m.step(9)
    yield "pressed", m


def checks_of(task, blocks):
    checks, info = structure.structural_checks(task, blocks)
    return [c.to_dict() for c in checks], info


@pytest.mark.parametrize("tid", TASK_IDS)
def test_block_table_of_world_equals_of_blocks(tid):
    task = tasks.load(tid)
    rng = random.Random(tid)
    names = set()
    for name, w in mutants(task, build_world(task, solution(tid)), rng):
        blocks = w.blocks()
        from_world = checks_of(task, structure.BlockTable.of_world(w))
        assert from_world == checks_of(task, structure.BlockTable.of_blocks(blocks)), name
        assert from_world == checks_of(task, blocks) == checks_of(task, w), name
        names.update(c["name"] for c in from_world[0] if not c["passed"])
        table = structure.BlockTable.of_world(w)
        assert structure.t_junctions(blocks) == structure.t_junctions(table) == structure.t_junctions(w), name
        for p, s in blocks.items():
            if "redstone_wire" in s:
                assert structure.dust_connections(blocks, p) == structure.dust_connections(table, p), (name, p)
        if name == "reference":
            assert all(c["passed"] for c in from_world[0]), from_world
    assert {"nothing_on_lamps", "one_button", "region", "palette", "lamp_count"} <= names


# ------------------------------------------------------------------ 5. M_LIVE counts the powered dust

def live_count(w: World) -> tuple[int, int]:
    g = w.g  # reading g writes a compiled engine's state back
    n = int(g.meta[sim.M_NCELL])
    U = g.U
    return int(g.meta[sim.M_LIVE]), int(np.count_nonzero((U[:n, sim.BT] == sim.WIRE) & (U[:n, sim.POWER] > 0)))


def assert_live(w: World):
    have, want = live_count(w)
    assert have == want


LIVE_BASE = [((x, 0, z), "stone") for x in range(-1, 7) for z in range(-1, 5)] + [
    ((0, 1, 0), "lever[face=floor]"), ((1, 1, 0), "redstone_wire"), ((2, 1, 0), "redstone_wire"),
    ((3, 1, 0), "redstone_wire"), ((4, 1, 0), "redstone_lamp"),
    ((0, 1, 2), "stone_button[face=floor]"), ((1, 1, 2), "redstone_wire"),
    ((2, 1, 2), "redstone_repeater[facing=west,delay=2]"), ((3, 1, 2), "redstone_wire"), ((4, 1, 2), "redstone_wire"),
    ((5, 1, 2), "stone"), ((5, 2, 2), "redstone_torch"), ((5, 1, 3), "redstone_wire"),
    ((0, 1, 4), "redstone_block"), ((1, 1, 4), "redstone_wire"), ((2, 1, 4), "redstone_wire"),
]
USE_AT = [(0, 1, 0), (0, 1, 2), (2, 1, 2), (1, 1, 4), (3, 1, 3), (2, 2, 2)]
LIVE_POS = [(x, y, z) for x in range(-1, 7) for y in range(1, 3) for z in range(-1, 5)]
LIVE_STATES = [s for s in STATES if s not in ("tnt", "stone[foo=bar]", "redstone_repeater[delay=9]")]

OP = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(LIVE_POS), st.sampled_from(LIVE_STATES)),
    st.tuples(st.just("sets"), st.lists(st.tuples(st.sampled_from(LIVE_POS), st.sampled_from(LIVE_STATES)),
                                        max_size=8)),
    st.tuples(st.just("remove"), st.sampled_from(LIVE_POS)),
    st.tuples(st.just("use"), st.sampled_from(USE_AT)),
    st.tuples(st.just("step"), st.integers(0, 30)),
    st.tuples(st.just("burst"), st.sampled_from(USE_AT[:2]), st.integers(8, 30), st.booleans()),
)


def apply(w: World, op) -> bool:
    """Apply op; False when the invariant should not be read right after (to leave a compiled engine running)."""
    kind = op[0]
    if kind == "set":
        try:
            w.set_block(op[1], op[2])
        except InputError:
            pass
    elif kind == "sets":
        w.set_blocks(op[1], skip_errors=True)
    elif kind == "remove":
        w.remove_block(op[1])
    elif kind == "use":
        w.use(op[1])
    elif kind == "step":
        w.step(op[1])
    else:  # a run of use/step calls: the world switches to the compiled engine
        _, pos, k, read_now = op
        for i in range(k):
            w.use(pos)
            w.step(1 + i % 5)
        return read_now
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(OP, max_size=14), log=st.booleans())
def test_live_dust_count_stays_exact(ops, log):
    w = World(log_events=log)
    w.set_blocks(LIVE_BASE)
    assert_live(w)
    for op in ops:
        if apply(w, op):
            assert_live(w)
    w.step(40)
    assert_live(w)
    assert_live(w.copy())


def test_live_dust_count_after_the_compiled_engine_writes_back():
    w, ref = World(log_events=False), World()
    for x in (w, ref):
        x.set_blocks(LIVE_BASE)
    for i in range(40):
        for x in (w, ref):
            x.use((0, 1, 2) if i % 3 else (0, 1, 0))
            x.step(1 + i % 7)
    assert w._cg is not None  # running on the compiled graph, its arrays stale
    have, want = live_count(w)  # reads g: written back
    assert w._cg is None and have == want > 0
    assert w.blocks() == ref.blocks()
    # an edit, then more on the compiled engine, then a removal that unpowers dust
    for x in (w, ref):
        x.set_block((3, 1, 1), "redstone_wire")
    for _ in range(30):
        for x in (w, ref):
            x.use((0, 1, 0))
            x.step(3)
    assert w._cg is not None
    for x in (w, ref):
        x.remove_block((0, 1, 4))  # the redstone block feeding (1..2, 1, 4)
    assert_live(w)
    assert_live(ref)
    assert w.blocks() == ref.blocks()
    for x in (w, ref):
        x.step(50)
    assert_live(w)
    assert w.blocks() == ref.blocks()


# ------------------------------------------------------------------ 6. evaluator: text path == dict path

def text_mutants(tid: str, rng: random.Random):
    text = solution(tid)
    lines = text.splitlines()
    setblocks = [i for i, ln in enumerate(lines) if ln.startswith("setblock")]
    yield "reference", text
    for _ in range(2):
        drop = rng.choice(setblocks)
        yield f"without line {drop}", "\n".join(ln for i, ln in enumerate(lines) if i != drop) + "\n"
    items = parse_mcfunction(text)
    lamp = next(p for p, s in items if "redstone_lamp" in s)
    yield "glass on a lamp", text + f"setblock {lamp[0]} {lamp[1] + 1} {lamp[2]} glass\n"
    yield "floating dust", text + "setblock 3 9 3 redstone_wire\nsetblock -2 8 -2 redstone_wall_torch[facing=east]\n"
    yield "second button and a lever", text + "setblock 9 4 -9 stone_button[face=floor]\nsetblock -9 4 9 lever\n"
    yield "far block", text + "setblock 40 4 0 stone\n"
    yield "shuffled", "\n".join(rng.sample(lines, len(lines))) + "\n"


@pytest.mark.parametrize("tid", TASK_IDS)
def test_evaluate_text_equals_evaluate_dict(tid):
    task = tasks.load(tid)
    for name, text in text_mutants(tid, random.Random(tid)):
        a = evaluate(task, text).to_dict()
        b = evaluate(task, dict(parse_mcfunction(text))).to_dict()
        a.pop("build")
        b.pop("build")
        assert a == b, name
        if name == "reference":
            assert a["passed"] and a["warnings"] == []


def test_floating_dust_gives_the_same_warnings_on_both_paths():
    tid = "A_simultaneous_lights_L1"
    task = tasks.load(tid)
    text = solution(tid) + "setblock 3 9 3 redstone_wire\nsetblock -2 8 -2 redstone_wall_torch[facing=east]\n"
    a = evaluate(task, text)
    b = evaluate(task, dict(parse_mcfunction(text)))
    assert a.warnings == b.warnings == [  # attached blocks are placed lowest first
        "redstone_wall_torch at (-2, 8, -2) was not placed: cannot place redstone_wall_torch at (-2, 8, -2): it "
        "needs a solid block behind it (facing=east) at (-3, 8, -2), but there is minecraft:air",
        "redstone_wire at (3, 9, 3) was not placed: cannot place redstone_wire at (3, 9, 3): it needs a solid "
        "block below at (3, 8, 3), but there is minecraft:air",
    ]
    assert a.passed and b.passed


def test_evaluations_that_reuse_a_thread_world_match_fresh_ones():
    """evaluate() builds in a world its thread reuses: a build that outgrew the template's room, a
    failing build and other threads in between must not change any later verdict."""
    import threading

    from scicraft_viz.tasks import evaluator as ev

    t = tasks.load("D_equal_delay_distribution_L5")
    text = (tasks.tasks_dir() / "solutions" / "D_equal_delay_distribution_L5.mcfunction").read_text()
    big = "".join(f"setblock {x} {y} {z} minecraft:glass\n" for x in range(-10, 11) for y in range(4, 10)
                  for z in range(-10, 11))  # 2,646 blocks: more than the template's room
    broken = "\n".join(line for i, line in enumerate(text.splitlines()) if i % 7)
    fresh = {name: ev.evaluate(t, ev.build_world(t, b)).to_dict()["checks"]
             for name, b in (("ref", text), ("big", big), ("broken", broken))}
    order = ["ref", "big", "ref", "broken", "ref", "big", "broken", "ref"]
    builds = {"ref": text, "big": big, "broken": broken}
    assert [ev.evaluate(t, builds[n]).to_dict()["checks"] for n in order] == [fresh[n] for n in order]
    out: dict[int, list] = {}

    def work(k: int) -> None:
        out[k] = [ev.evaluate(t, builds[n]).to_dict()["checks"] for n in order[k:] + order[:k]]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(out[k] == [fresh[n] for n in order[k:] + order[:k]] for k in range(3))


@pytest.mark.parametrize("dust, shown", [([(1, 2)], "(1, 2)"), (["abc"], "'abc'"), ([(1.5, 2, 3)], "(1.5, 2, 3)")])
def test_record_refuses_bad_dust_positions_before_running(dust, shown):
    from scicraft_viz.errors import PositionError

    w = World()
    with pytest.raises(PositionError) as e:
        w.record(5, lamps_only=True, dust=dust)
    assert str(e.value) == f"position must be three integers (x, y, z), got {shown}"
    assert w.tick == 0


def test_lamp_transitions_refuses_what_is_not_ticks_by_lamps():
    from scicraft_viz.engine.trace import lamp_transitions

    with pytest.raises(ValueError, match=r"expected lamp states of shape \(ticks, lamps\), got shape \(2,\)"):
        lamp_transitions([True, False])
