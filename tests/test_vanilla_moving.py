"""Blocks that move and blocks that watch, against vanilla: each structure of tests/data/nucleation/ run with the
actions its capture was made with, every block change of every tick compared with what vanilla 26.2 did
(tests/data/nucleation/README.md says what each one is)."""

from __future__ import annotations

import json

import pytest
from vanilla_capture import NUCLEATION, Action, differences, vanilla_changes

RB, AIR = "minecraft:redstone_block", "minecraft:air"


def case_actions(name: str) -> list[Action]:
    """The actions of one of Nucleation's cases (`place` only: a block state set at a tick)."""
    case = json.loads((NUCLEATION / name).read_text())
    return [Action(a["tick"], "place", tuple(a["place"]), a["state"]) for a in case["actions"]]


# capture -> (structure, actions, the ticks at which vanilla changed blocks)
CAPTURES = {
    "door_push.json": ("door_push.snbt", case_actions("door_push.test.json"), [2, 4, 8, 10]),
    "trapdoor_push.json": ("trapdoor_rig.snbt", [Action(2, "place", (0, 1, 2), RB), Action(8, "place", (0, 1, 2), AIR)],
                           [2, 4, 8, 10]),
    "piston_pull.json": ("piston_pull.snbt", [Action(6, "place", (1, 1, z), AIR) for z in (1, 3, 5, 7)], [6, 8]),
    "piston_race_quiet.json": ("piston_race_quiet.snbt", [], [0, 2]),
    "piston_handoff.json": ("piston_handoff.snbt", [Action(3, "use", (3, 1, 1))], [3, 5, 6, 8, 9, 11]),
    "slime_drag.json": ("slime_drag.snbt", [], [0, 2]),
    "slime_extender.json": ("slime_extender.snbt", [Action(5, "use", (1, 2, 1))], [5, 7]),
    "stacked_pistons.json": ("stacked_pistons.snbt", [], [1, 3]),
    "manual_engine_quiet_click.json": ("manual_engine_padded.snbt", [Action(10, "use", (15, 0, 2))],
                                       [10, 12, 13, 14, 15, 16, 18, 19, *range(20, 30), 31, 33, 35]),
}


@pytest.mark.parametrize("capture", sorted(CAPTURES))
def test_the_engine_makes_vanillas_block_changes_at_every_tick(capture):
    structure, actions, ticks = CAPTURES[capture]
    vanilla = vanilla_changes(json.loads((NUCLEATION / capture).read_text()))
    assert sorted(vanilla) == ticks  # the capture is the one described in the README
    assert differences(structure, capture, actions) == []
