"""The engine's storage: bulk loading equals placing one by one, memory follows the blocks (not their
bounding box), stated limits refuse input before allocating, copies and lazily drained events."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import BlockStateError, InputError, PlacementError, PositionError, World
from scicraft_viz.engine import kernels as sim
from scicraft_viz.engine import world as world_mod
from scicraft_viz.engine.trace import MAX_TRACE_BYTES

STATES = [
    "air", "stone", "glass", "redstone_block", "redstone_lamp", "redstone_lamp[lit=true]",
    "redstone_wire", "redstone_wire[north=none,east=none,south=none,west=none]", "redstone_wire[east=side]",
    "redstone_torch", "redstone_torch[lit=false]", "lever[face=floor]", "lever[face=floor,powered=true]",
    "stone_button[face=floor,facing=east]", "stone_button[face=ceiling]",
] + [f"redstone_repeater[facing={f},delay={d}]" for f in ("north", "east", "south", "west") for d in (1, 3)] + [
    f"redstone_wall_torch[facing={f}]" for f in ("north", "east", "south", "west")
] + [f"stone_button[face=wall,facing={f}]" for f in ("north", "east", "south", "west")] + [
    "redstone_repeater[facing=east,powered=true]", "repeater[facing=west,locked=true]",
]
BOX = [(x, y, z) for x in range(5) for y in range(4) for z in range(4)]
FLOOR = [((x, 0, z), "stone") for x in range(5) for z in range(4)]

items_st = st.lists(st.tuples(st.sampled_from(BOX), st.sampled_from(STATES)), min_size=1, max_size=60)


def one_by_one(items, replay):
    w = World(replay=replay)
    for p, s in items:
        try:
            w.set_block(p, s)
        except InputError:
            pass
    return w


def behaviour(w):
    """Everything observable: blocks, every cell of the box, events, and what each button and lever does."""
    events = [(e.tick, e.pos, e.kind, e.block, e.old, e.new) for e in w.events]
    out = [w.blocks(), [w.get_block(p) for p in BOX], events]
    for p, s in sorted(w.blocks().items()):
        if s.startswith(("minecraft:stone_button", "minecraft:lever")):
            w.use(p)
            tr = w.record(30)
            out += [p, tr.lamp_lit.tolist(), tr.dust_power.tolist(), tr.component_on.tolist(), w.blocks()]
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=items_st, replay=st.booleans(), with_floor=st.booleans())
def test_bulk_load_equals_placing_one_by_one(items, replay, with_floor):
    items = (FLOOR if with_floor else []) + items
    ref = one_by_one(items, replay)
    bulk = World(replay=replay)
    errors = bulk.set_blocks(items, skip_errors=True)
    assert behaviour(bulk) == behaviour(ref)
    # the refused items are exactly those a loop's set_block refuses, with the same message after "item i: "
    probe = World(replay=replay)
    expected = []
    for i, (p, s) in enumerate(items):
        try:
            probe.set_block(p, s)
        except InputError as e:
            expected.append((i, type(e), str(e)))
    assert [(i, type(e), str(e).split(": ", 1)[1]) for i, e in errors] == expected


@settings(max_examples=30, deadline=None)
@given(items=items_st, replay=st.booleans())
def test_bulk_load_onto_an_existing_world_equals_one_by_one(items, replay):
    base = one_by_one(FLOOR + [((2, 1, 1), "redstone_wire"), ((3, 1, 1), "redstone_lamp")], replay)
    ref, bulk = base.copy(), base.copy()
    for p, s in items:
        try:
            ref.set_block(p, s)
        except InputError:
            pass
    bulk.set_blocks(items, skip_errors=True)
    assert behaviour(bulk) == behaviour(ref)


def test_from_blocks_is_all_or_nothing_and_names_the_item():
    items = [((0, 0, 0), "stone"), ((0, 1, 0), "redstone_wire"), ((1, 1, 0), "redstone_lamp"), ((5, 1, 5), "lever")]
    with pytest.raises(PlacementError) as e:
        World.from_blocks(items)
    assert str(e.value) == ("item 3: cannot place lever at (5, 1, 5): it needs a solid block behind it (facing=north) "
                            "at (5, 1, 6), but there is minecraft:air")
    w = World()
    w.set_block((9, 9, 9), "glass")
    for bad, kind, msg in [
        ([((0, 0, 0), "stone"), ((0, 1.5, 0), "stone")], PositionError, "item 1: position must be three integers"),
        ([((0, 0, 0), "stone"), ((0, 1, 0), "redstone_dust")], BlockStateError,
         "item 1: unknown block 'redstone_dust'"),
        ([((0, 0, 0), "stone"), "stone"], InputError, "item 1: expected a (position, state) pair"),
        ([((0, 0, 0), "stone"), ((0, 1, 0), "redstone_wire"), ((0, 0, 0), "air"), ((0, 1, 1), "redstone_torch")],
         PlacementError, "item 3: cannot place redstone_torch at (0, 1, 1)"),
    ]:
        with pytest.raises(kind) as e:
            w.set_blocks(bad)
        assert str(e.value).startswith(msg)
        assert w.blocks() == {(9, 9, 9): "minecraft:glass"}
        assert [ev.kind for ev in w.events] == ["placed"]


def test_a_refused_support_counts_blocks_placed_earlier_in_the_same_call():
    w = World()
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "redstone_wire")])  # the stone is there when the dust comes
    assert w.get_block((0, 1, 0)).startswith("minecraft:redstone_wire")
    errors = World().set_blocks([((0, 1, 0), "redstone_wire"), ((0, 0, 0), "stone")], skip_errors=True)
    assert [(i, str(e)) for i, e in errors] == [
        (0, "item 0: cannot place redstone_wire at (0, 1, 0): it needs a solid block below at (0, 0, 0), but there "
            "is minecraft:air")]
    items = [((0, -1, 0), "stone"), ((0, 0, 0), "redstone_wire"), ((0, 1, 0), "redstone_torch"),
             ((1, 0, 0), "stone"), ((1, 1, 0), "redstone_torch"), ((1, 0, 0), "air"), ((1, 1, 0), "redstone_torch")]
    errors = World().set_blocks(items, skip_errors=True)
    assert [(i, str(e).split(", but there is ")[1]) for i, e in errors] == [
        (2, "minecraft:redstone_wire[east=side,north=side,power=0,south=side,west=side]"), (6, "minecraft:air")]
    with pytest.raises(PlacementError) as e:  # all or nothing: a support placed earlier is named as given
        World().set_blocks(items)
    assert str(e.value) == ("item 2: cannot place redstone_torch at (0, 1, 0): it needs a solid block below at "
                            "(0, 0, 0), but there is minecraft:redstone_wire[east=none,north=none,power=0,south=none,"
                            "west=none]")


def test_blocks_far_apart_cost_what_packed_blocks_cost():
    packed, spread = World(), World()
    packed.set_blocks([((x, 0, z), "stone") for x in range(32) for z in range(32)])
    spread.set_blocks([((700 * x // 31, 0, 700 * z // 31), "stone") for x in range(32) for z in range(32)])
    assert len(packed.blocks()) == len(spread.blocks()) == 1024
    assert spread.memory_bytes() == packed.memory_bytes()
    assert packed.memory_bytes() < 1024 * 2000  # a few hundred bytes per block, plus fixed buffers
    far = World()
    far.set_block((0, 0, 0), "stone")
    far.set_block((1000, 0, 0), "stone")
    far.set_block((-30_000_000, 0, 30_000_000), "redstone_lamp")
    assert far.blocks() == {(-30_000_000, 0, 30_000_000): "minecraft:redstone_lamp[lit=false]",
                            (0, 0, 0): "minecraft:stone", (1000, 0, 0): "minecraft:stone"}
    assert far.memory_bytes() == World().memory_bytes()


def test_circuits_work_anywhere_in_the_world():
    def line(ox, oz):
        return [((ox + x, 0, oz), "stone") for x in range(6)] + [
            ((ox, 1, oz), "stone_button[face=floor]"), ((ox + 1, 1, oz), "redstone_wire"),
            ((ox + 2, 1, oz), "redstone_repeater[facing=west,delay=2]"), ((ox + 3, 1, oz), "redstone_lamp")]

    ticks = []
    for ox, oz in [(0, 0), (29_999_990, -30_000_000), (-30_000_000, 29_999_999)]:
        w = World.from_blocks(line(ox, oz))
        w.use((ox, 1, oz))
        ticks.append(w.record(40).first_on((ox + 3, 1, oz)))
    assert ticks == [4, 4, 4]


def test_the_cell_limit_is_checked_before_allocating(monkeypatch):
    monkeypatch.setattr(world_mod, "MAX_CELLS", 100)
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(60)])
    with pytest.raises(PositionError) as e:
        w.set_blocks([((x, 0, 1), "stone") for x in range(41)])
    assert str(e.value) == ("the world would hold 101 block positions; the engine's limit is 100 (positions that "
                            "hold, or once held, a block)")
    assert len(w.blocks()) == 60
    w.set_blocks([((x, 0, 1), "stone") for x in range(40)])
    with pytest.raises(PositionError):
        w.set_block((0, 5, 0), "stone")
    w.set_block((0, 0, 0), "glass")  # positions that have a cell can change
    assert len(w.blocks()) == 100


def test_step_and_record_limits_are_clear_value_errors():
    w = World()
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "redstone_lamp"), ((1, 0, 0), "stone")])
    with pytest.raises(ValueError) as e:
        w.step(2**70)
    assert str(e.value) == ("step count 1180591620717411303424 would take the world past game tick 2**60 = "
                            "1,152,921,504,606,846,976, the engine's limit (now at tick 0)")
    with pytest.raises(ValueError) as e:
        w.record(10**9)
    assert str(e.value).startswith("record(1000000000) would need 9.3 GiB for 1 lamps, components and dust over "
                                   "1,000,000,001 ticks; a trace may take at most 1 GiB")
    assert w.tick == 0
    w.step(2**60 - 5)
    with pytest.raises(ValueError, match="past game tick 2"):
        w.record(6)
    assert len(w.record(5)) == 6 and w.tick == 2**60
    n = MAX_TRACE_BYTES // (8 + 2)
    assert World().record(0).ticks.tolist() == [0]
    with pytest.raises(ValueError, match="GiB"):
        w2 = World()
        w2.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "redstone_lamp")])
        w2.record(n)


def test_visit_marks_are_cleared_by_the_pass_that_set_them():
    """Marks are reset from each pass's own list of visited cells: none is left set, however long the run."""
    w = World.from_blocks([((x, 0, z), "stone") for x in range(-1, 20) for z in range(3)] + [
        ((-1, 1, 0), "lever[face=floor]")] + [((x, 1, 0), "redstone_wire") for x in range(0, 14)] + [
        ((14, 1, 0), "redstone_repeater[facing=west]"), ((15, 1, 0), "redstone_lamp")])
    for _ in range(2000):
        w.use((-1, 1, 0))
        w.step(3)
    w.step(100)
    assert not w.g.U[:, sim.MARK].any()
    assert w.get_block((15, 1, 0)) == "minecraft:redstone_lamp[lit=false]"
    t0 = w.tick
    w.use((-1, 1, 0))
    tr = w.record(6)
    assert tr.first_on((15, 1, 0)) == t0 + 2 and tr.dust_power[-1].tolist() == list(range(15, 1, -1))
    assert not w.g.U[:, sim.MARK].any()


