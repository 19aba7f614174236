"""The order of the updates one piston move sends (Java Edition 1.20 PistonBaseBlock.moveBlocks and
PistonMovingBlockEntity), seen through races: two pistons facing one empty cell, whose block events run in
the order they were queued, so the first one told extends and the other finds a moving_piston in its way;
or two ticks due together, which run in the order they were scheduled."""

import pytest
from redstone_helpers import new_world, run

from scicraft_viz import World


def extended(w, pos):
    return "extended=true" in w.get_block(pos)


def winner(w, a, b):
    """Which of the two racing pistons at a and b extended: 'a', 'b', or None."""
    ea, eb = extended(w, a), extended(w, b)
    assert not (ea and eb)
    return "a" if ea else "b" if eb else None


def bud(w, pos, facing):
    """A piston that quasi-connectivity powers (a redstone block two above it), still retracted: it moves
    at the first neighbour update that reaches it."""
    w.set_block(pos, f"piston[facing={facing}]")
    x, y, z = pos
    w.set_block((x, y + 2, z), "redstone_block")


def test_a_push_updates_where_the_blocks_go_only_when_they_arrive():
    """moveBlocks updates the neighbours of the places the blocks leave and of the head, not of the
    places they go to: a piston beside the far place hears of the push when the stone arrives there (end of
    tick 3), so its block event runs in tick 4."""
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((1, 1, 0), "stone")
    bud(w, (2, 1, -1), "north")  # beside (2, 1, 0), where the stone goes
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.step(2)
    assert not extended(w, (2, 1, -1))
    w.use((0, 1, 1))
    got = run(w, 8, lambda: (w.get_block((2, 1, 0)).removeprefix("minecraft:"), extended(w, (2, 1, -1))))
    assert got == [(2, ("air", False)), (3, ("moving_piston[facing=east,type=normal]", False)),
                   (5, ("stone", False)), (6, ("stone", True))]


