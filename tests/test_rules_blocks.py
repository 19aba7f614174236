"""Vanilla's other blocks by what they are: full blocks that conduct (concrete, wool, planks...), full
blocks that do not (stained glass, leaves, glowstone...), and slabs and stairs by their sturdy faces.
Exact states and powers, both engines, and a substitution property: a build behaves tick for tick the
same with any conducting block in place of stone and any transparent one in place of glass."""

import importlib.util
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redstone_helpers import new_world, on, parse, power
from test_compiled import _compare_or_refused, _inputs

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.errors import BlockStateError, PlacementError

ROOT = Path(__file__).resolve().parent.parent
CONDUCTIVE = sorted(n for n, (i, _, _) in B.VANILLA.items() if i == B.STONE and not n.endswith("_slab"))
TRANSPARENT = sorted(n for n, (i, _, _) in B.VANILLA.items() if i == B.GLASS)


def shape(w, pos):
    return {d: parse(w.get_block(pos))[1][d] for d in ("north", "east", "south", "west")}


# ------------------------------------------------------------------------------------------ the data
def test_data_file_is_what_the_generator_makes_from_minecraft_data():
    spec = importlib.util.spec_from_file_location("gen_block_data", ROOT / "tools" / "gen_block_data.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    stored = json.loads((ROOT / "scicraft_viz" / "engine" / "data" / "vanilla_blocks.json").read_text())
    assert gen.build_rows() == stored["blocks"]
    assert gen.WALL_COVER == stored["wall_cover"]  # filled by build_rows
    assert gen.build_instruments() == stored["instruments"]


@pytest.mark.parametrize("name", ["white_concrete", "black_wool", "terracotta", "red_terracotta", "stone_bricks",
                                  "oak_planks", "quartz_block", "obsidian", "bricks", "slime_block", "oak_log"])
def test_full_opaque_blocks_conduct(name):
    assert B.parse_state(name).id == B.STONE


@pytest.mark.parametrize("name", ["white_stained_glass", "tinted_glass", "oak_leaves", "ice", "glowstone",
                                  "sea_lantern"])
def test_glass_leaves_ice_glowstone_sea_lantern_do_not_conduct(name):
    assert B.parse_state(name).id == B.GLASS


@pytest.mark.parametrize("name", ["trapped_chest", "sand", "white_concrete_powder", "tnt",
                                  "sculk_sensor", "crafter"])
def test_blocks_with_a_behaviour_of_their_own_are_not_taken_for_plain_blocks(name):
    with pytest.raises(BlockStateError, match="unknown block"):
        B.parse_state(name)


def test_each_block_keeps_its_own_name_and_properties():
    w = World()
    w.set_blocks([((0, 0, 0), "white_concrete"), ((1, 0, 0), "oak_slab[type=top]"),
                  ((2, 0, 0), "stone_brick_stairs[facing=east,half=top]"), ((3, 0, 0), "oak_log[axis=x]"),
                  ((4, 0, 0), "lime_stained_glass")])
    assert [w.get_block((x, 0, 0)) for x in range(5)] == [
        "minecraft:white_concrete", "minecraft:oak_slab[type=top,waterlogged=false]",
        "minecraft:stone_brick_stairs[facing=east,half=top,shape=straight,waterlogged=false]",
        "minecraft:oak_log[axis=x]", "minecraft:lime_stained_glass"]
    w.set_block((0, 0, 0), "black_concrete")  # same engine id, another block: replaced
    assert w.get_block((0, 0, 0)) == "minecraft:black_concrete"


def test_sturdy_faces_of_slabs_and_stairs():
    def faces(state):
        st_ = B.parse_state(state)
        mask = B.vanilla_kind(st_.name, st_.props)[1]
        return {d for k, d in enumerate(B.DIRECTIONS) if mask >> k & 1}

    assert faces("oak_slab[type=top]") == {"up"}
    assert faces("oak_slab[type=bottom]") == {"down"}
    assert B.parse_state("oak_slab[type=double]").id == B.STONE
    assert faces("oak_stairs[facing=north,half=bottom,shape=straight]") == {"north", "down"}
    assert faces("oak_stairs[facing=north,half=top,shape=inner_left]") == {"north", "west", "up"}
    assert faces("oak_stairs[facing=north,half=top,shape=inner_right]") == {"north", "east", "up"}
    assert faces("oak_stairs[facing=east,half=top,shape=outer_left]") == {"up"}


# ------------------------------------------------------------------------------------------ the rules
def _lever_beside(w, block_pos):
    """A lever on the west face of the block, returned; the block is at block_pos."""
    x, y, z = block_pos
    w.set_block((x - 1, y, z), "lever[face=wall,facing=west]")
    return (x - 1, y, z)


def test_concrete_is_strongly_powered_like_stone():
    w = new_world()
    w.set_block((0, 1, 0), "white_concrete")
    w.set_block((1, 1, 0), "redstone_wire")
    lever = _lever_beside(w, (0, 1, 0))
    w.use(lever)
    assert power(w, (1, 1, 0)) == 15


def test_stained_glass_is_never_powered():
    w = new_world()
    w.set_block((0, 1, 0), "red_stained_glass")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((0, 1, 1), "redstone_lamp")
    lever = _lever_beside(w, (0, 1, 0))
    w.use(lever)
    w.step(2)
    assert power(w, (1, 1, 0)) == 0
    assert not on(w, (0, 1, 1))


def test_top_slab_holds_dust_torch_and_repeater_bottom_slab_holds_none():
    w = new_world()
    for x in range(3):
        w.set_block((x, 1, 0), "smooth_stone_slab[type=top]")
        w.set_block((x, 1, 2), "smooth_stone_slab[type=bottom]")
    w.set_block((0, 2, 0), "redstone_wire")
    w.set_block((1, 2, 0), "redstone_torch")
    w.set_block((2, 2, 0), "repeater[facing=west]")
    for x, state in enumerate(("redstone_wire", "redstone_torch", "repeater[facing=west]")):
        with pytest.raises(PlacementError, match="oak_slab|smooth_stone_slab"):
            w.set_block((x, 2, 2), state)


def test_a_bottom_slab_under_pasted_dust_drops_it_at_the_first_update():
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "oak_slab[type=bottom]"), ((0, 1, 0), "redstone_wire")])
    assert parse(w.get_block((0, 1, 0)))[0] == "redstone_wire"  # /setblock keeps it
    w.set_block((1, 1, 0), "stone")  # a neighbour update
    assert w.get_block((0, 1, 0)) == "minecraft:air"


