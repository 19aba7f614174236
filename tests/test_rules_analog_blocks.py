"""Blocks a comparator reads by their block state (Java Edition 1.20): cakes, cauldrons, composters, end portal
frames, respawn anchors, beehives and bee nests, and lecterns and jukeboxes while empty. A comparator reads
each directly and through a conductor, as it reads a container; otherwise each is a vanilla block of its shape
(docs/redstone.md section 36).

Layout as in test_rules_comparator.py: a stone floor at y=0; the comparator C at (1, 1, 0) faces west, so it
reads the block at (0, 1, 0), or at (-1, 1, 0) through a conductor at (0, 1, 0)."""

import pytest
from redstone_helpers import new_world, on, prop

from scicraft_viz import World
from scicraft_viz.engine.blocks import ANALOG_STATE, REFUSED_BLOCKS, REFUSED_STATES, VANILLA, analog_output
from scicraft_viz.engine.compiled import compile_world
from scicraft_viz.errors import BlockStateError
from tests.test_compiled_analog import compare

REAR, C, OUT, FAR = (0, 1, 0), (1, 1, 0), (2, 1, 0), (-1, 1, 0)

# every state a comparator reads, with the output the wiki's comparator page gives it
READINGS = [
    ("cake", 14), ("cake[bites=1]", 12), ("cake[bites=3]", 8), ("cake[bites=6]", 2),
    ("cauldron", 0), ("water_cauldron[level=1]", 1), ("water_cauldron[level=3]", 3),
    ("powder_snow_cauldron[level=2]", 2), ("lava_cauldron", 3),
    ("composter", 0), ("composter[level=1]", 1), ("composter[level=6]", 6), ("composter[level=8]", 8),
    ("end_portal_frame[eye=false]", 0), ("end_portal_frame[eye=true,facing=east]", 15),
    ("respawn_anchor", 0), ("respawn_anchor[charges=1]", 3), ("respawn_anchor[charges=2]", 7),
    ("respawn_anchor[charges=3]", 11), ("respawn_anchor[charges=4]", 15),
    ("beehive[honey_level=0]", 0), ("beehive[honey_level=5,facing=west]", 5), ("bee_nest[honey_level=3]", 3),
    ("lectern", 0), ("jukebox", 0),
]


def test_every_row_is_a_known_vanilla_block_and_every_value_has_an_output():
    for name, (key, outputs) in ANALOG_STATE.items():
        assert name in VANILLA, name
        values = VANILLA[name][1].get(key, ("",))
        refused = {v for (n, k, v) in REFUSED_STATES if n == name and k == key}
        assert set(outputs) | refused == set(values), name


@pytest.mark.parametrize("state, level", READINGS)
def test_a_comparator_reads_it_2_gt_after_it_is_placed_directly_and_through_a_conductor(state, level):
    for through in (False, True):
        w = new_world()
        w.set_block(C, "comparator[facing=west]")
        w.set_block(OUT, "redstone_lamp")
        if through:
            w.set_block(REAR, "stone")
        t = w.tick
        w.set_block(FAR if through else REAR, state)
        w.step(1)
        assert w.power(C).level == 0 and not on(w, C)
        w.step(1)
        assert w.tick == t + 2 and w.power(C).level == level and on(w, C) == (level > 0) and on(w, OUT) == (level > 0)


def test_the_output_follows_the_state_by_data():
    assert [analog_output("cake", {"bites": str(b)}.items()) for b in range(7)] == [14, 12, 10, 8, 6, 4, 2]
    assert [analog_output("respawn_anchor", {"charges": str(c)}.items()) for c in range(5)] == [0, 3, 7, 11, 15]
    assert analog_output("stone", ()) == -1


def test_read_directly_even_when_powered_and_through_a_conductor_only_below_15():
    """A respawn anchor conducts: powered by a lever on it, the comparator still reads its charge; a stone
    block holding 15 hides a cake behind it, one holding less gives way to the cake's 14."""
    w = new_world()
    w.set_block(REAR, "respawn_anchor[charges=1]")
    w.set_block((0, 1, -1), "lever[face=wall,facing=north]")
    w.set_block(C, "comparator[facing=west]")
    w.use((0, 1, -1))
    w.step(4)
    assert w.power(REAR).strong == 15 and w.power(C).level == 3
    w = new_world()
    w.set_block(FAR, "cake")
    w.set_block(REAR, "stone")
    w.set_block((0, 1, -1), "lever[face=wall,facing=north]")
    w.set_block(C, "comparator[facing=west]")
    w.step(4)
    assert w.power(C).level == 14
    w.use((0, 1, -1))
    w.step(2)
    assert w.power(C).level == 15


@pytest.mark.parametrize("state, conducts, holds_dust", [
    ("respawn_anchor", True, True), ("beehive", True, True), ("bee_nest", True, True), ("jukebox", True, True),
    ("cake", False, False), ("cauldron", False, False), ("water_cauldron[level=3]", False, False),
    ("lava_cauldron", False, False), ("composter", False, False), ("end_portal_frame", False, False),
    ("lectern", False, False),
])
def test_full_ones_conduct_the_others_do_not_and_only_full_tops_hold_dust(state, conducts, holds_dust):
    w = new_world()
    w.set_block(REAR, state)
    w.set_block((0, 1, 1), "redstone_repeater[facing=south]")  # pointing into it: strong power
    w.set_block((0, 1, 2), "lever[face=floor,facing=north]")
    w.use((0, 1, 2))
    w.step(4)
    assert w.power(REAR).strong == (15 if conducts else 0)
    w.set_block((-1, 1, 0), "redstone_lamp")
    w.step(1)
    assert on(w, (-1, 1, 0)) == conducts
    if holds_dust:
        w.set_block((0, 2, 0), "redstone_wire")
        assert w.get_block((0, 2, 0)).startswith("minecraft:redstone_wire")
    else:
        with pytest.raises(Exception, match="solid block below"):
            w.set_block((0, 2, 0), "redstone_wire")


