"""Bedrock .mcstructure files: Bedrock block states translated to Java 1.20 ones at their cells, block entities
(a chest's items) read, and hostile files refused by name, never with a traceback, a hang or a huge allocation."""

import io
import re
import warnings

import nbtlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, Compound, Int, List, String

from scicraft_viz import World
from scicraft_viz.engine.formats import (
    MCSTRUCTURE_UNSUPPORTED,
    UnsupportedBlocksWarning,
    decode_build,
    read_build,
    write_build,
)
from scicraft_viz.errors import BuildFileError
from tests.gametest import DATA


def entry(name: str, **states) -> Compound:
    def tag(v):
        return Byte(v) if isinstance(v, bool) else Int(v) if isinstance(v, int) else String(v)
    return Compound({"name": String(f"minecraft:{name}"), "states": Compound({k: tag(v) for k, v in states.items()}),
                     "version": Int(17879555)})


def mcstructure(cells: dict, dims, palette: list, water: dict | None = None, block_data=None, entities=(),
                **over) -> bytes:
    """A .mcstructure of {(x, y, z): palette index} (-1 elsewhere) in a box of `dims`."""
    sx, sy, sz = dims
    first = [-1] * (sx * sy * sz)
    second = [-1] * (sx * sy * sz)
    for (x, y, z), i in cells.items():
        first[(x * sy + y) * sz + z] = i
    for (x, y, z), i in (water or {}).items():
        second[(x * sy + y) * sz + z] = i
    root = Compound({
        "format_version": Int(1), "size": List[Int]([Int(d) for d in dims]),
        "structure": Compound({
            "block_indices": List[List[Int]]([List[Int]([Int(v) for v in first]), List[Int]([Int(v) for v in second])]),
            "entities": List[Compound](list(entities)),
            "palette": Compound({"default": Compound({"block_palette": List[Compound](palette),
                                                      "block_position_data": Compound(block_data or {})})})}),
        "structure_world_origin": List[Int]([Int(0), Int(0), Int(0)])})
    for k, v in over.items():
        if v is None:
            root.pop(k)
        else:
            root[k] = v
    return little(root)


def little(root: Compound) -> bytes:
    buf = io.BytesIO()
    nbtlib.File(root, root_name="").write(buf, byteorder="little")
    return buf.getvalue()


PALETTE = [entry("stone", stone_type="stone"), entry("lever", lever_direction="up_north_south", open_bit=False),
           entry("redstone_wire", redstone_signal=0), entry("unpowered_repeater", direction=1, repeater_delay=1),
           entry("redstone_lamp"), entry("sticky_piston", facing_direction=3), entry("chest", facing_direction=2)]


def refused(data: bytes, message: str, source: str = "s.mcstructure") -> None:
    with pytest.raises(BuildFileError) as e:
        decode_build(data, None, source)
    assert str(e.value) == f"{source}: {message}"


# ------------------------------------------------------------------------------------------- translation
def test_bedrock_states_become_java_states_at_their_cells():
    cells = {(x, 0, 0): 0 for x in range(5)} | {(0, 1, 0): 1, (1, 1, 0): 2, (2, 1, 0): 3, (3, 1, 0): 2,
                                                  (4, 1, 0): 4, (0, 0, 1): 5}
    got = dict(decode_build(mcstructure(cells, (5, 2, 2), PALETTE), None, "s.mcstructure"))
    assert len(got) == 11
    assert got[(2, 0, 0)] == "minecraft:stone"
    assert got[(0, 1, 0)] == "minecraft:lever[face=floor,facing=north,powered=false]"
    # Bedrock's repeater_delay 1 is Java's delay 2; its direction 1 is west
    assert got[(2, 1, 0)] == "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]"
    # dust keeps no connections in Bedrock: they are worked out from its neighbours (the repeater, the lever)
    assert got[(1, 1, 0)] == "minecraft:redstone_wire[east=side,north=none,power=0,south=none,west=side]"
    assert got[(4, 1, 0)] == "minecraft:redstone_lamp[lit=false]"
    assert got[(0, 0, 1)] == "minecraft:sticky_piston[extended=false,facing=north]"


def test_bedrock_1_21_namespaced_state_keys_and_copper_bulbs():
    """Bedrock 1.20+ names some state keys with the namespace (a comparator's `minecraft:cardinal_direction`), and the
    copper bulbs (1.21 on both editions) are newer than the translator's Java version: Bedrock's `lit` and
    `powered_bit` are Java's `lit` and `powered`."""
    palette = [entry("unpowered_comparator", output_lit_bit=False, output_subtract_bit=True,
                     **{"minecraft:cardinal_direction": "west"}),
               entry("waxed_copper_bulb", lit=True, powered_bit=False), entry("oxidized_copper_bulb", lit=False,
                                                                            powered_bit=True)]
    for e in palette:
        e["version"] = Int(18168865)  # saved by Bedrock 1.21.1 (bytes 1, 21, 1, 33)
    got = dict(decode_build(mcstructure({(0, 0, 0): 0, (1, 0, 0): 1, (2, 0, 0): 2}, (3, 1, 1), palette), None,
                            "s.mcstructure"))
    assert got == {(0, 0, 0): "minecraft:comparator[facing=west,mode=subtract,powered=false]",
                   (1, 0, 0): "minecraft:waxed_copper_bulb[lit=true,powered=false]",
                   (2, 0, 0): "minecraft:oxidized_copper_bulb[lit=false,powered=true]"}
    bad = [Compound({"name": String("minecraft:stone"), "states": Compound({"other:key": Int(0)})})]
    refused(mcstructure({(0, 0, 0): 0}, (1, 1, 1), bad),
            "root.structure.palette.default.block_palette[0].states has the key 'other:key'; a key is lowercase "
            "letters, digits and '_', after 'minecraft:' or alone")


