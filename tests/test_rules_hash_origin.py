"""docs/redstone.md section 77: the hash origin. Vanilla walks some hash maps of block positions (the places a
piston's push leaves) in the order of each position's hash, which the game computes on the absolute position; a
World hashes its positions plus its hash origin, the place its (0, 0, 0) stands in the game's world."""

from __future__ import annotations

import pytest

from scicraft_viz import World
from scicraft_viz.engine import kernels as sim
from scicraft_viz.errors import PositionError


def test_a_new_world_stands_at_the_origin_and_set_hash_origin_moves_it():
    w = World()
    assert w.hash_origin == (0, 0, 0)
    w.set_hash_origin((15, -64, 0))
    assert w.hash_origin == (15, -64, 0)
    w.set_block((0, 0, 0), "stone")  # the grid grows: the origin stays
    assert w.hash_origin == (15, -64, 0)
    assert w.copy().hash_origin == (15, -64, 0)


@pytest.mark.parametrize("bad", ["0,100,0", (0, 100), (0.5, 1, 2), (True, 0, 0), (0, 40_000_000, 0), None])
def test_a_hash_origin_that_is_not_a_position_is_refused_with_a_message_naming_it(bad):
    w = World()
    with pytest.raises(PositionError, match="set_hash_origin"):
        w.set_hash_origin(bad)
    assert w.hash_origin == (0, 0, 0)


def left_order(origin: tuple[int, int, int], places: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The order the engine walks the places a push leaves (kernels.left_in_map_order), put in this order."""
    w = World()
    w.set_blocks([(p, "stone") for p in places])
    w.set_hash_origin(origin)
    g = w.g
    cells = [w._find(p) for p in places]
    g.queue[: len(cells)] = cells
    sim.left_in_map_order(g, len(cells))
    return [tuple(int(v) for v in g.P[c]) for c in g.comp[sim.Q_DEST : sim.Q_DEST + len(cells)]]


def test_the_places_a_push_leaves_follow_a_java_hashmap_of_world_positions():
    """A slime block's five places (itself and four stuck blocks), put in the push's order. Vec3i.hashCode is
    (y + 31 z) 31 + x and HashMap spreads it as h ^ (h >>> 16), 16 buckets: at (0, 0, 0) their buckets are 1, 0,
    2, 15, 2, a world 100 blocks up puts them in 13, 12, 14, 12, 14. A bucket keeps the order its keys came in."""
    places = [(2, 1, 0), (2, 2, 0), (2, 0, 0), (2, 1, -1), (2, 1, 1)]
    assert left_order((0, 0, 0), places) == [(2, 2, 0), (2, 1, 0), (2, 0, 0), (2, 1, 1), (2, 1, -1)]
    assert left_order((0, 100, 0), places) == [(2, 2, 0), (2, 1, -1), (2, 1, 0), (2, 0, 0), (2, 1, 1)]


def test_the_hash_is_taken_in_32_bit_arithmetic_far_from_the_origin():
    """Near the world border Vec3i.hashCode overflows a Java int: (70 + 31 x 29,999,999) x 31 + 5 = 28,830,001,214
    wraps to 3,060,197,438 (the int -1,234,769,858), whose spread value (h ^ (h >>> 16)) ends in bucket 8 of 16
    and 24 of 64."""
    assert sim.java_bucket(5, 70, 29_999_999, 16) == 8
    assert sim.java_bucket(5, 70, 29_999_999, 64) == 24
