"""MCEdit/Schematica .schematic files (numeric block ids of Minecraft before 1.13): translated to 1.20 block
states, loaded as a paste, circuits computing as their 1.13+ twins do, and hostile files refused by name."""

import gzip
import io
import re
import warnings

import nbtlib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, ByteArray, Compound, Int, List, Short, String

from scicraft_viz import World, tasks
from scicraft_viz.cli import app
from scicraft_viz.engine.formats import (
    SCHEMATIC_UNSUPPORTED,
    UnsupportedBlocksWarning,
    convert,
    decode_build,
    read_build,
    write_build,
)
from scicraft_viz.errors import BuildFileError
from tests.test_formats import L5, SOL, _lamp_run


def legacy(cells: dict, dims, tiles=(), entities=(), add=True, **extra) -> bytes:
    """A .schematic of {(x, y, z): (id, data)} in a Width x Height x Length box (AddBlocks for ids > 255)."""
    w, h, l = dims
    ids = np.zeros(w * h * l, np.int64)
    data = np.zeros(w * h * l, np.int64)
    for (x, y, z), (i, d) in cells.items():
        ids[(y * l + z) * w + x] = i
        data[(y * l + z) * w + x] = d
    root = Compound({"Width": Short(w), "Height": Short(h), "Length": Short(l), "Materials": String("Alpha"),
                     "Blocks": ByteArray((ids & 0xFF).astype(np.uint8).view(np.int8)),
                     "Data": ByteArray(data.astype(np.uint8).view(np.int8)),
                     "TileEntities": List[Compound](list(tiles)), "Entities": List[Compound](list(entities))})
    if add and (ids > 255).any():
        high = np.zeros(len(ids) + len(ids) % 2, np.int64)
        high[:len(ids)] = ids >> 8
        root["AddBlocks"] = ByteArray((high[0::2] | (high[1::2] << 4)).astype(np.uint8).view(np.int8))
    root.update(extra)
    return gz(root)


def gz(root: Compound, name: str = "Schematic") -> bytes:
    buf = io.BytesIO()
    nbtlib.File(root, root_name=name).write(buf)
    return gzip.compress(buf.getvalue(), mtime=0)


def refused(data: bytes, message: str, source="old.schematic") -> None:
    with pytest.raises(BuildFileError) as e:
        decode_build(data, None, source)
    assert str(e.value) == message


FLOOR = {(x, 0, z): (1, 0) for x in range(5) for z in range(2)}  # stone


def inverter(lamps_lit: bool) -> dict:
    """Lever -> dust -> stone block carrying a standing torch (lamp above it) and a wall torch (lamp east)."""
    lamp = (124, 0) if lamps_lit else (123, 0)  # lit_redstone_lamp / redstone_lamp
    return {**FLOOR,
            (0, 1, 0): (69, 5),  # lever on the floor, off
            (1, 1, 0): (55, 0),  # redstone dust, power 0
            (2, 1, 0): (1, 0),  # the inverter's block
            (2, 2, 0): (76, 5),  # redstone torch standing on it, lit
            (2, 3, 0): lamp,
            (3, 1, 0): (76, 1),  # redstone torch on the block's east face, lit
            (4, 1, 0): lamp}


MODERN = {"minecraft:lever[face=floor,facing=north,powered=false]", "minecraft:redstone_torch[lit=true]",
          "minecraft:redstone_wall_torch[facing=east,lit=true]", "minecraft:redstone_lamp[lit=true]",
          "minecraft:stone"}


# ------------------------------------------------------------------------------------- translation
def test_legacy_ids_become_block_states_at_their_cells():
    got = dict(decode_build(legacy(inverter(True), (5, 4, 2)), None, "inv.schematic"))
    assert len(got) == 17  # the floor (10) and the circuit (7); air is no block
    assert got[(0, 1, 0)] == "minecraft:lever[face=floor,facing=north,powered=false]"
    assert got[(2, 2, 0)] == "minecraft:redstone_torch[lit=true]"
    assert got[(3, 1, 0)] == "minecraft:redstone_wall_torch[facing=east,lit=true]"
    assert got[(2, 3, 0)] == got[(4, 1, 0)] == "minecraft:redstone_lamp[lit=true]"
    assert got[(1, 1, 0)].startswith("minecraft:redstone_wire[") and "power=0" in got[(1, 1, 0)]
    assert {s for p, s in got.items() if p != (1, 1, 0)} == MODERN


