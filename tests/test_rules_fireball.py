"""Fireballs (docs/redstone.md section 97): small fireballs, dragon fireballs and fireballs loaded from structures and
litematics, flying without gravity, accelerating along their motion, counted by wooden and weighted plates, and
removed where their raycast meets a block or an entity (a small one lighting fire there), against vanilla 26.2's
fireball_reach capture (tests/data/nucleation/README.md)."""

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, Compound, Double, Float, Int, List, Long, Short, String
from redstone_helpers import one_entity_structure
from vanilla_capture import NUCLEATION, engine_changes, vanilla_changes

from scicraft_viz import World
from scicraft_viz.engine.formats import decode_build
from scicraft_viz.errors import InputError

INERTIA = float(np.float32(0.95))


def test_fireball_reach_matches_vanilla_at_every_tick():
    """fireball_reach: three dragon fireballs (1.0 wide) and three small ones (0.3125) at rest beside light weighted
    plates; the plates whose touch box (1/16 in from the cell's sides) a box reaches into by any amount press (x 1.5
    and 5.4 for the dragon fireballs, 10.5 and 14.05 for the small ones), the ones at 8.45 and 17.15 stay off, at
    every one of the capture's 30 ticks; no fireball moves."""
    cap = json.loads((NUCLEATION / "fireball_reach.json").read_text())
    w = World.from_build_file(NUCLEATION / "fireball_reach.snbt")
    start = w.fireballs()
    assert [(f.kind, f.pos[0]) for f in start] == [("dragon_fireball", 1.5), ("dragon_fireball", 5.4),
                                                   ("dragon_fireball", 8.45), ("small_fireball", 10.5),
                                                   ("small_fireball", 14.05), ("small_fireball", 17.15)]
    assert engine_changes(w, [], len(cap["queues"])) == vanilla_changes(cap)
    assert w.fireballs() == start


def _flight(v0, power, ticks, k=INERTIA):
    """The positions of a fireball from the origin: move by the motion, then (motion + unit(motion) power) k."""
    pos, v, out = [0.0, 0.0, 0.0], list(v0), []
    for _ in range(ticks):
        pos = [pos[i] + v[i] for i in range(3)]
        n = math.sqrt(sum(c * c for c in v))
        v = [(v[i] + v[i] / n * power) * k for i in range(3)]
        out.append((tuple(pos), tuple(v)))
    return out


def test_a_fireball_flies_straight_and_tends_to_its_top_speed():
    """No gravity: each tick it moves by its motion, then its motion gains power along itself and keeps 0.95F; so
    with power 0.1 its speed tends to 0.1 x 0.95 / 0.05 = 1.9 blocks a tick."""
    w = World()
    w.spawn_fireball((0.5, 10.0, 0.5), (0.3, 0.0, 0.4), "fireball", power=0.1)
    got = []
    for _ in range(40):
        w.step(1)
        (f,) = w.fireballs()
        got.append((tuple(f.pos[i] - (0.5, 10.0, 0.5)[i] for i in range(3)), f.velocity))
    want = _flight((0.3, 0.0, 0.4), 0.1, 40)
    assert all(math.isclose(a, b, abs_tol=1e-12) for g, e in zip(got, want) for x, y in zip(g, e) for a, b in zip(x, y))
    assert got[-1][1][1] == 0.0 and 1.7 < math.hypot(got[-1][1][0], got[-1][1][2]) < 1.9
    w2 = World()
    w2.spawn_fireball((0.5, 10.0, 0.5), kind="small_fireball", power=0.5)
    w2.step(5)
    assert w2.fireballs()[0].pos == (0.5, 10.0, 0.5)  # at rest it has no direction to accelerate in


def test_in_water_a_fireball_keeps_0_8_of_its_motion():
    w = World.from_blocks([((x, 0, 0), "water") for x in range(3)])
    w.spawn_fireball((0.5, 0.2, 0.5), (0.05, 0.0, 0.0), "small_fireball", power=0.0)
    w.step(1)
    (f,) = w.fireballs()
    assert f.pos == (0.55, 0.2, 0.5) and f.velocity == (0.05 * float(np.float32(0.8)), 0.0, 0.0)


