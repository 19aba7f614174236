"""Minecarts and item entities in build files: every format that holds entities writes a World's and reads them back
exactly; setblock text warns that it leaves them out; `convert` keeps a source file's."""

import gzip
import io
import warnings

import nbtlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, Compound, Double, Float, Int, List, Short, String
from test_formats import nbt_gz, sponge3

from scicraft_viz import World
from scicraft_viz.engine.carts import CartSpec
from scicraft_viz.engine.formats import UnsupportedBlocksWarning, convert, decode_build, read_build, write_build
from scicraft_viz.engine.items import ItemSpec
from scicraft_viz.errors import BuildFileError

WRITERS = [("litematic", 3), ("schem", 3), ("schem", 2), ("nbt", 3), ("snbt", 3)]
STRUCTURES = ("nbt", "snbt")  # a structure counts every position from its lowest corner


def doubles(*v):
    return List[Double]([Double(x) for x in v])


def structure_with_entities() -> bytes:
    """A structure .nbt as the game saves one: a rail on stone, a chest minecart on it moving east with items, and
    an item entity above."""
    pal = List[Compound]([Compound({"Name": String("minecraft:stone")}),
                          Compound({"Name": String("minecraft:rail"),
                                    "Properties": Compound({"shape": String("east_west"),
                                                            "waterlogged": String("false")})})])
    blocks = List[Compound]([Compound({"state": Int(0), "pos": List[Int]([Int(x), Int(0), Int(0)])}) for x in range(4)]
                            + [Compound({"state": Int(1), "pos": List[Int]([Int(x), Int(1), Int(0)])})
                               for x in range(4)])
    items = List[Compound]([Compound({"Slot": Byte(0), "id": String("minecraft:redstone"), "Count": Byte(64)}),
                            Compound({"Slot": Byte(5), "id": String("minecraft:stone"), "Count": Byte(7)})])
    cart = Compound({"pos": doubles(0.5, 1.0625, 0.5), "blockPos": List[Int]([Int(0), Int(1), Int(0)]),
                     "nbt": Compound({"id": String("minecraft:chest_minecart"), "Motion": doubles(0.1, 0.0, 0.0),
                                      "Rotation": List[Float]([Float(180.0), Float(0.0)]), "Items": items})})
    item = Compound({"pos": doubles(2.25, 2.0, 0.75), "blockPos": List[Int]([Int(2), Int(2), Int(0)]),
                     "nbt": Compound({"id": String("minecraft:item"), "Motion": doubles(0.0, 0.2, -0.01),
                                      "Age": Short(40), "PickupDelay": Short(10),
                                      "Item": Compound({"id": String("minecraft:ender_pearl"), "Count": Byte(3)})})})
    return nbt_gz(Compound({"DataVersion": Int(3465), "size": List[Int]([Int(4), Int(2), Int(1)]), "palette": pal,
                            "blocks": blocks, "entities": List[Compound]([cart, item])}))


def test_a_loaded_structures_cart_and_item_survive_every_format(tmp_path):
    src = tmp_path / "carts.nbt"
    src.write_bytes(structure_with_entities())
    w = World.from_build_file(src)
    (cart,) = w.minecarts()
    (item,) = w.item_entities()
    assert (cart.kind, cart.pos, cart.velocity) == ("chest_minecart", (0.5, 1.0625, 0.5), (0.1, 0.0, 0.0))
    assert cart.slots[:6] == (("redstone", 64), None, None, None, None, ("stone", 7)) and len(cart.slots) == 27
    assert (item.item, item.count, item.pos, item.velocity, item.age, item.pickup_delay) == (
        "ender_pearl", 3, (2.25, 2.0, 0.75), (0.0, 0.2, -0.01), 40, 10)
    for name, save in [("a.schem", lambda p: w.to_schem(p)), ("b.schem", lambda p: w.to_schem(p, version=2)),
                       ("c.litematic", lambda p: w.to_litematic(p)), ("d.nbt", lambda p: write_build(w, p)),
                       ("e.snbt", lambda p: write_build(w, p))]:
        save(tmp_path / name)
        back = World.from_build_file(tmp_path / name)
        assert back.minecarts() == w.minecarts(), name
        assert back.item_entities() == w.item_entities(), name
        assert back.saved_entities() == w.saved_entities(), name  # the cart's yaw (180) too
        assert back.saved_entities()[0].yaw == 180.0


