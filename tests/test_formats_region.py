"""A box read out of a Java world's region file (.mca, Anvil, Minecraft 1.18+ chunks): blocks at their
world coordinates as a paste, and damaged or hostile files refused naming the chunk and the field."""

import gzip
import io
import math
import warnings
import zlib

import nbtlib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, Compound, Int, List, LongArray, String

from scicraft_viz import World
from scicraft_viz.cli import app
from scicraft_viz.engine.formats import UnsupportedBlocksWarning, convert, decode_build, read_build
from scicraft_viz.engine.region import parse_box
from scicraft_viz.errors import BuildFileError


def pack(indices: np.ndarray, bits: int) -> LongArray:
    """4,096 palette indices packed as a 1.18 chunk section stores them (no entry spans two longs)."""
    per = 64 // bits
    words = np.zeros(math.ceil(4096 / per), np.uint64)
    for k, v in enumerate(indices.tolist()):
        words[k // per] |= np.uint64(v) << np.uint64((k % per) * bits)
    return LongArray(words.view(np.int64))


def section(y: int, blocks: dict) -> Compound:
    """A section at height y*16 holding {(x, y, z) within the section: state name with [props]}."""
    names = ["minecraft:air"] + sorted(set(blocks.values()))
    pal = []
    for n in names:
        name, _, props = n.partition("[")
        entry = Compound({"Name": String(name)})
        if props:
            entry["Properties"] = Compound({k: String(v) for k, v in
                                            (kv.split("=") for kv in props.rstrip("]").split(","))})
        pal.append(entry)
    idx = np.zeros(4096, np.int64)
    for (x, yy, z), n in blocks.items():
        idx[(yy * 16 + z) * 16 + x] = names.index(n)
    states = Compound({"palette": List[Compound](pal)})
    if len(names) > 1:
        states["data"] = pack(idx, max(4, math.ceil(math.log2(len(names)))))
    return Compound({"Y": Byte(y), "block_states": states})


def chunk(cx: int, cz: int, sections: list, **extra) -> Compound:
    return Compound({"DataVersion": Int(3465), "xPos": Int(cx), "zPos": Int(cz), "Status": String("minecraft:full"),
                     "sections": List[Compound](sections), **extra})


def region(chunks: dict, compression: int = 2) -> bytes:
    """A region file of {(cx, cz): chunk root}; chunks go after the two header sectors."""
    header = bytearray(8192)
    body = bytearray()
    for (cx, cz), root in chunks.items():
        buf = io.BytesIO()
        nbtlib.File(root).write(buf)
        raw = buf.getvalue()
        payload = {1: gzip.compress(raw), 2: zlib.compress(raw), 3: raw}[compression]
        blob = (len(payload) + 1).to_bytes(4, "big") + bytes([compression]) + payload
        blob += b"\x00" * (-len(blob) % 4096)
        slot = (cx & 31) + (cz & 31) * 32
        header[4 * slot:4 * slot + 4] = (2 + len(body) // 4096).to_bytes(3, "big") + bytes([len(blob) // 4096])
        body += blob
    return bytes(header + body)


# in section Y=4 of chunk (2, -1): world x 32..47, y 64..79, z -16..-1
INVERTER = {(1, 0, 1): "minecraft:stone", (2, 0, 1): "minecraft:redstone_wall_torch[facing=east,lit=true]",
            (3, 0, 1): "minecraft:redstone_lamp[lit=true]", (0, 0, 1): "minecraft:lever[face=wall,facing=west,"
                                                                        "powered=false]"}


def world_file(extra_chunk: bool = True) -> bytes:
    # the circuit, a stone below it in section Y=3, and a glass block in the next chunk east
    secs = [section(4, INVERTER), section(3, {(1, 15, 1): "minecraft:stone"})]
    chunks = {(2, -1): chunk(2, -1, secs)}
    if extra_chunk:
        chunks[(3, -1)] = chunk(3, -1, [section(4, {(0, 0, 0): "minecraft:glass"})])
    return region(chunks)


def shifted(items):
    return {(x + 32, y + 64, z - 16): s for (x, y, z), s in items.items()}


# ------------------------------------------------------------------------------------------ reading
@pytest.mark.parametrize("compression", [1, 2, 3])
def test_a_box_loads_at_world_coordinates(compression):
    secs = [section(4, INVERTER)]
    data = region({(2, -1): chunk(2, -1, secs)}, compression)
    got = dict(decode_build(data, "mca", "r.0.-1.mca", box=(32, 64, -16, 47, 79, -1)))
    assert got == shifted(INVERTER)
    # a smaller box: only what lies inside it, corners included, in either order
    got = dict(decode_build(data, "mca", "r.0.-1.mca", box=(35, 64, -15, 33, 64, -15)))
    assert got == {(33, 64, -15): "minecraft:stone", (34, 64, -15): INVERTER[(2, 0, 1)],
                   (35, 64, -15): INVERTER[(3, 0, 1)]}


def test_a_box_across_chunks_and_sections(tmp_path):
    path = tmp_path / "r.0.-1.mca"
    path.write_bytes(world_file())
    got = dict(read_build(path, box=(32, 63, -16, 48, 64, -15)))
    assert got == {**shifted(INVERTER), (33, 63, -15): "minecraft:stone", (48, 64, -16): "minecraft:glass"}
    assert dict(read_build(path, box=(33, 63, -15, 47, 63, -15))) == {(33, 63, -15): "minecraft:stone"}


def test_the_box_computes_as_a_paste(tmp_path):
    path = tmp_path / "r.0.-1.mca"
    path.write_bytes(world_file())
    w = World.from_build_file(path, box=(32, 64, -15, 35, 64, -15))
    assert w.replay and w.get_block((35, 64, -15)) == "minecraft:redstone_lamp[lit=true]"
    w.use((32, 64, -15))  # the lever powers the torch's block: the torch goes out, then the lamp
    w.step(2)
    assert w.get_block((34, 64, -15)) == "minecraft:redstone_wall_torch[facing=east,lit=false]"
    assert w.get_block((35, 64, -15)) == "minecraft:redstone_lamp[lit=true]"
    w.step(4)
    assert w.get_block((35, 64, -15)) == "minecraft:redstone_lamp[lit=false]"


def test_cli_convert_with_a_box(tmp_path):
    from typer.testing import CliRunner

    path = tmp_path / "r.0.-1.mca"
    path.write_bytes(world_file())
    r = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "c.schem"), "--box", "32,64,-15,35,64,-15"])
    assert r.exit_code == 0, r.output
    assert dict(read_build(tmp_path / "c.schem")) == shifted(INVERTER)
    assert convert(path, tmp_path / "d.nbt", box=(33, 64, -15, 33, 64, -15)) == 1
    r = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "e.schem")])
    assert r.exit_code == 2 and "give the box to read" in r.output
    r = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "e.schem"), "--box", "1,2,3"])
    assert r.exit_code == 2 and "--box '1,2,3': expected six integers x0,y0,z0,x1,y1,z1" in r.output