def test_a_chests_items_and_a_waterlogged_block():
    chest = Compound({"block_entity_data": Compound({
        "id": String("Chest"), "Items": List[Compound]([
            Compound({"Name": String("minecraft:redstone"), "Count": Byte(5), "Slot": Byte(2)}),
            Compound({"Name": String("minecraft:air"), "Count": Byte(0), "Slot": Byte(3)})])})})
    w = World.from_build_file(mcstructure({(0, 0, 0): 6}, (1, 1, 1), PALETTE, block_data={"0": chest}))
    assert w.slots((0, 0, 0))[:3] == [None, None, ("redstone", 5)]
    palette = [entry("oak_stairs", weirdo_direction=0, upside_down_bit=False), entry("water", liquid_depth=0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedBlocksWarning)
        got = dict(decode_build(mcstructure({(0, 0, 0): 0}, (1, 1, 1), palette, water={(0, 0, 0): 1}),
                                "mcstructure", skip_unsupported=True))
    assert got == {(0, 0, 0): "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=true]"}


def test_unknown_blocks_and_entities_are_named_with_count_and_positions():
    palette = [entry("stone", stone_type="stone"), entry("soul_fire", age=0),
               entry("no_such_block")]
    data = mcstructure({(0, 0, 0): 0, (1, 0, 0): 2, (2, 0, 0): 2, (1, 0, 1): 1}, (3, 1, 2), palette,
                       entities=[Compound({"identifier": String("minecraft:villager_v2")})])
    with pytest.raises(BuildFileError, match=r"holds 1 entities \(minecraft:villager_v2 x1\)"):
        decode_build(data, None, "s.mcstructure")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", UnsupportedBlocksWarning)
        got = decode_build(data, None, "s.mcstructure", skip_unsupported=True)
    assert got == [((0, 0, 0), "minecraft:stone")]
    text = str(rec[0].message)
    assert "bedrock minecraft:no_such_block x2 at (1, 0, 0), (2, 0, 0)" in text
    assert "minecraft:soul_fire" in text and "x1 at (1, 0, 1)" in text
    assert "1 entities (minecraft:villager_v2 x1)" in text


def test_the_game_tests_structures_load_by_extension_and_content(tmp_path):
    path = DATA / "RedstoneTests" / "lever_power.mcstructure"
    got = read_build(path)
    assert len(got) == 36 and dict(got)[(1, 1, 1)] == "minecraft:lever[face=wall,facing=north,powered=false]"
    assert decode_build(path.read_bytes(), None, "no_extension") == got  # told by its first bytes
    with pytest.raises(BuildFileError, match="read but not written"):
        write_build({(0, 0, 0): "stone"}, tmp_path / "x.mcstructure")
    assert MCSTRUCTURE_UNSUPPORTED.startswith("Bedrock .mcstructure files are read but not written")
    assert not (tmp_path / "x.mcstructure").exists()


# ------------------------------------------------------------------------------------------- hostile files
_GOOD = dict(cells={(0, 0, 0): 0, (1, 0, 0): 4}, dims=(2, 1, 1), palette=PALETTE)


def _with_structure(**over) -> bytes:
    root = nbtlib.File.parse(io.BytesIO(mcstructure(**_GOOD)), byteorder="little")
    for k, v in over.items():
        root["structure"][k] = v
    return little(root)


@pytest.mark.parametrize("data, message", [
    (mcstructure(**_GOOD, size=List[Int]([Int(2), Int(1)])),
     "root.size is List[Int] of 2 items; expected a list of 3 Ints"),
    (mcstructure(**_GOOD, size=List[Int]([Int(4096)] * 3)),
     "the structure declares 4096 x 4096 x 4096 = 68,719,476,736 cells; a schematic may hold at most 2,097,152 cells"),
    (mcstructure(**_GOOD, size=List[Int]([Int(-1), Int(1), Int(1)])), "root.size is -1 x 1 x 1; no side may be "
                                                                      "negative"),
    (mcstructure(**_GOOD, size=List[Int]([Int(3), Int(1), Int(1)])),
     "root.structure.block_indices[0] holds 2 cells; the size 3 x 1 x 1 has 3"),
    (mcstructure(**_GOOD, format_version=Int(2)), "root.format_version is 2; only version 1 (every Bedrock release so "
                                                   "far) can be read"),
    (mcstructure(**_GOOD, structure=None), "root.structure is missing"),
    (mcstructure({(1, 0, 0): 9}, (2, 1, 1), PALETTE),
     "root.structure.block_indices[0] gives the cell at (1, 0, 0) palette index 9; the palette has 7 entries (-1 is "
     "no block)"),
    (mcstructure({(0, 0, 0): 0}, (1, 1, 1), [Compound({"name": Int(3)})]),
     "root.structure.palette.default.block_palette[0].name is Int, expected String"),
    (mcstructure({(0, 0, 0): 0}, (1, 1, 1), [Compound({"name": String("minecraft:stone"),
                                                       "states": Compound({"x": List[Int]([])})})]),
     "root.structure.palette.default.block_palette[0].states.x is List[Int] of 0 items; a block state's value is a "
     "String, Byte, Short or Int"),
    (mcstructure({(0, 0, 0): 0}, (1, 1, 1), [Compound({"name": String("minecraft:stone[a=b]")})]),
     "root.structure.palette.default.block_palette[0].name is 'minecraft:stone[a=b]', which is not a block name like "
     "'minecraft:redstone_wire'"),
    (_with_structure(block_indices=List[Int]([Int(0)])),
     "root.structure.block_indices[0] is Int 0; expected a list of Ints"),
    (_with_structure(block_indices=List[List[Int]]([])),
     "root.structure.block_indices has 0 layers; expected 2 (blocks, then waterlogging)"),
    (mcstructure(**_GOOD, block_data={"7": Compound()}),
     "root.structure.palette.default.block_position_data['7']: the key is not a cell index from 0 to 1"),
])
def test_malformed_structures_are_refused_naming_the_field(data, message):
    refused(data, message)


def test_truncated_compressed_and_oversized_files_are_refused():
    data = mcstructure(**_GOOD)
    with pytest.raises(BuildFileError, match=r"^s\.mcstructure: not a valid NBT file: "):
        decode_build(data[:-7], None, "s.mcstructure")
    import gzip
    refused(gzip.compress(data), "starts with gzip's magic bytes; a Bedrock .mcstructure is uncompressed "
                                 "little-endian NBT (a Java structure .nbt?)")
    # a list declaring 2**31 - 1 items in a few bytes: refused before anything is allocated
    big = data.replace(b"\x03\x02\x00\x00\x00", b"\x03\xff\xff\xff\x7f", 1)
    with pytest.raises(BuildFileError, match="declares 2,147,483,647 items but only"):
        decode_build(big, None, "s.mcstructure")


_SEED = mcstructure({(x, 0, z): (x + z) % 7 for x in range(3) for z in range(2)}, (3, 1, 2), PALETTE)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, len(_SEED) - 1), st.integers(0, 255)), min_size=1, max_size=8),
       cut=st.integers(0, len(_SEED)))