def test_copy_leaves_the_event_buffer_behind():
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(4)] + [
        ((0, 1, 0), "lever[face=floor]"), ((1, 1, 0), "redstone_wire"), ((2, 1, 0), "redstone_lamp")])
    w.use((0, 1, 0))
    assert w.g.meta[sim.M_EVN] > 0  # events wait in the engine until read
    c = w.copy()
    assert c.g.E is not w.g.E and c.g.meta[sim.M_EVN] == 0 == w.g.meta[sim.M_EVN]
    assert c.events == w.events and c.events_total == w.events_total == 11  # 7 placed, a shape, 3 from the lever
    c.use((0, 1, 0))
    assert c.events_total == 13 and w.events_total == 11
    assert [e.describe() for e in c.events_since(11)] == ["tick 0: lever at (0, 1, 0) powered=false",
                                                          "tick 0: dust at (1, 1, 0) power 15 -> 0"]


def test_events_are_drained_only_when_read_and_stay_in_order():
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(3)] + [((0, 1, 0), "lever[face=floor]"),
                                                              ((1, 1, 0), "redstone_lamp")])
    before = w.events_total
    for _ in range(3):
        w.use((0, 1, 0))
        w.step(10)
    assert w.g.meta[sim.M_EVN] == w.events_total  # nothing has read them yet
    got = [(e.tick, e.pos, e.kind, e.new) for e in w.events_since(before)]
    assert got == [(0, (0, 1, 0), "state", 1), (0, (1, 1, 0), "state", 1),
                   (10, (0, 1, 0), "state", 0), (14, (1, 1, 0), "state", 0),
                   (20, (0, 1, 0), "state", 1), (20, (1, 1, 0), "state", 1)]
    assert w.g.meta[sim.M_EVN] == 0