def test_upside_down_stairs_hold_dust_and_upright_stairs_do_not():
    w = new_world()
    w.set_block((0, 1, 0), "oak_stairs[half=top]")
    w.set_block((0, 2, 0), "redstone_wire")
    w.set_block((2, 1, 0), "oak_stairs[half=bottom]")
    with pytest.raises(PlacementError):
        w.set_block((2, 2, 0), "redstone_wire")


def test_slabs_do_not_conduct():
    """A repeater into a top slab, a lever on a double slab's neighbour: only the double slab conducts."""
    w = new_world()
    w.set_block((0, 1, 0), "repeater[facing=west]")  # points east, into the slab
    w.set_block((1, 1, 0), "oak_slab[type=top]")
    w.set_block((2, 1, 0), "redstone_lamp")
    w.set_block((-1, 1, 0), "lever[face=floor]")
    w.use((-1, 1, 0))
    w.step(6)
    assert not on(w, (2, 1, 0))
    w.set_block((1, 1, 0), "oak_slab[type=double]")
    w.step(6)
    assert on(w, (2, 1, 0))


def test_wall_torch_and_button_need_a_whole_face():
    w = new_world()
    w.set_block((0, 1, 0), "oak_stairs[facing=west,half=bottom]")  # the whole face is the west one
    w.set_block((-1, 1, 0), "redstone_wall_torch[facing=west]")
    with pytest.raises(PlacementError):
        w.set_block((1, 1, 0), "redstone_wall_torch[facing=east]")
    with pytest.raises(PlacementError):
        w.set_block((0, 1, 1), "stone_button[face=wall,facing=south]")
    w.set_block((4, 2, 0), "oak_slab[type=bottom]")
    w.set_block((4, 1, 0), "stone_button[face=ceiling]")  # under a bottom slab's whole bottom face


def test_dust_climbs_onto_a_top_slab_but_never_steps_down_from_it():
    """Dust on a slab is a diode: the slab does not conduct, so the dust below cannot read down its side.
    The step shows as `side`, not `up`: the slab's face toward the lower dust is not whole."""
    w = new_world()
    w.set_block((0, 1, 0), "redstone_wire")
    w.set_block((1, 1, 0), "oak_slab[type=top]")
    w.set_block((1, 2, 0), "redstone_wire")
    assert shape(w, (0, 1, 0))["east"] == "side"
    w.set_block((-1, 1, 0), "stone")
    lever = _lever_beside(w, (-1, 1, 0))
    w.use(lever)
    assert power(w, (0, 1, 0)) == 15 and power(w, (1, 2, 0)) == 14
    w.use(lever)
    w.set_block((2, 2, 0), "redstone_block")
    assert power(w, (1, 2, 0)) == 15 and power(w, (0, 1, 0)) == 0


def test_a_slab_above_lower_dust_does_not_cut_the_step_but_concrete_does():
    def world(cover):
        w = new_world()
        w.set_block((0, 1, 0), "stone")
        w.set_block((0, 2, 0), "redstone_wire")
        w.set_block((1, 1, 0), "redstone_wire")
        w.set_block((1, 2, 0), cover)
        w.set_block((-1, 2, 0), "redstone_block")  # feeds the upper dust
        return w

    w = world("oak_slab[type=bottom]")
    assert power(w, (0, 2, 0)) == 15 and power(w, (1, 1, 0)) == 14
    w = world("white_concrete")
    assert power(w, (0, 2, 0)) == 15 and power(w, (1, 1, 0)) == 0