def test_high_ids_data_values_and_block_entities():
    cells = {(0, 0, 0): (35, 14),  # red wool (data picks the colour)
             (1, 0, 0): (95, 3),  # light blue stained glass
             (2, 0, 0): (44, 8),  # stone slab, top half
             (3, 0, 0): (25, 0),  # note block: its pitch lives in the TileEntity
             (0, 1, 0): (93, 5),  # repeater, delay 2
             (1, 1, 0): (251, 0),  # white concrete: id 251 needs its 8 low bits only
             (2, 1, 0): (152, 0)}  # redstone block
    note = Compound({"id": String("minecraft:noteblock"), "x": Int(3), "y": Int(0), "z": Int(0), "note": Byte(7)})
    got = dict(decode_build(legacy(cells, (4, 2, 1), tiles=[note]), "schematic"))
    assert got == {(0, 0, 0): "minecraft:red_wool", (1, 0, 0): "minecraft:light_blue_stained_glass",
                   (2, 0, 0): "minecraft:smooth_stone_slab[type=top,waterlogged=false]",
                   (3, 0, 0): "minecraft:note_block[instrument=harp,note=7,powered=false]",
                   (0, 1, 0): "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]",
                   (1, 1, 0): "minecraft:white_concrete", (2, 1, 0): "minecraft:redstone_block"}


def test_addblocks_nibbles_and_ids_no_version_had():
    # ids above 255 are split: 8 low bits in Blocks, 4 high bits in AddBlocks (even cell low nibble, odd
    # cell high nibble). 1.12 had no block 300 or 4000 (and no data value 15 for stone): each is named
    # with its count and positions, and the rest of the file says what would load.
    cells = {(0, 0, 0): (300, 0), (1, 0, 0): (4000, 2), (2, 0, 0): (4000, 2), (0, 1, 0): (1, 15), (1, 1, 0): (1, 0)}
    data = legacy(cells, (3, 2, 1))
    refused(data, "old.schematic: 3 block state(s) cannot be imported: legacy id 1:15 at (0, 1, 0): no Java 1.20 "
                  "block state for this id and data value; legacy id 300:0 at (0, 0, 0): no Java 1.20 block state for "
                  "this id and data value; legacy id 4000:2 at (1, 0, 0), (2, 0, 0): no Java 1.20 block state for "
                  "this id and data value (the palette: " + _palette_tail())
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        assert decode_build(data, None, "old.schematic", skip_unsupported=True) == [((1, 1, 0), "minecraft:stone")]
    assert str(rec[0].message) == ("old.schematic: loaded 1 blocks; left out (not supported): legacy id 1:15 x1 at "
                                   "(0, 1, 0); legacy id 300:0 x1 at (0, 0, 0); legacy id 4000:2 x2 at (1, 0, 0), "
                                   "(2, 0, 0)")


def _palette_tail() -> str:
    """The end of a refusal that lists unsupported blocks (the palette, then what would load), as
    schematic._resolve words it for every format."""
    try:
        decode_build(legacy({(0, 0, 0): (4000, 0), (1, 0, 0): (1, 0)}, (2, 1, 1)), None, "x.schematic")
    except BuildFileError as e:
        return str(e).split("(the palette: ", 1)[1]
    raise AssertionError("not refused")


def test_blocks_the_engine_lacks_are_named_with_count_and_positions():
    cells = {(0, 0, 0): (46, 0), (1, 0, 0): (46, 0), (2, 0, 0): (1, 0), (0, 1, 0): (130, 2)}  # tnt, ender chest
    data = legacy(cells, (3, 2, 1))
    with pytest.raises(BuildFileError) as e:
        decode_build(data, None, "p.schematic")
    assert str(e.value).startswith("p.schematic: 2 block state(s) cannot be imported: minecraft:tnt[unstable=false] at "
                                   "(0, 0, 0), (1, 0, 0): not in the palette; minecraft:ender_chest[facing=north] at "
                                   "(0, 1, 0): not in the palette (the palette: ")
    assert str(e.value).endswith("; the other 1 blocks are supported (read with skip_unsupported=True, CLI "
                                 "--skip-unsupported, to open them without these)")