def test_fuzzed_structures_load_or_are_refused_by_name(edits, cut):
    raw = bytearray(_SEED)
    for at, value in edits:
        raw[at] = value
    data = bytes(raw[:cut] if cut < len(raw) else raw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = decode_build(data, "mcstructure", "f.mcstructure", skip_unsupported=True)
        except BuildFileError as e:
            assert str(e).startswith("f.mcstructure")
            return
    assert all(isinstance(s, str) and s.startswith("minecraft:") for _, s in got)
    assert len({p for p, _ in got}) == len(got)


_NAMES = ["stone", "lever", "redstone_wire", "unpowered_repeater", "powered_comparator", "observer", "piston",
          "slime", "honey_block", "wool", "concrete", "tnt", "bed", "frame", "water", "air", "structure_void",
          "unknown_thing", "pistonArmCollision", "hopper"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=st.lists(st.tuples(st.sampled_from(_NAMES), st.integers(0, 5)), min_size=1, max_size=10))
def test_any_blocks_load_or_are_counted_as_left_out(picks):
    """Whatever Bedrock blocks a file holds, every cell either loads as a Java block state or is counted among
    those the warning lists (air and a structure void are no blocks)."""
    palette = [entry(n, facing_direction=d) if d else entry(n) for n, d in picks]
    cells = {(i, 0, 0): i for i in range(len(picks))}
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = dict(decode_build(mcstructure(cells, (len(picks), 1, 1), palette), None, "r.mcstructure",
                                skip_unsupported=True))
    left = " ".join(str(w.message) for w in rec if issubclass(w.category, UnsupportedBlocksWarning))
    listed = sum(int(n) for n in re.findall(r" x(\d+) at ", left))
    void = {i for i, (n, _) in enumerate(picks) if n in ("air", "structure_void")}
    missing = [p for p in cells if p[0] not in void and p not in got]
    assert listed == len(missing)
    assert all(p[0] not in void for p in got)
    assert all(s.startswith("minecraft:") for s in got.values())
