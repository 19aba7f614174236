"""Furnace minecarts (docs/redstone.md section 94): loaded from structures and litematics with their fuel and push,
spawned through the World API, driven along rails by their push while they burn fuel, capped at 0.2 blocks a tick,
and run against what vanilla Minecraft (26.2) did with Nucleation's `cart_furnace_yaw` and `cart_ledge` structures
(tests/data/nucleation/README.md): each cart's position and velocity at the end of every tick its entity log lists."""

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib import Byte, Compound, Double, Float, Int, List, Long, Short, String
from redstone_helpers import one_entity_structure
from vanilla_capture import NUCLEATION

from scicraft_viz import World
from scicraft_viz.engine import carts
from scicraft_viz.engine.formats import decode_build
from scicraft_viz.errors import InputError


def _logged(name):
    """A Nucleation entity log: (tick, id) -> (kind, position, velocity) at the end of that tick (ticks from 0)."""
    out = {}
    for line in (NUCLEATION / f"{name}.entities.log").read_text().splitlines():
        m = re.match(r"\s*E t(\d+) id=(\d+) (\S+) pos=\(([^)]*)\) vel=\(([^)]*)\)", line)
        if m:
            out[int(m.group(1)), int(m.group(2))] = (
                m.group(3).removeprefix("minecraft:"), tuple(float(v) for v in m.group(4).split(",")),
                tuple(float(v) for v in m.group(5).split(",")))
    return out


def _engine(name, ticks):
    """The engine's carts at the end of each capture tick: (tick, id) -> (kind, position, velocity)."""
    w = World.from_build_file(NUCLEATION / f"{name}.snbt")
    out = {}
    for k in range(ticks):
        w.step(1)
        out.update({(k, c.id): (c.kind, c.pos, c.velocity) for c in w.minecarts()})
    return w, out


def test_furnace_carts_push_each_other_as_in_vanilla_every_tick():
    """cart_furnace_yaw: two pairs of unfuelled furnace carts 0.98 apart, one pair at yaw 90 (inert to a neighbour
    along x), one at yaw 0 (they push apart): the engine gives the game's positions and velocities exactly at every
    one of the 40 logged ticks, and the capture's moves too."""
    import json

    want = _logged("cart_furnace_yaw")
    ticks = max(k for k, _ in want) + 1
    w, got = _engine("cart_furnace_yaw", ticks)
    assert ticks == 40 and {k: got[k] for k in want} == want
    assert [(c.kind, c.fuel, c.push) for c in w.minecarts()] == [("furnace_minecart", 0, (0.0, 0.0))] * 4
    cap = json.loads((NUCLEATION / "cart_furnace_yaw.json").read_text())
    moved = [(t["tick"], e["id"], tuple(e["pos"]), tuple(e["velocity"])) for t in cap["ticks"] for e in t["events"]
             if e["kind"] == "entity_moved"]
    assert len(moved) == 19 and all(got[k, i][1:] == (p, v) for k, i, p, v in moved)


def test_a_furnace_cart_falls_with_the_floats_air_drag_and_one_over_a_ledge_stays_as_in_vanilla():
    """cart_ledge: a furnace cart overhanging a ledge by most of its width stays put for 40 ticks; the one over air
    falls, keeping 0.95F (0.949999988079071) of its velocity a tick, as the game's does to its last logged tick.
    Velocities match exactly; heights to 1e-12, as the capture's world stood at y = 100 (its `origin`), where a double
    steps by 1.4e-14, and the harness logged heights less 100."""
    want = _logged("cart_ledge")
    _, got = _engine("cart_ledge", 40)
    assert sorted({i for _, i in want}) == [1, 2] and max(k for k, i in want if i == 2) == 17
    for key, (kind, pos, vel) in want.items():
        assert got[key][0] == kind and got[key][2] == vel, key
        assert got[key][1][0::2] == pos[0::2] and abs(got[key][1][1] - pos[1]) <= 1e-12, key
    assert {got[k, 1] for k in range(40)} == {("furnace_minecart", (4.245, 1.0, 2.5), (0.0, 0.0, 0.0))}


