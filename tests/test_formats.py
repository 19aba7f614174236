"""Build files in every format: round trips, tick-identical re-imports, and refusals of bad files."""

import gzip
import io
import os
import tracemalloc
from pathlib import Path

import nbtlib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import ByteArray, Compound, Int, IntArray, List, LongArray, Short, String

from scicraft_viz import World, tasks
from scicraft_viz.engine import formats
from scicraft_viz.engine.blocks import PALETTE, SUPPORTED_FAMILIES, VANILLA
from scicraft_viz.engine.formats import UnsupportedBlocksWarning, check_blocks, decode_build, read_build, write_build
from scicraft_viz.errors import BuildFileError
from scicraft_viz.tasks import evaluator

ROOT = Path(__file__).resolve().parent.parent
SOL = ROOT / "tasks" / "solutions"
L5 = sorted(p.stem for p in SOL.glob("*_L5.mcfunction"))
FORMATS = ["mcfunction", "litematic", "schem"]


def nbt_gz(root: Compound, root_name: str = "") -> bytes:
    buf = io.BytesIO()
    nbtlib.File(root, root_name=root_name).write(buf)
    return gzip.compress(buf.getvalue(), mtime=0)


def raw_nbt(data: bytes) -> bytes:
    return gzip.decompress(data)


def sponge3(palette: dict[str, int], data: bytes, dims=(1, 1, 1), offset=(0, 0, 0), **extra) -> bytes:
    w, h, l = dims
    sch = Compound({"Version": Int(3), "DataVersion": Int(3465), "Width": Short(w), "Height": Short(h),
                    "Length": Short(l), "Offset": IntArray(list(offset)),
                    "Blocks": Compound({"Palette": Compound({k: Int(v) for k, v in palette.items()}),
                                        "Data": ByteArray(np.frombuffer(data, np.int8))})})
    sch.update(extra)
    return nbt_gz(Compound({"Schematic": sch}))


def expect(data: bytes, fmt, message: str, source="b.schem"):
    with pytest.raises(BuildFileError) as e:
        decode_build(data, fmt, source)
    assert str(e.value) == message
    return e


