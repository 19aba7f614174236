"""Vanilla structure files (.nbt, .snbt), MCEdit .schematic told apart from Sponge, unsupported blocks
named or skipped on request, and schematics loaded as a paste (states as saved)."""

import gzip
import io
import warnings

import nbtlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import ByteArray, Compound, Int, List, Short, String

from scicraft_viz import World
from scicraft_viz.cli import app
from scicraft_viz.engine.formats import (
    UnsupportedBlocksWarning,
    decode_build,
    read_build,
    write_build,
)
from scicraft_viz.errors import BuildFileError, PlacementError

BUILD = {(0, 0, 0): "minecraft:white_concrete", (1, 0, 0): "minecraft:oak_slab[type=top,waterlogged=false]",
         (0, 1, 0): "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]",
         (2, 0, 0): "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]",
         (1, 1, 0): "minecraft:redstone_lamp[lit=false]", (2, 1, 0): "minecraft:lime_stained_glass"}


def gz(root: Compound) -> bytes:
    buf = io.BytesIO()
    nbtlib.File(root).write(buf)
    return gzip.compress(buf.getvalue())


def structure(palette: list, blocks: list, size=(3, 2, 2), **extra) -> bytes:
    """A binary structure: palette of (name, {prop: value}), blocks of (index, pos)."""
    pal = List[Compound]([Compound({"Name": String(n), **({"Properties": Compound(
        {k: String(v) for k, v in p.items()})} if p else {})}) for n, p in palette])
    cells = List[Compound]([Compound({"state": Int(i), "pos": List[Int]([Int(c) for c in pos])}) for i, pos in blocks])
    return gz(Compound({"DataVersion": Int(3465), "size": List[Int]([Int(c) for c in size]), "palette": pal,
                        "blocks": cells, "entities": List[Compound](), **extra}))


@pytest.mark.parametrize("fmt", ["nbt", "snbt"])
def test_structures_round_trip_every_block(fmt, tmp_path):
    data = write_build(BUILD, fmt)
    assert dict(decode_build(data, fmt)) == BUILD
    write_build(BUILD, tmp_path / f"b.{fmt}")
    assert dict(read_build(tmp_path / f"b.{fmt}")) == BUILD
    assert World.from_build_file(tmp_path / f"b.{fmt}").blocks()[(1, 0, 0)] == BUILD[(1, 0, 0)]


def test_binary_structure_air_and_later_entries_and_palettes():
    data = structure([("minecraft:air", {}), ("minecraft:stone", {}), ("minecraft:repeater", {"facing": "east"})],
                     [(1, (0, 0, 0)), (0, (1, 0, 0)), (2, (2, 0, 0)), (1, (1, 1, 1)), (0, (1, 1, 1))])
    assert decode_build(data, "nbt") == [
        ((0, 0, 0), "minecraft:stone"),
        ((2, 0, 0), "minecraft:redstone_repeater[delay=1,facing=east,locked=false,powered=false]")]
    # several palettes (a structure with variants): the first is read; the format is sniffed from the content
    pal = List[Compound]([Compound({"Name": String("minecraft:glass")})])
    root = Compound({"size": List[Int]([Int(1), Int(1), Int(1)]), "palettes": List[List]([pal, pal]),
                     "blocks": List[Compound]([Compound({"state": Int(0), "pos": List[Int]([Int(0)] * 3)})])})
    assert decode_build(gz(root), None, "x.bin") == [((0, 0, 0), "minecraft:glass")]


def test_snbt_in_minecrafts_packed_form():
    text = """{
        DataVersion: 3465,
        size: [2, 2, 1],
        data: [
            {pos: [0, 0, 0], state: "minecraft:stone"},
            {pos: [0, 1, 0], state: "minecraft:redstone_torch{lit:'true'}"},
            {pos: [1, 0, 0], state: "minecraft:smooth_stone_slab{type:top,waterlogged:false}"}
        ],
        entities: [],
        palette: ["minecraft:stone", "minecraft:redstone_torch{lit:'true'}",
                  "minecraft:smooth_stone_slab{type:top,waterlogged:false}"]
    }"""
    assert decode_build(text.encode(), "snbt") == [
        ((0, 0, 0), "minecraft:stone"), ((1, 0, 0), "minecraft:smooth_stone_slab[type=top,waterlogged=false]"),
        ((0, 1, 0), "minecraft:redstone_torch[lit=true]")]


