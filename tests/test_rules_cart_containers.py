"""Chest and hopper minecarts as containers (docs/redstone.md section 100): a hopper pulls from a container cart
in the cell above it and pushes into one in the cell it faces when no container block is there (vanilla
HopperBlockEntity.getContainerAt), on its usual 8 gt cooldown; a dropper fills one as it fills a chest; a hopper
minecart takes one item from the container above it every game tick (no cooldown) or picks up item entities, unless
a powered activator rail disabled it."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicraft_viz import World
from scicraft_viz.engine import carts
from scicraft_viz.errors import InputError


def _run(w, ticks, look):
    """The ticks at which `look()` changed, with its new value (tick 0: before the first step)."""
    out, last = [(w.tick, look())], look()
    for _ in range(ticks):
        w.step(1)
        now = look()
        if now != last:
            out.append((w.tick, now))
            last = now
    return out


def _count(slots):
    return sum(s[1] for s in slots if s is not None)


def _unloader(kind="chest_minecart", items=(("stone", 3),)):
    """A chest at y=0, a hopper over it facing down, a rail on the hopper with a container cart resting on it."""
    w = World()
    w.set_block((0, 0, 0), "chest")
    w.set_block((0, 1, 0), "hopper[facing=down]")
    w.set_block((0, 2, 0), "rail[shape=east_west]")
    w.spawn_minecart((0.5, 2.0625, 0.5), kind=kind, items=list(items))
    return w


def test_a_hopper_under_the_rails_empties_a_chest_minecart_one_item_every_8_gt():
    w = _unloader()
    got = _run(w, 30, lambda: (_count(w.minecarts()[0].slots), _count(w.slots((0, 1, 0))), _count(w.slots((0, 0, 0)))))
    assert got == [(0, (3, 0, 0)), (1, (2, 1, 0)), (9, (1, 1, 1)), (17, (0, 1, 2)), (25, (0, 0, 3))]
    assert w.slots((0, 0, 0))[0] == ("stone", 3)


def test_a_hopper_empties_a_hopper_minecart_above_it_too():
    w = _unloader("hopper_minecart", [("redstone", 2), ("stone", 1)])
    got = _run(w, 20, lambda: w.minecarts()[0].slots)
    assert got == [(0, (("redstone", 2), ("stone", 1), None, None, None)),
                   (1, (("redstone", 1), ("stone", 1), None, None, None)),
                   (9, (None, ("stone", 1), None, None, None)),
                   (17, (None, None, None, None, None))]
    assert w.items((0, 1, 0)) == [("stone", 1)] and w.items((0, 0, 0)) == [("redstone", 2)]


def test_a_hopper_fills_a_chest_minecart_in_the_cell_it_faces():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "rail[shape=east_west]")
    w.set_block((0, 2, 0), "hopper[facing=down]")
    w.set_items((0, 2, 0), [("stone", 2), ("dirt", 1)])
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="chest_minecart")
    got = _run(w, 20, lambda: w.minecarts()[0].slots[:2])
    assert got == [(0, (None, None)), (1, (("stone", 1), None)), (9, (("stone", 2), None)),
                   (17, (("stone", 2), ("dirt", 1)))]
    assert w.items((0, 2, 0)) == []


def test_a_full_chest_minecart_holds_the_hopper_that_faces_it():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "rail[shape=east_west]")
    w.set_block((0, 2, 0), "hopper[facing=down]")
    w.set_items((0, 2, 0), [("stone", 1)])
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="chest_minecart", items=[("stone", 64)] * 27)
    w.step(20)
    assert w.items((0, 2, 0)) == [("stone", 1)] and _count(w.minecarts()[0].slots) == 27 * 64


def test_a_container_block_comes_before_a_cart_and_the_first_cart_spawned_before_the_next():
    w = _unloader(items=[("stone", 1)])
    w.spawn_minecart((0.5, 2.0625, 0.5), kind="chest_minecart", items=[("dirt", 1)])
    w.step(30)  # the first cart spawned is the one the hopper sees, even empty (vanilla: one at random each time)
    assert w.items((0, 0, 0)) == [("stone", 1)] and w.items((0, 1, 0)) == []
    assert [c.slots[0] for c in w.minecarts()] == [None, ("dirt", 1)]
    w2 = World()
    w2.set_block((0, 0, 0), "hopper[facing=down]")
    w2.set_block((0, 1, 0), "chest")
    w2.set_items((0, 1, 0), [("dirt", 1)])
    w2.spawn_minecart((0.5, 1.0625, 0.5), kind="chest_minecart", items=[("stone", 1)])  # inside the chest's cell
    w2.step(1)
    assert w2.items((0, 0, 0)) == [("dirt", 1)] and w2.minecarts()[0].slots[0] == ("stone", 1)


def test_a_dropper_puts_its_item_into_a_chest_minecart_in_front():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "rail[shape=east_west]")
    w.set_block((1, 1, 0), "dropper[facing=west]")
    w.set_items((1, 1, 0), [("stone", 2)])
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="chest_minecart")
    w.step(1)
    w.set_block((2, 1, 0), "redstone_block")
    w.step(6)
    assert w.minecarts()[0].slots[0] == ("stone", 1) and w.items((1, 1, 0)) == [("stone", 1)]
    assert w.item_entities() == []


def _cart_under_chest(items=(("stone", 3),), rail="rail[shape=east_west]"):
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), rail)
    w.set_block((0, 2, 0), "chest")
    w.set_items((0, 2, 0), list(items))
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="hopper_minecart")
    return w


def test_a_hopper_minecart_pulls_one_item_from_the_container_above_every_game_tick():
    w = _cart_under_chest([("stone", 2), ("dirt", 1)])
    got = _run(w, 6, lambda: (w.items((0, 2, 0)), w.minecarts()[0].slots[:2]))
    assert got == [(0, ([("stone", 2), ("dirt", 1)], (None, None))),
                   (1, ([("stone", 1), ("dirt", 1)], (("stone", 1), None))),
                   (2, ([("dirt", 1)], (("stone", 2), None))),
                   (3, ([], (("stone", 2), ("dirt", 1))))]


def test_a_powered_activator_rail_disables_a_hopper_minecart_and_an_unpowered_one_enables_it():
    w = _cart_under_chest([("stone", 5)], "activator_rail[shape=east_west]")
    w.set_block((1, 1, 0), "redstone_block")
    w.step(5)
    assert w.minecarts()[0].enabled is False and w.items((0, 2, 0)) == [("stone", 5)]
    w.set_block((1, 1, 0), "stone")
    w.step(1)  # the rail is unpowered: in its next tick the cart is enabled again and takes an item
    assert w.minecarts()[0].enabled is True and w.items((0, 2, 0)) == [("stone", 4)]
    w2 = World()
    w2.set_block((0, 0, 0), "stone")
    w2.set_block((0, 1, 0), "rail[shape=east_west]")
    w2.spawn_minecart((0.5, 1.0625, 0.5), kind="hopper_minecart", enabled=False)
    w2.spawn_item("stone", 3, (0.5, 1.2, 0.5))
    w2.step(3)
    assert w2.minecarts()[0].enabled is False and [e.count for e in w2.item_entities()] == [3]


def test_a_hopper_minecart_picks_up_item_entities_beside_it_and_above_a_solid_block():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "rail[shape=east_west]")
    w.set_block((0, 2, 0), "stone")  # a solid block above does not stop a cart (vanilla: not grid-aligned)
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="hopper_minecart", items=[("stone", 60)] + [("dirt", 64)] * 4)
    w.spawn_item("stone", 10, (0.5, 3.0, 0.5))  # resting on the block above: inside the cart's suck column
    w.step(1)
    # 4 fit: the rest stays as a smaller stack
    assert w.minecarts()[0].slots[0] == ("stone", 64) and [e.count for e in w.item_entities()] == [6]
    w2 = World()
    w2.set_block((0, 0, 0), "stone")
    w2.set_block((0, 1, 0), "rail[shape=east_west]")
    w2.set_block((1, 0, 0), "stone")
    w2.spawn_minecart((0.5, 1.0625, 0.5), kind="hopper_minecart")
    w2.spawn_item("redstone", 7, (1.2, 1.0, 0.5))  # its box starts 0.085 beyond the cart's: within its 0.25 reach
    w2.step(1)
    assert w2.item_entities() == [] and w2.minecarts()[0].slots[0] == ("redstone", 7)


def test_a_comparator_follows_a_filling_hopper_minecart_at_each_detector_recheck():
    """A hopper cart resting on a detector rail under a chest of 5 stacks: it gains an item a tick; the comparator
    behind the rail hears of it only when the rail re-checks (every 20 gt from tick 1) and reads the cart 2 gt
    later: level 1 + floor(14 x items / 320)."""
    w = World.from_blocks([((x, 0, z), "stone") for x in range(5) for z in range(3)]
                          + [((x, 1, 0), "rail[shape=east_west]") for x in (0, 1, 3, 4)]
                          + [((2, 1, 0), "detector_rail[shape=east_west]"), ((2, 1, 1), "comparator[facing=north]"),
                             ((2, 1, 2), "redstone_lamp"), ((2, 2, 0), "chest")])
    w.set_items((2, 2, 0), [("stone", 64)] * 5)
    w.spawn_minecart((2.5, 1.0625, 0.5), kind="hopper_minecart")
    got = _run(w, 330, lambda: w.output_signal((2, 1, 1)))
    assert got == [(0, 0), (23, 1), (43, 2), (63, 3), (83, 4), (103, 5), (123, 6), (143, 7), (163, 8), (203, 9),
                   (223, 10), (243, 11), (263, 12), (283, 13), (303, 14), (323, 15)]
    assert _count(w.minecarts()[0].slots) == 320 and w.items((2, 2, 0)) == []


def test_a_hopper_minecarts_enabled_flag_is_saved_and_read_back():
    from nbtlib import Byte, Compound, Double, List, String

    spec = carts.check_cart("hopper_minecart", (0.5, 1.0625, 0.5), (0, 0, 0), [("stone", 2)], "t", enabled=False)
    tag = carts.to_nbt(spec, (0.5, 1.0625, 0.5))
    assert tag["Enabled"] == Byte(0)

    def fail(msg):
        return InputError(msg)

    back = carts.from_data(tag, tag["Pos"], (0, 0, 0), "e", "Pos", "e", "test", fail)
    assert back.enabled is False and back.slots[0] == ("stone", 2)
    assert carts.from_data(Compound({"id": String("minecraft:hopper_minecart")}), List[Double]([Double(0.5)] * 3),
                           (0, 0, 0), "e", "Pos", "e", "test", fail).enabled is True
    bad = Compound({"id": String("minecraft:hopper_minecart"), "Enabled": String("yes")})
    with pytest.raises(InputError, match=r"e\.Enabled \(hopper_minecart\) is a String"):
        carts.from_data(bad, List[Double]([Double(0.5)] * 3), (0, 0, 0), "e", "Pos", "e", "test", fail)
    with pytest.raises(InputError, match="only a hopper minecart can be disabled, not a chest_minecart"):
        World().spawn_minecart((0.5, 1, 0.5), kind="chest_minecart", enabled=False)
    with pytest.raises(InputError, match="enabled must be True or False, got 1"):
        World().spawn_minecart((0.5, 1, 0.5), kind="hopper_minecart", enabled=1)


def test_a_disabled_hopper_minecart_survives_a_structure_file_and_a_trace(tmp_path):
    from scicraft_viz.engine import tracefile

    w = _cart_under_chest([("stone", 5)], "activator_rail[shape=east_west]")
    w.set_block((1, 1, 0), "redstone_block")
    tr = w.record(3)
    f = tmp_path / "t.trace.json"
    tracefile.save(tr, f)
    assert [c.enabled for c in tracefile.load(f).carts[-1]] == [False]
    for path, write in ((tmp_path / "b.schem", w.to_schem), (tmp_path / "b.litematic", w.to_litematic)):
        write(path)
        back = World.from_build_file(path)
        assert [(c.kind, c.enabled, c.slots) for c in back.minecarts()] == [("hopper_minecart", False, (None,) * 5)]


_ITEMS = st.sampled_from(["stone", "dirt", "ender_pearl", "redstone"])
_STACK = {"stone": 64, "dirt": 64, "ender_pearl": 16, "redstone": 64}


@st.composite
def _slots(draw, n):
    out = []
    for _ in range(n):
        name = draw(st.one_of(st.none(), _ITEMS))
        out.append(None if name is None else (name, draw(st.integers(1, _STACK[name]))))
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(top=_slots(27), hop=_slots(5), bottom=_slots(5), loose=st.lists(st.tuples(_ITEMS, st.integers(1, 16)),
                                                                    max_size=3), ticks=st.integers(1, 40))
def test_items_are_conserved_between_hoppers_carts_and_item_entities(top, hop, bottom, loose, ticks):
    """A chest cart on a rail on a hopper that faces down into a hopper cart, which also pulls from that hopper,
    with item entities beside the hopper cart: whatever moves, every item is somewhere, once."""
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "rail[shape=east_west]")
    w.set_block((0, 2, 0), "hopper[facing=down]")
    w.set_block((0, 3, 0), "rail[shape=east_west]")
    w.set_items((0, 2, 0), hop)
    w.spawn_minecart((0.5, 3.0625, 0.5), kind="chest_minecart", items=top)
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="hopper_minecart", items=bottom)
    for name, n in loose:
        w.spawn_item(name, min(n, _STACK[name]), (0.5, 1.0, 1.3))

    def totals():
        out = {}
        stacks = [s for c in w.minecarts() for s in c.slots] + w.slots((0, 2, 0))
        for s in stacks:
            if s is not None:
                out[s[0]] = out.get(s[0], 0) + s[1]
        for e in w.item_entities():
            out[e.item] = out.get(e.item, 0) + e.count
        return out

    before = totals()
    for _ in range(ticks):
        w.step(1)
        assert totals() == before
    for c in w.minecarts():
        assert all(s is None or 1 <= s[1] <= _STACK[s[0]] for s in c.slots)