def test_each_format_writes_vanillas_fields():
    w = World.from_build_file(structure_with_entities(), fmt="nbt")
    w.set_block((5, 3, 2), "stone")  # the lowest corner stays (0, 0, 0)
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "nbt"))))
    cart, item = root["entities"]
    assert cart["pos"] == doubles(0.5, 1.0625, 0.5) and cart["blockPos"] == List[Int]([Int(0), Int(1), Int(0)])
    assert cart["nbt"]["id"] == "minecraft:chest_minecart" and cart["nbt"]["Motion"] == doubles(0.1, 0.0, 0.0)
    assert cart["nbt"]["Rotation"] == List[Float]([Float(180.0), Float(0.0)])
    assert [(int(s["Slot"]), str(s["id"]), int(s["Count"])) for s in cart["nbt"]["Items"]] == [
        (0, "minecraft:redstone", 64), (5, "minecraft:stone", 7)]
    assert item["nbt"]["id"] == "minecraft:item" and isinstance(item["nbt"]["Age"], Short)
    assert (str(item["nbt"]["Item"]["id"]), int(item["nbt"]["Item"]["Count"])) == ("minecraft:ender_pearl", 3)
    assert (int(item["nbt"]["Age"]), int(item["nbt"]["PickupDelay"])) == (40, 10)
    w.set_block((-2, -1, 0), "stone")  # now the lowest corner is (-2, -1, 0): positions count from it
    v3 = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "schem"))))["Schematic"]
    cart3, item3 = v3["Entities"]
    assert cart3["Pos"] == doubles(2.5, 2.0625, 0.5) and cart3["Id"] == "minecraft:chest_minecart"
    assert "Items" in cart3["Data"] and "id" not in cart3["Data"] and item3["Data"]["Item"]["id"] == \
        "minecraft:ender_pearl"
    v2 = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "schem", schem_version=2))))
    assert v2["Entities"][1]["Pos"] == doubles(4.25, 3.0, 0.75) and v2["Entities"][1]["Age"] == Short(40)
    lit = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "litematic"))))
    (region,) = lit["Regions"].values()
    assert region["Position"] == Compound({"x": Int(-2), "y": Int(-1), "z": Int(0)})
    assert [e["Pos"] for e in region["Entities"]] == [doubles(2.5, 2.0625, 0.5), doubles(4.25, 3.0, 0.75)]


def test_setblock_text_warns_how_many_entities_it_leaves_out():
    w = World.from_build_file(structure_with_entities(), fmt="nbt")
    w.spawn_item("redstone", 1, (0.5, 3.0, 0.5))
    with pytest.warns(UnsupportedBlocksWarning) as rec:
        text = write_build(w, "mcfunction").decode()
    messages = [str(r.message) for r in rec]
    assert ("setblock text carries no entities: 1 minecart(s) and 2 item entity(ies) are left out (write .litematic, "
            ".schem, .nbt or .snbt to keep them)") in messages
    assert "summon" not in text and len(text.splitlines()) == 8


def test_a_world_without_entities_writes_none():
    w = World.from_blocks([((0, 0, 0), "stone")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_build(w, "mcfunction")
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "schem"))))["Schematic"]
    assert "Entities" not in root
    assert nbtlib.File.parse(io.BytesIO(gzip.decompress(write_build(w, "nbt"))))["entities"] == List[Compound]()


@pytest.mark.parametrize("dst", ["out.schem", "out.litematic", "out.snbt", "out.nbt"])
def test_convert_keeps_the_sources_entities(tmp_path, dst):
    src = tmp_path / "carts.nbt"
    src.write_bytes(structure_with_entities())
    assert convert(src, tmp_path / dst) == 8
    assert read_build(tmp_path / dst).entities == read_build(src).entities
    assert [type(e) for e in read_build(src).entities] == [CartSpec, ItemSpec]
    back = World.from_build_file(tmp_path / dst)
    want = World.from_build_file(src)
    assert (back.minecarts(), back.item_entities()) == (want.minecarts(), want.item_entities())


def test_convert_to_setblock_text_warns_for_the_entities(tmp_path):
    src = tmp_path / "carts.nbt"
    src.write_bytes(structure_with_entities())
    with pytest.warns(UnsupportedBlocksWarning, match=r"1 minecart\(s\) and 1 item entity\(ies\) are left out"):
        convert(src, tmp_path / "out.mcfunction")


# ------------------------------------------------------------------------------------------------ reading
def test_sponge_entities_are_read_at_offset_plus_pos_and_bad_ones_refused_naming_the_field():
    item = Compound({"Pos": doubles(0.5, 1.0, 0.25), "Id": String("minecraft:item"),
                     "Data": Compound({"Item": Compound({"id": String("minecraft:stone"), "Count": Byte(2)})})})
    data = sponge3({"minecraft:stone": 0}, b"\x00", offset=(10, 20, 30), Entities=List[Compound]([item]))
    (got,) = decode_build(data, "schem", "s.schem").entities
    assert got == ItemSpec("stone", 2, (10.5, 21.0, 30.25), (0.0, 0.0, 0.0), 0, 0)
    bad = Compound({**item, "Data": Compound({"Item": String("stone")})})
    with pytest.raises(BuildFileError, match=r"^s\.schem: Schematic\.Entities\[0\]\.Data\.Item is String 'stone'; "
                                             r"expected a compound with an id and a count$"):
        decode_build(sponge3({"minecraft:stone": 0}, b"\x00", Entities=List[Compound]([bad])), "schem", "s.schem")
    cart = Compound({"Pos": doubles(0.5, 1.0, 0.5), "Id": String("minecraft:minecart"),
                     "Data": Compound({"Motion": doubles(0.5)})})
    with pytest.raises(BuildFileError, match=r"Schematic\.Entities\[0\]\.Data\.Motion is a list of 1 Doubles"):
        decode_build(sponge3({"minecraft:stone": 0}, b"\x00", Entities=List[Compound]([cart])), "schem", "s.schem")
    pig = Compound({"Pos": doubles(0.5, 1.0, 0.5), "Id": String("minecraft:pig")})
    with pytest.raises(BuildFileError, match=r"holds 1 entities \(minecraft:pig x1\)"):
        decode_build(sponge3({"minecraft:stone": 0}, b"\x00", Entities=List[Compound]([item, pig])), "schem",
                     "s.schem")