@pytest.mark.parametrize("data, fmt, message", [
    (b"{size: [1, 1, 1], palette: [], data: [{pos: [0, 0, 0], state: 0}]}", "snbt",
     "s.snbt: root.data[0].state is palette index 0; the palette has 0 entries"),
    (b"{size: [1, 1, 1], palette: [], blocks: [{pos: [0, 0, 5], state: \"minecraft:stone\"}]}", "snbt",
     "s.snbt: root.blocks[0].pos (0, 0, 5) lies outside the structure's size 1 x 1 x 1"),
    (b"{size: [1, 1], palette: [], blocks: []}", "snbt", "s.snbt: root.size is List[Int] of 2 items; expected a list "
                                                         "of 3 Ints"),
    (b"[1, 2]", "snbt", "s.snbt: not a structure: the SNBT text is a list, not a compound {...}"),
    (b"{a: " * 70 + b"1" + b"}" * 70, "snbt", "s.snbt: not a valid SNBT file: tags nested more than 64 deep (at "
                                              "character 256)"),
    (b"{size: [1, 1, 1], palette: [\"minecraft:stone{facing:'a,b'}\"], blocks: []}", "snbt",
     "s.snbt: root.palette[0] has the property \"b'\"; a property is key:value, each lowercase letters, "
     "digits and '_'"),
])
def test_structure_errors_name_the_field(data, fmt, message):
    with pytest.raises(BuildFileError) as e:
        decode_build(data, fmt, "s.snbt")
    assert str(e.value) == message


def test_mcedit_schematic_is_read_by_extension_and_by_content():
    legacy = gz(Compound({"Width": Short(1), "Height": Short(1), "Length": Short(1), "Materials": String("Alpha"),
                          "Blocks": ByteArray([1]), "Data": ByteArray([0])}))
    for source in ("old.schematic", "old.bin"):  # by extension, and by content
        assert decode_build(legacy, None, source) == [((0, 0, 0), "minecraft:stone")]
    with pytest.raises(BuildFileError, match="Schematic.Version is missing"):  # a Sponge file stays a Sponge file
        decode_build(gz(Compound({"Palette": Compound(), "Blocks": ByteArray([1])})), "schem")


def test_unsupported_blocks_refuse_naming_count_positions_and_what_would_load():
    data = structure([("minecraft:stone", {}), ("minecraft:end_rod", {"facing": "up"}), ("minecraft:tnt", {})],
                     [(0, (0, 0, 0)), (1, (1, 0, 0)), (1, (2, 0, 0)), (2, (0, 1, 0)), (0, (1, 1, 1))])
    with pytest.raises(BuildFileError) as e:
        decode_build(data, "nbt", "c.nbt")
    msg = str(e.value)
    assert msg.startswith("c.nbt: 2 block state(s) cannot be imported: minecraft:end_rod[facing=up] at "
                          "(1, 0, 0), (2, 0, 0): not in the palette; minecraft:tnt at (0, 1, 0): not in the palette "
                          "(the palette: ")
    assert msg.endswith("; the other 2 blocks are supported (read with skip_unsupported=True, CLI --skip-unsupported, "
                        "to open them without these)")
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        got = decode_build(data, "nbt", "c.nbt", skip_unsupported=True)
    assert got == [((0, 0, 0), "minecraft:stone"), ((1, 1, 1), "minecraft:stone")]
    assert str(rec[0].message) == ("c.nbt: loaded 2 blocks; left out (not supported): "
                                   "minecraft:end_rod[facing=up] x2 at (1, 0, 0), (2, 0, 0); minecraft:tnt x1 at "
                                   "(0, 1, 0)")


def test_entities_refused_or_listed_by_kind_count_and_position():
    def minecart(x):  # a TNT minecart: the engine moves plain, chest, hopper and furnace minecarts only
        return Compound({"pos": List[nbtlib.Double]([nbtlib.Double(x + 0.5), nbtlib.Double(1), nbtlib.Double(0.5)]),
                         "blockPos": List[Int]([Int(x), Int(1), Int(0)]),
                         "nbt": Compound({"id": String("minecraft:tnt_minecart")})})

    ent = List[Compound]([minecart(0), minecart(3), Compound({"pos": List[Int]([Int(0)] * 3)})])
    data = structure([("minecraft:stone", {})], [(0, (0, 0, 0))])
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(data)))
    root["entities"] = ent
    data = gz(root)
    with pytest.raises(BuildFileError) as e:
        decode_build(data, "nbt", "c.nbt")
    assert str(e.value) == ("c.nbt: holds 3 entities (minecraft:tnt_minecart x2 at (0, 1, 0), (3, 1, 0); an "
                            "unnamed entity x1); builds here are blocks only (save the structure without entities, or "
                            "read it with skip_unsupported=True, CLI --skip-unsupported, to leave them out)")
    with pytest.warns(UnsupportedBlocksWarning,
                      match="left out \\(not supported\\): 3 entities \\(minecraft:tnt_minecart"):
        assert decode_build(data, "nbt", "c.nbt", skip_unsupported=True) == [((0, 0, 0), "minecraft:stone")]


