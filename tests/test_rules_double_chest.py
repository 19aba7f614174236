"""Double chests: two chest halves (type=left/right) a comparator reads as one 54-slot inventory."""

import pytest
from redstone_helpers import new_world, on

from scicraft_viz import World
from scicraft_viz.engine.blocks import CHEST
from scicraft_viz.engine.containers import fill_level

REAR, C, OUT = (0, 1, 0), (1, 1, 0), (2, 1, 0)
FAR = (0, 1, -1)  # clockwise of west (north): where a west-facing left half's partner stands
STACKS = [("stone", 64)]


def output(w):
    return on(w, C), w.power(C).level


def chests(w, near="chest[facing=west,type=left]", far="chest[facing=west,type=right]"):
    w.set_block(REAR, near)
    w.set_block(FAR, far)
    w.set_block(C, "comparator[facing=west]")
    w.set_block(OUT, "redstone_lamp")


def test_a_comparator_reads_both_halves_as_54_slots_two_game_ticks_after_either_changes():
    w = new_world()
    chests(w)
    w.set_items(FAR, STACKS * 10)  # the half the comparator is not behind
    assert w.fill_level(REAR) == w.fill_level(FAR) == 3  # 1 + floor(14 * 10 / 54 = 2.59); alone it would be 6
    t = w.tick
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(t + 2, C)]
    w.step(1)
    assert output(w) == (False, 0)
    w.step(1)
    assert output(w) == (True, 3) and on(w, OUT)
    w.set_items(REAR, STACKS * 17)  # 27 of 54 slots full
    w.step(1)
    assert output(w) == (True, 3)
    w.step(1)
    assert output(w) == (True, 8)  # 1 + floor(14 * 27 / 54 = 7)
    assert w.items(REAR) == STACKS * 17 and w.items(FAR) == STACKS * 10  # each half keeps its own slots


def test_the_sum_runs_over_the_right_half_first_in_32_bit_floats():
    w = new_world()
    chests(w)
    w.set_items(FAR, [("ender_pearl", 1)] * 27)
    w.set_items(REAR, [("stone", 1)] * 27)
    # right half (FAR) then left half, as vanilla's compound container orders them
    assert w.fill_level(REAR) == fill_level(tuple([("ender_pearl", 1)] * 27 + [("stone", 1)] * 27), CHEST, size=54)


@pytest.mark.parametrize("near, far", [
    ("chest[facing=west,type=left]", "chest[facing=east,type=right]"),  # facing differs
    ("chest[facing=west,type=left]", "chest[facing=west,type=left]"),  # both left
    ("chest[facing=west,type=left]", "chest[facing=west,type=single]"),  # the neighbour is single
    ("chest[facing=west,type=right]", "chest[facing=west,type=left]"),  # a right half pairs counter-clockwise (south)
])
def test_halves_that_do_not_match_are_single_chests(near, far):
    w = new_world()
    chests(w, near, far)
    w.set_items(FAR, STACKS * 10)
    w.set_items(REAR, STACKS * 5)
    assert w.fill_level(FAR) == 6 and w.fill_level(REAR) == 3  # 10 and 5 of 27 slots
    w.step(2)
    assert output(w) == (True, 3)


def test_placing_or_removing_a_half_changes_the_level_but_tells_no_comparator():
    w = new_world()
    w.set_block(REAR, "chest[facing=west,type=left]")
    w.set_block(C, "comparator[facing=west]")
    w.set_items(REAR, STACKS * 17)
    w.step(2)
    assert output(w) == (True, 9)  # alone: 1 + floor(14 * 17 / 27 = 8.8)
    w.set_block(FAR, "chest[facing=west,type=right]")
    assert w.fill_level(REAR) == 5  # 1 + floor(14 * 17 / 54 = 4.4)
    assert w.scheduled() == []  # the new half's neighbours hear of it; the comparator is not one of them
    w.step(4)
    assert output(w) == (True, 9)
    w.set_block((1, 1, 1), "stone")  # any update makes the comparator read again
    w.step(2)
    assert output(w) == (True, 5)
    w.remove_block(FAR)
    assert w.fill_level(REAR) == 9 and w.scheduled() == []


def test_double_chests_round_trip_through_build_files(tmp_path):
    from scicraft_viz.engine.formats import write_build

    w = World(replay=True)
    w.set_block(REAR, "chest[facing=west,type=left]")
    w.set_block(FAR, "chest[facing=west,type=right]")
    w.set_items(FAR, STACKS * 10)
    # schematics keep world coordinates; a structure counts from its lowest corner, FAR's
    for name, shift in (("d.litematic", (0, 0, 0)), ("d.schem", (0, 0, 0)), ("d.nbt", (0, -1, 1))):
        write_build(w, tmp_path / name)
        back = World.from_build_file(tmp_path / name)
        near, far = (tuple(a + b for a, b in zip(p, shift)) for p in (REAR, FAR))
        assert back.get_block(near) == "minecraft:chest[facing=west,type=left,waterlogged=false]"
        assert back.contents() == {far: STACKS * 10} and back.fill_level(near) == 3


def double_chest(w, y):
    """A double chest facing west at y: its left half at REAR's x and z, its right half at FAR's."""
    w.set_block((REAR[0], y, REAR[2]), "chest[facing=west,type=left]")
    w.set_block((FAR[0], y, FAR[2]), "chest[facing=west,type=right]")


def test_a_hopper_under_either_half_pulls_from_the_right_half_first():
    """Vanilla's hopper sees a double chest as one container of 54 slots, the right half's first: a hopper
    under the left half takes the right half's items before its own half's."""
    w = new_world()
    double_chest(w, 2)
    w.set_block(REAR, "hopper[facing=east]")  # under the left half, facing the comparator spot (no container)
    w.set_items((REAR[0], 2, REAR[2]), [("dirt", 2)])
    w.set_items((FAR[0], 2, FAR[2]), [None, ("stone", 1)])
    w.step(1)
    assert w.items(REAR) == [("stone", 1)] and w.items((FAR[0], 2, FAR[2])) == []
    w.step(8)
    assert w.items(REAR) == [("stone", 1), ("dirt", 1)] and w.items((REAR[0], 2, REAR[2])) == [("dirt", 1)]


def test_a_hopper_or_dropper_fills_a_double_chest_right_half_first():
    """Into a double chest an item goes to the first of its 54 slots that takes it: the right half's first,
    whichever half the hopper or dropper faces; once the right half is full, the left half's."""
    w = new_world()
    double_chest(w, 1)
    w.set_block((REAR[0] + 1, 1, REAR[2]), "hopper[facing=west]")  # east of the left half, facing it
    w.set_items((REAR[0] + 1, 1, REAR[2]), [("dirt", 1)])
    w.step(1)
    assert w.items(FAR) == [("dirt", 1)] and w.items(REAR) == []
    w.set_items(FAR, [("stone", 64)] * 27)
    w.set_block((REAR[0], 1, REAR[2] + 1), "dropper[facing=north]")  # south of the left half, facing it
    w.set_items((REAR[0], 1, REAR[2] + 1), [("dirt", 1)])
    w.set_block((REAR[0] - 1, 1, REAR[2] + 1), "lever[face=floor,facing=north]")
    w.use((REAR[0] - 1, 1, REAR[2] + 1))
    w.step(4)
    assert w.items(REAR) == [("dirt", 1)]