def _rail_line(n=40):
    """Stone under a line of east-west rails from x = 0 to n - 1 at z = 0."""
    return World.from_blocks([((x, 0, 0), "stone") for x in range(n)] + [((x, 1, 0), "rail[shape=east_west]")
                                                                        for x in range(n)])


def _after(w, ticks):
    out = []
    for _ in range(ticks):
        w.step(1)
        out.append(w.minecarts()[0])
    return out


def test_a_fuelled_furnace_cart_drives_along_its_rail_two_tenths_of_a_block_a_tick():
    """At rest with a push (1, 0): the first tick adds the push to its velocity (0.96 after the slowdown) but does not
    move it; from then on each move is clamped to 0.2 a block (half a plain cart's 0.4), and a tick of fuel burns
    each tick."""
    w = _rail_line()
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="furnace_minecart", fuel=100, push=(1.0, 0.0))
    got = _after(w, 12)
    assert got[0].pos == (0.5, 1.0625, 0.5) and got[0].velocity == (0.96, 0.0, 0.0) and got[0].fuel == 99
    xs = [c.pos[0] for c in got]
    assert [round(b - a, 12) for a, b in zip(xs, xs[1:])] == [0.2] * 11
    assert [c.fuel for c in got] == list(range(99, 87, -1)) and all(c.on_rails for c in got)
    # the push turned along the velocity, whose 0.04 of gravity tilts it: its x is 0.96 / |(0.96, -0.04)| (to the
    # rounding of vanilla's steps: project, normalise, scale)
    assert got[1].push == (pytest.approx(0.96 / math.sqrt(0.96 * 0.96 + 0.04 * 0.04), abs=1e-15), 0.0)
    plain = _rail_line()
    plain.spawn_minecart((0.5, 1.0625, 0.5), (0.96, 0.0, 0.0))
    assert _after(plain, 1)[0].pos[0] == 0.9  # a plain cart at the same speed moves 0.4


def test_out_of_fuel_the_push_is_gone_and_the_cart_slows_by_0_98_then_0_96_a_tick():
    """Fuel 3: three ticks with the push, and the push is cleared at the end of the third; from then on the velocity
    (at most 2 once a rail has projected it) keeps 0.98 and then 0.96 of itself each tick (0.9408, Nucleation's
    measurement of a coasting furnace cart)."""
    w = _rail_line()
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="furnace_minecart", fuel=3, push=(1.0, 0.0))
    got = _after(w, 30)
    assert [(c.fuel, c.push == (0.0, 0.0)) for c in got[:4]] == [(2, False), (1, False), (0, True), (0, True)]
    for before, after in zip(got[2:], got[3:]):
        assert after.velocity[0] == min(before.velocity[0], 2.0) * 0.98 * 0.96  # a rail takes at most 2 a tick
        assert after.pos[0] - before.pos[0] == pytest.approx(min(before.velocity[0], 0.2), abs=1e-12)
    first = World.from_blocks([((0, 0, 0), "stone"), ((0, 1, 0), "rail[shape=east_west]")])
    first.spawn_minecart((0.5, 1.0625, 0.5), kind="furnace_minecart", fuel=0, push=(1.0, 0.0))
    (c,) = _after(first, 1)
    assert c.velocity == (0.96, 0.0, 0.0) and c.push == (0.0, 0.0)  # the tick's move used it, then it went