def test_a_long_logged_run_keeps_the_most_recent_history(monkeypatch):
    monkeypatch.setattr(world_mod, "EVENT_HISTORY", 1000)
    w = World()
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "lever[face=floor]")])
    total = w.events_total
    for _ in range(30):
        for _ in range(101):
            w.use((0, 1, 0))  # one event each: the lever's state
        assert w.events_since(w.events_total) == []  # reading moves pending events to the history
    assert w.events_total - total == 3030
    ev = w.events
    assert len(ev) == 1000
    assert [(e.pos, e.kind, e.old, e.new) for e in (ev[0], ev[-1])] == [((0, 1, 0), "state", 0, 1),
                                                                        ((0, 1, 0), "state", 1, 0)]
    assert len(w.events_since(total + 3030 - 5)) == 5 and w.events_since(total) == ev


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(
    st.tuples(st.tuples(st.integers(-40_000_000, 40_000_000), st.integers(-3, 3), st.integers(-3, 3)),
              st.sampled_from(STATES)),
    st.tuples(st.one_of(st.none(), st.text(max_size=5), st.tuples(st.floats(), st.booleans(), st.integers())),
              st.one_of(st.text(max_size=30), st.integers(), st.none())),
    st.one_of(st.none(), st.integers(), st.text(max_size=4), st.tuples(st.integers())),
), max_size=12), st.booleans())
def test_bulk_input_of_any_kind_is_refused_cleanly(items, replay):
    w = World(replay=replay)
    errors = w.set_blocks(items, skip_errors=True)
    assert all(isinstance(e, InputError) and str(e).startswith(f"item {i}: ") for i, e in errors)
    assert sorted(i for i, _ in errors) == [i for i, _ in errors]
    ref = one_by_one([it for j, it in enumerate(items) if j not in {i for i, _ in errors}], replay)
    assert w.blocks() == ref.blocks()
    if errors:
        with pytest.raises(InputError):
            World(replay=replay).set_blocks(items)


def test_pure_python_kernels_load_builds_identically():
    items = FLOOR + [((0, 1, 0), "lever[face=floor]"), ((1, 1, 0), "redstone_wire"),
                     ((2, 1, 0), "redstone_repeater[facing=west,delay=2]"), ((3, 1, 0), "redstone_lamp"),
                     ((3, 1, 1), "redstone_wall_torch[facing=south]"), ((3, 0, 2), "air")]
    a, b = World.from_blocks(items), World.from_blocks(items, jit=False)
    assert behaviour(a) == behaviour(b)
    assert np.array_equal(a.g.N[: a._ncell], b.g.N[: b._ncell])
