"""Nucleation's community doors against vanilla 26.2: the 6x6 sliding door (tripwire hooks and shulker boxes
among its blocks) and the TGM 4x4 door (player wall heads and a lightning rod), each capture run with the lever
clicks it was made with (tests/data/nucleation/README.md). The engine loads every one of them; where its
blocks are the ones docs/redstone.md sections 52-55 add, it changes them exactly as vanilla does, at every tick.
The vault door recorded in the world it was built in, loaded as it stood there (`from_build_file(in_world=True)`,
docs/redstone.md section 79), matches the game at every tick, and so does the TGM door placed where the captures
were made (section 87). Pasted doors are placed as the game places a structure (`from_build_file(placed=True)`,
section 86): the block events and ticks pending before the first tick are the game's; they still differ from
vanilla in later ticks (the engine's own tick: dust settling whole, the order of some updates), see the README:
those tests assert which ticks differ."""

from __future__ import annotations

import json
import re
from contextlib import nullcontext

import pytest
from vanilla_capture import NUCLEATION, Action, differences, placement_order, spelled, vanilla_changes

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine import kernels as sim
from scicraft_viz.errors import InputError

NEW = {*B.HEADS, *B.WALL_HEADS, *B.SHULKER_BOXES, "tripwire_hook", "lightning_rod"}
LEVER_6X6, LEVER_6X6_SLIDING, LEVER_TGM = (10, 4, 1), (9, 3, 0), (5, 3, 1)
# capture, structure, lever clicks (capture ticks), how it is loaded ("paste", "placement": with the update pass,
# "in-world": as it stood in its world), ticks where vanilla changes blocks
CASES = [
    ("door_6x6_inworld.json", "door_6x6_inworld.snbt", (LEVER_6X6, 10, 60), "in-world",
     [*range(10, 26), *range(60, 74)]),
    ("door_6x6_settled.json", "door_6x6_inworld.snbt", (LEVER_6X6, 10), "in-world", [*range(10, 22), 23, 25]),
    ("door_6x6_sliding.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10), "placement",
     [0, 1, 2, 3, *range(5, 22), 23, 25, 152, *range(154, 159), 160]),
    ("door_6x6_sliding_quiet.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10), "paste",
     [0, 1, 2, 3, *range(5, 22), 23, 25, 152, *range(154, 159), 160]),
    ("door_6x6_cycle.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10, 80), "placement",
     [0, 1, 2, 3, *range(5, 22), 23, 25, *range(80, 94), 95]),
    ("door_6x6_edge.json", "door_6x6_edge.snbt", (LEVER_6X6, 10, 60), "placement",
     [0, 1, 2, 3, *range(5, 26), *range(60, 74), 75]),
    ("door_tgm_4x4.json", "door_tgm_4x4.snbt", (LEVER_TGM, 10), "placement",
     [1, 3, *range(5, 17), 18, 19, *range(21, 25)]),
    ("door_tgm_4x4_quiet.json", "door_tgm_4x4.snbt", (LEVER_TGM, 10), "paste", [1, 3, *range(5, 17), 18, 19, 21]),
    ("door_tgm_4x4_cycle.json", "door_tgm_4x4.snbt", (LEVER_TGM, 10, 60), "placement",
     [1, 3, *range(5, 17), 18, 19, *range(21, 25), *range(60, 71), 72]),
]


@pytest.mark.parametrize("capture, structure, clicks, load, ticks", CASES, ids=[c[0] for c in CASES])
def test_the_doors_load_and_their_new_blocks_change_as_in_the_game(capture, structure, clicks, load, ticks):
    assert sorted(vanilla_changes(json.loads((NUCLEATION / capture).read_text()))) == ticks
    with pytest.warns(UserWarning) if "tgm" in structure else nullcontext():  # 26.2's head `powered`, section 54
        w = World.from_build_file(NUCLEATION / structure, in_world=load == "in-world", placed=load != "in-world")
    mine = [p for p, s in w.blocks().items() if B.split_state(s)[0].removeprefix("minecraft:") in NEW]
    assert len(mine) == {"door_tgm_4x4.snbt": 4, "door_6x6_edge.snbt": 3}.get(structure, 6)
    pos, *at = clicks
    diffs = differences(structure, capture, [Action(t, "use", pos) for t in at], world=w,
                        placement=load == "placement")
    assert [(t, p) for t, want, got in diffs for p in mine if want.get(p) != got.get(p)] == []



