"""Comparators and the containers they read (Java Edition 1.20): exact ticks, states and strengths.

Layout: a stone floor at y=0; the comparator C at (1, 1, 0) faces west, so its rear input is (0, 1, 0),
its output goes east into (2, 1, 0), and its sides are (1, 1, -1) (north) and (1, 1, 1) (south)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, on, power, prop, run

from scicraft_viz import World
from scicraft_viz.engine import compiled
from scicraft_viz.engine import kernels as sim
from scicraft_viz.engine.blocks import BARREL, CHEST
from scicraft_viz.engine.containers import fill_level, slot_stacks
from scicraft_viz.errors import InputError, PlacementError

REAR, C, OUT = (0, 1, 0), (1, 1, 0), (2, 1, 0)
NORTH, SOUTH = (1, 1, -1), (1, 1, 1)


def output(w, pos=C):
    """(powered, output strength) of the comparator at pos, as get_block and World.power show it."""
    return on(w, pos), w.power(pos).level


def count_for(level):
    """The fewest items of a 64-stack that give a barrel or chest (27 slots) this fill level."""
    if level == 0:
        return 0
    return max(1, -(-(level - 1) * 27 * 64 // 14))


def comparator_world(rear="lever[face=floor,facing=north]", mode="compare"):
    w = new_world()
    w.set_block(REAR, rear)
    w.set_block(C, f"comparator[facing=west,mode={mode}]")
    w.set_block(OUT, "redstone_wire")
    return w


def dust_line(w, start, n, step=(0, 0, -1)):
    """n dust in a straight line from start."""
    for i in range(n):
        w.set_block(tuple(s + i * d for s, d in zip(start, step)), "redstone_wire")


# ----------------------------------------------------------------------------- states and parsing
def test_canonical_state_and_vanilla_id():
    w = new_world()
    w.set_block(C, "comparator")
    assert w.get_block(C) == "minecraft:comparator[facing=north,mode=compare,powered=false]"
    w.set_block(C, "minecraft:comparator[mode=subtract,facing=east]")
    assert w.get_block(C) == "minecraft:comparator[facing=east,mode=subtract,powered=false]"
    w.set_block((3, 1, 3), "barrel[facing=up,open=true]")
    w.set_block((4, 1, 3), "chest[facing=south]")
    assert w.get_block((3, 1, 3)) == "minecraft:barrel[facing=up,open=true]"
    assert w.get_block((4, 1, 3)) == "minecraft:chest[facing=south,type=single,waterlogged=false]"


def test_comparator_needs_a_block_below_and_pops_without_one():
    w = World()
    with pytest.raises(PlacementError, match=r"comparator at \(0, 1, 0\): it needs a solid block below"):
        w.set_block((0, 1, 0), "comparator")
    w.set_block((0, 0, 0), "barrel")  # a barrel is a full block: it carries a comparator
    w.set_block((0, 1, 0), "comparator")
    w.remove_block((0, 0, 0))
    assert w.get_block((0, 1, 0)) == "minecraft:air"
    assert [e.kind for e in w.events][-1] == "popped"


# ----------------------------------------------------------------------------- rear and side inputs
def test_lever_behind_turns_it_on_and_off_after_one_redstone_tick():
    w = comparator_world()
    flip = [lambda: w.use(REAR)]
    got = run(w, 30, lambda: (output(w), power(w, OUT)), {0: flip, 10: flip})
    assert got == [(0, ((False, 0), 0)), (2, ((True, 15), 15)), (12, ((False, 0), 0))]


def test_placed_with_power_behind_it_turns_on_one_game_tick_later():
    w = new_world()
    w.set_block(REAR, "redstone_block")
    w.set_block(C, "comparator[facing=west]")
    assert w.scheduled()[0][:2] == (1, C)
    got = run(w, 5, lambda: output(w))
    assert got == [(0, (False, 0)), (1, (True, 15))]


def test_rear_dust_passes_its_strength_on():
    # lever at (0,1,-3), dust from (0,1,-2) to (0,1,0): the dust behind C has power 13
    w = new_world()
    w.set_block((0, 1, -3), "lever[face=floor,facing=north]")
    dust_line(w, (0, 1, -2), 3, (0, 0, 1))
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "redstone_wire")
    w.use((0, 1, -3))
    assert power(w, REAR) == 13
    w.step(2)
    assert output(w) == (True, 13)
    assert power(w, OUT) == 13


def _rear_and_side(rear_level, side_level, mode):
    """C reads a barrel behind it; a second comparator D at (1,1,-1) facing south reads a barrel at
    (1,1,-2) and feeds C's north side with that barrel's level."""
    w = new_world()
    w.set_block(REAR, "barrel")
    w.set_block(C, f"comparator[facing=west,mode={mode}]")
    w.set_block((1, 1, -2), "barrel")
    w.set_block(NORTH, "comparator[facing=north]")  # faces north: reads (1,1,-2), outputs south into C
    w.set_items(REAR, count_for(rear_level))
    w.set_items((1, 1, -2), count_for(side_level))
    w.step(10)
    return w


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 15), st.integers(0, 15), st.sampled_from(["compare", "subtract"]))
def test_output_follows_vanilla_formula(rear, side, mode):
    w = _rear_and_side(rear, side, mode)
    assert w.power(NORTH).level == side
    if rear == 0 or side > rear:
        want = 0
    else:
        want = rear - side if mode == "subtract" else rear
    powered = rear > 0 and (rear > side or (rear == side and mode == "compare"))
    assert (on(w, C), w.output_signal(C)) == (powered, want)


def test_side_dust_counts_at_its_own_strength_whatever_its_shape():
    # a redstone block at (1,1,-4) feeds dust (1,1,-3)..(1,1,-1): 15, 14, 13 at C's north side
    w = comparator_world(rear="redstone_block", mode="subtract")
    w.set_block((1, 1, -4), "redstone_block")
    dust_line(w, (1, 1, -3), 3, (0, 0, 1))
    w.step(4)
    assert power(w, NORTH) == 13
    assert output(w) == (True, 2)
    assert power(w, OUT) == 2


def test_side_redstone_block_and_side_repeater_count():
    w = comparator_world(rear="redstone_block", mode="subtract")
    w.set_block(SOUTH, "redstone_block")
    w.step(4)
    assert output(w) == (False, 0)  # 15 - 15 in subtract mode
    w.remove_block(SOUTH)
    w.step(4)
    assert output(w) == (True, 15)
    w.set_block((1, 1, 2), "redstone_block")
    w.set_block(SOUTH, "redstone_repeater[facing=south]")  # reads (1,1,2), points north into C
    w.step(10)
    assert output(w) == (False, 0)


def test_side_torch_and_powered_block_do_not_count():
    w = comparator_world(rear="redstone_block", mode="subtract")
    w.set_block(SOUTH, "redstone_torch")
    w.set_block(NORTH, "stone")
    w.set_block((2, 1, -1), "redstone_repeater[facing=east]")  # strongly powers the stone beside C
    w.set_block((3, 1, -1), "redstone_block")
    w.step(10)
    assert w.power(NORTH).strong == 15
    assert output(w) == (True, 15)


def test_compare_mode_passes_rear_when_side_is_not_stronger():
    w = comparator_world(rear="redstone_block")
    w.set_block(SOUTH, "redstone_block")
    w.step(4)
    assert output(w) == (True, 15)  # equal: compare passes the rear signal


# ----------------------------------------------------------------------------- mode switching
def test_use_switches_mode_and_recomputes_at_once():
    w = comparator_world(rear="redstone_block")
    w.set_block((1, 1, -4), "redstone_block")
    dust_line(w, (1, 1, -3), 3, (0, 0, 1))  # 13 at the north side
    w.step(4)
    t = w.tick
    assert output(w) == (True, 15)
    assert w.use(C)
    assert prop(w, C, "mode") == "subtract"
    assert output(w) == (True, 2) and power(w, OUT) == 2  # no delay: the click refreshes it
    mine = [(e.tick, e.kind, e.old, e.new) for e in w.events if e.pos == C and e.tick == t]
    assert mine == [(t, "mode", 0, 1), (t, "power", 15, 2)]
    assert w.use(C)
    assert output(w) == (True, 15)


# ----------------------------------------------------------------------------- outputs
def test_comparator_lights_a_lamp_and_the_lamp_goes_off_two_redstone_ticks_later():
    w = comparator_world()
    w.set_block(OUT, "redstone_lamp")
    flip = [lambda: w.use(REAR)]
    got = run(w, 30, lambda: (on(w, C), on(w, OUT)), {0: flip, 10: flip})
    assert got == [(0, (False, False)), (2, (True, True)), (12, (False, True)), (16, (False, False))]


def test_strong_power_through_a_block_keeps_the_strength():
    # C reads a barrel at level 7 and faces into stone at (2,1,0); dust at (3,1,0) beyond it reads 7
    w = new_world()
    w.set_block(REAR, "barrel")
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "stone")
    w.set_block((3, 1, 0), "redstone_wire")
    w.set_items(REAR, count_for(7))
    w.step(2)
    assert w.power(OUT) == (7, 7, 0)
    assert power(w, (3, 1, 0)) == 7


def test_a_repeater_after_it_restores_full_strength():
    w = new_world()
    w.set_block(REAR, "barrel")
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "redstone_repeater[facing=west]")
    w.set_block((3, 1, 0), "redstone_wire")
    w.set_items(REAR, 1)
    got = run(w, 10, lambda: (output(w), power(w, (3, 1, 0))))
    assert got == [(0, ((False, 0), 0)), (2, ((True, 1), 0)), (4, ((True, 1), 15))]


def test_subtraction_clock_alternates_every_redstone_tick():
    # C (subtract) gets 15 from a lever behind it; its output dust (2,1,0) -> (2,1,1) -> (1,1,1) feeds
    # its south side at output - 2, so it swings between 15 and 15 - 13 = 2 every 2 game ticks.
    w = comparator_world(mode="subtract")
    w.set_block((2, 1, 1), "redstone_wire")
    w.set_block(SOUTH, "redstone_wire")
    w.use(REAR)
    got = run(w, 12, lambda: (w.power(C).level, power(w, SOUTH)))
    assert got == [(0, (0, 0)), (2, (15, 13)), (4, (2, 0)), (6, (15, 13)), (8, (2, 0)), (10, (15, 13)),
                   (12, (2, 0))]
    assert on(w, C)
    kinds = {(e.kind, e.block) for e in w.events if e.pos == C and e.tick > 0}
    assert kinds == {("power", "minecraft:comparator"), ("state", "minecraft:comparator")}


def test_record_traces_the_comparator_and_its_output_events():
    w = comparator_world(mode="subtract")
    w.set_block((2, 1, 1), "redstone_wire")
    w.set_block(SOUTH, "redstone_wire")
    w.use(REAR)
    tr = w.record(6)
    assert tr.component_kinds[tr.component_positions.index(C)] == "minecraft:comparator"
    assert tr.series(C).tolist() == [False, False, True, True, True, True, True]
    assert [(e.tick, e.new) for e in tr.events if e.pos == C and e.kind == "power"] == [(2, 15), (4, 2), (6, 15)]
    assert tr.series(OUT).tolist() == [0, 0, 15, 15, 2, 2, 15]


# ----------------------------------------------------------------------------- tick priority
def test_facing_into_a_diode_ticks_at_high_priority():
    w = comparator_world()
    w.set_block(OUT, "redstone_repeater[facing=west]")  # reads C: does not face back
    w.use(REAR)
    assert [(s.tick, s.pos, s.priority) for s in w.scheduled()] == [(2, C, sim.P_HIGH)]


def test_facing_into_a_diode_facing_back_is_normal_priority():
    w = comparator_world()
    w.set_block(OUT, "redstone_repeater[facing=east]")  # its output points back into C
    w.use(REAR)
    assert [(s.tick, s.pos, s.priority) for s in w.scheduled()] == [(2, C, sim.P_NORMAL)]


def test_a_prioritized_tick_runs_before_a_normal_one_scheduled_earlier():
    # one lever feeds E at (-1,1,0) (output into dust: normal), then C (output into a repeater: high);
    # both are due at tick 2 and C, scheduled second, runs first
    w = new_world()
    w.set_block(REAR, "lever[face=floor,facing=north]")
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "redstone_repeater[facing=west]")
    w.set_block((-1, 1, 0), "comparator[facing=east]")  # E: its rear is the lever, its output goes west
    w.set_block((-2, 1, 0), "redstone_wire")
    w.use(REAR)
    order = [(s.tick, s.pos, s.priority) for s in w.scheduled()]
    assert order == [(2, C, sim.P_HIGH), (2, (-1, 1, 0), sim.P_NORMAL)]
    w.step(2)
    ticks = [e.pos for e in w.events if e.tick == 2 and e.kind == "state"]
    assert ticks == [C, (-1, 1, 0)]


def test_a_repeater_facing_into_a_comparator_is_prioritized():
    w = new_world()
    w.set_block((-1, 1, 0), "lever[face=floor,facing=north]")
    w.set_block(REAR, "redstone_repeater[facing=west]")
    w.set_block(C, "comparator[facing=west]")
    w.use((-1, 1, 0))
    assert [(s.tick, s.pos, s.priority) for s in w.scheduled()] == [(2, REAR, sim.P_EXTREMELY_HIGH)]
    got = run(w, 8, lambda: (on(w, REAR), output(w)))
    assert got == [(0, (False, (False, 0))), (2, (True, (False, 0))), (4, (True, (True, 15)))]


# ----------------------------------------------------------------------------- containers
def test_fill_level_formula():
    assert fill_level((), BARREL) == 0
    assert fill_level(slot_stacks(1, BARREL, "t"), BARREL) == 1
    assert fill_level(slot_stacks(27 * 64, BARREL, "t"), BARREL) == 15
    assert fill_level(slot_stacks(123, CHEST, "t"), CHEST) == 1  # 1 + floor(14 * 123 / 1728 = 0.997)
    assert fill_level(slot_stacks(124, CHEST, "t"), CHEST) == 2  # 1 + floor(1.005)
    assert fill_level(slot_stacks([("ender_pearl", 16)], BARREL, "t"), BARREL) == 1
    # a slot of 16 ender pearls counts as a full slot: 27 of them fill the barrel
    assert fill_level(slot_stacks([("ender_pearl", 27 * 16)], BARREL, "t"), BARREL) == 15
    assert fill_level(slot_stacks([("diamond_sword", 1)] * 2, BARREL, "t"), BARREL) == 2


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 27 * 64))
def test_fill_level_of_a_64_stack_item_is_the_exact_formula(n):
    want = 0 if n == 0 else 1 + (14 * n) // (27 * 64)
    assert fill_level(slot_stacks(n, BARREL, "t"), BARREL) == want


@pytest.mark.parametrize("block", ["barrel", "chest"])
def test_comparator_reads_a_container_behind_it(block):
    w = new_world()
    w.set_block(REAR, block)
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "redstone_lamp")
    w.set_items(REAR, [("stone", 64), ("ender_pearl", 20)])
    assert w.items(REAR) == [("stone", 64), ("ender_pearl", 16), ("ender_pearl", 4)]
    assert w.fill_level(REAR) == 2  # 1 + floor(14 * (1 + 1 + 4/16) / 27 = 1.17)
    t = w.tick
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(t + 2, C)]
    w.step(2)
    assert output(w) == (True, 2) and on(w, OUT)
    assert [(e.kind, e.old, e.new) for e in w.events if e.pos == REAR][-1] == ("power", 0, 2)
    w.set_items(REAR, [])
    w.step(2)
    assert output(w) == (False, 0)
    assert w.items(REAR) == []


def test_container_read_through_a_solid_block():
    w = new_world()
    w.set_block((-1, 1, 0), "barrel")
    w.set_block(REAR, "stone")
    w.set_block(C, "comparator[facing=west]")
    w.set_items((-1, 1, 0), count_for(9))
    w.step(2)
    assert output(w) == (True, 9)


def test_container_behind_a_block_overrides_weaker_power_into_the_block_but_not_15():
    w = new_world()
    w.set_block((-1, 1, 0), "barrel")
    w.set_block(REAR, "stone")
    w.set_block(C, "comparator[facing=west]")
    w.set_items((-1, 1, 0), count_for(3))
    # dust at power 6 pointing into the stone (from a comparator reading a barrel at level 6): the
    # barrel behind the stone gives 3, and that is what C reads, though it is lower
    w.set_block((0, 1, -3), "barrel")
    w.set_block((0, 1, -2), "comparator[facing=north]")
    w.set_block((0, 1, -1), "redstone_wire")
    w.set_items((0, 1, -3), count_for(6))
    w.step(4)
    assert w.power(REAR).weak == 6
    assert output(w) == (True, 3)
    # strongly powered to 15, the block's power wins
    w.set_block((0, 1, 1), "redstone_repeater[facing=south]")
    w.set_block((0, 1, 2), "redstone_block")
    w.step(6)
    assert w.power(REAR).strong == 15
    assert output(w) == (True, 15)


def test_container_two_blocks_back_through_glass_is_not_read():
    w = new_world()
    w.set_block((-1, 1, 0), "barrel")
    w.set_block(REAR, "glass")
    w.set_block(C, "comparator[facing=west]")
    w.set_items((-1, 1, 0), 64)
    w.step(4)
    assert output(w) == (False, 0)


def test_replacing_a_container_empties_it_and_copies_keep_their_own_items():
    w = new_world()
    w.set_block(REAR, "barrel")
    w.set_items(REAR, 200)
    w2 = w.copy()
    w2.set_items(REAR, 5)
    assert w.items(REAR) == [("stone", 64)] * 3 + [("stone", 8)]
    assert w2.items(REAR) == [("stone", 5)]
    w.set_block(REAR, "barrel")  # the same block: nothing happens
    assert w.fill_level(REAR) == 2  # 1 + floor(14 * 3.125 / 27 = 1.6)
    w.set_block(REAR, "chest")
    assert w.items(REAR) == [] and w.fill_level(REAR) == 0


@pytest.mark.parametrize(
    ("items", "match"),
    [
        (-1, "non-negative integer"),
        ([("stonee", 3)], "not a Minecraft 1.20 item.*did you mean 'stone'"),
        ([("stone", 64)] * 28, "need 28 slots; a barrel has 27"),
        ("lots", "a count or a list"),
        ([("stone",)], r"item 0 must be an \(item id, count\) pair"),
        ([("stone", True)], "non-negative integer"),
    ],
)
def test_bad_items_are_refused_naming_what_is_wrong(items, match):
    w = new_world()
    w.set_block(REAR, "barrel")
    with pytest.raises(InputError, match=match):
        w.set_items(REAR, items)
    assert w.items(REAR) == []


def test_items_of_a_block_that_is_no_container_is_refused():
    w = new_world()
    with pytest.raises(InputError, match=r"set_items: \(0, 1, 0\) holds minecraft:air, not a container"):
        w.set_items(REAR, 1)
    with pytest.raises(InputError, match="not a container"):
        w.items((0, 0, 0))


# ----------------------------------------------------------------------------- compiled engine
def test_compiled_engine_runs_a_subtraction_clock_as_the_reference_does():
    w = comparator_world(mode="subtract")
    w.set_block((2, 1, 1), "redstone_wire")
    w.set_block(SOUTH, "redstone_wire")
    compiled.compile_world(w)  # compiles (tick-for-tick checks: tests/test_compiled_analog.py)
    w.use(REAR)
    w.log_events = False
    w.step(5001)  # long enough for the world to switch to the compiled engine
    assert w._cg is not None and w.tick == 5001
    assert w.power(C).level == 2  # odd multiples of 2 game ticks after the lever: the low half


# ----------------------------------------------------------------------------- invariant on random circuits
_POOL = ["air", "air", "stone", "redstone_wire", "redstone_wire", "redstone_wire", "redstone_block", "barrel",
         "chest", "redstone_lamp", "lever[face=floor]", "redstone_torch", "target"]


@settings(max_examples=30, deadline=None)
@given(rnd=st.randoms(use_true_random=False))
def test_when_nothing_is_pending_every_comparator_agrees_with_its_inputs(rnd):
    """After any placements, item changes, clicks and ticks, once no tick is pending each comparator
    stores the output its inputs give and is powered exactly when they say: no update was missed."""
    w = World()
    w.set_blocks([((x, 0, z), "stone") for x in range(-1, 6) for z in range(-1, 6)])
    dirs = ("north", "east", "south", "west")
    for x in range(5):
        for z in range(5):
            r = rnd.random()
            if r < 0.25:
                state = f"comparator[facing={rnd.choice(dirs)},mode={rnd.choice(['compare', 'subtract'])}]"
            elif r < 0.35:
                state = f"redstone_repeater[facing={rnd.choice(dirs)}]"
            else:
                state = rnd.choice(_POOL)
            w.set_block((x, 1, z), state)
    blocks = w.blocks()
    containers = [p for p, s in blocks.items() if s.startswith(("minecraft:barrel", "minecraft:chest"))]
    clickable = [p for p, s in blocks.items() if s.startswith(("minecraft:lever", "minecraft:comparator"))]
    for _ in range(8):
        if containers and rnd.random() < 0.5:
            w.set_items(rnd.choice(containers), rnd.randint(0, 27 * 64))
        elif clickable:
            w.use(rnd.choice(clickable))
        w.step(rnd.randint(0, 6))
    for _ in range(100):  # a comparator clock never settles: such circuits are skipped below
        if not w.scheduled():
            break
        w.step(1)
    if w.scheduled():
        return
    g, k = w.g, w._k
    for p, s in w.blocks().items():
        if s.startswith("minecraft:comparator"):
            c = w._find(p)
            assert w.output_signal(p) == k.comparator_output(g.U, g.N, c), (p, s)
            assert on(w, p) == bool(k.comparator_should_on(g.U, g.N, c)), (p, s)