def test_a_push_against_the_motion_turns_the_cart_round_and_a_corner_turns_the_push():
    """The push is turned onto the line of the velocity, either way along it: a push west on a cart going east
    reverses it; a corner re-aims the velocity, and the push follows it down the new line."""
    w = _rail_line()
    w.spawn_minecart((10.5, 1.0625, 0.5), (0.1, 0.0, 0.0), "furnace_minecart", fuel=50, push=(-1.0, 0.0))
    got = _after(w, 5)
    assert got[0].velocity[0] < 0.0 and got[0].push[0] < 0.0 and got[-1].pos[0] < 10.5
    corner = World.from_blocks([((x, 0, z), "stone") for x in range(6) for z in range(12)]
                               + [((x, 1, 0), "rail[shape=east_west]") for x in range(4)]
                               + [((4, 1, 0), "rail[shape=south_west]")]
                               + [((4, 1, z), "rail[shape=north_south]") for z in range(1, 12)])
    corner.spawn_minecart((1.5, 1.0625, 0.5), kind="furnace_minecart", fuel=200, push=(1.0, 0.0))
    got = _after(corner, 40)
    last = got[-1]
    assert last.pos[0] == 4.5 and last.pos[2] > 5.0 and last.push[0] == 0.0 and 0.99 < last.push[1] < 1.0
    assert round(last.pos[2] - got[-2].pos[2], 12) == 0.2


def test_off_rails_a_furnace_cart_moves_at_most_two_tenths_and_its_push_does_nothing():
    floor = [((x, 0, 0), "stone") for x in range(8)]
    for kind, step in (("furnace_minecart", 0.2), ("minecart", 0.4)):
        w = World.from_blocks(floor)
        w.spawn_minecart((0.5, 1.0, 0.5), (0.5, 0.0, 0.0), kind)
        (c,) = _after(w, 1)
        assert c.pos[0] == 0.5 + step and not c.on_rails
    w = World.from_blocks(floor)
    w.spawn_minecart((0.5, 1.0, 0.5), kind="furnace_minecart", fuel=10, push=(1.0, 0.0))
    (c,) = _after(w, 1)
    assert (c.pos, c.velocity, c.fuel, c.push) == ((0.5, 1.0, 0.5), (0.0, 0.0, 0.0), 9, (1.0, 0.0))


def test_a_furnace_cart_hands_its_velocity_to_another_kind_and_keeps_0_95():
    """AbstractMinecart.push between a furnace cart and another kind: the other keeps 0.2 of its velocity and takes
    the furnace cart's, pushed apart by 0.05F; the furnace cart keeps 0.95 of its own. Two furnace carts take the
    pair's mean, as plain carts do."""
    def pair(this_kind, by_kind):
        this = carts.Minecart(1, this_kind, [0.5, 1.0, 0.5], [0.1, 0.0, 0.0])
        by = carts.Minecart(2, by_kind, [1.4, 1.0, 0.5], [0.3, 0.0, 0.0])
        carts.push(this, by)
        return this.vel[0], by.vel[0]

    push = float(__import__("numpy").float32(0.05))  # 0.9 apart, the push apart is the whole 0.05F
    assert pair("minecart", "furnace_minecart") == (0.1 * 0.2 + (0.3 - push), 0.3 * 0.95)
    assert pair("furnace_minecart", "chest_minecart") == (0.1 * 0.95, 0.3 * 0.2 + (0.1 + push))
    mean = (0.3 + 0.1) / 2.0
    assert pair("furnace_minecart", "furnace_minecart") == (0.1 * 0.2 + (mean - push), 0.3 * 0.2 + (mean + push))
    assert carts.Minecart(1, "furnace_minecart", [0.5, 1.0, 0.5], [0.0] * 3).fill_level() == 0


def _structure(nbt: dict) -> bytes:
    """A structure (.nbt) of one stone block and one furnace minecart entity whose data holds `nbt`."""
    return one_entity_structure("minecraft:furnace_minecart", nbt)


def _load(nbt: dict) -> World:
    return World.from_build_file(_structure(nbt), fmt="nbt")