def test_the_tgm_door_placed_with_its_updates_matches_the_game_through_tick_15():
    """Its observers re-pulse at tick 5 as in the game: each sees the one in front of it fall while its own tick
    is due (docs/redstone.md section 28)."""
    with pytest.warns(UserWarning):
        diffs = differences("door_tgm_4x4.snbt", "door_tgm_4x4.json", [Action(10, "use", LEVER_TGM)], ticks=16,
                            placement=True)
    assert diffs == []


def test_the_6x6_door_loaded_as_it_stood_in_its_world_matches_the_game_at_every_tick():
    """Loaded as it stood (nothing pending) the door is at rest until its lever, as in the game; its opening stroke
    carries activator rails up onto their observers (docs/redstone.md section 80), and in its closing stroke, where
    pistons race for the same blocks, the downward pistons at (2, 11, 3) and (19, 11, 3) move first, as in the
    game, because the world stands where the capture recorded it (section 77: the order dust tells the pistons in)
    and an observer's output reaches the piston behind it first (section 82). Every block change of its 75 ticks."""
    clicks = [Action(t, "use", LEVER_6X6) for t in (10, 60)]
    assert differences("door_6x6_inworld.snbt", "door_6x6_inworld.json", clicks, ticks=75, in_world=True) == []


def test_the_6x6_door_pasted_has_its_observers_fire_on_the_first_tick_where_the_game_left_it_at_rest():
    """The same structure pasted: the paste's updates leave observers (and leaves) with ticks due, which the saved
    world did not have; loaded in the world's way nothing happens before the lever."""
    clicks = [Action(10, "use", LEVER_6X6)]
    pasted = differences("door_6x6_inworld.snbt", "door_6x6_inworld.json", clicks, ticks=10)
    assert pasted and pasted[0][0] == 1 and pasted[0][1] == {}
    assert any("observer" in s for s in pasted[0][2].values())
    assert differences("door_6x6_inworld.snbt", "door_6x6_inworld.json", clicks, ticks=10, in_world=True) == []


def test_the_settled_6x6_capture_starts_from_another_state_than_its_structure():
    """`door_6x6_settled` has nothing pending and no change before its lever at tick 10, yet the world it was made
    in did not hold the structure as saved: the state each changed block had before its first change differs from
    `door_6x6_inworld.snbt` in 18 places (the piston at (2, 11, 1) retracted where the file has it extended, glass
    at (1, 4, 1) where the file has it at (1, 3, 1), ...), so no load of that file can match its tick 10."""
    cap = json.loads((NUCLEATION / "door_6x6_settled.json").read_text())
    before: dict = {}
    for t in cap["ticks"]:
        for e in t["events"]:
            if e["kind"] == "block_changed":
                before.setdefault(tuple(e["pos"]), spelled(e["from"]))
    saved = World.from_build_file(NUCLEATION / "door_6x6_inworld.snbt", in_world=True).blocks()
    differ = {p for p, s in before.items() if saved.get(p, "minecraft:air") != s}
    assert len(differ) == 18
    assert before[(2, 11, 1)] == "minecraft:piston[extended=false,facing=west]"
    assert saved[(2, 11, 1)] == "minecraft:piston[extended=true,facing=west]"
    assert before[(1, 4, 1)] == "minecraft:white_stained_glass" and (1, 4, 1) not in saved
    assert saved[(1, 3, 1)] == "minecraft:white_stained_glass" and before[(1, 3, 1)] == "minecraft:air"


VAULT_LEVER, VAULT_LEVER_IN_WORLD = (6, 4, 0), (7, 5, 1)


def test_the_vault_door_loaded_as_it_stood_in_its_world_matches_the_game_at_every_tick():
    """Closed, opened and closed again by its lever (ticks 10, 40, 70): every block change of the 82 ticks."""
    capture = json.loads((NUCLEATION / "door_4x4_vault_inworld.json").read_text())
    assert sorted(vanilla_changes(capture))[:1] == [10] and max(vanilla_changes(capture)) == 80
    clicks = [Action(t, "use", VAULT_LEVER_IN_WORLD) for t in (10, 40, 70)]
    assert differences("door_4x4_vault_inworld.snbt", "door_4x4_vault_inworld.json", clicks, ticks=82,
                       in_world=True) == []


