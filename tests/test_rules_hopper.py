"""Hoppers as components (Java Edition 1.20, vanilla HopperBlockEntity): each game tick, in the block-entity
part of the tick, a hopper off its cooldown and not locked pushes one item into the container it faces, then,
unless full, pulls one from the container above; either restarts its 8 gt cooldown. An empty hopper given an
item by a hopper moves it on 7 gt later. A signal into it locks it (`enabled=false`) at once. Items are
data: World.set_items / items / slots show every move."""

from hypothesis import given, settings
from hypothesis import strategies as st
from redstone_helpers import on, prop, run

from scicraft_viz import World

SRC, HOP, DST = (0, 2, 0), (0, 1, 0), (0, 0, 0)


def chest_hopper_chest(items, hopper="hopper[facing=down]"):
    w = World()
    w.set_block(DST, "chest")
    w.set_block(HOP, hopper)
    w.set_block(SRC, "chest")
    w.set_items(SRC, items)
    return w


def counts(w, *ps):
    return tuple(sum(n for _, n in w.items(p)) for p in ps)


def test_a_hopper_pulls_then_passes_one_item_every_8_gt_pushing_before_pulling():
    w = chest_hopper_chest([("stone", 3)])
    got = run(w, 30, lambda: counts(w, SRC, HOP, DST))
    # tick 1: it pulls its first item; every 8 gt after, it pushes one on and pulls the next in the same tick
    assert got == [(0, (3, 0, 0)), (1, (2, 1, 0)), (9, (1, 1, 1)), (17, (0, 1, 2)), (25, (0, 0, 3))]


def test_it_pushes_from_its_first_filled_slot_into_the_first_slot_that_takes_the_item():
    w = World()
    w.set_block(DST, "chest")
    w.set_block(HOP, "hopper[facing=down]")
    w.set_items(HOP, [("dirt", 1), ("stone", 1)])
    w.set_items(DST, [("dirt", 64), ("stone", 3)])
    w.step(1)
    assert w.slots(HOP)[:2] == [None, ("stone", 1)]
    assert w.slots(DST)[:3] == [("dirt", 64), ("stone", 3), ("dirt", 1)]  # the full stack is passed over
    w.step(8)
    assert w.slots(DST)[:3] == [("dirt", 64), ("stone", 4), ("dirt", 1)]  # merged into the first stone stack
    assert w.items(HOP) == []


def test_a_full_container_in_front_holds_the_hopper_and_a_full_hopper_pulls_nothing():
    w = chest_hopper_chest([("stone", 5)])
    w.set_items(DST, [("stone", 64 * 27)])
    w.set_items(HOP, [("stone", 64 * 5)])
    w.step(20)
    assert counts(w, SRC, HOP, DST) == (5, 64 * 5, 64 * 27)


def test_an_empty_hopper_fed_by_a_hopper_moves_the_item_on_7_gt_later_whichever_ticks_first():
    for order in ((0, 1), (1, 0)):  # hoppers tick in the order they were placed
        w = World()
        w.set_block((1, 0, 0), "chest")
        spots = [((0, 1, 0), "hopper[facing=east]"), ((1, 1, 0), "hopper[facing=down]")]
        for i in order:
            w.set_block(*spots[i])
        w.set_items((0, 1, 0), [("stone", 2)])
        got = run(w, 20, lambda w=w: counts(w, (0, 1, 0), (1, 1, 0), (1, 0, 0)))
        assert got == [(0, (2, 0, 0)), (1, (1, 1, 0)), (8, (1, 0, 1)), (9, (0, 1, 1)), (16, (0, 0, 2))], order


