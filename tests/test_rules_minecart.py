"""Minecarts (docs/redstone.md sections 74-76): entities loaded from structures and spawned through the World API,
detector rails, and vanilla's default movement on rails and off them, run against what vanilla Minecraft (26.2) did
with Nucleation's structures (tests/data/nucleation/README.md): each cart's position and velocity at the end of every
tick, within 1e-9 (the captures' worlds stood away from the origin, which rounds their doubles by about 1e-14)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vanilla_capture import NUCLEATION, Action, differences

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.errors import InputError

SINGLE = ("cart_flat", "cart_slope", "cart_curve", "cart_boost", "cart_brake", "cart_launch", "cart_loop")
# what the authors' conformance test does to each capture's structure (capture ticks)
ACTIONS = {"cart_launch": [Action(0, "place", (1, 2, 1), "minecraft:redstone_block")]}


def _moves(name):
    """The capture's cart moves: tick -> {id: (position, velocity)}."""
    cap = json.loads((NUCLEATION / f"{name}.json").read_text())
    out = {}
    for t in cap["ticks"]:
        for e in t["events"]:
            if e["kind"] == "entity_moved":
                out.setdefault(t["tick"], {})[e["id"]] = (tuple(e["pos"]), tuple(e["velocity"]))
    return out, max(t["tick"] for t in cap["ticks"]) + 1


def _run(w, ticks, actions=()):
    """The engine's cart moves over `ticks` capture ticks, in the capture's terms (a cart listed when it moved)."""
    by_tick = {}
    for a in actions:
        by_tick.setdefault(a.tick, []).append(a)
    out = {}
    for k in range(ticks):
        for a in by_tick.get(k, ()):
            w.set_block(a.pos, a.state)
        before = {c.id: c.pos for c in w.minecarts()}
        w.step(1)
        moved = {c.id: (c.pos, c.velocity) for c in w.minecarts() if c.pos != before.get(c.id)}
        if moved:
            out[k] = moved
    return out


def _close(a, b, tol=1e-9):
    return a.keys() == b.keys() and all(
        abs(x - y) <= tol for i in a for u, v in zip(a[i], b[i], strict=True) for x, y in zip(u, v, strict=True))


def _first_difference(want, got):
    for k in sorted(want.keys() | got.keys()):
        if not _close(want.get(k, {}), got.get(k, {})):
            return k, want.get(k), got.get(k)
    return None


@pytest.mark.parametrize("name", SINGLE)
def test_a_single_cart_capture_matches_vanilla_every_tick(name):
    want, ticks = _moves(name)
    assert want, "a capture without cart moves proves nothing here"
    w = World.from_build_file(NUCLEATION / f"{name}.snbt", replay=True)
    got = _run(w, ticks, ACTIONS.get(name, ()))
    assert _first_difference(want, got) is None


@pytest.mark.parametrize("name", ("cart_collide", "cart_offrail", "cart_chain", "cart_group", "cart_triad", "cart_yaw"))
def test_carts_push_each_other_as_in_vanilla(name):
    """Carts that touch (boxes widened by 0.2 sideways) push each other: each keeps 0.2 of its velocity and both take
    the pair's mean, pushed apart by the float 0.05, when the pushed cart's heading points within about 37 degrees
    of the other (cart_yaw: a lane with yaw 0 across its rails never moves, one with yaw 90 along them does); a cart
    is solid to another's move. Rammed (cart_collide), off rails (cart_offrail), in chains and groups."""
    want, ticks = _moves(name)
    got = _run(World.from_build_file(NUCLEATION / f"{name}.snbt"), ticks)
    assert _first_difference(want, got) is None


def test_carts_parked_a_little_apart_push_as_in_vanilla():
    """cart_gap: seven trios of resting carts, 0.95 to 1.1 apart, follow vanilla's positions and velocities to 1e-9:
    the trios 0.99 to 1.02 apart are clipped by the room between their boxes, and a cart's box is the float 0.98F
    (0.9800000190734863) wide, so the room is 9.5e-9 short of the decimal gap."""
    want, ticks = _moves("cart_gap")
    got = _run(World.from_build_file(NUCLEATION / "cart_gap.snbt"), ticks)
    assert all(_close(want.get(k, {}), got.get(k, {}), 1e-9) for k in want.keys() | got.keys())


