"""Containers' items in build files: read from each format's block entities, written back, hostile data refused."""

import gzip
import io
import warnings

import nbtlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, Compound, Int, IntArray, List, Short, String
from test_formats import nbt_gz, sponge3
from test_formats_mcedit import legacy
from test_formats_region import chunk, region, section

from scicraft_viz import World
from scicraft_viz.engine.formats import UnsupportedBlocksWarning, convert, decode_build, encode_build, write_build
from scicraft_viz.errors import BuildFileError

CHEST = "minecraft:chest[facing=north,type=single,waterlogged=false]"


def stack(slot, item, n, key="Count", kind=Byte):
    return Compound({"Slot": Byte(slot), "id": String(item), key: kind(n)})


def items(*stacks):
    return Compound({"id": String("minecraft:chest"), "Items": List[Compound](list(stacks))})


def world_with_containers() -> World:
    w = World(replay=True)
    w.set_block((0, 0, 0), "chest[facing=west,type=left]")
    w.set_block((0, 0, -1), "chest[facing=west,type=right]")
    w.set_block((2, 0, 0), "barrel[facing=up]")
    w.set_block((3, 0, 0), "hopper[facing=down]")
    w.set_block((4, 0, 0), "dropper[facing=up]")
    w.set_block((5, 0, 0), "blast_furnace[facing=north]")
    w.set_block((6, 0, 0), "barrel[facing=up]")  # empty: no block entity data is needed
    w.set_items((0, 0, -1), [("stone", 64)] * 3)
    w.set_items((2, 0, 0), [("redstone", 5), ("ender_pearl", 16), ("ender_pearl", 3)])
    w.set_items((3, 0, 0), [("iron_ingot", 64)] * 5)
    w.set_items((4, 0, 0), [("snowball", 7)])
    w.set_items((5, 0, 0), [("raw_iron", 1), ("coal", 2)])
    return w


# ------------------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize("fmt, version", [("litematic", 3), ("schem", 3), ("schem", 2), ("nbt", 3), ("snbt", 3)])
def test_every_format_writes_and_reads_back_the_items(fmt, version):
    w = world_with_containers()
    data = encode_build(w, fmt, schem_version=version)
    back = World.from_build_file(data, fmt=fmt)
    shift = (0, 0, 1) if fmt in ("nbt", "snbt") else (0, 0, 0)  # a structure counts from its lowest corner
    want = {tuple(a + b for a, b in zip(p, shift)): s for p, s in w.contents().items()}
    assert back.contents() == want
    assert len(want) == 5
    for p in w.contents():
        q = tuple(a + b for a, b in zip(p, shift))
        assert back.fill_level(q) == w.fill_level(p)
    assert decode_build(encode_build(back, fmt, schem_version=version), fmt).contents == {
        p: tuple(s) for p, s in want.items()}


def test_convert_carries_the_items_between_files(tmp_path):
    w = world_with_containers()
    w.to_litematic(tmp_path / "a.litematic")
    assert convert(tmp_path / "a.litematic", tmp_path / "b.schem") == 7
    assert World.from_build_file(tmp_path / "b.schem").contents() == w.contents()
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        convert(tmp_path / "b.schem", tmp_path / "c.mcfunction")
    assert str(rec[0].message) == ("setblock text carries no block entity data: the items of 5 container(s) are left "
                                   "out (write .litematic, .schem, .nbt or .snbt to keep them)")


def test_items_given_to_a_writer_must_sit_in_a_container_of_the_build():
    with pytest.raises(BuildFileError) as e:
        write_build({(0, 0, 0): "stone"}, "nbt", contents={(0, 0, 0): [("stone", 1)]})
    assert str(e.value) == "build: items given at (0, 0, 0), which holds minecraft:stone, not a container"
    with pytest.raises(BuildFileError) as e:
        write_build({(0, 0, 0): "hopper"}, "nbt", contents={(0, 0, 0): [("stone", 64)] * 6})
    assert str(e.value) == "build: items at (0, 0, 0): these items need 6 slots; a hopper has 5"


