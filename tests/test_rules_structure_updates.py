"""World.structure_updates: the update pass vanilla makes after placing a structure (docs/redstone.md section 49)."""

import pytest
from redstone_helpers import on, run

from scicraft_viz import World
from scicraft_viz.errors import PositionError

OBS, NOTE = (1, 0, 0), (0, 0, 0)


def pasted(blocks):
    w = World(replay=True)
    w.set_blocks(blocks)
    return w


def test_every_unpowered_observer_pulses_once_whatever_it_watches():
    w = pasted([(NOTE, "note_block"), (OBS, "observer[facing=west]"), ((5, 0, 0), "observer[facing=up]")])
    w.step(1)
    assert not on(w, OBS)  # a paste alone: nothing moves
    w.structure_updates([NOTE, OBS, (5, 0, 0)])
    got = run(w, 10, lambda: (on(w, OBS), on(w, (5, 0, 0))))
    assert got == [(1, (False, False)), (3, (True, True)), (5, (False, False))]


def test_a_comparator_saved_lit_behind_an_empty_barrel_goes_out_two_ticks_later():
    w = pasted([((0, 0, 0), "stone"), ((1, 0, 0), "stone"), ((0, 1, 0), "barrel[facing=up]"),
                ((1, 1, 0), "comparator[facing=west,powered=true]")])
    w.step(5)
    assert on(w, (1, 1, 0))  # as saved: nothing told it to look
    w.structure_updates([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])
    assert run(w, 5, lambda: on(w, (1, 1, 0))) == [(5, True), (7, False)]


def test_an_unsupported_block_pops_and_empty_positions_are_skipped():
    w = pasted([((0, 5, 0), "redstone_wire"), ((3, 5, 0), "stone")])
    assert w.get_block((0, 5, 0)).startswith("minecraft:redstone_wire")  # a paste keeps it
    w.structure_updates([(9, 9, 9), (3, 5, 0), (0, 5, 0)])
    assert w.get_block((0, 5, 0)) == "minecraft:air"


def test_a_bad_position_is_refused():
    with pytest.raises(PositionError):
        World().structure_updates([(0, "a", 0)])


def test_a_pasted_note_block_takes_the_instrument_of_the_block_below_in_the_pass():
    """A paste keeps the saved instrument; the pass's shape update from below sets it, as a placement does
    (NoteBlock.updateShape): an observer gives basedrum, a glass block hat."""
    w = pasted([((0, 0, 0), "observer[facing=down]"), ((0, 1, 0), "note_block[instrument=harp,note=4]"),
                ((3, 0, 0), "glass"), ((3, 1, 0), "note_block[instrument=bell]")])
    assert w.get_block((0, 1, 0)) == "minecraft:note_block[instrument=harp,note=4,powered=false]"
    w.structure_updates([(0, 1, 0), (3, 1, 0)])
    assert w.get_block((0, 1, 0)) == "minecraft:note_block[instrument=basedrum,note=4,powered=false]"
    assert w.get_block((3, 1, 0)) == "minecraft:note_block[instrument=hat,note=0,powered=false]"