def test_a_sticky_pull_updates_where_the_block_goes_only_when_it_arrives():
    """A sticky piston's pull sends the updates of the place the block leaves; the place it goes to, where
    the head was (removed without updates), hears of it when the block arrives."""
    w = new_world()
    w.set_block((0, 1, 0), "sticky_piston[facing=east]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.use((0, 1, 1))
    w.step(4)
    assert w.get_block((2, 1, 0)) == "minecraft:stone"
    bud(w, (1, 1, -1), "north")  # beside the head, where the stone comes back to
    w.use((0, 1, 1))  # the pull starts in tick 5, the stone is back at the end of tick 7
    got = run(w, 8, lambda: (w.get_block((1, 1, 0)).removeprefix("minecraft:"), extended(w, (1, 1, -1))))
    assert got == [(4, ("piston_head[facing=east,short=false,type=sticky]", False)),
                   (5, ("moving_piston[facing=east,type=normal]", False)), (7, ("stone", False)),
                   (8, ("stone", True))]


def test_the_places_left_are_updated_last_block_first():
    """moveBlocks updates the places the blocks left from the last block of the push to the first: of two
    pistons racing into one cell, the one beside the far end of a line of three is told first and wins."""
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    for x in (1, 2, 3):
        w.set_block((x, 1, 0), "stone")
    bud(w, (3, 1, 1), "west")  # beside the third stone, facing the cell (2, 1, 1)
    bud(w, (1, 1, 1), "east")  # beside the first stone, facing the same cell
    w.set_block((0, 1, -1), "lever[face=floor,facing=north]")
    w.step(2)
    w.use((0, 1, -1))
    w.step(4)
    assert winner(w, (3, 1, 1), (1, 1, 1)) == "a"
    assert w.get_block((2, 1, 1)) == "minecraft:piston_head[facing=west,short=false,type=normal]"


@pytest.mark.parametrize("shift", [(0, 0), (1, 0)])
def test_the_places_left_send_their_shape_updates_in_vanillas_hashmap_order(shift):
    """A slime block carries a stone on each side; the two places they leave are emptied and send shape
    updates in the order vanilla's HashMap of positions iterates (bucket by bucket of their hash codes),
    which depends on where the build stands. An observer above each place fires a piston; the first one to
    fire wins the race for the cell between them. At (0, 0) the north place comes first, at (1, 0) the
    south one."""
    dx, dz = shift
    w = World()

    def at(x, y, z):
        return (x + dx, y, z + dz)

    w.set_block(at(0, 1, 0), "piston[facing=east]")
    w.set_block(at(1, 1, 0), "slime_block")
    w.set_block(at(1, 1, -1), "stone")
    w.set_block(at(1, 1, 1), "stone")
    w.set_block(at(1, 2, -1), "observer[facing=down]")  # watches the north stone's place
    w.set_block(at(1, 2, 1), "observer[facing=down]")  # watches the south stone's place
    w.set_block(at(1, 3, -1), "piston[facing=south]")  # behind the north observer, facing (1, 3, 0)
    w.set_block(at(1, 3, 1), "piston[facing=north]")  # behind the south observer, facing (1, 3, 0)
    w.set_block(at(-1, 0, 0), "stone")
    w.set_block(at(-1, 1, 0), "lever[face=floor,facing=north]")
    w.step(2)
    w.use(at(-1, 1, 0))  # the push starts in tick 3, the observers fire in tick 5 (a 2 gt pulse)
    w.step(3)
    assert w.get_block(at(2, 1, 1)) == "minecraft:stone"  # the push happened
    assert winner(w, at(1, 3, -1), at(1, 3, 1)) == ("a" if shift == (0, 0) else "b")


def test_observers_watching_one_place_hear_it_west_east_north_south_down_up():
    """Shape updates reach a block's neighbours west, east, north, south, down, up: of an observer west of
    a place and one north of it, the west one is scheduled first and fires first."""
    w = new_world()
    w.set_block((-1, 1, 0), "observer[facing=east]")  # west of (0, 1, 0), its back toward (-2, 1, 0)
    w.set_block((0, 1, -1), "observer[facing=south]")  # north of it, its back toward (0, 1, -2)
    w.set_block((-2, 1, 0), "stone")
    w.set_block((0, 1, -2), "stone")
    w.set_block((-2, 1, -1), "piston[facing=north]")  # beside the west observer's stone, facing (-2, 1, -2)
    w.set_block((-1, 1, -2), "piston[facing=west]")  # beside the north observer's stone, facing the same cell
    w.step(2)
    w.set_block((0, 1, 0), "stone")  # both observers see it and fire in tick 4, for 2 gt
    w.step(2)
    assert winner(w, (-2, 1, -1), (-1, 1, -2)) == "a"


def test_an_arriving_block_updates_its_neighbours_before_its_shape_updates():
    """A block arriving is placed as vanilla's setBlock places it: neighbour updates first, then shape
    updates. A comparator reading the arriving redstone block is scheduled before an observer watching the
    same place, and both are due 2 gt later: the comparator's piston wins."""
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((1, 1, 0), "redstone_block")
    w.set_block((3, 1, 0), "comparator[facing=west]")  # reads (2, 1, 0), where the redstone block goes
    w.set_block((4, 1, 0), "stone")  # the comparator's output powers it
    w.set_block((4, 2, 0), "piston[facing=west]")  # on that stone, facing (3, 2, 0)
    w.set_block((2, 3, 0), "stone")  # the observer's output powers it
    w.set_block((3, 3, 0), "piston[facing=down]")  # beside that stone, facing (3, 2, 0) too
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.step(2)
    w.use((0, 1, 1))  # the push starts in tick 3; the block arrives at the end of tick 5
    w.step(1)
    w.set_block((2, 2, 0), "observer[facing=down]")  # placed after the push started: it sees only the arrival
    w.step(4)  # tick 7: both fire, and the first piston told is out
    assert w.get_block((2, 1, 0)) == "minecraft:redstone_block"
    assert winner(w, (4, 2, 0), (3, 3, 0)) == "a"



def test_a_side_line_that_runs_into_a_listed_block_is_moved_just_before_it():
    """Vanilla's PistonStructureResolver looks for a slime block's branches down, up, north, south, west,
    east, and when a line runs into a block already listed it moves that line just before the block
    (reorderListAtCollision). The blocks are then put in motion last listed first, which the order of the
    moving_pistons placed shows: here the slime at (1, 0, 1), reached last, runs into the stone at
    (2, 0, 1) and goes before it, so the stone is put in motion first."""
    w = World()
    w.set_block((0, 1, 0), "piston[facing=east]")
    for pos, block in {(1, 1, 0): "slime_block", (1, 0, 0): "stone", (2, 0, 0): "slime_block",
                       (2, 0, 1): "stone", (1, 1, 1): "slime_block", (1, 0, 1): "slime_block"}.items():
        w.set_block(pos, block)
    w.step(2)
    seen = w.events_total
    w.set_block((-1, 1, 0), "redstone_block")
    w.step(1)
    placed = [e.pos for e in w.events_since(seen, "placed") if e.block == "minecraft:moving_piston"]
    assert placed == [(3, 0, 1), (2, 0, 1), (2, 1, 1), (3, 0, 0), (2, 0, 0), (2, 1, 0), (1, 1, 0)]