# ------------------------------------------------------------------------- each format's own layout
def _structure(nbt: Compound | None, state="minecraft:chest") -> bytes:
    cell = Compound({"state": Int(0), "pos": List[Int]([Int(0), Int(0), Int(0)])})
    if nbt is not None:
        cell["nbt"] = nbt
    return nbt_gz(Compound({"DataVersion": Int(3465), "size": List[Int]([Int(1)] * 3),
                            "palette": List[Compound]([Compound({"Name": String(state)})]),
                            "blocks": List[Compound]([cell]), "entities": List[Compound]()}))


def test_slots_are_read_in_slot_order_and_both_count_spellings():
    # 1.20.4 and before write Count (a byte), 1.20.5 and later count (an int); each stack stays in its slot,
    # the empty ones before it kept as None (hoppers and droppers take from the first filled slot)
    nbt = items(stack(20, "minecraft:redstone", 64), stack(2, "minecraft:ender_pearl", 16, "count", Int),
                stack(9, "minecraft:stone", 0))
    got = decode_build(_structure(nbt), "nbt")
    assert got == [((0, 0, 0), CHEST)] and got.contents == {
        (0, 0, 0): (None, None, ("ender_pearl", 16)) + (None,) * 17 + (("redstone", 64),)}


def test_sponge_v3_nests_the_data_v2_and_v1_do_not():
    data3 = sponge3({"minecraft:air": 0, "minecraft:barrel": 1}, bytes([0, 1]), (2, 1, 1), (10, 0, 0))
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(data3)))
    root["Schematic"]["Blocks"]["BlockEntities"] = List[Compound]([Compound({
        "Pos": IntArray([1, 0, 0]), "Id": String("minecraft:barrel"),
        "Data": Compound({"Items": List[Compound]([stack(0, "minecraft:stone", 3)])})})])
    assert decode_build(nbt_gz(root), "schem").contents == {(11, 0, 0): (("stone", 3),)}
    for key in ("BlockEntities", "TileEntities"):  # version 2, and version 1's older name
        sch = Compound({"Version": Int(2 if key == "BlockEntities" else 1), "Width": Short(1), "Height": Short(1),
                        "Length": Short(1), "Palette": Compound({"minecraft:hopper": Int(0)}),
                        "BlockData": nbtlib.ByteArray([0]),
                        key: List[Compound]([Compound({"Pos": IntArray([0, 0, 0]), "Id": String("minecraft:hopper"),
                                                       "Items": List[Compound]([stack(4, "minecraft:stone", 9)])})])})
        assert decode_build(nbt_gz(sch, "Schematic"), "schem").contents == {(0, 0, 0): (None,) * 4 + (("stone", 9),)}


def test_litematic_tile_entities_count_from_the_regions_lowest_corner():
    w = World(replay=True)
    w.set_block((5, 0, 5), "barrel")
    w.set_block((7, 0, 5), "barrel")
    w.set_items((7, 0, 5), [("stone", 1)])
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(w.to_litematic())))
    reg = next(iter(root["Regions"].values()))
    assert [(int(t["x"]), int(t["y"]), int(t["z"])) for t in reg["TileEntities"]] == [(2, 0, 0)]
    # the same region stored with a negative size (Litematica's selection made from the far corner)
    reg["Position"] = Compound({"x": Int(7), "y": Int(0), "z": Int(5)})
    reg["Size"] = Compound({"x": Int(-3), "y": Int(1), "z": Int(1)})
    assert decode_build(nbt_gz(root), "litematic").contents == {(7, 0, 5): (("stone", 1),)}


def test_mcedit_and_region_block_entities():
    te = Compound({"id": String("Chest"), "x": Int(1), "y": Int(0), "z": Int(0),
                   "Items": List[Compound]([stack(0, "minecraft:redstone", 12)])})
    got = decode_build(legacy({(1, 0, 0): (54, 3)}, (2, 1, 1), tiles=[te]), None, "old.schematic")
    assert got.contents == {(1, 0, 0): (("redstone", 12),)}
    be = List[Compound]([Compound({"id": String("minecraft:barrel"), "x": Int(33), "y": Int(64), "z": Int(-16),
                                   "Items": List[Compound]([stack(1, "minecraft:stone", 64)])})])
    data = region({(2, -1): chunk(2, -1, [section(4, {(1, 0, 0): "minecraft:barrel[facing=up,open=false]"})],
                                  block_entities=be)})
    w = World.from_build_file(data, fmt="mca", box=(32, 64, -16, 40, 64, -16))
    assert w.contents() == {(33, 64, -16): [None, ("stone", 64)]} and w.fill_level((33, 64, -16)) == 1