def test_a_composter_side_holds_a_torch_a_cauldron_side_does_not():
    """Whole faces come from the collision shape: a composter's walls are whole, a cauldron's are notched."""
    w = new_world()
    w.set_block(REAR, "composter")
    w.set_block((1, 1, 0), "redstone_wall_torch[facing=east]")
    assert on(w, (1, 1, 0))
    w = new_world()
    w.set_block(REAR, "cauldron")
    with pytest.raises(Exception, match="behind it"):
        w.set_block((1, 1, 0), "redstone_wall_torch[facing=east]")


@pytest.mark.parametrize("state, toward", [("lectern", True), ("jukebox", True), ("cauldron", False),
                                           ("respawn_anchor", False)])
def test_dust_turns_toward_a_lectern_and_a_jukebox(state, toward):
    """Lecterns and jukeboxes are signal sources (giving 0 here): dust beside one points at it as at a lever."""
    w = new_world()
    w.set_block(REAR, state)
    w.set_block(C, "redstone_wire")
    sides = {k: prop(w, C, k) for k in ("north", "east", "south", "west")}
    if toward:
        assert sides == {"north": "none", "east": "side", "south": "none", "west": "side"}
    else:
        assert sides == {"north": "side", "east": "side", "south": "side", "west": "side"}


@pytest.mark.parametrize("state, match", [
    ("lectern[has_book=true]", "page"), ("lectern[powered=true]", "page turn"),
    ("jukebox[has_record=true]", "disc"), ("composter[level=7]", "20 game ticks"),
    ("chiseled_bookshelf", "last slot"), ("minecraft:chiseled_bookshelf[facing=east]", "last slot"),
    ("lightning_rod[powered=true]", "lightning strikes"),  # section 55
    ("soul_fire", "soul sand or soul soil"),  # section 81
    *((f"big_dripleaf[tilt={t}]", "springs back") for t in ("unstable", "partial", "full")),  # section 83
])
def test_states_whose_behaviour_the_state_does_not_carry_are_refused_with_the_reason(state, match):
    for replay in (False, True):
        with pytest.raises(BlockStateError, match=match):
            World(replay=replay).set_block((0, 0, 0), state)
    assert len(REFUSED_STATES) == 8 and len(REFUSED_BLOCKS) == 2


def _pushed(state):
    """A piston at (-2, 1, 0) facing east pushes the block at (-1, 1, 0) toward the comparator's rear."""
    w = new_world()
    w.set_block(C, "comparator[facing=west]")
    w.set_block((-2, 1, 0), "piston[facing=east]")
    w.set_block(FAR, state)
    w.set_block((-2, 1, 1), "lever[face=floor,facing=north]")
    w.step(2)
    return w


def test_a_pushed_cauldron_lands_and_is_read_2_gt_later():
    w = _pushed("lava_cauldron")
    t = w.tick
    w.use((-2, 1, 1))
    out = []
    for _ in range(6):
        w.step(1)
        out.append((w.tick - t, w.power(C).level, w.get_block(REAR).split("[")[0]))
    # the move takes 2 gt from the tick of the push, as any block's (section 29)
    assert out == [(1, 0, "minecraft:moving_piston"), (2, 0, "minecraft:moving_piston"),
                   (3, 0, "minecraft:lava_cauldron"), (4, 0, "minecraft:lava_cauldron"),
                   (5, 3, "minecraft:lava_cauldron"), (6, 3, "minecraft:lava_cauldron")]


@pytest.mark.parametrize("state, after", [
    ("cake", ("minecraft:piston_head", "minecraft:air")),  # broken
    ("respawn_anchor", ("minecraft:respawn_anchor", "minecraft:air")),  # immovable
    ("end_portal_frame", ("minecraft:end_portal_frame", "minecraft:air")),
    ("beehive", ("minecraft:beehive", "minecraft:air")), ("lectern", ("minecraft:lectern", "minecraft:air")),
    ("composter", ("minecraft:piston_head", "minecraft:composter")),  # moved
])
def test_pistons_break_cakes_leave_anchors_frames_and_block_entities_and_move_the_rest(state, after):
    w = _pushed(state)
    w.use((-2, 1, 1))
    w.step(3)
    assert (w.get_block(FAR).split("[")[0], w.get_block(REAR).split("[")[0]) == after


def test_the_compiled_engine_reads_them_tick_for_tick():
    """Readings direct and through a block, against a side input from a lever, on both engines."""
    w = new_world()
    lever = "lever[face=floor,facing=north]"
    w.set_blocks([
        (REAR, "cake[bites=2]"), (C, "comparator[facing=west,mode=subtract]"), ((1, 1, 1), "redstone_wire"),
        ((1, 1, 2), lever), (OUT, "redstone_wire"), ((3, 1, 0), "redstone_lamp"),
        ((-1, 1, 3), "respawn_anchor[charges=3]"), ((0, 1, 3), "stone"), ((1, 1, 3), "comparator[facing=west]"),
        ((0, 1, 4), "redstone_wire"), ((0, 1, 5), lever), ((2, 1, 3), "redstone_wire"),
        ((3, 1, 3), "redstone_wire"), ((4, 1, 3), "redstone_lamp"),
    ])
    w.step(6)
    cw = compile_world(w)
    assert sorted(set(cw.output_signals().tolist())) == [0, 10, 11]  # levers are nodes too
    assert compare(w, cw, [(None, 3), ((1, 1, 2), 6), ((0, 1, 5), 6), ((1, 1, 2), 6), ((0, 1, 5), 6)]) == 4 + 4 * 7