# ------------------------------------------------------------------------------------------ properties
_LOW = ["air", "air", "stone", "stone", "glass", "redstone_wire", "redstone_wire", "redstone_wire",
        "redstone_lamp", "redstone_torch", "redstone_block", "lever[face=floor]", "stone_button[face=floor]"]
_HIGH = ["air", "air", "air", "redstone_wire", "redstone_lamp", "stone", "glass", "redstone_torch"]
_DIRS = ("north", "east", "south", "west")


def _items(rnd: random.Random, size: int, partial: bool) -> list:
    out = [((x, 3, z), "stone") for x in range(-1, size + 1) for z in range(-1, size + 1)]
    for y, pool in ((4, _LOW), (5, _HIGH), (6, _HIGH)):
        for x in range(size):
            for z in range(size):
                r = rnd.random()
                if r < 0.15:
                    s = f"repeater[facing={rnd.choice(_DIRS)},delay={rnd.randint(1, 4)}]"
                elif r < 0.2:
                    s = f"redstone_wall_torch[facing={rnd.choice(_DIRS)}]"
                elif partial and r < 0.3:
                    half = rnd.choice(("top", "bottom"))
                    s = rnd.choice([f"oak_slab[type={rnd.choice(('top', 'bottom', 'double'))}]",
                                    f"stone_brick_stairs[facing={rnd.choice(_DIRS)},half={half},"
                                    f"shape={rnd.choice(('straight', 'inner_left', 'outer_right'))}]"])
                else:
                    s = rnd.choice(pool)
                out.append(((x, y, z), s))
    return out


def _place(items) -> World:
    w = World(log_events=False)
    for p, s in items:
        try:
            w.set_block(p, s)
        except PlacementError:
            pass
    return w


def _back(state: str) -> str:
    name = parse(state)[0]
    return {B.STONE: "minecraft:stone", B.GLASS: "minecraft:glass"}[B.VANILLA[name][0]] if name in B.VANILLA else state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_decorative_blocks_behave_tick_for_tick_as_stone_and_glass(rnd):
    items = _items(rnd, 4, partial=False)
    swap = [(p, rnd.choice(CONDUCTIVE) if s == "stone" else rnd.choice(TRANSPARENT) if s == "glass" else s)
            for p, s in items]
    a, b = _place(items), _place(swap)
    inputs = _inputs(a)
    for _ in range(5):
        if inputs:
            p = rnd.choice(inputs)
            assert a.use(p) == b.use(p)
        for _ in range(rnd.randint(1, 12)):
            a.step(1)
            b.step(1)
            assert {p: _back(s) for p, s in b.blocks().items()} == a.blocks()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_both_engines_agree_with_slabs_stairs_and_decorative_blocks(rnd):
    items = _items(rnd, 4, partial=True)
    items = [(p, rnd.choice(CONDUCTIVE) if s == "stone" and rnd.random() < 0.5 else s) for p, s in items]
    w = _place(items)
    w.step(rnd.randint(0, 30))
    _compare_or_refused(w, rnd, 5, 30)


def test_the_evaluator_keeps_the_tasks_palette_both_ways_a_build_is_read():
    """A vanilla block is no SciCrafter palette block: a build using one fails the palette check, named,
    whether the structure is read from the block list or from the placed world."""
    from scicraft_viz import evaluator, tasks
    from scicraft_viz.tasks.structure import BlockTable

    path = ROOT / "tasks" / "solutions" / "A_simultaneous_lights_L1.mcfunction"
    text = path.read_text()
    line = next(ln for ln in text.splitlines() if ln.endswith(":stone"))
    r = evaluator.evaluate(tasks.load("A_simultaneous_lights_L1"), text.replace(line, line[:-5] + "white_concrete", 1))
    bad = [c for c in r.checks if not c.passed]
    assert bad and any("white_concrete" in c.reason for c in bad), [(c.name, c.reason) for c in bad]
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "white_concrete"), ((1, 0, 0), "oak_slab[type=top]"), ((2, 0, 0), "stone")])
    for t in (BlockTable.of_world(w), BlockTable.of_blocks(w.blocks())):
        got = sorted((tuple(p), int(i), t.name(k)) for k, (p, i) in enumerate(zip(t.pos.tolist(), t.ids.tolist())))
        assert got == [((0, 0, 0), -1, "white_concrete"), ((1, 0, 0), -1, "oak_slab"), ((2, 0, 0), B.STONE, "stone")]


def test_events_name_the_vanilla_block_placed():
    w = World()
    w.set_block((0, 0, 0), "white_concrete")
    w.set_block((1, 0, 0), "oak_slab[type=top]")
    assert [(e.kind, e.block, e.pos) for e in w.events] == [
        ("placed", "minecraft:white_concrete", (0, 0, 0)), ("placed", "minecraft:oak_slab", (1, 0, 0))]
    assert w.events[0].describe() == "tick 0: placed white_concrete at (0, 0, 0)"