def test_unsupported_blocks_and_block_entities_named():
    secs = [section(4, {(0, 0, 0): "minecraft:end_rod[facing=up]", (1, 0, 0): "minecraft:stone"})]
    be = List[Compound]([Compound({"id": String("minecraft:chest"), "x": Int(33), "y": Int(64), "z": Int(-16)})])
    data = region({(2, -1): chunk(2, -1, secs, block_entities=be)})
    with pytest.raises(BuildFileError) as e:
        decode_build(data, "mca", "r.mca", box=(32, 64, -16, 40, 64, -16))
    assert str(e.value).startswith("r.mca: 1 block state(s) cannot be imported: minecraft:end_rod[facing=up] at "
                                   "(32, 64, -16): not in the palette (the palette: ")
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        got = decode_build(data, "mca", "r.mca", box=(32, 64, -16, 40, 64, -16), skip_unsupported=True)
    assert got == [((33, 64, -16), "minecraft:stone")]
    assert str(rec[0].message) == ("r.mca: loaded 1 blocks; left out (not supported): "
                                   "minecraft:end_rod[facing=up] x1 at (32, 64, -16); block entity data on 1 "
                                   "blocks that are not containers")


# ------------------------------------------------------------------------------------------ hostile files
def _bad_section(**states) -> bytes:
    sec = Compound({"Y": Byte(4), "block_states": Compound(states)})
    return region({(2, -1): chunk(2, -1, [sec])})