def test_a_small_fireball_lights_fire_beside_the_face_it_hits_and_is_gone():
    """The raycast runs from its position (its box's bottom centre) along its motion: its box may reach into the
    stone first (2.67 + 0.15625), and the tick its centre's path crosses the stone's west face at x = 3 it is removed
    and fire (held by the stone floor) fills the air cell west of that face."""
    w = World.from_blocks([((x, 0, 0), "stone") for x in range(5)] + [((3, 1, 0), "stone")])
    w.spawn_fireball((1.5, 1.0, 0.5), (0.6, 0.0, 0.0), "small_fireball", power=0.0)
    w.step(2)
    assert math.isclose(w.fireballs()[0].pos[0], 1.5 + 0.6 + 0.6 * INERTIA, abs_tol=1e-15)  # 2.67: no hit yet
    assert w.get_block((2, 1, 0)) == "minecraft:air"
    w.step(1)
    assert w.fireballs() == [] and w.get_block((2, 1, 0)) == (
        "minecraft:fire[age=0,east=false,north=false,south=false,up=false,west=false]")
    w = World.from_blocks([((x, 0, 0), "stone") for x in range(5)] + [((3, 1, 0), "stone"), ((2, 1, 0), "glass")])
    w.spawn_fireball((2.5, 2.5, 0.5), (0.0, -0.6, 0.0), "small_fireball", power=0.0)
    w.step(2)
    assert w.fireballs() == [] and w.get_block((2, 2, 0)).startswith("minecraft:fire")  # on top of the glass