# ------------------------------------------------------------------------------------ round trips
def _all_states():
    import itertools

    out = []
    for name, (_, allowed, _) in PALETTE.items():
        if name == "air":
            continue
        keys = sorted(allowed)
        combos = list(itertools.product(*(allowed[k] for k in keys)))
        for values in combos[:: max(1, len(combos) // 40)]:
            body = ",".join(f"{k}={v}" for k, v in zip(keys, values))
            out.append(f"{name}[{body}]" if body else name)
    return out + ["repeater[facing=east,delay=4,locked=true]", "minecraft:repeater"]


STATES = _all_states()
builds = st.dictionaries(st.tuples(st.integers(-12, 12), st.integers(-8, 16), st.integers(-12, 12)),
                         st.sampled_from(STATES), min_size=1, max_size=60)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=builds, fmt=st.sampled_from(FORMATS + ["schem2"]))
def test_round_trip_keeps_every_block_state(blocks, fmt):
    want = dict(check_blocks(blocks))
    data = formats.encode_build(blocks, fmt.rstrip("2"), schem_version=2 if fmt == "schem2" else 3)
    got = decode_build(data, None, f"b.{fmt.rstrip('2')}")
    assert dict(got) == want
    assert len(got) == len(want)


def test_write_build_returns_bytes_and_writes_paths(tmp_path):
    blocks = {(0, 0, 0): "stone", (0, 1, 0): "redstone_lamp"}
    for fmt in FORMATS:
        data = write_build(blocks, fmt)
        assert isinstance(data, bytes)
        assert write_build(blocks, tmp_path / f"b.{fmt}") == (tmp_path / f"b.{fmt}").read_bytes()
        assert dict(read_build(tmp_path / f"b.{fmt}")) == {(0, 0, 0): "minecraft:stone",
                                                          (0, 1, 0): "minecraft:redstone_lamp[lit=false]"}
    with pytest.raises(BuildFileError, match=r"cannot tell the format of .*b\.dat from its extension; use "
                                             r"\.mcfunction, \.litematic, \.schem, \.nbt or \.snbt"):
        write_build(blocks, tmp_path / "b.dat")
    assert not (tmp_path / "b.dat").exists()


def test_sponge_layout_offset_and_versions():
    blocks = {(5, -3, 7): "stone", (6, -3, 7): "glass", (5, -1, 9): "redstone_lamp"}
    v3 = nbtlib.File.parse(io.BytesIO(raw_nbt(write_build(blocks, "schem"))))
    sch = v3["Schematic"]
    assert v3.root_name == "" and int(sch["Version"]) == 3 and int(sch["DataVersion"]) == 3465
    assert (int(sch["Width"]), int(sch["Height"]), int(sch["Length"])) == (2, 3, 3)
    assert list(map(int, sch["Offset"])) == [5, -3, 7]
    pal = {str(k): int(v) for k, v in sch["Blocks"]["Palette"].items()}
    data = list(map(int, sch["Blocks"]["Data"]))
    assert pal["minecraft:air"] == 0 and len(data) == 18
    # index = x + z * Width + y * Width * Length
    assert data[0] == pal["minecraft:stone"] and data[1] == pal["minecraft:glass"]
    assert data[0 + 2 * 2 + 2 * 2 * 3] == pal["minecraft:redstone_lamp[lit=false]"]
    v2 = nbtlib.File.parse(io.BytesIO(raw_nbt(formats.encode_build(blocks, "schem", schem_version=2))))
    assert v2.root_name == "Schematic" and int(v2["Version"]) == 2 and int(v2["PaletteMax"]) == 4
    assert list(map(int, v2["BlockData"])) == data


def test_world_wrappers_round_trip_in_replay_mode(tmp_path):
    w = World(replay=True)
    for x in range(4):
        w.set_block((x, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_block")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((2, 1, 0), "redstone_repeater[facing=west,delay=3]")
    w.set_block((3, 1, 0), "redstone_lamp")
    w.step(20)
    assert w.get_block((3, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
    for wrapped in (World.from_litematic(w.to_litematic(), replay=True), World.from_schem(w.to_schem(), replay=True),
                    World.from_schem(w.to_schem(version=2), replay=True)):
        assert wrapped.blocks() == w.blocks()
    w.to_schem(tmp_path / "w.schem")
    w.to_litematic(tmp_path / "w.litematic")
    assert World.from_schem(tmp_path / "w.schem", replay=True).blocks() == w.blocks()
    assert World.from_build_file(tmp_path / "w.litematic", replay=True).blocks() == w.blocks()


def _lamp_run(task, items):
    world = evaluator.build_world(task, items)
    world.step(task.settle_game_ticks)
    button = next(p for p, s in world.blocks().items() if "stone_button" in s)
    world.use(button)
    return world.record(task.record_game_ticks)


@pytest.mark.parametrize("task_id", L5)
def test_64_lamp_solution_schematics_light_tick_for_tick(task_id, tmp_path):
    task = tasks.load(task_id)
    items = read_build(SOL / f"{task_id}.mcfunction")
    ref = _lamp_run(task, items)
    assert ref.lamp_lit.shape[1] == 64 and ref.lamp_lit.any()
    for fmt in ("litematic", "schem"):
        path = tmp_path / f"{task_id}.{fmt}"
        write_build(items, path)
        again = _lamp_run(task, read_build(path))
        assert list(again.lamp_positions) == list(ref.lamp_positions)
        assert np.array_equal(again.lamp_lit, ref.lamp_lit)
        assert evaluator.evaluate_file(task, path).passed


# ------------------------------------------------------------------------------------ detection
def test_format_by_extension_and_magic(tmp_path):
    blocks = {(0, 0, 0): "stone"}
    schem, lite = write_build(blocks, "schem"), write_build(blocks, "litematic")
    (tmp_path / "a.bin").write_bytes(schem)
    (tmp_path / "b.bin").write_bytes(lite)
    (tmp_path / "c").write_text("setblock 0 0 0 stone\n")
    for name in ("a.bin", "b.bin", "c"):
        assert read_build(tmp_path / name) == [((0, 0, 0), "minecraft:stone")]
    expect(b"setblock 0 0 0 stone\n", None,
           "b.schem: not a .schem file: expected gzip-compressed NBT (bytes 1f 8b), it starts with b'setblock'")
    expect(b"", None, "x.litematic: not a .litematic file: expected gzip-compressed NBT (bytes 1f 8b), the file is "
           "empty", source="x.litematic")
    expect(schem, None, "x.mcfunction: starts with gzip's magic bytes (a schematic?), not setblock text",
           source="x.mcfunction")
    expect(b"\xff\xfe\x00", None, "cannot read x.mcfunction: not UTF-8 text (byte 0 is 0xff)", source="x.mcfunction")
    expect(nbt_gz(Compound({"Foo": Int(1)})), None, "x.bin: an NBT file that is neither a Litematica (.litematic), "
           "Sponge (.schem) or MCEdit (.schematic) schematic, nor a vanilla structure (.nbt)", source="x.bin")
    expect(schem, "png", "unknown build format 'png'; choose one of mcfunction, litematic, schem, nbt, snbt, "
           "schematic, mca, mcstructure")


# ------------------------------------------------------------------------------------ bad files
def test_truncated_gzip_and_truncated_nbt():
    good = write_build({(0, 0, 0): "stone", (1, 0, 0): "glass"}, "schem")
    expect(good[: len(good) // 2], "schem", "b.schem: the gzip data is truncated (it ends before the end of the "
                                            "stream)")
    raw = raw_nbt(good)
    cut = raw[:-7]
    expect(gzip.compress(cut), "schem", f"b.schem: not a valid NBT file: the data is truncated (at byte {len(cut)} "
                                        f"of {len(cut)})")
    expect(gzip.compress(raw + b"\x00\x01"), "schem",
           f"b.schem: not a valid NBT file: 2 bytes of unexpected data after the root compound (at byte {len(raw)} of "
           f"{len(raw) + 2})")
    expect(gzip.compress(b"\x08\x00\x00\x00\x00"), "schem",
           "b.schem: not a valid NBT file: the root tag has type 8, expected a compound (10) (at byte 0 of 5)")


def test_palette_index_out_of_range():
    expect(sponge3({"minecraft:air": 0, "minecraft:stone": 1}, bytes([1, 5]), dims=(2, 1, 1), offset=(10, 4, -2)),
           "schem", "b.schem: palette index 5 at (11, 4, -2) is out of range: the palette has no entry 5 (it has 2 "
                    "entries, [0, 1])")
    region = Compound({
        "Position": Compound({"x": Int(0), "y": Int(0), "z": Int(0)}),
        "Size": Compound({"x": Int(2), "y": Int(1), "z": Int(1)}),
        "BlockStatePalette": List[Compound]([Compound({"Name": String("minecraft:air")}),
                                             Compound({"Name": String("minecraft:stone")})]),
        "BlockStates": LongArray([0b11_01]),  # cell 0 -> 1 (stone), cell 1 -> 3 (no such entry)
    })
    root = Compound({"Version": Int(6), "MinecraftDataVersion": Int(3465),
                     "Metadata": Compound({"EnclosingSize": Compound({"x": Int(2), "y": Int(1), "z": Int(1)})}),
                     "Regions": Compound({"r": region})})
    expect(nbt_gz(root), "litematic", "b.litematic: palette index 3 at cell (1, 0, 0) of region 'r' is out of range "
                                      "(the palette has 2 entries)", source="b.litematic")


def test_huge_declared_regions_are_refused_before_allocating():
    tracemalloc.start()
    try:
        expect(sponge3({"minecraft:air": 0}, b"", dims=(-1, -1, -1)), "schem",
               "b.schem: the schematic declares 65535 x 65535 x 65535 = 281,462,092,005,375 cells; a schematic may "
               "hold at most 2,097,152 cells")
        region = Compound({"Position": Compound({"x": Int(0), "y": Int(0), "z": Int(0)}),
                           "Size": Compound({"x": Int(1300), "y": Int(-1300), "z": Int(1300)}),
                           "BlockStatePalette": List[Compound]([Compound({"Name": String("minecraft:air")})]),
                           "BlockStates": LongArray([])})
        root = Compound({"Version": Int(6), "MinecraftDataVersion": Int(3465),
                         "Metadata": Compound({"EnclosingSize": Compound({"x": Int(1), "y": Int(1), "z": Int(1)})}),
                         "Regions": Compound({"big": region})})
        expect(nbt_gz(root), "litematic", "b.litematic: region 'big' declares 1300 x 1300 x 1300 = 2,197,000,000 "
                                          "cells; a schematic may hold at most 2,097,152 cells", source="b.litematic")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # a 2 GB region costs nothing to refuse


def test_gzip_bomb_is_stopped_at_the_decompressed_limit():
    comp = zlib_bomb(40 * 2**20)
    assert len(comp) < 100_000
    tracemalloc.start()
    try:
        expect(comp, "schem", "b.schem: decompresses to more than 16 MiB; schematics may be at most 16 MiB "
                              "uncompressed")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20  # the limit, plus the growth of the output buffer


def zlib_bomb(n: int) -> bytes:
    import zlib

    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"\x00" * 2**20
    return b"".join([c.compress(chunk) for _ in range(n // len(chunk))] + [c.flush()])


def test_nbt_bombs_are_refused_by_the_walker():
    # a list that declares ten million items in a few bytes
    raw = b"\x0a\x00\x00" + b"\x09\x00\x01L" + b"\x01" + (10_000_000).to_bytes(4, "big") + b"\x00" * 16 + b"\x00"
    expect(gzip.compress(raw), "schem", "b.schem: not a valid NBT file: a list declares 10,000,000 items but only 17 "
                                        "bytes remain (at byte 12 of 29)")
    # more values than any schematic needs
    raw = b"\x0a\x00\x00" + b"\x09\x00\x01L\x01" + (300_000).to_bytes(4, "big") + b"\x00" * 300_000 + b"\x00"
    expect(gzip.compress(raw), "schem", "b.schem: not a valid NBT file: more than 200,000 values (at byte 12 of "
                                        "300013)")
    # a list of End tags with items
    raw = b"\x0a\x00\x00" + b"\x09\x00\x01L\x00" + (5).to_bytes(4, "big") + b"\x00"
    expect(gzip.compress(raw), "schem", "b.schem: not a valid NBT file: a list of 5 items of tag type 0 (at byte 12 of "
                                        "13)")
    # nesting
    raw = b"\x0a\x00\x00" + b"\x0a\x00\x01c" * 100 + b"\x00" * 101
    expect(gzip.compress(raw), "schem", "b.schem: not a valid NBT file: tags nested more than 64 deep (at byte 259 "
                                        "of 504)")
    raw = b"\x0a\x00\x00" + b"\x07\x00\x01a" + (-3).to_bytes(4, "big", signed=True) + b"\x00"
    expect(gzip.compress(raw), "schem", "b.schem: not a valid NBT file: an array of negative length -3 (at byte 11 of "
                                        "12)")


def test_blocks_outside_the_palette_are_listed_with_their_positions():
    pal = {"minecraft:air": 0, "minecraft:stone": 1, "minecraft:end_rod[facing=up]": 2,
           "minecraft:oak_planks": 3, "minecraft:repeater[delay=9]": 4, "minecraft:chest": 5}
    expect(sponge3(pal, bytes([2, 2, 1, 3, 2, 2, 4, 0]), dims=(2, 2, 2)), "schem",
           "b.schem: 2 block state(s) cannot be imported: minecraft:end_rod[facing=up] at (0, 0, 0), "
           "(1, 0, 0), (0, 1, 0) and 1 more: not in the palette; minecraft:repeater[delay=9] at (0, 1, 1): "
           "redstone_repeater property 'delay' cannot be '9' (in 'minecraft:repeater[delay=9]'); allowed: 1, 2, 3, 4 "
           f"(the palette: {', '.join(sorted(PALETTE))}, and {len(VANILLA)} full, transparent and partial vanilla "
           f"blocks, {SUPPORTED_FAMILIES}); the other 2 "
           "blocks are supported (read with skip_unsupported=True, CLI --skip-unsupported, to open them without these)")


def test_entities_are_refused_block_entities_read():
    chest = Compound({"Id": String("minecraft:chest"), "Pos": IntArray([0, 0, 0])})
    data = sponge3({"minecraft:stone": 0}, bytes([0]), Entities=List[Compound]([Compound({"Id": String("pig")})]))
    expect(data, "schem", "b.schem: holds 1 entities (pig x1); builds here are blocks only (save the schematic "
                          "without entities, from an idle circuit, or read it with skip_unsupported=True, CLI "
                          "--skip-unsupported, to leave them out)")
    pal = Compound({"minecraft:stone": Int(0)})
    sch = Compound({"Version": Int(2), "DataVersion": Int(3465), "Width": Short(1), "Height": Short(1),
                    "Length": Short(1), "Palette": pal, "BlockData": ByteArray([0]),
                    "BlockEntities": List[Compound]([chest])})
    # a block entity at a block that is no container (here stone) carries nothing the engine keeps
    got = decode_build(nbt_gz(sch, "Schematic"), "schem")
    assert got == [((0, 0, 0), "minecraft:stone")] and got.contents == {}
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        decode_build(nbt_gz(sch, "Schematic"), "schem", "b.schem", skip_unsupported=True)
    assert str(rec[0].message) == ("b.schem: loaded 1 blocks; left out (not supported): block entity data on 1 blocks "
                                   "that are not containers")


def test_sponge_structure_errors_name_the_field():
    expect(sponge3({"minecraft:stone": 0}, bytes([0, 0]), dims=(1, 1, 1)), "schem",
           "b.schem: Schematic.Blocks.Data holds 2 entries; Width x Height x Length is 1")
    expect(sponge3({"minecraft:stone": 0}, bytes([0x80]), dims=(1, 1, 1)), "schem",
           "b.schem: Schematic.Blocks.Data ends in the middle of a varint (truncated)")
    bad_version = nbt_gz(Compound({"Schematic": Compound({"Version": Int(4)})}))
    expect(bad_version, "schem", "b.schem: Sponge schematic version 4 is not supported (versions 1, 2 and 3 are)")
    no_width = nbt_gz(Compound({"Schematic": Compound({"Version": Int(3), "Width": Int(1)})}))
    expect(no_width, "schem", "b.schem: Schematic.Width is Int, expected Short")
    dup = sponge3({"minecraft:stone": 0, "minecraft:glass": 0}, bytes([0]))
    expect(dup, "schem", "b.schem: palette index 0 is given to both 'minecraft:stone' and 'minecraft:glass'")


def test_file_limits_and_special_files(tmp_path):
    big = tmp_path / "big.mcfunction"
    with open(big, "wb") as f:
        f.truncate(formats.MAX_FILE_BYTES + 1)  # sparse: nothing is written to disk
    with pytest.raises(BuildFileError) as e:
        read_build(big)
    assert str(e.value) == f"{big} is 16,777,217 bytes; build files may be at most 16 MiB"
    with pytest.raises(BuildFileError) as e:
        read_build("/dev/zero")
    assert str(e.value) == "/dev/zero is not a regular file (a device, FIFO or socket); give a build file"
    fifo = tmp_path / "pipe.mcfunction"
    os.mkfifo(fifo)
    with pytest.raises(BuildFileError) as e:
        read_build(fifo)  # returns at once: opened without blocking, refused by type
    assert str(e.value) == f"{fifo} is not a regular file (a device, FIFO or socket); give a build file"
    with pytest.raises(BuildFileError) as e:
        read_build(tmp_path)
    assert str(e.value) == f"{tmp_path} is a directory, not a build file"
    with pytest.raises(BuildFileError) as e:
        read_build(tmp_path / "none.schem")
    assert str(e.value) == f"build file {tmp_path / 'none.schem'} does not exist"


def test_block_count_limit_in_schematics():
    n = formats.MAX_BLOCKS + 1
    dims = (101, 1, 1000)
    data = bytes([1]) * n + bytes([0]) * (101 * 1000 - n)
    expect(sponge3({"minecraft:air": 0, "minecraft:stone": 1}, data, dims=dims), "schem",
           "b.schem: holds 100,001 blocks; a build holds at most 100,000")
    spread = {(0, 0, 0): "stone", (200, 200, 200): "stone"}
    for fmt in ("schem", "litematic"):
        with pytest.raises(BuildFileError) as e:
            write_build(spread, fmt)
        assert str(e.value) == ("the build spans 201 x 201 x 201 = 8,120,601 cells; a schematic may hold at most "
                                "2,097,152 cells (a .mcfunction file has no such limit)")
    assert write_build(spread, "mcfunction").count(b"setblock") == 2


# ------------------------------------------------------------------------------------ fuzzing
def _valid_samples():
    blocks = {(0, 0, 0): "stone", (1, 0, 0): "redstone_wire", (2, 0, 0): "redstone_repeater[facing=west]",
              (0, 1, 3): "redstone_lamp"}
    return [(write_build(blocks, "schem"), "schem"), (formats.encode_build(blocks, "schem", schem_version=2), "schem"),
            (write_build(blocks, "litematic"), "litematic")]


SAMPLES = _valid_samples()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(SAMPLES) - 1), edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)),
                                                               max_size=6),
       cut=st.one_of(st.none(), st.integers(0, 10**6)))
def test_fuzzed_schematics_are_read_or_refused_cleanly(which, edits, cut):
    data, fmt = SAMPLES[which]
    raw = bytearray(raw_nbt(data))
    for at, value in edits:
        raw[at % len(raw)] = value
    if cut is not None:
        raw = raw[: cut % (len(raw) + 1)]
    try:
        got = decode_build(gzip.compress(bytes(raw)), fmt, "f")
    except BuildFileError as e:
        assert str(e).startswith("f: ") or str(e).startswith("cannot read f")
    else:
        assert all(len(p) == 3 and s.startswith("minecraft:") for p, s in got)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=300), ext=st.sampled_from(["schem", "litematic", "mcfunction", "bin"]))
def test_random_bytes_are_read_or_refused_cleanly(data, ext):
    for blob in (data, gzip.compress(data)):
        try:
            decode_build(blob, None, f"f.{ext}")
        except BuildFileError:
            pass


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(signs=st.tuples(*[st.sampled_from([1, -1])] * 3), dims=st.tuples(*[st.integers(1, 6)] * 3),
       origin=st.tuples(*[st.integers(-20, 20)] * 3), data=st.data())
def test_litematic_reader_agrees_with_litemapy(signs, dims, origin, data):
    """The numpy reader gives what litemapy's own cell-by-cell reader gives, for any region orientation."""
    import litemapy

    size = [s * d for s, d in zip(signs, dims)]
    region = litemapy.Region(*origin, *size)
    cells = [(x, y, z) for x in region.range_x() for y in region.range_y() for z in region.range_z()]
    for cell in data.draw(st.lists(st.sampled_from(cells), max_size=20)):
        name = data.draw(st.sampled_from(["stone", "glass", "redstone_lamp", "repeater", "tnt"]))
        props = {"facing": "east", "delay": "2", "locked": "false", "powered": "false"} if name == "repeater" else {}
        region[cell] = litemapy.BlockState(f"minecraft:{name}", **props)
    other = litemapy.Region(origin[0] + 30, 0, 0, 2, 1, 1)
    other[1, 0, 0] = litemapy.BlockState("minecraft:glass")
    schem = litemapy.Schematic(regions={"a": region, "b": other})
    root = nbtlib.File.parse(io.BytesIO(raw_nbt(nbt_gz(schem.to_nbt()))))
    want = {}
    for r in litemapy.Schematic.from_nbt(root).regions.values():
        for x, y, z in r.block_positions():
            if r[x, y, z].id != "minecraft:air":
                want[(r.x + x, r.y + y, r.z + z)] = r[x, y, z].to_block_state_identifier()
    try:
        got = decode_build(nbt_gz(schem.to_nbt()), "litematic", "r.litematic")
    except BuildFileError as e:
        assert "minecraft:tnt" in want.values()
        assert str(e).startswith("r.litematic: 1 block state(s) cannot be imported: minecraft:tnt at ")
    else:
        assert {p: s.replace("redstone_repeater", "repeater") for p, s in got} == {
            p: s.replace("minecraft:redstone_lamp", "minecraft:redstone_lamp[lit=false]") for p, s in want.items()}