def test_the_vault_door_under_interrupted_clicks_matches_the_game_at_every_tick():
    """Six clicks, two of them mid-stroke. At tick 80 two sticky pistons race for the same blocks, and the capture's
    block-event log shows the order is made in that tick: the sticky piston (2, 3, 2), retracting first, queues the
    extensions of (3, 7, 3) and (3, 6, 3) before any of the other pistons it reaches, and (13, 3, 2) those of
    (12, 6, 3) and then (12, 7, 3). The engine's replay of the dust walk tells each piston once its power, read
    with the replayed dust, is as it ends (docs/redstone.md section 78), so it queues them in that order too and the
    game moves the lower piston (12, 6, 3) in both: every tick matches."""
    cap = json.loads((NUCLEATION / "door_4x4_vault_stress.json").read_text())
    (log,) = [q["log"] for q in cap["queues"] if q["tick"] == 80]
    ox, oy, oz = cap["origin"]
    extensions = [(x - ox, y - oy, z - oz) for e in log if e["kind"] == "queue" and e["id"] == 0
                  for x, y, z in [e["pos"]]]
    assert extensions == [(3, 7, 3), (3, 6, 3), (12, 6, 3), (12, 7, 3)]
    assert vanilla_changes(cap)[80][(12, 6, 3)] == "minecraft:moving_piston[facing=west,type=sticky]"
    clicks = [Action(t, "use", VAULT_LEVER_IN_WORLD) for t in (10, 15, 30, 45, 47, 80)]
    assert differences("door_4x4_vault_inworld.snbt", "door_4x4_vault_stress.json", clicks, ticks=92,
                       in_world=True) == []
    assert vanilla_changes(cap)[80][(10, 6, 3)] == "minecraft:slime_block"


# capture, lever clicks, placed with the update pass, the ticks (0 to one past the last change) that differ
VAULT_PASTED = [
    ("door_4x4_vault.json", (10,), True, [0, 1, 2, 3, 5, 10, 12]),
    ("door_4x4_vault_quiet.json", (10, 60), False, [0, 1, 2, 3, 5, *range(10, 15)]),
    ("door_4x4_vault_cycles.json", (10, 40, 70, 100), False,
     [1, 2, 3, 5, 10, 12, 14, *range(42, 46), 70, 72, 74, *range(102, 106)]),
]


@pytest.mark.parametrize("capture, at, placement, differing", VAULT_PASTED, ids=[c[0] for c in VAULT_PASTED])
def test_the_vault_door_placed_as_the_game_places_a_structure_differs_at_these_ticks(capture, at, placement,
                                                                                      differing):
    """Placed as the game places a structure (docs/redstone.md section 86), the cycles capture matches from tick 0:
    the lock's four sticky pistons queue their retraction as the paste writes them (their comparator is written
    after them) and stay, since the comparator's saved output powers them when the events run. The two older
    captures were made from the structure without some of its block-entity data (README): there the pistons
    do move at tick 0."""
    n = max(vanilla_changes(json.loads((NUCLEATION / capture).read_text()))) + 2
    diffs = differences("door_4x4_vault.snbt", capture, [Action(t, "use", VAULT_LEVER) for t in at], ticks=n,
                        placement=placement, placed=True)
    assert [t for t, _, _ in diffs] == differing


def _without_block_entity_data(structure: str, items: bool) -> bytes:
    """The structure's text with its comparators' saved outputs taken out (and, with `items`, its containers'
    items)."""
    text = re.sub(r",? ?OutputSignal: \d+", "", (NUCLEATION / structure).read_text())
    return (re.sub(r"Items: \[[^\]]*\]", "Items: []", text) if items else text).encode()


# capture, structure, lever clicks, placed with the update pass, containers emptied too, the ticks that differ
OLDER = [
    ("door_4x4_vault.json", "door_4x4_vault.snbt", (VAULT_LEVER, 10), True, True, [10, 12]),
    ("door_4x4_vault_quiet.json", "door_4x4_vault.snbt", (VAULT_LEVER, 10, 60), False, False,
     [1, 3, 5, 10, 11, 13]),
    ("door_6x6_sliding.json", "door_6x6_sliding.snbt", (LEVER_6X6_SLIDING, 10), True, False,
     [1, 2, 3, *range(5, 19), 20, 152, *range(154, 159), 160]),
]


@pytest.mark.parametrize("capture, structure, clicks, placement, items, differing", OLDER,
                         ids=[c[0] for c in OLDER])