def test_a_dragon_fireball_or_a_fireball_that_hits_is_removed_with_one_warning():
    w = World.from_blocks([((4, 1, z), "stone") for z in range(3)])
    for z in range(3):
        w.spawn_fireball((1.5, 1.0, z + 0.5), (1.0, 0.0, 0.0), "dragon_fireball", power=0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w.step(3)
    assert w.fireballs() == []
    (msg,) = [str(c.message) for c in caught if issubclass(c.category, UserWarning)]
    assert "fireball #1 (dragon_fireball) at (3.45, 1, 0.5) hit the block at (4, 1, 0)" in msg
    assert "left out" in msg and w.get_block((3, 1, 0)) == "minecraft:air"


def test_a_fireball_hits_a_minecart_in_its_path_but_passes_item_entities():
    w = World()
    w.spawn_minecart((3.5, 1.0, 0.5))
    w.spawn_item("stone", 1, (2.0, 1.05, 0.5), pickup_delay=32767)
    w.spawn_fireball((0.5, 1.1, 0.5), (0.5, 0.0, 0.0), "small_fireball", power=0.0)
    with pytest.warns(UserWarning, match=r"fireball #3 \(small_fireball\) .* hit entity #1 \(minecart\)"):
        w.step(8)
    assert w.fireballs() == [] and len(w.item_entities()) == 1


def test_wooden_and_weighted_plates_count_fireballs_stone_plates_do_not():
    w = World.from_blocks([((x, 0, 0), "stone") for x in range(3)]
                          + [((0, 1, 0), "oak_pressure_plate"), ((1, 1, 0), "stone_pressure_plate"),
                             ((2, 1, 0), "heavy_weighted_pressure_plate")])
    for x in range(3):
        w.spawn_fireball((x + 0.5, 1.0, 0.5), kind="small_fireball", power=0.0)
    w.step(2)
    assert [("powered=true" in w.get_block((x, 1, 0)) or "power=1" in w.get_block((x, 1, 0))) for x in range(3)] == [
        True, False, True]


def test_a_litematic_and_a_structure_load_fireballs_and_the_older_power_list():
    from test_rules_minecart import _litematic_with

    ball = Compound({"id": String("minecraft:dragon_fireball"),
                     "Pos": List[Double]([Double(1.5), Double(3.0), Double(0.5)]),
                     "Motion": List[Double]([Double(0.0), Double(0.0), Double(0.25)]),
                     "acceleration_power": Double(0.0)})
    w = World.from_build_file(_litematic_with([ball]))
    (f,) = w.fireballs()
    assert (f.kind, f.pos, f.velocity, f.power) == ("dragon_fireball", (1.5, 3.0, 0.5), (0.0, 0.0, 0.25), 0.0)
    w = _load({"power": List[Double]([Double(0.0), Double(0.0), Double(0.1)])})
    (f,) = w.fireballs()
    assert f.power is None and f.power_vec == (0.0, 0.0, 0.1)
    w.step(1)
    assert w.fireballs()[0].velocity == (0.0, 0.0, 0.1 * INERTIA)  # the vector added as it is
    assert _load({}).fireballs()[0].power == 0.1  # vanilla's default


def test_a_record_a_trace_file_and_a_copy_keep_the_fireballs(tmp_path):
    from scicraft_viz.engine.tracefile import load, save

    w = World()
    w.spawn_fireball((0.5, 1.0, 0.5), (0.1, 0.0, 0.0), "small_fireball", power=0.0)
    copy = w.copy()
    tr = w.record(3)
    assert [row[0].pos[0] for row in tr.fireballs] == [0.5, 0.6, 0.6 + 0.1 * INERTIA,
                                                        0.6 + 0.1 * INERTIA + 0.1 * INERTIA * INERTIA]
    save(tr, tmp_path / "t.json")
    back = load(tmp_path / "t.json")
    assert back.fireballs == tr.fireballs
    assert copy.fireballs()[0].pos == (0.5, 1.0, 0.5)


def test_the_views_draw_each_fireball_as_its_box():
    from scicraft_viz.views.entities import entity_records

    w = World()
    w.spawn_fireball((0.5, 1.0, 0.5), kind="small_fireball", power=0.0)
    w.spawn_fireball((2.5, 1.0, 0.5), kind="dragon_fireball", power=0.0)
    rec = entity_records((), tuple(w.fireballs()))
    assert rec[:, :6].tolist() == [[0.34375, 1.0, 0.34375, 0.3125, 0.3125, 0.3125], [2.0, 1.0, 0.0, 1.0, 1.0, 1.0]]


def _structure(nbt: dict, kind="minecraft:small_fireball") -> bytes:
    return one_entity_structure(kind, nbt)


def _load(nbt: dict) -> World:
    return World.from_build_file(_structure(nbt), fmt="nbt")


@pytest.mark.parametrize("nbt, message", [
    ({"Motion": List[Double]([Double(float("nan")), Double(0.0), Double(0.0)])},
     "root.entities[0].nbt.Motion (small_fireball) is [nan, 0.0, 0.0]; expected finite numbers"),
    ({"acceleration_power": String("fast")},
     "root.entities[0].nbt.acceleration_power (small_fireball) is a String fast; expected a Double"),
    ({"acceleration_power": Double(float("inf"))},
     "root.entities[0].nbt.acceleration_power (small_fireball) is inf; expected a finite number"),
    ({"power": List[String]([String("a")])}, "root.entities[0].nbt.power (small_fireball) is a list of 1 Strings"),
    ({"Motion": List[Double]([Double(50.0), Double(0.0), Double(0.0)])},
     "root.entities[0]: the position must lie within 30,000,000 blocks and each velocity component within 10"),
])
def test_a_fireballs_bad_fields_are_refused_naming_the_entity_and_field(nbt, message):
    with pytest.raises(InputError) as e:
        _load(nbt)
    assert str(e.value).startswith(f"<bytes>: {message}"), str(e.value)


def test_spawn_fireball_checks_its_fields():
    w = World()
    for kwargs, text in [({"kind": "arrow"}, "the kind must be one of"), ({"power": "x"}, "the power must be"),
                         ({"velocity": (math.nan, 0, 0)}, "the velocity must be three finite numbers"),
                         ({"power": (1, 2)}, "the power vector must be three finite numbers")]:
        with pytest.raises(InputError, match=text):
            w.spawn_fireball((0.5, 1.0, 0.5), **kwargs)
    assert w.fireballs() == []


_TAGS = st.one_of(
    st.integers(-128, 127).map(Byte), st.integers(-2**31, 2**31 - 1).map(Int),
    st.floats(width=32).map(Float), st.floats().map(Double), st.text(max_size=8).map(String),
    st.lists(st.floats(), min_size=0, max_size=4).map(lambda v: List[Double]([Double(x) for x in v])),
    st.integers(-5, 5).map(Short), st.integers(-5, 5).map(Long))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.dictionaries(st.sampled_from(["Motion", "acceleration_power", "power"]), _TAGS),
       kind=st.sampled_from(["minecraft:small_fireball", "minecraft:dragon_fireball", "minecraft:fireball"]))