def test_schematica_mapping_names_ids():
    mapping = Compound({"minecraft:redstone_lamp": Short(1), "minecraft:stone": Short(2), "somemod:gear": Short(3)})
    data = legacy({(0, 0, 0): (1, 0), (1, 0, 0): (2, 0), (2, 0, 0): (3, 0)}, (3, 1, 1), SchematicaMapping=mapping)
    with pytest.warns(UnsupportedBlocksWarning, match=r"legacy id 3:0 \(somemod:gear\) x1 at \(2, 0, 0\)"):
        got = decode_build(data, None, "m.schematic", skip_unsupported=True)
    assert got == [((0, 0, 0), "minecraft:redstone_lamp[lit=false]"), ((1, 0, 0), "minecraft:stone")]


def test_entities_refused_or_listed_and_a_chests_items_read():
    ent = [Compound({"id": String("Pig"), "Pos": List[nbtlib.Double]([nbtlib.Double(0.5)] * 3)})]
    stack = Compound({"Slot": nbtlib.Byte(3), "id": String("minecraft:redstone"), "Count": nbtlib.Byte(5),
                      "Damage": nbtlib.Short(0)})
    chest = Compound({"id": String("Chest"), "x": Int(0), "y": Int(0), "z": Int(0),
                      "Items": List[Compound]([stack])})
    data = legacy({(0, 0, 0): (54, 2)}, (1, 1, 1), tiles=[chest], entities=ent)
    refused(data, "old.schematic: holds 1 entities (Pig x1); builds here are blocks only (save the schematic without "
                  "entities, or read it with skip_unsupported=True, CLI --skip-unsupported, to leave them out)")
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        got = decode_build(data, None, "old.schematic", skip_unsupported=True)
    assert got == [((0, 0, 0), "minecraft:chest[facing=north,type=single,waterlogged=false]")]
    assert got.contents == {(0, 0, 0): (None, None, None, ("redstone", 5))}  # kept in its slot, 3
    assert str(rec[0].message) == "old.schematic: loaded 1 blocks; left out (not supported): 1 entities (Pig x1)"
    stack["id"] = nbtlib.Short(331)  # before 1.8 an item was a number: refused, named, not guessed
    data = legacy({(0, 0, 0): (54, 2)}, (1, 1, 1), tiles=[chest])
    refused(data, "old.schematic: root.TileEntities[0] (the chest at (0, 0, 0)): Items[0]: id is Short, expected an "
                  "item id such as 'minecraft:redstone'")
    with pytest.warns(UnsupportedBlocksWarning) as rec:  # asked to skip: the chest loads empty, the reason listed
        got = decode_build(data, None, "old.schematic", skip_unsupported=True)
    assert got.contents == {} and str(rec[0].message) == (
        "old.schematic: loaded 1 blocks; left out (not supported): the items of root.TileEntities[0] (the chest at "
        "(0, 0, 0)): Items[0]: id is Short, expected an item id such as 'minecraft:redstone'")