BOX = (32, 64, -16, 33, 64, -16)
STONE = List[Compound]([Compound({"Name": String("minecraft:air")}), Compound({"Name": String("minecraft:stone")})])


@pytest.mark.parametrize("data, box, message", [
    (world_file(), None, "a region file holds up to 1,024 chunks of a world; give the box to read (box=(x0, y0, z0, "
                         "x1, y1, z1), CLI --box x0,y0,z0,x1,y1,z1)"),
    (world_file(), (0, 0, 0, 200, 200, 200), None),  # the box check: named below
    (world_file(False), (32, 64, -16, 48, 64, -16), "chunk (3, -1) was never saved in this region file (the box "
                                                    "reaches it)"),
    (world_file(), (500, 64, 0, 520, 64, 0), "the box spans region files r.0.0.mca to r.1.0.mca; a box is read from "
                                             "one region file"),
    (world_file(), (32 + 512, 64, -16, 33 + 512, 64, -16), "chunk (34, -1): the file's slot for it holds chunk (2, "
                                                           "-1); the box lies outside this region file, or the file "
                                                           "is damaged"),
    (b"\x00" * 100, BOX, "not a region file: 100 bytes, shorter than its 8,192-byte header"),
    (world_file()[:8192 + 100], BOX, "chunk (2, -1): its length, "),
    (_bad_section(palette=STONE, data=LongArray([0] * 3)), BOX,
     "chunk (2, -1).sections[0].block_states.data holds 3 longs; 4,096 entries of 4 bits (2 palette entries) need 256"),
    (_bad_section(palette=STONE, data=LongArray([-1] * 256)), BOX,
     "chunk (2, -1).sections[0].block_states.data: palette index 15 at (32, 64, -16) is out of range (the palette "
     "has 2 entries)"),
    (_bad_section(palette=List[Compound]()), BOX, "chunk (2, -1).sections[0].block_states.palette has 0 entries; "
                                                  "expected 1 to 4,096"),
    (_bad_section(palette=List[Compound]([Compound({"Name": String("minecraft:x,y")})])), BOX,
     "chunk (2, -1).sections[0].block_states.palette[0].Name is 'minecraft:x,y', which is not a block id"),
    (region({(2, -1): Compound({"DataVersion": Int(1343), "Level": Compound()})}), BOX,
     "chunk (2, -1) was saved by Minecraft before 1.18 (DataVersion 1343); open the world in 1.18 or later and save "
     "it first"),
])
def test_hostile_region_files_are_refused_by_name(data, box, message):
    with pytest.raises(BuildFileError) as e:
        decode_build(data, "mca", "r.mca", box=box)
    if message is None:
        assert str(e.value) == ("box: the box (0, 0, 0) to (200, 200, 200) holds 8,120,601 cells; a box may hold at "
                                "most 2,097,152")
    else:
        assert str(e.value).startswith(f"r.mca: {message}")


