"""Shulker boxes (docs/redstone.md section 53), heads and skulls (54) and lightning rods (55): known by their
vanilla states from Minecraft's block data, with what a piston does to each, what conducts and what a
comparator reads."""

import numpy as np
import pytest
from redstone_helpers import name, new_world, on, power
from test_compiled import _compare

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import compile_world
from scicraft_viz.errors import BlockStateError, BuildFileError


def _through(middle: str) -> bool:
    """Is a lamp beyond `middle` lit when a repeater points into it (strong power through a conductor)?"""
    w = new_world()
    w.set_block((-2, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((-1, 1, 0), "repeater[facing=west]")  # output east, into (0, 1, 0)
    w.set_block((0, 1, 0), middle)
    w.set_block((1, 1, 0), "redstone_lamp")
    w.use((-2, 1, 0))
    w.step(4)
    assert on(w, (-1, 1, 0))
    return on(w, (1, 1, 0))


def _pushed(front: str) -> World:
    """A piston at (0, 1, 0) facing east, powered by a lever, `front` just ahead of it: the world 3 gt on."""
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), front)
    w.use((0, 1, 1))
    w.step(3)
    return w


# ----------------------------------------------------------------------------------- 53. shulker boxes
@pytest.mark.parametrize("box", B.SHULKER_BOXES)
def test_every_shulker_box_is_a_full_conductive_block_with_its_facing(box):
    st = B.parse_state(f"{box}[facing=down]")
    assert st.id == B.STONE and dict(st.props) == {"facing": "down"}
    assert B.vanilla_state_of(B.vanilla_number(st.name, st.props)) == str(st)
    assert B.analog_output(st.name, st.props) == 0


def test_a_repeater_powers_a_shulker_box_and_the_lamp_beside_it():
    assert _through("white_shulker_box") and _through("shulker_box[facing=east]")


def test_a_comparator_reads_an_empty_shulker_box_as_0_powered_or_not():
    """vanilla ComparatorBlock.getInputSignal: a block with an analog output is read by it, not by its power. A
    lever on the box powers it strongly (the lamp beside it lights); the comparator behind still reads 0."""
    w = new_world()
    w.set_block((0, 1, 0), "white_shulker_box")
    w.set_block((0, 2, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, -1), "redstone_lamp")
    w.set_block((1, 1, 0), "comparator[facing=west]")
    w.set_block((2, 1, 0), "redstone_wire")
    for lit in (True, False):
        w.use((0, 2, 0))
        w.step(4)
        assert on(w, (0, 1, -1)) == lit and power(w, (2, 1, 0)) == 0 and not on(w, (1, 1, 0))


def test_a_piston_breaks_a_shulker_box():
    w = _pushed("lime_shulker_box")
    assert name(w, (1, 1, 0)) == "piston_head" and name(w, (2, 1, 0)) == "air"


def test_a_shulker_box_holding_items_loads_them(tmp_path):
    """Its block entity's Items, as a chest's (section 96); a slot past its 27 is refused naming the box."""
    f = tmp_path / "box.snbt"
    f.write_text('{DataVersion: 3465, size: [1, 1, 1], palette: [{Name: "minecraft:shulker_box", Properties: '
                 '{facing: "up"}}], blocks: [{pos: [0, 0, 0], state: 0, nbt: {id: "minecraft:shulker_box", '
                 'Items: [{Slot: 3b, id: "minecraft:stone", Count: 5b}]}}], entities: []}')
    w = World.from_build_file(f)
    assert w.get_block((0, 0, 0)) == "minecraft:shulker_box[facing=up]"
    assert w.slots((0, 0, 0))[:4] == [None, None, None, ("stone", 5)] and w.fill_level((0, 0, 0)) == 1
    f.write_text(f.read_text().replace("Slot: 3b", "Slot: 27b"))
    with pytest.raises(BuildFileError, match=r"the shulker box at \(0, 0, 0\)\): Items\[0\]: Slot 27 is outside"):
        World.from_build_file(f)


# ----------------------------------------------------------------------------------- 54. heads and skulls
@pytest.mark.parametrize("state", [*(f"{h}[rotation=7]" for h in B.HEADS),
                                   *(f"{h}[facing=east]" for h in B.WALL_HEADS)])
def test_heads_and_skulls_are_known_float_and_never_conduct(state):
    st = B.parse_state(state)
    assert st.id == B.PARTIAL and B.vanilla_state_of(B.vanilla_number(st.name, st.props)) == str(st)
    assert B.support_need(st.name, st.props) is None
    w = World()
    w.set_block((0, 5, 0), state)  # in the air, nothing beside it
    assert w.get_block((0, 5, 0)) == str(st)
    assert not _through(state)


def test_a_heads_powered_from_a_later_version_is_dropped_when_read(tmp_path):
    f = tmp_path / "head.snbt"
    f.write_text('{DataVersion: 3465, size: [1, 1, 1], palette: [{Name: "minecraft:player_wall_head", Properties: '
                 '{facing: "north", powered: "false"}}], blocks: [{pos: [0, 0, 0], state: 0}], entities: []}')
    with pytest.warns(UserWarning, match="powered"):
        w = World.from_build_file(f)
    assert w.get_block((0, 0, 0)) == "minecraft:player_wall_head[facing=north]"