# ------------------------------------------------------------------------------------- circuits
def test_a_legacy_inverter_computes_as_its_modern_twin_tick_for_tick():
    old = World.from_build_file(legacy(inverter(True), (5, 4, 2)), fmt="schematic")
    assert old.replay  # a paste: states as saved
    twin = World(replay=True)
    for p, s in read_build_modern(inverter(True)).items():
        twin.set_block(p, s)
    assert old.blocks() == twin.blocks()
    for w in (old, twin):
        w.step(4)
        assert w.get_block((2, 3, 0)) == w.get_block((4, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
        w.use((0, 1, 0))
    lit = []
    for _ in range(10):
        old.step(1)
        twin.step(1)
        assert old.blocks() == twin.blocks()
        lit.append(old.get_block((2, 3, 0)).endswith("lit=true]"))
    # the torches go out 2 game ticks after the dust powers their block, the lamps 4 game ticks later
    assert old.get_block((2, 2, 0)) == "minecraft:redstone_torch[lit=false]"
    assert lit == [True] * 5 + [False] * 5


def read_build_modern(cells: dict) -> dict:
    """The same cells written by hand as 1.13+ block states (the lamps lit, the dust's shape the engine's)."""
    names = {(1, 0): "stone", (69, 5): "lever[face=floor,facing=north,powered=false]", (55, 0): "redstone_wire",
             (76, 5): "redstone_torch[lit=true]", (76, 1): "redstone_wall_torch[facing=east,lit=true]",
             (124, 0): "redstone_lamp[lit=true]"}
    return {p: names[c] for p, c in cells.items()}


def _to_legacy(items):
    """A 1.20 build as .schematic cells, through PyMCTranslate in the other direction (1.20 -> 1.12)."""
    from PyMCTranslate.py3.api import Block

    from scicraft_viz.engine.blocks import split_state, vanilla_state
    from scicraft_viz.engine.legacy import translators

    old, new = translators()
    lo = np.min([p for p, _ in items], axis=0)
    cells = {}
    for p, state in items:
        name, props = split_state(vanilla_state(state))
        import amulet_nbt

        b = Block("minecraft", name, {k: amulet_nbt.StringTag(v) for k, v in props.items()})
        uni = new.block.to_universal(b)[0]
        cells[tuple(int(c) for c in np.subtract(p, lo))] = old.block.block_to_ints(old.block.from_universal(uni)[0])
    return cells, tuple(int(c) for c in lo)


@pytest.mark.parametrize("task_id", L5)
def test_64_lamp_solutions_as_legacy_schematics_light_tick_for_tick(task_id):
    task = tasks.load(task_id)
    items = read_build(SOL / f"{task_id}.mcfunction")
    ref = _lamp_run(task, items)
    cells, lo = _to_legacy(items)
    dims = tuple(int(max(p[i] for p in cells) + 1) for i in range(3))
    got = decode_build(legacy(cells, dims), None, f"{task_id}.schematic")
    moved = [((x + lo[0], y + lo[1], z + lo[2]), s) for (x, y, z), s in got]
    again = _lamp_run(task, moved)
    assert list(again.lamp_positions) == list(ref.lamp_positions)
    assert again.lamp_lit.any() and np.array_equal(again.lamp_lit, ref.lamp_lit)


def test_convert_reads_schematics_and_refuses_writing_them(tmp_path):
    from typer.testing import CliRunner

    src = tmp_path / "inv.schematic"
    src.write_bytes(legacy(inverter(True), (5, 4, 2)))
    assert convert(src, tmp_path / "inv.schem") == 17
    assert dict(read_build(tmp_path / "inv.schem")) == dict(read_build(src))
    r = CliRunner().invoke(app, ["convert", str(tmp_path / "inv.schem"), str(tmp_path / "back.schematic")])
    assert r.exit_code == 2 and SCHEMATIC_UNSUPPORTED in " ".join(r.output.split())
    with pytest.raises(BuildFileError, match="read but not written"):
        write_build({(0, 0, 0): "stone"}, tmp_path / "x.schematic")
    assert not (tmp_path / "x.schematic").exists()
    # some editors save a Sponge schematic under .schematic: the content decides
    (tmp_path / "sponge.schematic").write_bytes(write_build({(0, 0, 0): "stone"}, "schem"))
    assert read_build(tmp_path / "sponge.schematic") == [((0, 0, 0), "minecraft:stone")]


# ------------------------------------------------------------------------------------- hostile files
def _root(**over) -> Compound:
    root = Compound({"Width": Short(2), "Height": Short(1), "Length": Short(1), "Materials": String("Alpha"),
                     "Blocks": ByteArray([1, 0]), "Data": ByteArray([0, 0])})
    for k, v in over.items():
        if v is None:
            root.pop(k)
        else:
            root[k] = v
    return root


@pytest.mark.parametrize("root, message", [
    (_root(Width=Short(-1), Height=Short(-1), Length=Short(-1)),
     "the schematic declares 65535 x 65535 x 65535 = 281,462,092,005,375 cells; a schematic may hold at most "
     "2,097,152 cells"),
    (_root(Width=Short(0)), "the schematic has size 0 x 1 x 1; every side must be at least 1"),
    (_root(Blocks=ByteArray([1, 0, 0])), "root.Blocks holds 3 bytes; Width x Height x Length is 2 x 1 x 1 = 2"),
    (_root(Data=ByteArray([0])), "root.Data holds 1 bytes; Width x Height x Length is 2 x 1 x 1 = 2"),
    (_root(AddBlocks=ByteArray([0, 0])), "root.AddBlocks holds 2 bytes; 2 cells need 1 (two to a byte)"),
    (_root(Materials=String("Pocket")), "root.Materials is 'Pocket'; only 'Alpha' (Java Edition's numeric ids) can be "
                                        "read"),
    (_root(Width=Int(2)), "root.Width is Int, expected Short"),
    (_root(Data=None), "root.Data is missing"),
    (_root(TileEntities=List[Compound]([Compound({"id": String("Chest"), "x": Int(5), "y": Int(0), "z": Int(0)})])),
     "root.TileEntities[0] is at (5, 0, 0), outside the schematic's 2 x 1 x 1 cells"),
    (_root(TileEntities=List[Compound]([Compound({"id": String("Chest"), "x": Int(0), "y": Int(0)})])),
     "root.TileEntities[0].z is missing"),
    (_root(TileEntities=Int(3)), "root.TileEntities is Int, expected List"),
    (_root(SchematicaMapping=Compound({"minecraft:stone": Int(1)})),
     "root.SchematicaMapping['minecraft:stone'] is Int 1; expected a Short id from 0 to 4095"),
])
def test_malformed_schematics_are_refused_naming_the_field(root, message):
    refused(gz(root), f"old.schematic: {message}")


def test_truncated_and_oversized_files_are_refused():
    data = legacy(inverter(True), (5, 4, 2))
    refused(data[:-9], "old.schematic: the gzip data is truncated (it ends before the end of the stream)")
    # a box of 128^3 cells all stone: more blocks than a build may hold, refused before any translation
    big = _root(Width=Short(128), Height=Short(128), Length=Short(128), Blocks=ByteArray(np.ones(128**3, np.int8)),
                Data=ByteArray(np.zeros(128**3, np.int8)))
    refused(gz(big), "old.schematic: holds 2,097,152 blocks; a build holds at most 100,000")


_SEED = gzip.decompress(legacy(inverter(True), (5, 4, 2), tiles=[Compound(
    {"id": String("Music"), "x": Int(4), "y": Int(0), "z": Int(1), "note": Byte(3)})]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, len(_SEED) - 1), st.integers(0, 255)), min_size=1, max_size=8),
       cut=st.integers(0, len(_SEED)))
