"""File loading details (docs/redstone.md section 38): a property Java 1.20 does not give a block (a state saved
by another version) is left off with a note, the IgnoredPropertiesWarning, instead of refusing the file; pending
block ticks (a litematic's PendingBlockTicks, a region chunk's block_ticks) are refused naming the tag; a
comparator's recorded OutputSignal is taken where it agrees with its state, else worked out again."""

import gzip
import io
import warnings

import nbtlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbtlib import Compound, Int, List, String
from typer.testing import CliRunner

from scicraft_viz import World
from scicraft_viz.cli import app
from scicraft_viz.engine.blocks import PALETTE, VANILLA, known_properties, parse_state
from scicraft_viz.engine.formats import IgnoredPropertiesWarning, UnsupportedBlocksWarning, decode_build, write_build
from scicraft_viz.errors import BuildFileError, InputError
from tests.test_formats import sponge3
from tests.test_formats_region import chunk, region, section


def load(data: bytes, fmt: str, source: str, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blocks = decode_build(data, fmt, source, **kw)
    return blocks, [str(w.message) for w in caught if issubclass(w.category, IgnoredPropertiesWarning)]


def test_a_property_from_another_version_is_left_off_with_a_note():
    data = sponge3({"minecraft:air": 0, "minecraft:repeater[facing=west,delay=2,foo=bar,zz=1]": 1,
                    "minecraft:stone[snowy=true]": 2, "minecraft:redstone_lamp[lit=false]": 3}, bytes([1, 2, 3]),
                   dims=(3, 1, 1))
    blocks, notes = load(data, "schem", "b.schem")
    assert blocks == [((0, 0, 0), "minecraft:redstone_repeater[delay=2,facing=west,locked=false,powered=false]"),
                      ((1, 0, 0), "minecraft:stone"), ((2, 0, 0), "minecraft:redstone_lamp[lit=false]")]
    assert notes == ["b.schem: read without properties Minecraft Java 1.20 does not give these blocks (saved by "
                     "another version?): minecraft:repeater[facing=west,delay=2,foo=bar,zz=1] x1 at (0, 0, 0): "
                     "'foo', 'zz'; minecraft:stone[snowy=true] x1 at (1, 0, 0): 'snowy'"]


def test_a_structure_and_a_region_note_them_too():
    text = b"""{size: [1, 1, 1], palette: ["minecraft:redstone_torch{lit:'true',age:'3'}"],
                blocks: [{pos: [0, 0, 0], state: 0}]}"""
    blocks, notes = load(text, "snbt", "s.snbt")
    assert blocks == [((0, 0, 0), "minecraft:redstone_torch[lit=true]")]
    assert notes == ["s.snbt: read without properties Minecraft Java 1.20 does not give these blocks (saved by "
                     "another version?): minecraft:redstone_torch[lit=true,age=3] x1 at (0, 0, 0): 'age'"]
    data = region({(0, 0): chunk(0, 0, [section(0, {(1, 0, 1): "minecraft:glass[old=1]"})])})
    blocks, notes = load(data, "mca", "r.0.0.mca", box=(0, 0, 0, 3, 3, 3))
    assert blocks == [((1, 0, 1), "minecraft:glass")] and len(notes) == 1 and "'old'" in notes[0]


def test_a_wrong_value_or_an_unknown_block_is_still_refused_and_no_note_is_made():
    for palette, message in (({"minecraft:repeater[facing=up,foo=1]": 0}, "cannot be 'up'"),
                             ({"minecraft:crafter[crafting=false]": 0}, "not in the palette")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(BuildFileError, match=message):
                decode_build(sponge3(palette, bytes([0])), "schem", "b.schem")
        assert not caught


def test_the_cli_prints_the_note(tmp_path):
    src = tmp_path / "b.schem"
    src.write_bytes(sponge3({"minecraft:stone[snowy=true]": 0}, bytes([0])))
    r = CliRunner().invoke(app, ["convert", str(src), str(tmp_path / "o.snbt")])
    assert r.exit_code == 0 and "warning: " in r.output and "'snowy'" in r.output


def _with_pending_ticks(n: int) -> bytes:
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build([((0, 0, 0), "stone")], "litematic"))))
    reg = next(iter(root["Regions"].values()))
    reg["PendingBlockTicks"] = List[Compound]([Compound({
        "Block": String("minecraft:repeater"), "Priority": Int(0), "SubTick": Int(0), "Time": Int(2),
        "x": Int(0), "y": Int(0), "z": Int(0)})] * n)
    buf = io.BytesIO()
    root.write(buf)
    return gzip.compress(buf.getvalue())


