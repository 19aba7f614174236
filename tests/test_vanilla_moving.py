"""Blocks that move and blocks that watch, against vanilla: each structure of tests/data/nucleation/ run with the
actions its capture was made with, every block change of every tick compared with what vanilla 26.2 did
(tests/data/nucleation/README.md says what each one is, and how its ticks are numbered)."""

from __future__ import annotations

import json

from vanilla_capture import NUCLEATION, Action, differences, vanilla_changes

RB, AIR = "minecraft:redstone_block", "minecraft:air"


def case_actions(name: str) -> list[Action]:
    """The actions of one of Nucleation's cases (`place`: a block state set at a tick)."""
    case = json.loads((NUCLEATION / name).read_text())
    return [Action(a["tick"], "place", tuple(a["place"]), a["state"]) for a in case["actions"]]


def matches(capture: str, structure: str, actions: list[Action], ticks: list[int], placement: bool = False) -> None:
    """The capture is the one the README describes (vanilla changed blocks at exactly `ticks`), and the engine
    makes the same changes at every tick; with `placement`, the structure is placed as a structure block places
    it, with the update pass that follows (World.structure_updates), as the capture's structure was. Both ways of
    writing the blocks match: the engine's paste and the game's placement (`placed`, docs/redstone.md section 86)."""
    assert sorted(vanilla_changes(json.loads((NUCLEATION / capture).read_text()))) == ticks
    for placed in (False, True):
        assert differences(structure, capture, actions, placement=placement, placed=placed) == [], placed


def test_a_piston_breaks_a_door_it_reaches_both_halves_wood_and_iron():
    matches("door_push.json", "door_push.snbt", case_actions("door_push.test.json"), [2, 4, 8, 10])


def test_a_piston_pushes_a_trapdoor_and_it_arrives_whole():
    matches("trapdoor_push.json", "trapdoor_rig.snbt",
            [Action(2, "place", (0, 1, 2), RB), Action(8, "place", (0, 1, 2), AIR)], [2, 4, 8, 10])


def test_sticky_pistons_losing_their_power_pull_their_blocks_back():
    matches("piston_pull.json", "piston_pull.snbt", [Action(6, "place", (1, 1, z), AIR) for z in (1, 3, 5, 7)],
            [6, 8])


def test_of_two_powered_pistons_placed_facing_one_gap_the_lower_takes_it():
    matches("piston_race_quiet.json", "piston_race_quiet.snbt", [], [0, 2])


def test_a_zero_tick_hands_a_redstone_block_on_in_one_tick():
    matches("piston_handoff.json", "piston_handoff.snbt", [Action(3, "use", (3, 1, 1))], [3, 5, 6, 8, 9, 11])


def test_a_slime_block_drags_what_touches_it():
    matches("slime_drag.json", "slime_drag.snbt", [], [0, 2])


def test_a_lever_on_a_sideways_piston_falls_when_it_extends_and_the_slime_stays_out():
    matches("slime_extender.json", "slime_extender.snbt", [Action(5, "use", (1, 2, 1))], [5, 7])


def test_a_piston_pushes_the_piston_above_it():
    matches("stacked_pistons.json", "stacked_pistons.snbt", [], [1, 3])


def test_a_clicked_note_block_starts_the_flying_engine_and_it_runs_one_activation():
    matches("manual_engine_quiet_click.json", "manual_engine_padded.snbt", [Action(10, "use", (15, 0, 2))],
            [10, 12, 13, 14, 15, 16, 18, 19, *range(20, 30), 31, 33, 35])


def test_the_4x4_sliding_door_closes_leaves_and_observers_included():
    matches("door_4x4_sliding_quiet.json", "door_4x4_sliding.snbt", [Action(10, "use", (7, 3, 0))],
            [0, 2, *range(10, 19)])


def test_a_piston_placed_powered_only_through_quasi_connectivity_extends_on_the_placements_updates():
    matches("piston_qc.json", "piston_qc.snbt", [], [0, 2], placement=True)


def test_two_pistons_facing_across_a_gap_each_extend_when_their_observers_see_the_placement():
    matches("observer_order.json", "observer_order.snbt", [], [1, 3, 5], placement=True)


def test_the_4x4_sliding_door_placed_with_its_updates_settles_and_closes_as_in_the_game():
    matches("door_4x4_sliding.json", "door_4x4_sliding.snbt", [Action(10, "use", (7, 3, 0))],
            [0, 1, 2, 3, *range(10, 19)], placement=True)


def test_the_flying_engine_placed_with_its_updates_runs_two_steps_then_a_click_runs_a_third():
    matches("manual_engine_click.json", "manual_engine_padded.snbt", [Action(30, "use", (13, 0, 2))],
            [*range(0, 7), *range(8, 20), 21, 23, 25, 30, *range(32, 37), *range(38, 50), 51, 53, 55], placement=True)