def test_the_older_door_captures_fit_their_structure_placed_without_some_block_entity_data(
        capture, structure, clicks, placement, items, differing):
    """These captures start otherwise than the structure kept here placed as the game places it: the game moves
    sticky pistons at tick 0 (the vault's lock; (5, 11, 3) and (14, 11, 3) in the 6x6 door) as it does when the
    comparators written last bring no saved output, and in `door_4x4_vault.json` the comparator at (2, 4, 3)
    turns off at tick 1 as it does reading an empty barrel. Placed so, each matches at tick 0, and the vault's
    placement capture at every tick but 10 and 12 (README)."""
    w = World.from_build_file(_without_block_entity_data(structure, items), fmt="snbt", placed=True)
    if placement:
        w.structure_updates(placement_order(NUCLEATION / structure))
    pos, *at = clicks
    n = max(vanilla_changes(json.loads((NUCLEATION / capture).read_text()))) + 2
    diffs = differences(structure, capture, [Action(t, "use", pos) for t in at], ticks=n, world=w)
    assert [t for t, _, _ in diffs] == differing


@pytest.mark.parametrize("capture, structure", [("door_4x4_vault_cycles.json", "door_4x4_vault.snbt"),
                                                ("door_6x6_sliding_quiet.json", "door_6x6_sliding.snbt")])
def test_a_door_placed_as_the_game_places_a_structure_waits_with_the_game_s_block_events_and_ticks(capture,
                                                                                                   structure):
    """What the placement leaves pending, against the capture's own queues before its tick 0: the same block
    events in the same order (the vault's four lock pistons' retractions; the 6x6 door's fifteen pushes and pulls)
    and the same scheduled ticks, each due at the same tick. Pasted the engine's old way (file order, block-entity
    data after every block) the pending ticks differ."""
    cap = json.loads((NUCLEATION / capture).read_text())
    before, start = cap["queues"][0]["before"], cap["game_time_at_start"]
    w = World.from_build_file(NUCLEATION / structure, placed=True)
    g = w.g
    events = [(tuple(g.P[g.bev[i, 0]].tolist()), int(g.bev[i, 1])) for i in range(g.meta[sim.M_BEVH],
                                                                                    g.meta[sim.M_NBEV])]
    assert events == [(tuple(e["pos"]), e["id"]) for e in before["events"]]
    due = sorted((s.tick - w.tick - 1, s.pos) for s in w.scheduled())
    assert due == sorted((s["at"] - start - 1, tuple(s["pos"])) for s in before["scheduled"])
    pasted = World.from_build_file(NUCLEATION / structure)
    assert sorted((s.tick - pasted.tick - 1, s.pos) for s in pasted.scheduled()) != due


@pytest.mark.parametrize("capture, structure, lever, at", [
    ("door_6x6_cycle.json", "door_6x6_sliding.snbt", LEVER_6X6_SLIDING, (10, 80)),
    ("door_6x6_edge.json", "door_6x6_edge.snbt", LEVER_6X6, (10, 60))])
def test_the_6x6_door_placed_as_the_game_places_a_structure_matches_at_every_tick(capture, structure, lever, at):
    """Placed with the update pass, as captured 100 blocks up: every tick matches, both strokes included (section
    86); at tick 3 a piston fed by quasi-connectivity from dust three steps away extends and retracts in the one
    tick, its base a moving block in its own place until tick 5, as the game's dust walk has it (section 78).
    Pasted the engine's old way they differ from tick 1."""
    clicks = [Action(t, "use", lever) for t in at]
    diffs = differences(structure, capture, clicks, placement=True, placed=True)
    assert diffs == []
    want = vanilla_changes(json.loads((NUCLEATION / capture).read_text()))
    piston = (2, 5, 0) if "cycle" in capture else (3, 6, 1)
    assert want[3][piston] == "minecraft:moving_piston[facing=down,type=normal]"
    assert want[5][piston] == "minecraft:piston[extended=false,facing=down]"
    assert differences(structure, capture, clicks, ticks=2, placement=True)[:1] != []


def test_placed_refuses_what_it_cannot_do():
    path = NUCLEATION / "door_4x4_vault.snbt"
    with pytest.raises(InputError, match="placed must be True or False, got 'yes'"):
        World.from_build_file(path, placed="yes")
    with pytest.raises(InputError, match="give one of them"):
        World.from_build_file(path, placed=True, in_world=True)
    with pytest.raises(InputError, match="leave replay out"):
        World.from_build_file(path, placed=True, replay=False)