def test_a_structure_and_a_litematic_load_a_furnace_carts_fuel_and_push():
    from test_rules_minecart import _litematic_with

    w = _load({"Fuel": Short(3600), "PushX": Double(0.5), "PushZ": Double(-1.0)})
    (c,) = w.minecarts()
    assert (c.kind, c.pos, c.fuel, c.push) == ("furnace_minecart", (0.5, 1.0, 0.5), 3600, (0.5, -1.0))
    (c,) = _load({}).minecarts()
    assert (c.fuel, c.push) == (0, (0.0, 0.0))  # vanilla's defaults
    cart = Compound({"id": String("minecraft:furnace_minecart"),
                     "Pos": List[Double]([Double(1.5), Double(1.0625), Double(0.5)]), "Fuel": Short(40),
                     "PushX": Double(0.0), "PushZ": Double(1.0)})
    w = World.from_build_file(_litematic_with([cart]))
    (c,) = w.minecarts()
    assert (c.kind, c.fuel, c.push) == ("furnace_minecart", 40, (0.0, 1.0))
    w.step(3)
    assert "powered=true" in w.get_block((1, 1, 0)) and w.output_signal((1, 1, 1)) == 0  # no container to read


@pytest.mark.parametrize("nbt, message", [
    ({"Fuel": Short(-5)}, "root.entities[0].nbt.Fuel (furnace_minecart) must be a whole number of game ticks from 0 "
                          "to 32767, got -5"),
    ({"Fuel": Int(40000)}, "root.entities[0].nbt.Fuel (furnace_minecart) must be a whole number of game ticks"),
    ({"Fuel": String("lots")}, "root.entities[0].nbt.Fuel (furnace_minecart) is a String lots; expected a Short"),
    ({"PushX": String("east")}, "root.entities[0].nbt.PushX (furnace_minecart) is a String east; expected a Double"),
    ({"PushZ": Double(float("nan"))}, "root.entities[0].nbt.PushZ (furnace_minecart) must be a finite number of "
                                      "blocks within 60,000,000, got nan"),
    ({"PushX": Float(float("inf"))}, "root.entities[0].nbt.PushX (furnace_minecart) must be a finite number"),
])
def test_a_furnace_carts_bad_fuel_or_push_is_refused_naming_the_entity_and_field(nbt, message):
    with pytest.raises(InputError) as e:
        _load(nbt)
    assert str(e.value).startswith(f"<bytes>: {message}"), str(e.value)


_TAGS = st.one_of(
    st.integers(-128, 127).map(Byte), st.integers(-2**15, 2**15 - 1).map(Short),
    st.integers(-2**31, 2**31 - 1).map(Int), st.integers(-2**63, 2**63 - 1).map(Long),
    st.floats(width=32).map(Float), st.floats().map(Double),
    st.text(max_size=8).map(String), st.just(List[Int]([Int(1)])))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.dictionaries(st.sampled_from(["Fuel", "PushX", "PushZ"]), _TAGS))
def test_any_fuel_and_push_tags_load_as_vanilla_reads_them_or_are_refused_naming_the_field(fields):
    """The loader of Fuel, PushX and PushZ: a whole number tag of 0 to 32767 ticks and finite number tags within
    60,000,000 load as those numbers (an absent one as 0); anything else is an InputError naming that field."""
    def ok(key, tag):
        if key == "Fuel":
            return isinstance(tag, (Byte, Short, Int, Long)) and 0 <= int(tag) <= 32767
        return isinstance(tag, (Byte, Short, Int, Long, Float, Double)) and math.isfinite(float(tag)) and abs(
            float(tag)) <= 6e7

    try:
        build = decode_build(_structure(fields), "nbt", "c.nbt")
    except InputError as e:
        bad = [k for k, tag in fields.items() if not ok(k, tag)]
        assert bad and any(str(e).startswith(f"c.nbt: root.entities[0].nbt.{k} (furnace_minecart) ") for k in bad)
    else:
        assert all(ok(k, tag) for k, tag in fields.items())
        (spec,) = build.entities
        assert spec.fuel == int(fields.get("Fuel", 0))
        assert spec.push == (float(fields.get("PushX", 0.0)), float(fields.get("PushZ", 0.0)))


