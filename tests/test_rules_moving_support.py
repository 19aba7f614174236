"""docs/redstone.md section 80: a moving block at the end of its move holds what rests on it as the block itself
will, so a rail carried up on a block lands on it whole."""

from __future__ import annotations

import pytest

from scicraft_viz import World

RAIL = "minecraft:activator_rail[powered=false,shape=north_south,waterlogged=false]"


@pytest.mark.parametrize("under", ["minecraft:stone", "minecraft:observer[facing=east,powered=false]"])
def test_a_rail_pushed_up_on_its_block_lands_on_it(under):
    w = World.from_blocks([((0, 0, 0), "minecraft:piston[facing=up]"), ((0, 1, 0), under), ((0, 2, 0), RAIL)])
    w.set_block((1, 0, 0), "minecraft:redstone_block")
    w.step(1)
    assert w.get_block((0, 3, 0)).startswith("minecraft:moving_piston")
    w.step(3)
    assert w.get_block((0, 2, 0)) == under
    assert w.get_block((0, 3, 0)) == RAIL


def test_a_rail_whose_block_is_pulled_away_from_under_it_pops():
    """Only the end of a move holds: the rail stays where it was while its block is carried off, and pops."""
    w = World.from_blocks([((0, 0, 0), "minecraft:sticky_piston[facing=east]"), ((1, 0, 0), "minecraft:stone"),
                           ((1, 1, 0), RAIL)])
    w.set_block((0, 1, 0), "minecraft:redstone_block")  # quasi-connectivity aside, this powers the piston directly
    w.step(4)
    assert w.get_block((1, 0, 0)) == "minecraft:piston_head[facing=east,short=false,type=sticky]"
    assert w.get_block((2, 0, 0)) == "minecraft:stone"
    assert w.get_block((1, 1, 0)) == "minecraft:air"