def test_a_structure_minecart_loads_with_its_motion():
    w = World.from_build_file(NUCLEATION / "cart_flat.snbt")
    (c,) = w.minecarts()
    assert (c.id, c.kind, c.pos, c.velocity, c.slots) == (1, "minecart", (2.5, 1.0625, 1.5), (0.35, 0.0, 0.0), ())
    w.step(1)
    (c,) = w.minecarts()
    assert c.pos == (2.85, 1.0625, 1.5) and c.on_rails
    assert c.velocity[0] == pytest.approx(0.336, abs=1e-15) and c.velocity[1] == 0.0


def test_spawn_minecart_checks_its_fields():
    w = World()
    with pytest.raises(InputError, match="spawn_minecart: the kind must be one of minecart, chest_minecart, "
                                         "hopper_minecart, furnace_minecart, got 'tnt_minecart'"):
        w.spawn_minecart((0.5, 1, 0.5), kind="tnt_minecart")
    with pytest.raises(InputError, match="spawn_minecart: the position must be three finite numbers"):
        w.spawn_minecart((0.5, float("nan"), 0.5))
    with pytest.raises(InputError, match="within 10 blocks a tick"):
        w.spawn_minecart((0.5, 1, 0.5), (11.0, 0.0, 0.0))
    with pytest.raises(InputError, match="a plain minecart holds no items"):
        w.spawn_minecart((0.5, 1, 0.5), items=[("redstone", 3)])
    with pytest.raises(InputError):
        w.spawn_minecart((0.5, 1, 0.5), kind="hopper_minecart", items=[("redstone", 64)] * 6)
    assert w.minecarts() == []
    assert w.spawn_minecart((0.5, 1, 0.5), kind="minecraft:hopper_minecart", items=[("redstone", 3)]) == 1
    assert w.spawn_item("redstone", 1, (3.5, 1, 0.5)) == 2  # ids are shared with item entities


def test_a_chest_minecart_keeps_its_items():
    w = World.from_blocks([((x, 0, 0), "stone") for x in range(4)] + [((x, 1, 0), "rail[shape=east_west]")
                                                                       for x in range(4)])
    w.spawn_minecart((0.5, 1.0625, 0.5), (0.1, 0, 0), "chest_minecart", items=[("redstone", 64), None, ("stone", 5)])
    w.step(3)
    (c,) = w.minecarts()
    assert c.kind == "chest_minecart" and c.slots[:3] == (("redstone", 64), None, ("stone", 5)) and len(c.slots) == 27


def test_a_container_carts_slowdown_follows_its_fill_level():
    """A chest minecart's slowdown is the float 0.98 + 0.001 x (15 - its fill level): an empty one keeps 0.995 of
    its speed a tick, a full one 0.98, a plain cart 0.96."""
    rails = [((x, 0, 0), "stone") for x in range(8)] + [((x, 1, 0), "rail[shape=east_west]") for x in range(8)]
    got = {}
    for kind, items in (("minecart", None), ("chest_minecart", []), ("chest_minecart", [("stone", 64)] * 27)):
        w = World.from_blocks(rails)
        w.spawn_minecart((1.5, 1.0625, 0.5), (0.2, 0, 0), kind, items=items)
        w.step(1)
        got[(kind, bool(items))] = w.minecarts()[0].velocity[0] / 0.2
    assert got[("minecart", False)] == pytest.approx(0.96, abs=1e-12)
    assert got[("chest_minecart", False)] == pytest.approx(0.995, abs=1e-7)
    assert got[("chest_minecart", True)] == pytest.approx(0.98, abs=1e-7)


def test_the_detector_rail_capture_matches_vanilla_block_for_block():
    """Nucleation's detector_rail: the rail powers on tick 13 as the cart's box enters its search box, lamps above,
    below and beside it and at the end of the dust light, and it switches off at its re-check on tick 33."""
    assert differences("detector_rail.snbt", "detector_rail.json") == []