def test_a_signal_locks_it_at_once_and_it_moves_again_the_tick_after_it_is_unlocked():
    w = chest_hopper_chest([("stone", 3)])
    w.set_block((1, 1, 0), "stone")
    w.set_block((1, 1, 1), "lever[face=wall,facing=south]")  # on the stone beside the hopper: it powers it
    w.use((1, 1, 1))
    assert w.get_block(HOP) == "minecraft:hopper[enabled=false,facing=down]"
    w.step(30)
    assert counts(w, SRC, HOP, DST) == (3, 0, 0)
    w.use((1, 1, 1))  # between ticks 30 and 31
    assert w.get_block(HOP) == "minecraft:hopper[enabled=true,facing=down]"
    got = run(w, 10, lambda: counts(w, SRC, HOP, DST))
    assert got == [(30, (3, 0, 0)), (31, (2, 1, 0)), (39, (1, 1, 1))]


def test_a_locked_hopper_still_takes_items_pushed_into_it():
    w = World()
    w.set_block((0, 0, 0), "hopper[facing=east]")
    w.set_block((0, 1, 0), "hopper[facing=down]")
    w.set_block((1, 0, 0), "chest")
    w.set_block((0, 0, 1), "redstone_block")
    w.set_items((0, 1, 0), [("stone", 2)])
    w.step(20)
    assert counts(w, (0, 1, 0), (0, 0, 0), (1, 0, 0)) == (0, 2, 0)


def test_furnaces_take_from_above_into_their_input_and_give_their_result_below():
    w = World()
    w.set_block((0, 3, 0), "hopper[facing=down]")
    w.set_block((0, 2, 0), "furnace")
    w.set_block((0, 1, 0), "hopper[facing=east]")
    w.set_block((1, 1, 0), "chest")
    w.set_items((0, 3, 0), [("iron_ore", 1)])
    w.set_items((0, 2, 0), [("stone", 1), ("coal", 2), ("iron_ingot", 2)])  # input, fuel, result
    w.step(1)
    # the hopper above adds to the input slot (merging needs the same item: it cannot), the one below takes
    # from the result slot; the fuel slot gives nothing downward but buckets
    assert w.slots((0, 2, 0)) == [("stone", 1), ("coal", 2), ("iron_ingot", 1)]
    w.set_items((0, 2, 0), [("coal", 0)])  # empty it
    w.step(8)
    assert w.slots((0, 2, 0)) == [("iron_ore", 1), None, None]
    assert w.items((1, 1, 0)) == [("iron_ingot", 1)]


def test_a_hopper_facing_a_furnace_side_holds_its_items():
    """The fuel slot would take fuels, which the engine does not list (docs/limits.md): it takes nothing."""
    w = World()
    w.set_block((0, 1, 0), "hopper[facing=east]")
    w.set_block((1, 1, 0), "furnace[facing=north]")
    w.set_items((0, 1, 0), [("coal", 3)])
    w.step(20)
    assert w.items((0, 1, 0)) == [("coal", 3)] and w.items((1, 1, 0)) == []


def test_a_comparator_reading_the_chest_sees_each_item_2_gt_after_it_arrives():
    w = chest_hopper_chest([("ender_pearl", 3)])  # 16 to a stack: one pearl in a chest reads 1
    w.set_block((0, -1, 0), "stone")
    w.set_block((1, -1, 0), "stone")
    w.set_block((1, 0, 0), "comparator[facing=west]")
    got = run(w, 12, lambda: w.output_signal((1, 0, 0)))
    assert got == [(0, 0), (11, 1)]  # the first pearl arrives at tick 9