# ------------------------------------------------------------------------------------------- round trips
_ITEMS = ("redstone", "stone", "ender_pearl", "snowball")
_SPAN = 6.0


def _coord(lo: float):
    return st.floats(lo, lo + _SPAN, allow_nan=False, allow_infinity=False)


@st.composite
def _world_with_entities(draw):
    corner = draw(st.tuples(*(st.integers(0, 40),) * 3))
    w = World.from_blocks([(corner, "stone"), (tuple(c + 3 for c in corner), "stone")])
    for _ in range(draw(st.integers(0, 5))):
        pos = tuple(draw(_coord(c)) for c in corner)
        motion = tuple(draw(st.floats(-2.0, 2.0, allow_nan=False)) for _ in range(3))
        if draw(st.booleans()):
            kind = draw(st.sampled_from(["minecart", "chest_minecart", "hopper_minecart", "furnace_minecart"]))
            size = {"minecart": 0, "chest_minecart": 27, "hopper_minecart": 5, "furnace_minecart": 0}[kind]
            slots = [draw(st.none() | st.tuples(st.sampled_from(_ITEMS), st.integers(1, 16))) for _ in range(
                draw(st.integers(0, size)))]
            furnace = {}
            if kind == "furnace_minecart":
                furnace = {"fuel": draw(st.integers(0, 32767)),
                           "push": tuple(draw(st.floats(-2.0, 2.0, allow_nan=False)) for _ in range(2))}
            w.spawn_minecart(pos, motion, kind, items=slots or None,
                             yaw=draw(st.floats(-720.0, 720.0, allow_nan=False, width=32)), **furnace)
        else:
            w.spawn_item(draw(st.sampled_from(_ITEMS)), draw(st.integers(1, 16)), pos, motion,
                         pickup_delay=draw(st.integers(0, 32767)), age=draw(st.integers(-32768, 32767)))
    return w, corner


def _shifted(entries, corner):
    """What a structure gives back: every position counted from its lowest corner."""
    return [e._replace(pos=tuple(v - c for v, c in zip(e.pos, corner))) for e in entries]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_world_with_entities(), st.sampled_from(WRITERS))
def test_any_worlds_carts_and_items_come_back_exactly_from_every_format(world, writer):
    """Kinds, slots, motions, yaws, a furnace cart's fuel and push, ages and pickup delays come back as they were,
    and positions bit for bit as Doubles (they are written from the lowest corner, here at non-negative coordinates
    below every entity, so taking the corner off and putting it back is exact); a structure gives them from its
    corner."""
    w, corner = world
    fmt, version = writer
    back = World.from_build_file(write_build(w, fmt, schem_version=version), fmt=fmt)
    want_carts, want_items, want_saved = w.minecarts(), w.item_entities(), w.saved_entities()
    if fmt in STRUCTURES:
        want_carts, want_items, want_saved = (_shifted(x, corner) for x in (want_carts, want_items, want_saved))
    ids = [e.id for e in sorted(back.minecarts() + back.item_entities(), key=lambda e: e.id)]
    assert ids == list(range(1, len(want_saved) + 1))  # renumbered in spawn order
    strip = lambda es: [e._replace(id=0) for e in es]  # noqa: E731
    assert strip(back.minecarts()) == strip(want_carts)
    assert strip(back.item_entities()) == strip(want_items)
    assert back.saved_entities() == want_saved
    for a, b in zip(back.saved_entities(), want_saved):
        assert [x.hex() for x in a.pos + a.motion] == [x.hex() for x in b.pos + b.motion]


def test_the_convert_command_keeps_the_entities_and_names_what_setblock_text_leaves_out(tmp_path):
    from typer.testing import CliRunner

    from scicraft_viz.cli import app

    src = tmp_path / "carts.nbt"
    src.write_bytes(structure_with_entities())
    r = CliRunner().invoke(app, ["convert", str(src), str(tmp_path / "out.litematic")])
    assert (r.exit_code, r.stdout) == (0, f"wrote 8 blocks to {tmp_path / 'out.litematic'}\n")
    assert read_build(tmp_path / "out.litematic").entities == read_build(src).entities
    r = CliRunner().invoke(app, ["convert", str(src), str(tmp_path / "out.mcfunction")])
    assert r.exit_code == 0
    assert ("warning: setblock text carries no entities: 1 minecart(s) and 1 item entity(ies) are left out "
            "(write .litematic, .schem, .nbt or .snbt to keep them)") in r.stderr