def test_the_detector_strong_capture_matches_vanilla():
    """Nucleation's detector_strong: the rail strongly powers the block beneath it only."""
    assert differences("detector_strong.snbt", "detector_strong.json") == []


def _detector_world():
    w = World.from_blocks([((x, 0, z), "stone") for x in range(5) for z in range(3)]
                          + [((x, 1, 0), "rail[shape=east_west]") for x in (0, 1, 3, 4)]
                          + [((2, 1, 0), "detector_rail[shape=east_west]"), ((2, 1, 1), "comparator[facing=north]"),
                             ((2, 1, 2), "redstone_lamp")])
    return w


def test_a_comparator_reads_a_chest_minecart_through_a_detector_rail():
    w = _detector_world()
    w.spawn_minecart((2.5, 1.0625, 0.5), kind="chest_minecart", items=[("stone", 64)] * 14)  # 14/27 full: level 8
    w.step(1)
    assert "powered=true" in w.get_block((2, 1, 0))
    w.step(2)
    assert w.output_signal((2, 1, 1)) == 8 and "lit=true" in w.get_block((2, 1, 2))


def test_a_detector_rail_stays_powered_while_a_cart_rests_on_it():
    """A cart at rest on a detector rail: powered from the tick after it is spawned, re-checked every 20 game
    ticks and found each time; a plain cart gives a comparator 0 through it."""
    w = _detector_world()
    w.spawn_minecart((2.5, 1.0625, 0.5))
    w.step(1)
    on_at = w.tick
    assert "powered=true" in w.get_block((2, 1, 0))
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(on_at + 20, (2, 1, 0))]
    w.step(100)
    assert "powered=true" in w.get_block((2, 1, 0)) and w.output_signal((2, 1, 1)) == 0
    assert [(s.tick, s.pos) for s in w.scheduled()] == [(on_at + 120, (2, 1, 0))]
    assert w.minecarts()[0].pos == (2.5, 1.0625, 0.5)


def test_the_compiled_engine_refuses_a_world_with_minecarts():
    w = World.from_build_file(NUCLEATION / "cart_flat.snbt")
    with pytest.raises(CompileRefused, match="1 minecarts .*reference engine only"):
        compile_world(w)


LOOP = [(x, 1, z) for x in range(6) for z in range(4) if x in (0, 5) or z in (0, 3)]


def _loop_world():
    shape = {(0, 0): "south_east", (5, 0): "south_west", (0, 3): "north_east", (5, 3): "north_west"}
    blocks = [((x, 0, z), "stone") for x in range(6) for z in range(4)]
    for x, y, z in LOOP:
        s = shape.get((x, z), "east_west" if z in (0, 3) else "north_south")
        blocks.append(((x, y, z), f"rail[shape={s}]"))
    return World.from_blocks(blocks, replay=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(LOOP), st.floats(-0.4, 0.4), st.floats(0.0, 0.99)), min_size=1,
                max_size=3, unique_by=lambda t: t[0]))