def hopper_sorter(filter_item="bone"):
    """The usual hopper item sorter: a stream of hoppers (y=2) passes over a filter hopper F (y=1) that holds
    41 of the sorted item and one each of four items the stream never carries (comparator signal 2). F faces the
    comparator beside it, which feeds two dust and a third on the block a wall torch hangs on; the torch beside
    the lock hopper L (y=0) keeps it locked until a 42nd sorted item raises the signal to 3. L pulls that item
    from F and passes it to the sorted chest; everything else flows on to the overflow chest."""
    w = World()
    blocks = {
        (0, 3, 0): "chest",  # where the items come from
        (0, 2, 0): "hopper[facing=east]", (1, 2, 0): "hopper[facing=down]", (1, 1, 0): "chest",  # overflow
        (0, 1, 0): "hopper[facing=west]",  # F: facing the comparator, so it pushes nowhere
        (0, 0, 0): "hopper[facing=south]", (0, 0, 1): "chest",  # L and the sorted chest
        (-1, 0, 0): "stone", (-1, 1, 0): "comparator[facing=east]",
        (-2, 0, 0): "stone", (-2, 1, 0): "redstone_wire",
        (-2, 0, -1): "stone", (-2, 1, -1): "redstone_wire",
        (-1, 0, -1): "stone", (-1, 1, -1): "redstone_wire",
        (0, 0, -1): "redstone_wall_torch[facing=east]",
    }
    for p, s in blocks.items():
        w.set_block(p, s)
    w.set_items((0, 1, 0), [(filter_item, 41)] + [("bedrock", 1)] * 4)
    return w


def test_a_hopper_item_sorter_sorts_the_filtered_item_and_passes_the_others():
    w = hopper_sorter()
    w.step(4)
    assert w.get_block((0, 0, 0)) == "minecraft:hopper[enabled=false,facing=south]"
    assert w.output_signal((-1, 1, 0)) == 2
    w.set_items((0, 3, 0), [("bone", 2), ("cobblestone", 3), ("bone", 1), ("string", 2)])
    w.step(200)
    assert w.items((0, 3, 0)) == []
    assert sorted(w.items((1, 1, 0))) == [("cobblestone", 3), ("string", 2)]
    # the lock hopper holds the last sorted bone until the next one unlocks it (so it is in every such sorter)
    assert w.items((0, 0, 1)) == [("bone", 2)] and w.items((0, 0, 0)) == [("bone", 1)]
    assert w.slots((0, 1, 0)) == [("bone", 41)] + [("bedrock", 1)] * 4
    assert w.get_block((0, 0, 0)) == "minecraft:hopper[enabled=false,facing=south]"


def test_the_sorter_unlocks_4_gt_after_a_sorted_item_reaches_the_filter():
    w = hopper_sorter()
    w.step(4)
    w.set_items((0, 3, 0), [("bone", 1)])
    got = run(w, 30, lambda: (counts(w, (0, 2, 0), (0, 1, 0), (0, 0, 0)), prop(w, (0, 0, 0), "enabled"),
                              w.output_signal((-1, 1, 0))))
    # the stream hopper pulls the bone at 5 and the filter, placed after it, takes it in the same tick: signal 3
    # at 7, the dust powers the torch's block at once, the torch goes out at 9 and the lock hopper, unlocked,
    # takes the bone that tick; the signal is back to 2 at 11, the torch lit and the hopper locked at 13
    assert got == [(4, ((0, 45, 0), "false", 2)), (5, ((0, 46, 0), "false", 2)), (7, ((0, 46, 0), "false", 3)),
                   (9, ((0, 45, 1), "true", 3)), (11, ((0, 45, 1), "true", 2)), (13, ((0, 45, 1), "false", 2))]


def test_items_and_slots_show_the_gaps_hoppers_leave():
    w = chest_hopper_chest([("stone", 1), ("dirt", 1)])
    w.step(1)
    assert w.slots(SRC)[:2] == [None, ("dirt", 1)]
    assert w.items(SRC) == [("dirt", 1)]


CONTAINER_STATES = ["chest", "barrel", "hopper[facing=down]", "hopper[facing=east]", "hopper[facing=west]",
                    "hopper[facing=north]", "hopper[facing=south]"]
ITEMS = ["stone", "ender_pearl", "dirt"]
GRID = [(x, y, z) for x in range(3) for y in range(3) for z in range(3)]


@st.composite
def networks(draw):
    """A closed network: containers (and air) on a 3x3x3 grid, some holding items, and redstone blocks placed or
    taken away in the air cells at drawn ticks (locking and unlocking the hoppers beside them)."""
    blocks, items = {}, {}
    for p in GRID:
        s = draw(st.sampled_from(CONTAINER_STATES + ["air", "air"]))
        if s != "air":
            blocks[p] = s
            if draw(st.booleans()):
                items[p] = [(draw(st.sampled_from(ITEMS)), draw(st.integers(1, 40)))]
    toggles = draw(st.lists(st.tuples(st.integers(0, 79), st.sampled_from(GRID)), max_size=8))
    return blocks, items, sorted(toggles)