@pytest.mark.parametrize("front", ["zombie_head", "player_wall_head[facing=east]", "skeleton_skull"])
def test_a_piston_breaks_a_head(front):
    w = _pushed(front)
    assert name(w, (1, 1, 0)) == "piston_head" and name(w, (2, 1, 0)) == "air"


# ----------------------------------------------------------------------------------- 55. lightning rods
@pytest.mark.parametrize("facing", B.DIRECTIONS)
def test_a_lightning_rod_is_known_by_its_facing_and_never_conducts(facing):
    st = B.parse_state(f"lightning_rod[facing={facing}]")
    assert st.id == B.PARTIAL and dict(st.props) == {"facing": facing, "powered": "false", "waterlogged": "false"}
    assert not _through(f"lightning_rod[facing={facing}]")


def test_a_struck_lightning_rod_is_refused_naming_why():
    with pytest.raises(BlockStateError, match="lightning strikes"):
        B.parse_state("lightning_rod[powered=true]")


def test_dust_turns_toward_a_lightning_rod():
    w = new_world()
    w.set_block((0, 1, 0), "lightning_rod")
    w.set_block((1, 1, 0), "redstone_wire")
    got = B.split_state(w.get_block((1, 1, 0)))[1]
    assert (got["west"], got["east"], got["north"], got["south"]) == ("side", "side", "none", "none")


def test_a_piston_moves_a_lightning_rod_with_its_facing():
    w = _pushed("lightning_rod[facing=north]")
    w.step(1)
    assert w.get_block((2, 1, 0)) == "minecraft:lightning_rod[facing=north,powered=false,waterlogged=false]"


def test_the_compiled_engine_runs_these_blocks_as_the_reference_does():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((2, 1, 0), "lightning_rod")
    w.set_block((1, 1, 1), "repeater[facing=north]")  # input from the north: the dust
    w.set_block((1, 1, 2), "white_shulker_box")
    w.set_block((1, 1, 3), "redstone_lamp")
    w.set_block((0, 1, 2), "zombie_head")
    w.set_block((2, 1, 2), "comparator[facing=west]")  # reads the box
    w.set_block((3, 1, 2), "redstone_lamp")
    cw = compile_world(w)
    _compare(w, cw, [((0, 1, 0), 3), ((0, 1, 0), 9)])
    assert not on(w, (1, 1, 3))
    w.use((0, 1, 0))
    w.step(6)
    assert on(w, (1, 1, 3))


# ----------------------------------------------------------------------------------- the views
def test_the_views_draw_each_by_its_shape_and_colour_and_hover_says_what_it_is():
    from test_rules_decorative_views import _by_position

    from scicraft_viz.views.block_colors import DYES, block_color
    from scicraft_viz.views.canvas import describe_block
    from scicraft_viz.views.frame import frame_from_world

    w = World(replay=True)
    w.set_blocks([((x, 0, 0), "stone") for x in range(6)] + [
        ((0, 1, 0), "zombie_head"), ((1, 1, 1), "tripwire_hook[facing=north]"), ((1, 1, 2), "stone"),
        ((2, 1, 0), "lightning_rod[facing=east]"), ((3, 1, 0), "lime_shulker_box"),
        ((4, 1, 0), "player_wall_head[facing=south]")])
    f = frame_from_world(w)
    drawn = _by_position(f)
    boxes = {p: [b for b, _, _ in v] for p, v in drawn.items()}
    assert boxes[(0, 1, 0)] == [[0.25, 1, 0.25, 0.75, 1.5, 0.75]]  # a head: half a block on the floor
    assert boxes[(4, 1, 0)] == [[4.25, 1.25, 0, 4.75, 1.75, 0.5]]  # a wall head against its wall (north)
    assert boxes[(2, 1, 0)] == [[2, 1.4375, 0.4375, 3, 1.5625, 0.5625], [2.75, 1.375, 0.375, 3, 1.625, 0.625]]
    assert len(boxes[(1, 1, 1)]) == 3 and all(b[5] > 1.75 for b in boxes[(1, 1, 1)][:1])  # against the stone south
    assert boxes[(3, 1, 0)] == [[3, 1, 0, 4, 2, 1]]  # a shulker box is a whole block
    assert {tuple(c) for _, c, _ in drawn[(3, 1, 0)]} == {tuple(np.float32(DYES["lime"]))}
    assert {tuple(c) for _, c, _ in drawn[(0, 1, 0)]} == {tuple(np.float32(block_color("zombie_head")))}
    assert len({block_color(n) for n in ("zombie_head", "creeper_head", "skeleton_skull", "wither_skeleton_skull",
                                         "dragon_head", "piglin_head", "player_head", "lightning_rod",
                                         "tripwire_hook", "shulker_box")}) == 10
    assert "dust turns toward it" in describe_block(f, (1, 1, 1))
    assert describe_block(f, (3, 1, 0)).endswith("a comparator reads 0; conducts; a piston breaks it")
    assert "lightning strikes it" in describe_block(f, (2, 1, 0))
    assert describe_block(f, (0, 1, 0)).endswith("· decorative, never powered; a piston breaks it")
