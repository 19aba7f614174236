"""Nucleation's community doors against vanilla 26.2: the 6x6 sliding door (tripwire hooks and shulker boxes
among its blocks) and the TGM 4x4 door (player wall heads and a lightning rod), each capture run with the lever
clicks it was made with (tests/data/nucleation/README.md). The engine loads every one of them; where its
blocks are the ones docs/redstone.md sections 52-55 add, it changes them exactly as vanilla does, at every tick.
The 6x6 doors still differ from vanilla elsewhere (the order in which the blocks a piston moves land, and what the
placement's update pass starts), see the README; the TGM door, placed where the captures were made, differs only in
one note block's instrument."""

from __future__ import annotations

import json
from contextlib import nullcontext

import pytest
from vanilla_capture import NUCLEATION, Action, differences, vanilla_changes

from scicraft_viz import World
from scicraft_viz.engine import blocks as B

NEW = {*B.HEADS, *B.WALL_HEADS, *B.SHULKER_BOXES, "tripwire_hook", "lightning_rod"}
LEVER_6X6, LEVER_6X6_SLIDING, LEVER_TGM = (10, 4, 1), (9, 3, 0), (5, 3, 1)
# capture, structure, lever clicks (capture ticks), placed with the update pass, ticks where vanilla changes blocks
CASES = [
    ("door_6x6_inworld.json", "door_6x6_inworld.snbt", (LEVER_6X6, 10, 60), False,
     [*range(10, 26), *range(60, 74)]),
    ("door_6x6_settled.json", "door_6x6_inworld.snbt", (LEVER_6X6, 10), False, [*range(10, 22), 23, 25]),
    ("door_6x6_sliding.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10), True,
     [0, 1, 2, 3, *range(5, 22), 23, 25, 152, *range(154, 159), 160]),
    ("door_6x6_sliding_quiet.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10), False,
     [0, 1, 2, 3, *range(5, 22), 23, 25, 152, *range(154, 159), 160]),
    ("door_6x6_cycle.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10, 80), True,
     [0, 1, 2, 3, *range(5, 22), 23, 25, *range(80, 94), 95]),
    ("door_6x6_edge.json", "door_6x6_edge.snbt", (LEVER_6X6, 10, 60), True,
     [0, 1, 2, 3, *range(5, 26), *range(60, 74), 75]),
    ("door_tgm_4x4.json", "door_tgm_4x4.snbt", (LEVER_TGM, 10), True,
     [1, 3, *range(5, 17), 18, 19, *range(21, 25)]),
    ("door_tgm_4x4_quiet.json", "door_tgm_4x4.snbt", (LEVER_TGM, 10), False, [1, 3, *range(5, 17), 18, 19, 21]),
    ("door_tgm_4x4_cycle.json", "door_tgm_4x4.snbt", (LEVER_TGM, 10, 60), True,
     [1, 3, *range(5, 17), 18, 19, *range(21, 25), *range(60, 71), 72]),
]


@pytest.mark.parametrize("capture, structure, clicks, placement, ticks", CASES, ids=[c[0] for c in CASES])
def test_the_doors_load_and_their_new_blocks_change_as_in_the_game(capture, structure, clicks, placement, ticks):
    assert sorted(vanilla_changes(json.loads((NUCLEATION / capture).read_text()))) == ticks
    with pytest.warns(UserWarning) if "tgm" in structure else nullcontext():  # 26.2's head `powered`, section 54
        w = World.from_build_file(NUCLEATION / structure)
    mine = [p for p, s in w.blocks().items() if B.split_state(s)[0].removeprefix("minecraft:") in NEW]
    assert len(mine) == {"door_tgm_4x4.snbt": 4, "door_6x6_edge.snbt": 3}.get(structure, 6)
    pos, *at = clicks
    diffs = differences(structure, capture, [Action(t, "use", pos) for t in at], world=w, placement=placement)
    assert [(t, p) for t, want, got in diffs for p in mine if want.get(p) != got.get(p)] == []



def test_the_tgm_door_placed_with_its_updates_matches_the_game_through_tick_15():
    """Its observers re-pulse at tick 5 as in the game: each sees the one in front of it fall while its own tick
    is due (docs/redstone.md section 28)."""
    with pytest.warns(UserWarning):
        diffs = differences("door_tgm_4x4.snbt", "door_tgm_4x4.json", [Action(10, "use", LEVER_TGM)], ticks=16,
                            placement=True)
    assert diffs == []


def test_the_tgm_door_matches_the_game_at_every_tick_but_a_note_blocks_instrument_where_it_stood():
    """Its lever's dust line tells the sticky pistons (3, 2, 1) and (8, 2, 1) through the targets it ends in; in
    vanilla's order for a build standing 100 blocks up (where the harness placed its captures: the cycle capture
    of this door records that origin, this one records none) (8, 2, 1) hears it first, and the door runs as in the
    game (docs/redstone.md section 78). Left: at tick 18 a note block (2, 6, 2) keeps the harp of the block
    below while that block lands in the game, where the engine already tunes it to the landed block."""
    with pytest.warns(UserWarning):
        w = World.from_build_file(NUCLEATION / "door_tgm_4x4.snbt")
    w.set_hash_origin((0, 100, 0))
    diffs = differences("door_tgm_4x4.snbt", "door_tgm_4x4.json", [Action(10, "use", LEVER_TGM)], world=w,
                        placement=True)
    assert [(t, {p for p in want.keys() | got.keys() if want.get(p) != got.get(p)}) for t, want, got in diffs] == [
        (18, {(2, 6, 2)})]
    assert [want[(2, 6, 2)] for _, want, _ in diffs] == ["minecraft:note_block[instrument=harp,note=0,powered=true]"]


def test_the_tgm_door_cycle_captured_100_blocks_up_matches_until_the_door_opens_again_but_at_tick_18():
    with pytest.warns(UserWarning):
        diffs = differences("door_tgm_4x4.snbt", "door_tgm_4x4_cycle.json",
                            [Action(10, "use", LEVER_TGM), Action(60, "use", LEVER_TGM)], placement=True)
    assert [t for t, *_ in diffs] == [18, 60, 65, 66, 67, 68]
    assert {p for t, want, got in diffs[:2] for p in want.keys() | got.keys() if want.get(p) != got.get(p)} == {
        (2, 6, 2)}
