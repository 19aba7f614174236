"""Droppers and dispensers as components (Java Edition 1.20, vanilla DispenserBlock): a rising edge of power,
quasi-connectivity included, marks one `triggered` and fires it 4 gt later. A dropper moves one item from its
first filled slot into the container it faces (kept when that container cannot take it), or throws it out as an
item entity when none is there; a dispenser always throws it (its special items are not simulated)."""

import pytest
from redstone_helpers import prop, run

from scicraft_viz import World

D, FRONT, LEVER = (0, 1, 0), (1, 1, 0), (0, 1, 1)


def dropper(kind="dropper", front="chest", items=(("stone", 3),)):
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block(D, f"{kind}[facing=east]")
    if front:
        w.set_block(FRONT, front)
    w.set_block((0, 0, 1), "stone")
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_items(D, list(items))
    return w


def count(w, p):
    return sum(n for _, n in w.items(p))


def test_a_rising_edge_fires_it_4_gt_later_moving_one_item_into_the_container_it_faces():
    w = dropper()
    w.use(LEVER)  # between ticks 0 and 1
    assert prop(w, D, "triggered") == "true"
    got = run(w, 10, lambda: (count(w, D), count(w, FRONT)))
    assert got == [(0, (3, 0)), (4, (2, 1))]
    w.step(20)
    assert (count(w, D), count(w, FRONT)) == (2, 1)  # it stays on: no second firing
    w.use(LEVER)
    assert prop(w, D, "triggered") == "false"
    w.use(LEVER)
    w.step(4)
    assert (count(w, D), count(w, FRONT)) == (1, 2)


def test_quasi_connectivity_fires_it_as_it_moves_a_piston():
    w = World()
    w.set_block(D, "dropper[facing=east]")
    w.set_block(FRONT, "chest")
    w.set_block((0, 2, 0), "glass")
    w.set_block((0, 3, 0), "lever[face=floor,facing=north]")  # on the glass above the dropper
    w.set_items(D, 2)
    w.use((0, 3, 0))
    w.step(4)
    assert count(w, FRONT) == 1


def test_a_signal_two_above_waits_for_an_update_bud():
    w = World()
    w.set_block(D, "dropper[facing=east]")
    w.set_block(FRONT, "chest")
    w.set_items(D, 2)
    w.set_block((1, 2, 0), "redstone_block")  # beside the space above: powers it, but updates only its neighbours
    w.step(10)
    assert prop(w, D, "triggered") == "false" and count(w, FRONT) == 0
    w.set_block((-1, 1, 0), "glass")  # a block placed beside the dropper updates it
    w.step(4)
    assert count(w, FRONT) == 1


def test_it_takes_from_its_first_filled_slot():
    w = dropper(items=[("dirt", 1), ("stone", 2)])
    for _ in range(3):
        w.use(LEVER)
        w.step(5)
        w.use(LEVER)
        w.step(1)
    assert w.items(FRONT) == [("dirt", 1), ("stone", 2)]


def test_a_dropper_keeps_the_item_a_full_container_cannot_take():
    w = dropper(front="hopper[facing=down]")
    w.set_block((1, 0, 0), "stone")  # the hopper points into stone: it keeps what it is given
    w.set_items(FRONT, [("dirt", 64 * 5)])
    w.use(LEVER)
    w.step(4)
    assert count(w, D) == 3


@pytest.mark.parametrize("kind, front, left, moved", [
    ("dropper", None, 2, 0),  # nothing in front: the item is thrown out as an item entity
    ("dispenser", "chest", 2, 0),  # a dispenser never fills a container: it throws the item
])
def test_items_fired_into_the_world_become_item_entities(kind, front, left, moved):
    w = dropper(kind, front)
    w.use(LEVER)
    w.step(4)
    assert count(w, D) == left
    assert [(e.item, e.count) for e in w.item_entities()] == [("stone", 1)]
    if front:
        assert count(w, FRONT) == moved


def test_an_empty_dropper_fires_and_nothing_moves():
    w = dropper(items=())
    w.use(LEVER)
    w.step(4)
    assert prop(w, D, "triggered") == "true" and w.items(FRONT) == []


def test_a_dropper_feeding_an_empty_hopper_sees_it_move_the_item_on_7_gt_later():
    w = dropper(front="hopper[facing=east]")
    w.set_block((2, 1, 0), "chest")
    w.use(LEVER)
    got = run(w, 15, lambda: (count(w, D), count(w, FRONT), count(w, (2, 1, 0))))
    assert got == [(0, (3, 0, 0)), (4, (2, 1, 0)), (11, (2, 0, 1))]


def test_an_observer_sees_triggered_change():
    w = dropper()
    w.set_block((0, 1, -1), "observer[facing=south]")  # watches the dropper
    w.use(LEVER)
    got = run(w, 6, lambda: prop(w, (0, 1, -1), "powered"))
    assert got == [(0, "false"), (2, "true"), (4, "false")]


def test_a_dropper_counts_items_with_a_comparator():
    """An item counter: each press of a button fires the dropper into a hopper that points into stone; the
    comparator reading the hopper rises with each item (a 64-stack item: 1 + floor(14 * n / 320))."""
    w = dropper(front="hopper[facing=down]", items=[("stone", 64)])
    w.set_block((1, 0, 0), "stone")
    w.set_block((2, 0, 0), "stone")
    w.set_block((2, 1, 0), "comparator[facing=west]")
    for _ in range(23):
        w.use(LEVER)
        w.step(5)
        w.use(LEVER)
        w.step(1)
    w.step(2)
    assert count(w, FRONT) == 23 and w.output_signal((2, 1, 0)) == 2