def test_carts_on_a_closed_loop_stay_on_the_rails(carts):
    """Carts started anywhere on a closed loop of rails, at any speed along it, stay on it (on_rails, at a rail's
    height, inside the loop's cells); and the same world run twice, or its copy, gives the same carts."""
    w = _loop_world()
    for (x, y, z), v, f in carts:
        along_x = z in (0, 3) and 0 < x < 5
        pos = (x + (f if along_x else 0.5), y + 0.0625, z + (0.5 if along_x else f))
        w.spawn_minecart(pos, (v, 0.0, 0.0) if along_x else (0.0, 0.0, v))
    twin = w.copy()
    cells = set(LOOP)
    for _ in range(60):
        w.step(1)
        for c in w.minecarts():
            assert c.on_rails and c.pos[1] == pytest.approx(1.0625)
            assert (int(c.pos[0] // 1), 1, int(c.pos[2] // 1)) in cells
    twin.step(60)
    assert twin.minecarts() == w.minecarts()


def test_a_world_with_minecarts_is_deterministic_and_copies_them():
    a = World.from_build_file(NUCLEATION / "cart_loop.snbt")
    b = World.from_build_file(NUCLEATION / "cart_loop.snbt")
    a.step(50)
    c = a.copy()
    a.step(50)
    b.step(100)
    c.step(50)
    assert a.minecarts() == b.minecarts() == c.minecarts()


def test_the_3d_view_draws_each_cart_and_names_it_on_hover():
    from scicraft_viz.views.canvas import Canvas, Pick

    w = World.from_build_file(NUCLEATION / "cart_flat.snbt")
    cv = Canvas()
    cv.show_world(w)
    ((lo, hi),) = cv.entity_boxes()
    assert lo == pytest.approx((2.01, 1.0625, 1.01)) and hi == pytest.approx((2.99, 1.7625, 1.99))
    text = cv.hover(Pick(hit=(2, 1, 1), target=(2, 2, 1), normal=(0, 1, 0)))
    assert "minecart #1 at (2.500, 1.062, 1.500), 0.350 blocks/tick off rails" in text
    w.step(1)
    cv.show_world(w)
    assert "minecart #1 at (2.850, 1.062, 1.500), 0.336 blocks/tick on rails" in cv.hover(
        Pick(hit=(2, 0, 1), target=(2, 1, 1), normal=(0, 1, 0)))
    cv.show_entities()
    assert cv.entity_boxes() == [] and "minecart" not in cv.hover(
        Pick(hit=(2, 0, 1), target=(2, 1, 1), normal=(0, 1, 0)))


def test_a_record_keeps_the_carts_at_each_row():
    w = World.from_build_file(NUCLEATION / "cart_flat.snbt")
    trace = w.record(3)
    want, _ = _moves("cart_flat")
    assert [row[0].pos for row in trace.carts] == [(2.5, 1.0625, 1.5)] + [want[k][1][0] for k in range(3)]
    assert trace.items is None
    assert World.from_build_file(NUCLEATION / "detector_rail.snbt").record(0).carts[0][0].kind == "minecart"


def _litematic_with(entities):
    """A litematic of two detector-rail lanes on stone (its region's Position at (0, 0, 0)), holding `entities` in
    its region's Entities."""
    import gzip
    import io

    import nbtlib

    w = World.from_blocks([((x, 0, z), "stone") for x in range(3) for z in range(3)]
                          + [((1, 1, 0), "detector_rail[shape=north_south]"), ((1, 1, 1), "comparator[facing=north]")])
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(w.to_litematic())))
    (region,) = root["Regions"].values()
    region["Entities"] = nbtlib.List[nbtlib.Compound](entities)
    out = io.BytesIO()
    nbtlib.File(root).write(out)
    return gzip.compress(out.getvalue())


def test_a_litematic_minecart_loads_at_its_region_position_with_its_items():
    from nbtlib import Byte, Compound, Double, List, String

    def doubles(*v):
        return List[Double]([Double(x) for x in v])

    items = List[Compound]([Compound({"Slot": Byte(0), "id": String("minecraft:stone"), "count": Byte(64)})])
    cart = Compound({"id": String("minecraft:hopper_minecart"), "Pos": doubles(1.5, 1.0625, 0.5),
                     "Motion": doubles(0.0, 0.0, 0.0), "Items": items})
    w = World.from_build_file(_litematic_with([cart]))
    (c,) = w.minecarts()
    assert (c.kind, c.pos, c.slots) == ("hopper_minecart", (1.5, 1.0625, 0.5), (("stone", 64), None, None, None, None))
    w.step(3)
    assert "powered=true" in w.get_block((1, 1, 0)) and w.output_signal((1, 1, 1)) == 3  # 64/320 of a hopper cart
    bad = Compound({"id": String("minecraft:minecart"), "Pos": List[Double]([Double(1.5)])})
    with pytest.raises(InputError, match=r"Entities\[0\]\.Pos is a list of 1 Doubles; expected a list of 3 Doubles"):
        World.from_build_file(_litematic_with([bad]))
    with pytest.raises(InputError, match="minecraft:tnt_minecart"):
        World.from_build_file(_litematic_with([Compound({"id": String("minecraft:tnt_minecart"),
                                                         "Pos": doubles(1.5, 1.0, 0.5)})]))