def test_fuzzed_legacy_schematics_load_or_are_refused_by_name(edits, cut):
    raw = bytearray(_SEED)
    for at, value in edits:
        raw[at] = value
    data = gzip.compress(bytes(raw[:cut] if cut < len(raw) else raw), mtime=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedBlocksWarning)
        try:
            got = decode_build(data, None, "f.schematic", skip_unsupported=True)
        except BuildFileError as e:
            assert str(e).startswith("f.schematic")
            return
    assert all(isinstance(s, str) and s.startswith("minecraft:") for _, s in got)
    assert len({p for p, _ in got}) == len(got)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ids=st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 15)), min_size=1, max_size=12))
def test_any_ids_load_or_are_counted_as_left_out(ids):
    """Whatever ids and data values a file holds, every cell either loads as a block state or is counted
    among those the warning lists (air and a structure void are no blocks)."""
    cells = {(i, 0, 0): c for i, c in enumerate(ids)}
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", UnsupportedBlocksWarning)
        got = dict(decode_build(legacy(cells, (len(ids), 1, 1)), None, "r.schematic", skip_unsupported=True))
    left = " ".join(str(w.message) for w in rec if issubclass(w.category, UnsupportedBlocksWarning))
    listed = sum(int(n) for n in re.findall(r" x(\d+) at ", left))
    void = [(0, d) for d in range(16)] + [(217, 0)]  # air (whatever its data value), a structure void
    missing = [p for p, c in cells.items() if c not in void and p not in got]
    assert listed == len(missing)
    assert all(cells[p] not in void for p in got)
    assert all(s.startswith("minecraft:") for s in got.values())
