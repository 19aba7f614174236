"""Build files holding decorative blocks (docs/redstone.md sections 42-43): every format reads them with their
states as saved, a schematic loads them as a paste, and what hangs on a block pops when that block goes."""

import gzip
import io

import nbtlib
import pytest
from nbtlib import Compound, IntArray, List, String
from redstone_helpers import name
from test_formats import sponge3
from test_formats_mcedit import legacy

from scicraft_viz import World
from scicraft_viz.engine.formats import FORMATS, decode_build, encode_build

BUILD = [((x, 0, 0), "minecraft:stone") for x in range(8)] + [
    ((0, 1, 0), "minecraft:oak_fence[east=true,north=false,south=false,waterlogged=false,west=false]"),
    ((0, 2, 0), "minecraft:redstone_torch[lit=true]"),
    ((1, 1, 0), "minecraft:white_carpet"),
    ((2, 1, 0), "minecraft:oak_sign[rotation=4,waterlogged=false]"),
    ((3, 1, 0), "minecraft:lime_stained_glass_pane[east=false,north=true,south=true,waterlogged=false,west=false]"),
    ((4, 1, 0), "minecraft:cobblestone_wall[east=tall,north=none,south=none,up=true,waterlogged=false,west=low]"),
    ((5, 1, 0), "minecraft:lantern[hanging=false,waterlogged=false]"),
    ((6, 1, 0), "minecraft:potted_poppy"),
    ((7, 1, 0), "minecraft:candle[candles=3,lit=true,waterlogged=false]"),
    ((0, 1, 1), "minecraft:stone"),
    ((0, 1, 2), "minecraft:ladder[facing=south,waterlogged=false]"),
    ((1, 1, 1), "minecraft:stone"),
    ((1, 1, 2), "minecraft:birch_wall_sign[facing=south,waterlogged=false]"),
    ((2, 1, 2), "minecraft:red_wall_banner[facing=south]"),
    ((2, 1, 1), "minecraft:stone"),
    ((3, 2, 2), "minecraft:chain[axis=y,waterlogged=false]"),
    ((3, 1, 2), "minecraft:soul_lantern[hanging=true,waterlogged=false]"),
    ((4, 1, 2), "minecraft:white_carpet"),  # nothing under it in the file
]


# Set by the shape updates of the blocks placed after them: the carpet east of the fence and the lantern east of
# the wall have no whole face, the stone south of the fence has, and the wall east of the pane joins it.
SETBLOCK_SIDES = {
    (0, 1, 0): "minecraft:oak_fence[east=false,north=false,south=true,waterlogged=false,west=false]",
    (3, 1, 0): "minecraft:lime_stained_glass_pane[east=true,north=true,south=true,waterlogged=false,west=false]",
    (4, 1, 0): "minecraft:cobblestone_wall[east=none,north=none,south=none,up=true,waterlogged=false,west=low]",
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_reads_decorative_blocks_with_their_states(fmt):
    data = encode_build(BUILD, fmt)
    assert sorted(decode_build(data, fmt, "b." + fmt)) == sorted(BUILD)
    w = World.from_build_file(data, fmt=fmt, replay=True)
    # a paste: the unsupported carpet too, until an update reaches it; setblock text follows /setblock, whose
    # shape updates reach the fences, walls and panes placed before (redstone.md section 57)
    assert w.blocks() == {**dict(BUILD), **(SETBLOCK_SIDES if fmt == "mcfunction" else {})}
    w.set_block((1, 1, 1), "air")
    assert name(w, (1, 1, 2)) == "air"  # the wall sign went with its wall
    w.set_block((4, 2, 2), "stone")
    assert name(w, (4, 1, 2)) == "air"  # the lone carpet, at the first update near it
    w.set_block((3, 2, 2), "air")
    assert name(w, (3, 1, 2)) == "air"  # the hanging lantern with its chain
    assert set(dict(BUILD)) - set(w.blocks()) == {(1, 1, 1), (1, 1, 2), (4, 1, 2), (3, 2, 2), (3, 1, 2)}
    assert set(w.blocks()) - set(dict(BUILD)) == {(4, 2, 2)}


def test_a_pre_1_13_schematic_reads_its_decorative_blocks_as_1_20_states():
    """Legacy ids: fence 85, carpet 171, sign 63, pane 102, iron bars 101, cobblestone wall 139, torch 50, flower
    pot 140, ladder 65, wall sign 68 (connection states as the translation gives them)."""
    cells = {(x, 0, 0): (1, 0) for x in range(8)}
    cells.update({(0, 1, 0): (85, 0), (1, 1, 0): (171, 14), (2, 1, 0): (63, 4), (3, 1, 0): (102, 0),
                  (4, 1, 0): (101, 0), (5, 1, 0): (139, 0), (6, 1, 0): (50, 5), (7, 1, 0): (140, 0),
                  (0, 1, 1): (1, 0), (0, 1, 2): (65, 3), (1, 1, 1): (1, 0), (1, 1, 2): (68, 3)})
    w = World.from_build_file(legacy(cells, (8, 2, 3)), fmt="schematic")
    got = {p: s for p, s in w.blocks().items() if p[1] == 1 and s != "minecraft:stone"}
    assert got == {
        (0, 1, 0): "minecraft:oak_fence[east=true,north=false,south=true,waterlogged=false,west=false]",
        (1, 1, 0): "minecraft:red_carpet",
        (2, 1, 0): "minecraft:oak_sign[rotation=4,waterlogged=false]",
        (3, 1, 0): "minecraft:glass_pane[east=true,north=false,south=false,waterlogged=false,west=true]",
        (4, 1, 0): "minecraft:iron_bars[east=true,north=false,south=false,waterlogged=false,west=true]",
        (5, 1, 0): "minecraft:cobblestone_wall[east=none,north=low,south=low,up=true,waterlogged=false,west=none]",
        (6, 1, 0): "minecraft:torch",
        (7, 1, 0): "minecraft:flower_pot",
        (0, 1, 2): "minecraft:ladder[facing=south,waterlogged=false]",
        (1, 1, 2): "minecraft:oak_wall_sign[facing=south,waterlogged=false]",
    }


def test_a_signs_text_is_left_out_and_the_sign_loads():
    """A sign's text lives in its block entity, which the engine does not keep (no redstone meaning)."""
    lines = List[String](['"hi"', '""', '""', '""'])
    text = Compound({"Id": String("minecraft:sign"), "Pos": IntArray([0, 1, 0]),
                     "Data": Compound({"front_text": Compound({"messages": lines})})})
    data = sponge3({"minecraft:stone": 0, "minecraft:oak_sign[rotation=0,waterlogged=false]": 1}, bytes([0, 1]),
                   dims=(1, 2, 1))
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(data)))
    root["Schematic"]["Blocks"]["BlockEntities"] = List[Compound]([text])
    buf = io.BytesIO()
    root.write(buf)
    w = World.from_build_file(gzip.compress(buf.getvalue()), fmt="schem")
    assert w.blocks() == {(0, 0, 0): "minecraft:stone", (0, 1, 0): "minecraft:oak_sign[rotation=0,waterlogged=false]"}