def test_spawn_minecart_checks_a_furnace_carts_fuel_and_push():
    w = World()
    with pytest.raises(InputError, match="spawn_minecart: the fuel must be a whole number of game ticks from 0 to "
                                         "32767, got -1"):
        w.spawn_minecart((0.5, 1, 0.5), kind="furnace_minecart", fuel=-1)
    with pytest.raises(InputError, match="the fuel must be a whole number"):
        w.spawn_minecart((0.5, 1, 0.5), kind="furnace_minecart", fuel=True)
    with pytest.raises(InputError, match="spawn_minecart: the push's z must be a finite number"):
        w.spawn_minecart((0.5, 1, 0.5), kind="furnace_minecart", push=(0.0, float("nan")))
    with pytest.raises(InputError, match="spawn_minecart: the push must be \\(x, z\\)"):
        w.spawn_minecart((0.5, 1, 0.5), kind="furnace_minecart", push=(1.0, 0.0, 0.0))
    with pytest.raises(InputError, match="spawn_minecart: only a furnace minecart takes fuel and a push, not a "
                                         "minecart"):
        w.spawn_minecart((0.5, 1, 0.5), fuel=3600)
    with pytest.raises(InputError, match="a furnace minecart holds no items"):
        w.spawn_minecart((0.5, 1, 0.5), kind="furnace_minecart", items=[("coal", 1)])
    assert w.minecarts() == []
    assert w.spawn_minecart((0.5, 1, 0.5), kind="minecraft:furnace_minecart", fuel=3600, push=(1, 0)) == 1
    assert (w.minecarts()[0].fuel, w.minecarts()[0].push) == (3600, (1.0, 0.0))


def test_a_record_a_trace_file_and_a_copy_keep_fuel_and_push(tmp_path):
    from scicraft_viz.engine import tracefile

    w = _rail_line(12)
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="furnace_minecart", fuel=4, push=(1.0, 0.0))
    w.spawn_minecart((8.5, 1.0625, 0.5))
    twin = w.copy()
    tr = w.record(6)
    assert [row[0].fuel for row in tr.carts] == [4, 3, 2, 1, 0, 0, 0] and tr.carts[0][0].push == (1.0, 0.0)
    assert tr.carts[6][0].push == (0.0, 0.0) and (tr.carts[6][1].fuel, tr.carts[6][1].push) == (0, (0.0, 0.0))
    tracefile.save(tr, tmp_path / "f.trace.json")
    back = tracefile.load(tmp_path / "f.trace.json")
    assert back.carts == tr.carts
    obj = tracefile.to_json(tr)
    assert "fuel" not in obj["carts"][0][1] and obj["carts"][0][0]["fuel"] == 4
    obj["carts"][0][0]["fuel"] = -3
    with pytest.raises(InputError, match=r"carts\[0\]\[0\]"):
        tracefile.from_json(obj)
    twin.step(6)
    assert twin.minecarts() == w.minecarts()


def test_the_views_draw_a_furnace_cart_lit_while_it_burns_and_name_its_fuel():
    from scicraft_viz.views.canvas import Canvas, Pick
    from scicraft_viz.views.entities import CART_COLORS, FURNACE_LIT_TOP, entity_records

    w = _rail_line(12)
    w.spawn_minecart((0.5, 1.0625, 0.5), kind="furnace_minecart", fuel=2, push=(1.0, 0.0))
    rec = entity_records(w.minecarts(), [])
    assert tuple(rec[0, 9:12]) == FURNACE_LIT_TOP and tuple(rec[0, 3:6]) == pytest.approx((0.98, 0.7, 0.98))
    cv = Canvas()
    cv.show_world(w)
    text = cv.hover(Pick(hit=(0, 1, 0), target=(0, 2, 0), normal=(0, 1, 0)))
    assert "furnace_minecart #1 at (0.500, 1.062, 0.500), 0.000 blocks/tick" in text and "2 ticks of fuel" in text
    w.step(3)
    rec = entity_records(w.minecarts(), [])
    assert tuple(rec[0, 9:12]) == CART_COLORS["furnace_minecart"][1]  # out of fuel: the furnace goes out