# ------------------------------------------------------------------------------------------ hostile data
AT = "s.nbt: root.blocks[0].nbt (the chest at (0, 0, 0))"


@pytest.mark.parametrize("nbt, message", [
    (Int(3), f"{AT} is Int, expected a compound"),
    (Compound({"Items": Int(1)}), f"{AT}: Items is Int, expected a list of item compounds"),
    (Compound({"Items": List[String]([String("stone")])}), f"{AT}: Items[0] is String, expected a compound"),
    (items(Compound({"id": String("stone"), "Count": Byte(1)})),
     f"{AT}: Items[0]: Slot is missing, expected an integer"),
    (items(stack(27, "stone", 1)), f"{AT}: Items[0]: Slot 27 is outside the chest's slots 0-26"),
    (items(stack(-1, "stone", 1)), f"{AT}: Items[0]: Slot -1 is outside the chest's slots 0-26"),
    (items(stack(3, "stone", 1), stack(3, "dirt", 1)), f"{AT}: Items[1]: Slot 3 is given twice"),
    (items(Compound({"Slot": Byte(0), "id": Short(1), "Count": Byte(1)})),
     f"{AT}: Items[0]: id is Short, expected an item id such as 'minecraft:redstone'"),
    (items(stack(0, "minecraft:redstone_dusts", 1)),
     f"{AT}: Items[0]: 'redstone_dusts' is not a Minecraft 1.20 item (did you mean 'redstone'?)"),
    (items(stack(0, "stone", -3)), f"{AT}: Items[0]: Count is -3; a count is never negative"),
    (items(stack(0, "stone", 65)), f"{AT}: Items[0]: 65 stone in one slot; it stacks to 64"),
    (items(stack(0, "ender_pearl", 17)), f"{AT}: Items[0]: 17 ender_pearl in one slot; it stacks to 16"),
    (items(Compound({"Slot": Byte(0), "id": String("stone"), "Count": String("9")})),
     f"{AT}: Items[0]: Count is String, expected an integer"),
    (items(*[stack(i % 100, "stone", 1) for i in range(5000)]),
     f"{AT}: Items lists 5,000 stacks; a chest has 27 slots"),
])
def test_hostile_items_are_refused_naming_the_tag_and_the_block(nbt, message):
    with pytest.raises(BuildFileError) as e:
        decode_build(_structure(nbt), "nbt", "s.nbt")
    assert str(e.value) == message


def test_block_entities_out_of_place_are_refused():
    def with_entity(entity) -> bytes:
        root = nbtlib.File.parse(io.BytesIO(gzip.decompress(sponge3({"minecraft:chest": 0}, bytes([0])))))
        root["Schematic"]["Blocks"]["BlockEntities"] = List[Compound]([entity])
        return nbt_gz(root)

    for entity, message in (
        (Compound({"Pos": IntArray([0, 3, 0]), "Id": String("minecraft:chest")}),
         "Schematic.Blocks.BlockEntities[0].Pos (0, 3, 0) lies outside the schematic's 1 x 1 x 1 cells"),
        (Compound({"Pos": IntArray([0, 0]), "Id": String("minecraft:chest")}),
         "Schematic.Blocks.BlockEntities[0].Pos is IntArray of 2; expected 3 ints"),
        (Compound({"Id": String("minecraft:chest")}),
         "Schematic.Blocks.BlockEntities[0].Pos is missing; expected 3 ints"),
    ):
        with pytest.raises(BuildFileError) as e:
            decode_build(with_entity(entity), "schem", "b.schem")
        assert str(e.value) == "b.schem: " + message


_TAGS = st.one_of(st.integers(-128, 127).map(Byte), st.integers(-2, 70).map(Int), st.text(max_size=4).map(String),
                  st.just(Short(5)))
_IDS = st.one_of(st.sampled_from(["minecraft:stone", "ender_pearl", "redstone", "minecraft:nope", "", "AIR", "air"])
                 .map(String), _TAGS)