def test_pending_block_ticks_are_refused_naming_the_tag():
    with pytest.raises(BuildFileError, match=r"holds 2 pending block ticks \(PendingBlockTicks\)"):
        decode_build(_with_pending_ticks(2), "litematic", "b.litematic")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert decode_build(_with_pending_ticks(1), "litematic", "b.litematic", skip_unsupported=True) == [
            ((0, 0, 0), "minecraft:stone")]
    assert any(issubclass(w.category, UnsupportedBlocksWarning) and "1 pending block ticks (PendingBlockTicks)"
               in str(w.message) for w in caught)
    tick = Compound({"i": String("minecraft:repeater"), "p": Int(0), "t": Int(2), "x": Int(1), "y": Int(0),
                     "z": Int(1)})
    data = region({(0, 0): chunk(0, 0, [section(0, {(1, 0, 1): "minecraft:stone"})],
                                 block_ticks=List[Compound]([tick]))})
    with pytest.raises(BuildFileError, match=r"holds 1 pending block ticks \(block_ticks\)"):
        decode_build(data, "mca", "r.0.0.mca", box=(0, 0, 0, 3, 3, 3))
    assert decode_build(data, "mca", "r.0.0.mca", box=(2, 0, 2, 3, 3, 3)) == []  # the tick lies outside the box


_NAMES = sorted([*PALETTE, *VANILLA])
_WORD = st.text("abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(_NAMES), props=st.dictionaries(_WORD, _WORD, max_size=6), prefix=st.booleans())
def test_property_only_keys_vanilla_lacks_are_dropped_and_the_rest_is_kept(name, props, prefix):
    state = ("minecraft:" if prefix else "") + name + (f"[{','.join(f'{k}={v}' for k, v in props.items())}]"
                                                       if props else "")
    allowed = (PALETTE.get(name) or VANILLA[name])[1]
    kept, dropped = known_properties(state)
    assert dropped == [k for k in props if k not in allowed]
    try:
        got = parse_state(kept)
    except InputError as e:  # a kept key with a wrong value, or a refused state: named as such
        assert "cannot be" in str(e) or "not supported" in str(e)
        return
    assert {k: v for k, v in got.props if k in props} == {k: v for k, v in props.items() if k in allowed}


@settings(max_examples=60, deadline=None)
@given(extra=st.dictionaries(_WORD.filter(lambda k: k not in ("delay", "facing", "locked", "powered")), _WORD,
                             min_size=1, max_size=4))
def test_property_a_file_with_unknown_keys_loads_as_without_them(extra):
    body = ",".join(["delay=3", "facing=east", *(f"{k}={v}" for k, v in extra.items())])
    blocks, notes = load(sponge3({f"minecraft:repeater[{body}]": 0}, bytes([0])), "schem", "b.schem")
    assert blocks == [((0, 0, 0), "minecraft:redstone_repeater[delay=3,facing=east,locked=false,powered=false]")]
    assert len(notes) == 1 and all(repr(k) in notes[0] for k in extra)


def _comparator_file(signal) -> bytes:
    """A barrel half full (level 8) read by a comparator into dust, saved as a litematic whose comparator block
    entity records `signal` (an nbtlib tag) as its OutputSignal."""
    w = World()
    for x in range(-1, 4):
        w.set_block((x, 0, 0), "stone")
    w.set_block((0, 1, 0), "barrel")
    w.set_items((0, 1, 0), 27 * 32)
    w.set_block((1, 1, 0), "comparator[facing=west]")
    w.set_block((2, 1, 0), "redstone_wire")
    w.step(4)
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "litematic"))))
    reg = next(iter(root["Regions"].values()))
    x0, y0, z0 = (int(reg["Position"][a]) for a in "xyz")
    reg["TileEntities"].append(Compound({"id": String("minecraft:comparator"), "OutputSignal": signal,
                                         "x": Int(1 - x0), "y": Int(1 - y0), "z": Int(0 - z0)}))
    buf = io.BytesIO()
    root.write(buf)
    return gzip.compress(buf.getvalue())


@pytest.mark.parametrize("signal, output", [
    (8, 8),  # as recorded, the true reading
    (5, 5),  # agrees with powered=true: taken as vanilla loads it, until an update makes the comparator look again
    (0, 8),  # contradicts powered=true: worked out again from the barrel
])
def test_a_comparators_recorded_output_is_taken_only_where_it_agrees_with_its_state(signal, output):
    w = World.from_litematic(_comparator_file(Int(signal)), replay=True)
    assert w.tick == 0 and w.get_block((1, 1, 0)).endswith("powered=true]")
    assert w.power((1, 1, 0)).level == output and w.power((2, 1, 0)).level == output


@pytest.mark.parametrize("signal", [Int(16), Int(-1), String("8")])
def test_an_output_signal_out_of_range_is_refused_naming_the_tag(signal):
    with pytest.raises(BuildFileError, match=r"OutputSignal \(the comparator at \(1, 1, 0\)\) is .*expected an Int "
                                             r"from 0 to 15"):
        World.from_litematic(_comparator_file(signal), replay=True)