def test_any_fireball_fields_load_or_are_refused_naming_the_field(fields, kind):
    """The fireball loader: Motion and the older power list as 3 finite numbers (each within 10), acceleration_power a
    finite number tag (it wins over power); anything else is an InputError naming the entity and that field."""
    def triple_ok(tag):
        return (isinstance(tag, List) and len(tag) == 3 and all(isinstance(v, (Double, Float, Byte, Short, Int, Long))
                and math.isfinite(float(v)) and abs(float(v)) <= 10 for v in tag))

    def ok(key, tag):
        if key == "acceleration_power":
            return isinstance(tag, (Double, Float, Byte, Short, Int, Long)) and math.isfinite(float(tag)) and abs(
                float(tag)) <= 10
        if key == "power" and "acceleration_power" in fields:
            return True  # not read
        return triple_ok(tag)

    try:
        build = decode_build(_structure(fields, kind), "nbt", "c.nbt")
    except InputError as e:
        bad = [k for k, tag in fields.items() if not ok(k, tag)]
        assert bad and str(e).startswith("c.nbt: root.entities[0]")
        assert any(f".{k} " in str(e) or "velocity" in str(e) or "power" in str(e) for k in bad), str(e)
    else:
        assert all(ok(k, tag) for k, tag in fields.items())
        (spec,) = build.entities
        assert spec.kind == kind.removeprefix("minecraft:")
        assert spec.motion == tuple(float(v) for v in fields.get("Motion", [0.0, 0.0, 0.0]))


@pytest.mark.parametrize("fmt, version", [("litematic", 3), ("schem", 3), ("schem", 2), ("nbt", 3), ("snbt", 3)])
def test_a_saved_world_keeps_its_fireballs_in_every_format_that_holds_entities(fmt, version):
    """Written and read again, each fireball comes back with its kind, position, motion and acceleration (a power
    along the motion, or an older file's power vector), in spawn order among the other entities."""
    from scicraft_viz.engine.formats import write_build

    w = World.from_blocks([((0, 0, 0), "stone"), ((6, 4, 6), "stone")])
    w.spawn_fireball((1.5, 2.0, 1.5), (0.0, 0.0, 0.0), "small_fireball", power=0.25)
    w.spawn_minecart((3.5, 1.0, 3.5))
    w.spawn_fireball((4.5, 2.0, 2.5), (0.125, 0.0, -0.5), "dragon_fireball", power=(0.0, -0.03125, 0.0))
    back = World.from_build_file(write_build(w, fmt, schem_version=version), fmt=fmt)
    assert back.saved_entities() == w.saved_entities()
    assert [(f.kind, f.pos, f.velocity, f.power, f.power_vec) for f in back.fireballs()] == [
        ("small_fireball", (1.5, 2.0, 1.5), (0.0, 0.0, 0.0), 0.25, None),
        ("dragon_fireball", (4.5, 2.0, 2.5), (0.125, 0.0, -0.5), None, (0.0, -0.03125, 0.0))]


def test_setblock_text_names_the_fireballs_it_leaves_out():
    from scicraft_viz.engine.formats import UnsupportedBlocksWarning, write_build

    w = World.from_blocks([((0, 0, 0), "stone")])
    w.spawn_fireball((0.5, 1.0, 0.5))
    with pytest.warns(UnsupportedBlocksWarning, match=r"0 minecart\(s\), 0 item entity\(ies\) and 1 fireball\(s\)"):
        write_build(w, "mcfunction")


def test_the_compiled_engine_refuses_a_world_with_a_fireball():
    from scicraft_viz.engine.compiled import CompileRefused, compile_world

    w = World.from_blocks([((0, 0, 0), "stone")])
    w.spawn_fireball((0.5, 1.0, 0.5), kind="dragon_fireball")
    with pytest.raises(CompileRefused, match=r"1 fireballs \(dragon_fireball at \(0\.5, 1\.0, 0\.5\)\)"):
        compile_world(w)