_STACK = st.fixed_dictionaries({}, optional={"Slot": _TAGS, "id": _IDS, "Count": _TAGS, "count": _TAGS}).map(Compound)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STACK, max_size=30), st.sampled_from(["minecraft:chest", "minecraft:hopper", "minecraft:stone"]))
def test_fuzzed_items_load_within_the_rules_or_are_refused_by_name(stacks, block):
    data = _structure(Compound({"Items": List[Compound](stacks)}), block)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            w = World.from_build_file(data, fmt="nbt")
    except BuildFileError as e:
        assert str(e).startswith(f"<bytes>: root.blocks[0].nbt (the {block.removeprefix('minecraft:')} at (0, 0, 0))")
        return
    got = w.contents().get((0, 0, 0), [])
    if block == "minecraft:stone":
        assert w.contents() == {}  # data at a block that is no container carries nothing
        return
    assert len(got) <= (27 if block.endswith("chest") else 5) and all(n > 0 for _, n in got)
    assert 0 <= w.fill_level((0, 0, 0)) <= 15 and (w.fill_level((0, 0, 0)) > 0) == bool(got)


_POS = st.one_of(st.lists(st.integers(-2, 3), min_size=0, max_size=4).map(IntArray), _TAGS)
_ENTITY = st.fixed_dictionaries({}, optional={
    "Pos": _POS, "Id": _IDS, "Data": st.one_of(_TAGS, st.lists(_STACK, max_size=4).map(
        lambda s: Compound({"Items": List[Compound](s)}))),
    "Items": st.one_of(_TAGS, st.lists(_STACK, max_size=4).map(List[Compound]))}).map(Compound)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ENTITY, max_size=4), st.sampled_from([2, 3]))
def test_fuzzed_sponge_block_entities_load_or_are_refused_naming_the_field(entities, version):
    """Block entities of every shape, at a barrel and air: the file loads with the barrel's items within its
    slots, or is refused with a message naming the block entity."""
    if version == 3:
        root = nbtlib.File.parse(io.BytesIO(gzip.decompress(
            sponge3({"minecraft:barrel": 0, "minecraft:air": 1}, bytes([0, 1]), (2, 1, 1)))))
        root["Schematic"]["Blocks"]["BlockEntities"] = List[Compound](entities)
        data = nbt_gz(root)
    else:
        sch = Compound({"Version": Int(2), "Width": Short(2), "Height": Short(1), "Length": Short(1),
                        "Palette": Compound({"minecraft:barrel": Int(0), "minecraft:air": Int(1)}),
                        "BlockData": nbtlib.ByteArray([0, 1]), "BlockEntities": List[Compound](entities)})
        data = nbt_gz(sch, "Schematic")
    try:
        got = decode_build(data, "schem", "f.schem")
    except BuildFileError as e:
        assert str(e).startswith(("f.schem: Schematic.Blocks.BlockEntities[", "f.schem: Schematic.BlockEntities[")), e
        return
    assert set(got.contents) <= {(0, 0, 0)}
    assert all(len(s) <= 27 and all(n > 0 for _, n in s) for s in got.contents.values())


@pytest.mark.parametrize("fmt", ["litematic", "schem", "nbt", "snbt"])
def test_a_hopper_that_has_moved_items_keeps_its_gaps_through_a_file(fmt):
    w = World(replay=True)
    w.set_block((0, 1, 0), "hopper[facing=down]")
    w.set_block((0, 0, 0), "barrel[facing=up]")
    w.set_items((0, 1, 0), [("stone", 1), ("redstone", 2)])
    w.step(1)  # the hopper pushes its one stone down and leaves slot 0 empty
    assert w.slots((0, 1, 0)) == [None, ("redstone", 2), None, None, None]
    back = World.from_build_file(write_build(w, fmt), fmt=fmt)
    assert back.slots((0, 1, 0)) == [None, ("redstone", 2), None, None, None]
    assert back.items((0, 0, 0)) == [("stone", 1)]
    back.step(1)  # the cooldown is not carried in the file: it pushes at once, from slot 1
    assert back.items((0, 0, 0)) == [("stone", 1), ("redstone", 1)]