def test_a_schematic_loads_as_a_paste_states_as_saved_and_supports_outside_kept(tmp_path):
    build = {(0, 0, 0): "minecraft:stone_button[face=floor,facing=north,powered=true]",  # support outside the file
             (3, 0, 0): "minecraft:redstone_wall_torch[facing=east,lit=true]"}  # support outside the file
    for fmt in ("nbt", "schem", "litematic", "snbt"):
        path = tmp_path / f"p.{fmt}"
        write_build(build, path)
        w = World.from_build_file(path)
        assert w.replay
        assert w.get_block((0, 0, 0)) == "minecraft:stone_button[face=floor,facing=north,powered=true]"
        assert w.get_block((3, 0, 0)) == "minecraft:redstone_wall_torch[facing=east,lit=true]"
        with pytest.raises(BuildFileError, match="needs a solid block"):  # a player could not place it
            World.from_build_file(path, replay=False)
    (tmp_path / "p.mcfunction").write_text("setblock 0 0 0 stone_button[face=floor]\n")
    with pytest.raises(BuildFileError, match="needs a solid block"):  # setblock text: a player's placement
        World.from_build_file(tmp_path / "p.mcfunction")


def test_cli_convert_writes_structures_and_skips_on_request(tmp_path):
    from typer.testing import CliRunner

    src = tmp_path / "c.nbt"
    src.write_bytes(structure([("minecraft:stone", {}), ("minecraft:end_rod", {})],
                              [(0, (0, 0, 0)), (1, (1, 0, 0))]))
    r = CliRunner().invoke(app, ["convert", str(src), str(tmp_path / "o.snbt")])
    assert r.exit_code == 2 and "1 block state(s) cannot be imported: minecraft:end_rod at (1, 0, 0)" in r.output
    r = CliRunner().invoke(app, ["convert", str(src), str(tmp_path / "o.snbt"), "--skip-unsupported"])
    assert r.exit_code == 0, r.output
    assert "left out (not supported): minecraft:end_rod x1 at (1, 0, 0)" in r.output
    assert read_build(tmp_path / "o.snbt") == [((0, 0, 0), "minecraft:stone")]


# ------------------------------------------------------------------------------------------ fuzzing
_SNBT_ALPHABET = st.sampled_from(list('{}[]:,"\' 0123456789abcdefgposizetdlmBSILb-.\\') + ["size", "palette", "data",
                                                                                       "state", "pos", "minecraft:"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_SNBT_ALPHABET, max_size=200))
def test_snbt_fuzz_never_a_traceback(parts):
    try:
        decode_build("".join(parts).encode(), "snbt", "f.snbt", skip_unsupported=True)
    except BuildFileError as e:
        assert str(e).startswith(("f.snbt", "cannot read f.snbt"))


_SEED = write_build(BUILD, "nbt")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8),
       cut=st.integers(0, 10_000))
def test_structure_nbt_fuzz_never_a_traceback(edits, cut):
    raw = bytearray(gzip.decompress(_SEED))
    for at, value in edits:
        raw[at % len(raw)] = value
    raw = raw[: max(1, cut % (len(raw) + 1))] if cut % 3 == 0 else raw
    for skip in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsupportedBlocksWarning)
            try:
                decode_build(gzip.compress(bytes(raw)), "nbt", "f.nbt", skip_unsupported=skip)
            except BuildFileError as e:
                assert str(e).startswith("f.nbt")


def test_placement_error_is_not_what_a_paste_raises():
    assert issubclass(PlacementError, ValueError)  # the player's check stays a ValueError for agents


def test_setblock_text_skips_unknown_blocks_on_request():
    text = b"setblock 0 0 0 stone\nsetblock 1 0 0 end_rod[facing=up]\nsetblock 2 0 0 end_rod[facing=up]\n"
    with pytest.raises(BuildFileError, match=r"b\.mcfunction:2: unknown block 'end_rod'"):
        decode_build(text, "mcfunction", "b.mcfunction")
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        assert decode_build(text, "mcfunction", "b.mcfunction", skip_unsupported=True) == [
            ((0, 0, 0), "minecraft:stone")]
    assert str(rec[0].message) == ("b.mcfunction: loaded 1 blocks; left out (not supported): "
                                   "end_rod[facing=up] x2 at (1, 0, 0), (2, 0, 0)")
    with pytest.raises(BuildFileError, match="redstone_repeater property 'delay' cannot be '9'"):  # not a skip
        decode_build(b"setblock 0 0 0 repeater[delay=9]\n", "mcfunction", "b.mcfunction", skip_unsupported=True)


@pytest.mark.parametrize("text", ['{x:"' + '\\"' * 400_000 + "}", "{x:'" + "\\'" * 400_000 + "}",
                                  '{x:"' + "a" * 3_000_000 + '"}'])
def test_hostile_snbt_strings_are_answered(text):
    """Escaped quotes that never close, or one huge string: refused or read, never a traceback (the scan
    before parsing consumes every quote once, so it stays linear)."""
    try:
        decode_build(text.encode(), "snbt", "h.snbt")
    except BuildFileError as e:
        assert str(e).startswith("h.snbt: ")


def test_snbt_over_the_size_limit_is_refused_before_parsing():
    from scicraft_viz.engine.formats import MAX_SNBT_BYTES

    with pytest.raises(BuildFileError) as e:
        decode_build(b" " * (MAX_SNBT_BYTES + 1), "snbt", "h.snbt")
    assert str(e.value) == f"h.snbt is {MAX_SNBT_BYTES + 1:,} bytes; SNBT files may be at most 4 MiB"