def test_the_tgm_door_matches_the_game_at_every_tick_where_it_stood():
    """Its lever's dust line tells the sticky pistons (3, 2, 1) and (8, 2, 1) through the targets it ends in; in
    vanilla's order for a build standing 100 blocks up (where the harness placed its captures: the cycle capture
    of this door records that origin, this one records none) (8, 2, 1) hears it first, and the door runs as in the
    game (docs/redstone.md section 78). At tick 18 the note block (2, 6, 2) lands on a moving block and takes the
    harp; the observer that lands below it right after arrived powered, switches off as it lands, and its landing
    sends no shape update, so the note block keeps the harp (section 87)."""
    with pytest.warns(UserWarning):
        w = World.from_build_file(NUCLEATION / "door_tgm_4x4.snbt")
    w.set_hash_origin((0, 100, 0))
    diffs = differences("door_tgm_4x4.snbt", "door_tgm_4x4.json", [Action(10, "use", LEVER_TGM)], world=w,
                        placement=True)
    assert diffs == []
    want = vanilla_changes(json.loads((NUCLEATION / "door_tgm_4x4.json").read_text()))
    assert want[18][(2, 6, 2)] == "minecraft:note_block[instrument=harp,note=0,powered=true]"
    assert want[18][(2, 5, 2)] == "minecraft:observer[facing=down,powered=false]"


def test_the_tgm_door_cycle_captured_100_blocks_up_matches_the_game_at_every_tick():
    """The closing stroke matches at every tick, the note block keeping the harp it landed with (section 87) until
    the door opens again. In the second stroke the sticky pistons (2, 2, 2) and (9, 2, 2) push the composters the
    comparators (4, 1, 2) and (7, 1, 2) read through cyan concrete down at tick 63; the comparators are not told (a
    piston's moves update only the neighbours of the places they leave) until the note blocks under them switch
    off at tick 64, so they turn off at tick 66 and the sticky pistons (5, 1, 3) and (6, 1, 3) start then, as in
    the game. At tick 65 the sticky pistons (4, 9, 3) and (4, 8, 3) land, the one pulled under the other: the
    upper one, landing first, cannot push the lower one while that is still a moving block, and the lower one
    checks itself as it lands, before it tells the upper one, so its push is queued first and the upper one's then
    finds it extended, as in the game."""
    with pytest.warns(UserWarning):
        diffs = differences("door_tgm_4x4.snbt", "door_tgm_4x4_cycle.json",
                            [Action(10, "use", LEVER_TGM), Action(60, "use", LEVER_TGM)], placement=True)
    assert diffs == []
    want = vanilla_changes(json.loads((NUCLEATION / "door_tgm_4x4_cycle.json").read_text()))
    assert want[63][(2, 1, 2)] == want[63][(9, 1, 2)] == "minecraft:moving_piston[facing=down,type=sticky]"
    assert want[66][(4, 1, 2)] == "minecraft:comparator[facing=west,mode=compare,powered=false]"
    assert want[66][(5, 1, 3)] == "minecraft:moving_piston[facing=up,type=sticky]"
    assert want[66][(4, 8, 3)] == "minecraft:moving_piston[facing=down,type=sticky]" and (4, 9, 3) not in want[66]


def test_the_tgm_door_pasted_100_blocks_up_matches_the_game_at_every_tick():
    """Pasted (the quiet capture), the note block (9, 6, 2) lands at tick 7 on a moving block and keeps the harp as
    in the game, and the sticky piston (8, 7, 1) retracts at tick 9 as in the game: the dust beside it, turned
    away from it by a target landing at tick 7, told it nothing, and it hears of its lost power when its head lands
    (section 87). The note block (2, 6, 2), saved with the harp on an observer, is re-tuned to the bass drum when the
    target above it is written (section 91), and plays it when powered at tick 10, as in the game. Every block change
    of its 23 ticks, placed as the game places a structure and as the engine's own paste."""
    for placed in (True, False):
        with pytest.warns(UserWarning):
            w = World.from_build_file(NUCLEATION / "door_tgm_4x4.snbt", placed=placed)
        assert w.get_block((2, 6, 2)) == "minecraft:note_block[instrument=basedrum,note=0,powered=false]"
        w.set_hash_origin((0, 100, 0))
        assert differences("door_tgm_4x4.snbt", "door_tgm_4x4_quiet.json", [Action(10, "use", LEVER_TGM)], world=w,
                           ticks=23) == []
    vanilla = vanilla_changes(json.loads((NUCLEATION / "door_tgm_4x4_quiet.json").read_text()))
    assert vanilla[10][(2, 6, 2)] == "minecraft:note_block[instrument=basedrum,note=0,powered=true]"
    assert vanilla[7][(9, 6, 2)] == "minecraft:note_block[instrument=harp,note=0,powered=false]"
    assert vanilla[9][(8, 7, 1)] == "minecraft:moving_piston[facing=south,type=sticky]"