def test_of_two_pistons_fired_by_observers_that_see_the_placement_the_upper_takes_the_gap():
    """The upper observer faces up out of the structure, the lower one west: the placement's walk over the
    structure's surface reaches the faces across y first, so the upper observer's pulse and its piston's block
    event come first."""
    matches("piston_race.json", "piston_race.snbt", [], [1, 3, 5], placement=True)


def test_the_4x4_sliding_door_placed_with_its_updates_closes_and_opens_as_in_the_game():
    """Its two bottom pistons' heads, listed in the file before their bases, are there when the door opens at
    tick 60, and the dust on the back of a retracting sticky piston keeps its support."""
    matches("door_4x4_sliding_cycle.json", "door_4x4_sliding.snbt",
            [Action(10, "use", (7, 3, 0)), Action(60, "use", (7, 3, 0))],
            [0, 1, 2, 3, *range(10, 19), *range(60, 69)], placement=True)


def test_the_3x3_flush_door_closes_itself_on_its_placement_as_in_the_game():
    """Its extended sticky piston, placed before the torch that powers it, queues a retraction as it is placed and
    stays out when the event runs; then a torch lighting tells the upper of two stacked sticky pistons first, and it
    is the one that pushes. The same for the capture placed quietly and the one placed with updates."""
    for capture, placement in (("door_3x3_flush_quiet.json", False), ("door_3x3_flush.json", True)):
        matches(capture, "door_3x3_flush.snbt", [], [1, 3, 5, 6, 7, 8, 9, 10, 11], placement=placement)


def test_two_pistons_race_for_a_gap_from_the_sides_and_the_low_x_one_takes_it():
    """Nucleation's `gap_race`: two pistons facing each other across a gap along x, each fired by an observer that
    sees the placement (placement with updates). The pistons are placed by y, then x, then z (placement_order), so
    the low-x piston's block event comes first and it takes the gap."""
    matches("gap_race.json", "gap_race.snbt", [], [1, 3, 5], placement=True)


def test_a_dust_line_over_six_pistons_fires_them_in_vanillas_order():
    """Nucleation's `dust_cascade`: a lever (7, 2, 1) powers a line of dust standing on six sticky pistons, each
    powered by the dust on it or beside it. Vanilla's dust tells its neighbours depth first, each dust its seven
    places in the order of a HashSet of world positions (the capture stood 100 blocks up): the pistons queue
    their block events in the order 5, 3, 2, 1, 4, 6 (the capture's queue log), 5 extends first and breaks the dust
    on it, and only 6, powered by the lever's block, follows (docs/redstone.md section 78). Telling the pistons
    nearest the lever first, 6 would extend first and 5 never."""
    cap = json.loads((NUCLEATION / "dust_cascade.json").read_text())
    assert cap["origin"] == [0, 100, 0]
    assert [tuple(e["pos"]) for e in cap["queues"][10]["before"]["events"]] == [
        (x, 1, 1) for x in (5, 3, 2, 1, 4, 6)]
    matches("dust_cascade.json", "dust_cascade.snbt", [Action(10, "use", (7, 2, 1))], [10, 12], placement=True)


def test_the_flying_engine_at_a_chunk_edge_takes_a_step_the_game_never_took():
    """manual_engine_settle: the flying engine of manual_engine_padded.snbt without its padding, placed with its
    updates. The engine makes every block change the game made, at its tick, but for the blocks the second step
    pushes to x = -1. The game had placed the structure on a chunk corner, and x = -1 lay in a chunk that was loaded
    but did not tick block entities: the moving blocks made there at ticks 9 and 10 never land (the capture lists no
    change of them after), so the observer and piston they carry never act, and that stops the machine after two
    steps. The engine's world has no chunks (docs/limits.md): they land at ticks 11 and 12, the piston at (-1, 0, 1)
    fires the observer it brought, and the machine takes a third step (ticks 14 to 25); the extra changes are all
    the engine's, none of the game's is missing or different."""
    for placed in (False, True):
        diffs = differences("manual_engine.snbt", "manual_engine_settle.json", [], ticks=40, placement=True,
                            placed=placed)
        assert [k for k, _, _ in diffs] == [11, 12, 14, 16, 18, 19, 21, 23, 25]
        for _, want, got in diffs:
            assert want.items() <= got.items()
        assert diffs[0][2].keys() - diffs[0][1].keys() == {(-1, 0, 1)}
        assert diffs[0][2][(-1, 0, 1)] == "minecraft:piston[extended=false,facing=south]"
        assert diffs[1][2].keys() - diffs[1][1].keys() == {(-1, 0, 0)}
