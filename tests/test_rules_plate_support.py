"""docs/redstone.md section 93: a pressure plate stands on a block whose top is a rigid support or covers its
centre (vanilla BasePressurePlateBlock.canSurvive), checked from the block actually under it when that block
changes. A piston that extends keeps its base in place, and a sideways base, 12/16 deep, still covers the centre
of its top: a plate on it stays. A plate on a block the piston carries away pops at once."""

from __future__ import annotations

import json

import pytest
from vanilla_capture import NUCLEATION, vanilla_changes

from scicraft_viz import World
from scicraft_viz.errors import PlacementError

PLATE = "minecraft:stone_pressure_plate[powered=false]"
LIGHT = "minecraft:light_weighted_pressure_plate[power=0]"


@pytest.mark.parametrize("plate", [PLATE, LIGHT])
def test_a_plate_on_a_sideways_piston_stays_through_its_extension_and_retraction(plate):
    w = World.from_blocks([((0, 0, 0), "minecraft:piston[facing=east]"), ((0, 1, 0), plate),
                           ((1, 0, 0), "minecraft:stone")])
    w.set_block((0, 0, 1), "minecraft:redstone_block")
    seen = []
    for _ in range(4):
        w.step(1)
        seen.append((w.get_block((0, 0, 0)), w.get_block((0, 1, 0)), w.get_block((2, 0, 0))))
    moving = "minecraft:moving_piston[facing=east,type=normal]"
    extended = "minecraft:piston[extended=true,facing=east]"
    assert seen == [(extended, plate, moving), (extended, plate, moving),
                    (extended, plate, "minecraft:stone"), (extended, plate, "minecraft:stone")]
    w.remove_block((0, 0, 1))
    seen = []
    for _ in range(4):
        w.step(1)
        seen.append((w.get_block((0, 0, 0)), w.get_block((0, 1, 0))))
    # the base is a moving block while it retracts (vanilla keeps the extended base's box for it), then lands
    assert seen == [(moving, plate), (moving, plate), ("minecraft:piston[extended=false,facing=east]", plate),
                    ("minecraft:piston[extended=false,facing=east]", plate)]


def test_a_plate_on_a_block_the_piston_pushes_away_pops_in_the_tick_of_the_push():
    w = World.from_blocks([((0, 0, 0), "minecraft:piston[facing=east]"), ((1, 0, 0), "minecraft:stone"),
                           ((1, 1, 0), PLATE)])
    w.set_block((0, 0, 1), "minecraft:redstone_block")
    total = w.events_total
    w.step(1)
    assert w.get_block((1, 1, 0)) == "minecraft:air"
    assert [(e.tick, e.pos, e.block) for e in w.events_since(total, "popped")] == [
        (1, (1, 1, 0), "minecraft:stone_pressure_plate")]
    w.step(3)
    assert (w.get_block((2, 0, 0)), w.get_block((2, 1, 0))) == ("minecraft:stone", "minecraft:air")


@pytest.mark.parametrize("top, stays", [("minecraft:lever[face=floor,facing=north,powered=false]", False),
                                        ("minecraft:redstone_torch[lit=true]", True)])
def test_a_lever_on_a_sideways_piston_falls_when_it_extends_and_a_torch_stays(top, stays):
    """A lever needs a whole face (vanilla isFaceSturdy), which the extended base's top is not; a torch needs only
    its centre (canSupportCenter)."""
    w = World.from_blocks([((0, 0, 0), "minecraft:piston[facing=east]"), ((0, 1, 0), top)])
    w.set_block((0, 0, 1), "minecraft:redstone_block")
    w.step(1)
    assert w.get_block((0, 0, 0)) == "minecraft:piston[extended=true,facing=east]"
    assert w.get_block((0, 1, 0)) == (top if stays else "minecraft:air")


@pytest.mark.parametrize("under", ["minecraft:oak_fence", "minecraft:hopper", "minecraft:stone"])
def test_a_plate_can_be_placed_on_a_fence_post_and_a_hoppers_rim(under):
    w = World()
    w.set_block((0, 0, 0), under)
    w.set_block((0, 1, 0), "stone_pressure_plate")
    assert w.get_block((0, 1, 0)) == PLATE


def test_a_plate_cannot_stand_on_a_bottom_slab():
    w = World()
    w.set_block((0, 0, 0), "smooth_stone_slab[type=bottom]")
    with pytest.raises(PlacementError, match="needs a solid block below"):
        w.set_block((0, 1, 0), "stone_pressure_plate")


def test_the_game_keeps_the_plate_on_the_piston_that_extends_and_retracts():
    """Nucleation's piston_clip_sizes, lane z=29: the sticky piston (5, 1, 29) under a light weighted plate extends
    at capture tick 2 and retracts at 14; the game never changes (5, 2, 29), and the engine makes the lane's block
    changes at every tick as the game does."""
    cap = vanilla_changes(json.loads((NUCLEATION / "piston_clip_sizes.json").read_text()))
    want = {k: {p: s for p, s in v.items() if p[2] == 29} for k, v in cap.items()}
    want = {k: v for k, v in want.items() if v}
    assert sorted(want) == [2, 4, 14, 16]
    w = World.from_build_file(NUCLEATION / "piston_plate_clip.snbt")
    assert w.get_block((5, 2, 29)) == LIGHT
    got, before = {}, w.blocks()
    for k in range(18):
        if k in (2, 14):
            w.set_block((6, 1, 29), "minecraft:redstone_block" if k == 2 else "minecraft:air")
        w.step(1)
        now = w.blocks()
        changed = {p: now.get(p, "minecraft:air") for p in before.keys() | now.keys()
                   if p[2] == 29 and before.get(p) != now.get(p)}
        if changed:
            got[k] = changed
        before = now
    assert got == want