def _carts_trace():
    w = World.from_blocks([((x, 0, 0), "stone") for x in range(8)] + [((x, 1, 0), "rail[shape=east_west]")
                                                                       for x in range(8)])
    w.spawn_minecart((0.5, 1.0625, 0.5), (0.2, 0, 0), "chest_minecart", items=[("redstone", 64), None, ("stone", 5)])
    w.spawn_minecart((6.5, 1.0625, 0.5))
    return w.record(10)


def test_a_trace_file_keeps_every_rows_minecarts(tmp_path):
    from scicraft_viz.engine import tracefile

    tr = _carts_trace()
    f = tmp_path / "carts.trace.json"
    tracefile.save(tr, f)
    back = tracefile.load(f)
    assert back.carts == tr.carts and len(back.carts) == 11
    first = back.carts[0][0]
    assert (first.id, first.kind, first.pos, first.slots[:3]) == (
        1, "chest_minecart", (0.5, 1.0625, 0.5), (("redstone", 64), None, ("stone", 5)))
    assert back.carts[10][0].pos[0] > 1.5 and back.carts[10][1].kind == "minecart"
    obj = tracefile.to_json(tr)
    del obj["carts"]
    assert tracefile.from_json(obj).carts is None


@pytest.mark.parametrize("edit, where", [
    (lambda o: o["carts"][3][0].update(kind="tnt_minecart"), "carts[3][0].kind"),
    (lambda o: o["carts"][3][1].update(slots=[["redstone", 3]]), "carts[3][1]: minecart: a plain minecart holds"),
    (lambda o: o["carts"][3][0].update(velocity=[11.0, 0.0, 0.0]), "carts[3][0]: minecart: the position must lie"),
    (lambda o: o["carts"][3][0].update(slots=[["unobtainium", 3]]), "carts[3][0]: minecart"),
    (lambda o: o["carts"][3][0].update(slots=o["carts"][3][0]["slots"][:5]), "carts[3][0].slots: holds 5 slots"),
    (lambda o: o["carts"][3][1].update(id=1), "carts[3][1].id: minecart 1 is listed twice in row 3"),
    (lambda o: o["carts"][3][0].update(pos=[1.0, 2.0]), "carts[3][0].pos"),
    (lambda o: o["carts"].append([]), "carts: holds 12 rows, the trace 11"),
])
def test_a_trace_files_bad_minecart_is_refused_naming_it(edit, where):
    from scicraft_viz.engine import tracefile

    obj = tracefile.to_json(_carts_trace())
    edit(obj)
    with pytest.raises(InputError) as e:
        tracefile.from_json(obj, "trace file t.json")
    assert str(e.value).startswith(f"trace file t.json: {where}")


_CARTS_TRACE = _carts_trace()


@settings(max_examples=60, deadline=None)
@given(row=st.integers(0, 10), cart=st.integers(0, 1),
       field=st.sampled_from(["id", "kind", "pos", "velocity", "on_rails", "slots", "fuel", "push"]),
       value=st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                       st.text(max_size=12), st.lists(st.floats(-1e9, 1e9), max_size=4),
                       st.lists(st.one_of(st.none(), st.tuples(st.sampled_from(["redstone", "stone", "x"]),
                                                                st.integers(-2, 70)).map(list)), max_size=30)))
def test_any_edit_of_a_traces_minecart_loads_or_is_refused_with_an_input_error(row, cart, field, value):
    from scicraft_viz.engine import tracefile

    obj = tracefile.to_json(_CARTS_TRACE)
    obj["carts"][row][cart][field] = value
    try:
        tr = tracefile.from_json(obj)
    except InputError as e:
        assert f"carts[{row}][" in str(e)  # the edited cart, or the other one when the edit repeats its id
    else:
        c = tr.carts[row][cart]
        assert c.kind in ("minecart", "chest_minecart", "hopper_minecart", "furnace_minecart") and len(c.pos) == 3
        assert c.kind == "furnace_minecart" or (c.fuel, c.push) == (0, (0.0, 0.0))