def test_chunk_compression_and_offsets_checked():
    data = bytearray(world_file(False))
    data[8192 + 4] = 4  # LZ4
    with pytest.raises(BuildFileError, match=r"^r\.mca: chunk \(2, -1\) is compressed with LZ4; only gzip \(1\), zlib "
                                             r"\(2\) and none \(3\) are read$"):
        decode_build(bytes(data), "mca", "r.mca", box=BOX)
    data[8192 + 4] = 130  # in a separate .mcc file
    with pytest.raises(BuildFileError, match=r"stored in a separate \.mcc file"):
        decode_build(bytes(data), "mca", "r.mca", box=BOX)
    data = bytearray(world_file(False))
    slot = 2 + 31 * 32
    data[4 * slot:4 * slot + 3] = (1).to_bytes(3, "big")
    with pytest.raises(BuildFileError, match=r"^r\.mca: chunk \(2, -1\): its offset, sector 1, lies in the file's "
                                             r"header$"):
        decode_build(bytes(data), "mca", "r.mca", box=BOX)
    data[4 * slot:4 * slot + 3] = (900).to_bytes(3, "big")
    with pytest.raises(BuildFileError, match=r"its offset, sector 900, lies outside the file's"):
        decode_build(bytes(data), "mca", "r.mca", box=BOX)
    with pytest.raises(BuildFileError, match=r"a box selects blocks from a world's region file \(\.mca\); this is a "
                                             r"mcfunction file"):
        decode_build(b"setblock 0 0 0 stone\n", "mcfunction", "a.mcfunction", box=BOX)


@pytest.mark.parametrize("text", ["1,2,3,4,5", "a,b,c,d,e,f", "1,2,3,4,5,6,7", "１,2,3,4,5,6"])
def test_box_text_must_be_six_integers(text):
    with pytest.raises(BuildFileError, match="expected six integers"):
        parse_box(text)


_SEED = world_file()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, len(_SEED) - 1), st.integers(0, 255)), min_size=1, max_size=8),
       cut=st.integers(0, len(_SEED)))
def test_fuzzed_region_files_load_or_are_refused_by_name(edits, cut):
    raw = bytearray(_SEED)
    for at, value in edits:
        raw[at] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedBlocksWarning)
        try:
            got = decode_build(bytes(raw[:cut]), "mca", "f.mca", box=(32, 60, -16, 48, 70, -1), skip_unsupported=True)
        except BuildFileError as e:
            assert str(e).startswith("f.mca")
            return
    assert all(32 <= x <= 48 and 60 <= y <= 70 and -16 <= z <= -1 for (x, y, z), _ in got)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.dictionaries(st.tuples(st.integers(0, 15), st.integers(0, 15), st.integers(0, 15)),
                             st.sampled_from(["minecraft:stone", "minecraft:glass", "minecraft:white_wool",
                                              "minecraft:redstone_block", "minecraft:oak_planks"] +
                                             [f"minecraft:{c}_concrete" for c in ("red", "blue", "lime", "black")] +
                                             [f"minecraft:{c}_stained_glass" for c in ("red", "blue", "lime")] +
                                             [f"minecraft:{c}_wool" for c in ("red", "blue", "lime", "black")]),
                             max_size=60))
def test_packed_sections_read_back_every_block(cells):
    """Palettes of any size up to 17 entries (4 and 5 bits per entry): every block comes back where it was."""
    data = region({(0, 0): chunk(0, 0, [section(-1, cells)])})
    got = dict(decode_build(data, "mca", "r.mca", box=(0, -16, 0, 15, -1, 15)))
    assert got == {(x, y - 16, z): s for (x, y, z), s in cells.items()}


def test_all_the_chunks_a_box_reaches_are_bounded_together(monkeypatch):
    from scicraft_viz.engine import region as reg

    data = world_file()
    sizes = [0]
    reg._chunk(data, 2, -1, "r.mca", sizes)
    first = sizes[0]
    monkeypatch.setattr(reg, "MAX_BOX_NBT_BYTES", first + 10)  # room for the first chunk, not the second
    assert decode_build(data, "mca", "r.mca", box=(32, 64, -16, 47, 64, -16)) == []
    with pytest.raises(BuildFileError) as e:
        decode_build(data, "mca", "r.mca", box=(32, 64, -16, 48, 64, -16))
    assert str(e.value) == (f"r.mca: the chunks the box reaches decompress to more than {(first + 10) / 2**20:g} MiB "
                            "(at chunk (3, -1)); read a smaller box")