def build(blocks, items):
    w = World()
    for p, s in blocks.items():
        w.set_block(p, s)
    for p, it in items.items():
        w.set_items(p, it)
    return w


def toggle(w, p):
    b = w.get_block(p)
    if b == "minecraft:air":
        w.set_block(p, "redstone_block")
    elif b == "minecraft:redstone_block":
        w.set_block(p, "air")


def total(w, blocks):
    out: dict[str, int] = {}
    for p in blocks:
        for name, n in w.items(p):
            out[name] = out.get(name, 0) + n
    return out


@settings(max_examples=40, deadline=None)
@given(networks())
def test_property_items_are_conserved_and_runs_are_deterministic(net):
    blocks, items, toggles = net
    w, w2 = build(blocks, items), build(blocks, items)
    want = total(w, blocks)
    for t in range(80):
        for when, p in toggles:
            if when == t:
                toggle(w, p)
        w.step(1)
        assert total(w, blocks) == want
    # the same actions with long steps between them reach the same world: the engine stops where items move
    for when, p in toggles:
        w2.step(when - w2.tick)
        toggle(w2, p)
    w2.step(80 - w2.tick)
    assert all(w.slots(p) == w2.slots(p) for p in blocks)
    assert w.blocks() == w2.blocks()


def test_two_hoppers_facing_each_other_make_a_14_gt_clock():
    """One item passed back and forth: each hopper, empty when a hopper fills it, moves it on 7 gt later; a
    comparator reading one hopper is on for 7 gt in every 14."""
    w = World()
    for x in range(-2, 2):
        w.set_block((x, 0, 0), "stone")
    w.set_block((0, 1, 0), "hopper[facing=east]")
    w.set_block((1, 1, 0), "hopper[facing=west]")
    w.set_block((-1, 1, 0), "comparator[facing=east]")  # reads the hopper east of it
    w.set_items((0, 1, 0), [("stone", 1)])
    got = run(w, 60, lambda: w.output_signal((-1, 1, 0)))
    assert got == [(0, 0), (10, 1), (17, 0), (24, 1), (31, 0), (38, 1), (45, 0), (52, 1), (59, 0)]


def test_a_steady_stream_of_the_sorted_item_burns_the_torch_out_and_drains_the_filter():
    """Fed only the sorted item, the sorter unlocks its lock hopper for every item, one every 8 gt: the torch
    turns off for the 8th time within 60 gt at tick 65 and burns out (section 11). Burnt out, it stays off for
    160 gt, and the unlocked lock hopper keeps pulling from the filter, 41 bones and all, until the torch is
    lit again; each burn-out costs the filter bones, which end in the sorted chest."""
    w = hopper_sorter()
    w.step(4)
    w.set_items((0, 3, 0), [("bone", 64)])
    seen = w.events_total
    got = run(w, 616, lambda: on(w, (0, 0, -1)))
    offs = [t for t, lit in got if not lit]
    assert offs[:9] == [9, 17, 25, 33, 41, 49, 57, 65, 233]
    assert [(e.tick, e.pos) for e in w.events_since(seen, "burnout")] == [
        (65, (0, 0, -1)), (289, (0, 0, -1)), (513, (0, 0, -1))]
    assert (229, True) in got and (453, True) in got  # lit again once it is unpowered after its 160 gt
    assert w.items((1, 1, 0)) == []  # no bone reached the overflow chest
    assert w.slots((0, 1, 0)) == [("bone", 28)] + [("bedrock", 1)] * 4  # 13 of the filter's 41 are gone
    assert sum(n for _, n in w.items((0, 0, 1))) + sum(n for _, n in w.items((0, 0, 0))) == 64 + 13
