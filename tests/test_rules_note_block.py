"""The note block (Java Edition 1.20): powered follows its neighbours at once, a rising edge plays its
note when the block above is air, `use` raises the note, and the block below picks the instrument."""

import pytest
from redstone_helpers import new_world, on, power, prop, run

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world

NB, LEVER = (1, 1, 0), (0, 1, 0)


def played(w, pos=NB):
    return [(e.tick, e.old, e.new) for e in w.events if e.pos == pos and e.kind == "note"]


def test_canonical_state_and_instrument_from_the_block_below():
    w = new_world()  # stone floor
    w.set_block(NB, "note_block")
    assert w.get_block(NB) == "minecraft:note_block[instrument=basedrum,note=0,powered=false]"
    w.set_block((3, 1, 0), "glass")
    w.set_block((3, 2, 0), "note_block")
    assert prop(w, (3, 2, 0), "instrument") == "hat"
    w.set_block((3, 1, 0), "barrel")  # the block below changes: so does the instrument
    assert prop(w, (3, 2, 0), "instrument") == "bass"
    w.remove_block((3, 1, 0))
    assert prop(w, (3, 2, 0), "instrument") == "harp"


def test_replay_keeps_a_given_instrument_until_the_block_below_changes():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "note_block[instrument=flute,note=7]")
    assert w.get_block((0, 1, 0)) == "minecraft:note_block[instrument=flute,note=7,powered=false]"
    w.set_block((0, 0, 0), "glass")
    assert prop(w, (0, 1, 0), "instrument") == "hat"


def test_powered_at_once_and_plays_on_the_rising_edge_only():
    w = new_world()
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_block(NB, "note_block[note=5]")
    flip = [lambda: w.use(LEVER)]
    got = run(w, 10, lambda: on(w, NB), {0: flip, 4: flip, 6: flip})
    assert got == [(0, True), (4, False), (6, True)]
    assert played(w) == [(0, 1, 5), (6, 1, 5)]  # basedrum (instrument 1), note 5; none when it turned off


def test_a_block_above_silences_it():
    w = new_world()
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_block(NB, "note_block")
    w.set_block((1, 2, 0), "stone")
    w.use(LEVER)
    assert on(w, NB) and played(w) == []


def test_use_raises_the_note_and_plays_it():
    w = new_world()
    w.set_block(NB, "note_block[note=23]")
    assert w.use(NB) and prop(w, NB, "note") == "24"
    assert w.use(NB) and prop(w, NB, "note") == "0"
    assert played(w) == [(0, 1, 24), (0, 1, 0)]
    assert [(e.kind, e.old, e.new) for e in w.events if e.kind == "tuned"] == [("tuned", 23, 24), ("tuned", 24, 0)]


def test_placed_beside_power_it_waits_for_a_neighbour_update():
    w = new_world()
    w.set_block(LEVER, "lever[face=floor,facing=north,powered=true]")
    w.set_block(NB, "note_block")
    assert not on(w, NB)  # vanilla: a placed note block does not look at its neighbours
    w.set_block((1, 1, 1), "stone")  # any neighbour update
    assert on(w, NB) and played(w) == [(0, 1, 0)]


def test_it_conducts_like_stone():
    w = new_world()
    w.set_block((-1, 1, 0), "redstone_block")
    w.set_block(LEVER, "redstone_repeater[facing=west]")
    w.set_block(NB, "note_block")
    w.set_block((2, 1, 0), "redstone_wire")
    w.step(2)
    assert w.power(NB).strong == 15 and power(w, (2, 1, 0)) == 15 and on(w, NB)


def test_the_compiled_engine_runs_it_tick_for_tick():
    from test_compiled_analog import compare

    w = new_world()
    w.set_block(LEVER, "lever[face=floor,facing=north]")
    w.set_block(NB, "note_block")
    w.set_block((2, 1, 0), "redstone_wire")
    w.set_block((2, 1, 1), "redstone_lamp")
    assert compare(w, compile_world(w), [(LEVER, 5), (LEVER, 5), (LEVER, 5)]) == 3 * 6
    w.set_block((1, 1, -2), "redstone_block")  # a note block placed beside it waits for an update
    w.set_block((1, 1, -1), "note_block")
    with pytest.raises(CompileRefused, match=r"note_block at \(1, 1, -1\) disagrees with its input"):
        compile_world(w)
