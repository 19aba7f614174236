"""Honey blocks (Java Edition 1.20): moved by a piston they bring along the blocks touching them, as slime does,
but honey and slime never stick to each other; what they bring counts toward the 12. A honey block is a partial
block (its shape covers no face whole), so nothing hangs on it and it conducts no power."""

import pytest
from redstone_helpers import new_world

from scicraft_viz import World
from scicraft_viz.errors import PlacementError

P, LEVER = (0, 1, 0), (0, 1, 1)


def names(w, *ps):
    return [w.get_block(p).removeprefix("minecraft:").split("[")[0] for p in ps]


def pushing(block, kind="sticky_piston"):
    """A piston facing east pushing `block`, which stands on obsidian (stone would come along)."""
    w = new_world()
    w.set_block(P, f"{kind}[facing=east]")
    w.set_block((1, 1, 0), block)
    w.set_block((1, 0, 0), "obsidian")
    w.set_block((2, 0, 0), "obsidian")
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    return w


def test_honey_carries_the_blocks_touching_it_and_a_sticky_piston_pulls_them_back():
    w = pushing("honey_block")
    w.set_block((1, 2, 0), "glass")
    w.set_block((1, 1, -1), "redstone_lamp")
    w.use(LEVER)
    w.step(3)
    assert names(w, (2, 1, 0), (2, 2, 0), (2, 1, -1), (1, 2, 0), (1, 1, -1)) == [
        "honey_block", "glass", "redstone_lamp", "air", "air"]
    w.use(LEVER)
    w.step(3)
    assert names(w, (1, 1, 0), (1, 2, 0), (1, 1, -1), (2, 1, 0)) == ["honey_block", "glass", "redstone_lamp", "air"]


@pytest.mark.parametrize("moved, beside", [("honey_block", "slime_block"), ("slime_block", "honey_block")])
def test_honey_and_slime_do_not_stick_to_each_other(moved, beside):
    w = pushing(moved)
    w.set_block((1, 2, 0), beside)  # on top: left behind
    w.set_block((1, 1, -1), "glass")  # beside: carried
    w.use(LEVER)
    w.step(3)
    assert names(w, (2, 1, 0), (1, 2, 0), (2, 2, 0), (2, 1, -1)) == [moved, beside, "air", "glass"]


def test_a_honey_structure_brings_slime_only_through_another_block():
    """Honey and slime each stick to a plain block between them: a flying-machine style chain."""
    w = pushing("honey_block")
    w.set_block((1, 2, 0), "stone")  # stuck to the honey below and the slime above
    w.set_block((1, 3, 0), "slime_block")
    w.use(LEVER)
    w.step(3)
    assert names(w, (2, 1, 0), (2, 2, 0), (2, 3, 0)) == ["honey_block", "stone", "air"]
    assert names(w, (1, 3, 0)) == ["slime_block"]  # the stone does not pull the slime: only sticky blocks pull


def test_honey_and_what_it_carries_count_toward_the_12():
    for stacked, moves in ((11, True), (12, False)):
        w = pushing("honey_block", "piston")
        for y in range(2, 2 + stacked):
            w.set_block((1, y, 0), "honey_block")
        w.use(LEVER)
        w.step(3)
        assert (w.get_block((2, 1, 0)) == "minecraft:honey_block") is moves


def test_honey_is_a_partial_block_nothing_hangs_on_and_it_conducts_nothing():
    w = World()
    w.set_block((0, 0, 0), "honey_block")
    assert w.get_block((0, 0, 0)) == "minecraft:honey_block"
    with pytest.raises(PlacementError):
        w.set_block((0, 1, 0), "redstone_wire")
    with pytest.raises(PlacementError):
        w.set_block((1, 0, 0), "lever[face=wall,facing=east]")
    w = new_world()
    w.set_block((0, 1, 0), "honey_block")
    w.set_block((0, 1, 2), "redstone_block")
    w.set_block((0, 1, 1), "redstone_repeater[facing=south]")  # points north into the honey
    w.set_block((0, 1, -1), "redstone_lamp")  # on its far side: dark (a stone there would light it)
    w.step(4)
    assert w.get_block((0, 1, -1)) == "minecraft:redstone_lamp[lit=false]"
    w.set_block((0, 1, 0), "stone")
    w.step(4)
    assert w.get_block((0, 1, -1)) == "minecraft:redstone_lamp[lit=true]"
