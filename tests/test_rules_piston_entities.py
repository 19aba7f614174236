"""Moving blocks move minecarts and item entities (docs/redstone.md section 89), run against what vanilla Minecraft
(26.2) did with Nucleation's structures (tests/data/nucleation/README.md, "Pistons moving entities"): a cart shoved
by a piston's head by the depth of its box plus 0.01, half a block a tick at most; a retracting head dragging a cart
against the base's slot and fixEntityWithinPistonBase putting it back; a cart resting on a piston that extends and
retracts under it, held up by the moving block; and the item rules the captures' laws give."""

import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vanilla_capture import NUCLEATION, vanilla_changes

from scicraft_viz import World

# capture tick -> [(position, state)] set before that tick's step (Nucleation's --at / conformance actions)
ENTITY_ACTIONS = {2: [((1, 1, z), "minecraft:redstone_block") for z in (1, 3, 5, 7)],
                  14: [((1, 1, z), "minecraft:air") for z in (1, 3, 5, 7)]}
SUPPORT_ACTIONS = {5: [((5, 1, 2), "minecraft:redstone_block"), ((5, 1, 7), "minecraft:redstone_block")],
                   20: [((5, 1, 2), "minecraft:air"), ((5, 1, 7), "minecraft:air")]}
CLIP_ACTIONS = {2: [((6, 1, 29), "minecraft:redstone_block")], 6: [((6, 1, 9), "minecraft:air")],
                14: [((6, 1, 29), "minecraft:air")]}
# Vanilla's x of the two furnace minecarts of Nucleation's piston_clip_sizes capture (its entity log,
# tools/gametest/captures/piston_clip_sizes.entities.log in their repository), at the end of each tick it changed:
# lane z=9 is dragged a quarter east by its retracting sticky piston, stopped on the base's slot, and put back out
# of the base's cell; lane z=29 is shoved west by a piston pushing a quartz block, 0.51 then a whole 0.5.
CLIP_X = {9: {6: 4.759999990463257, 7: 4.509999990463257}, 29: {2: 4.0, 3: 3.499999990463257}}


def _run(world, actions, ticks):
    """Per capture tick: the net block changes and each cart's (position, velocity), both after that tick."""
    blocks, carts = {}, {}
    before = world.blocks()
    for k in range(ticks):
        for p, s in actions.get(k, ()):
            world.set_block(p, s)
        world.step(1)
        now = world.blocks()
        changed = {p: now.get(p, "minecraft:air") for p in before.keys() | now.keys() if before.get(p) != now.get(p)}
        if changed:
            blocks[k] = changed
        carts[k] = {c.id: (c.pos, c.velocity) for c in world.minecarts()}
        before = now
    return blocks, carts


def _logged_x(path, entity_id):
    """tick -> x of an entity in a Nucleation entity log (`E tK id=N kind pos=(x, y, z) ...` lines)."""
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\s*E t(\d+) id=(\d+) \S+ pos=\(([^,]+),", line)
        if m and int(m.group(2)) == entity_id:
            out[int(m.group(1))] = float(m.group(3))
    return out


def _piston_entity_world():
    w = World.from_build_file(NUCLEATION / "piston_entity.snbt")
    w.spawn_minecart((3.5, 1.0, 1.5))  # the capture's entity 1; its NaN cart (z=3) is left out
    w.spawn_fireball((3.5, 1.0, 5.5), kind="small_fireball", power=0.0)  # entities 3 and 4, spawned at rest
    w.spawn_fireball((3.5, 1.0, 7.5), kind="dragon_fireball", power=0.0)
    return w


def _logged_fireballs(path):
    """tick -> {(kind, first position): (position, velocity)} of the fireballs of a Nucleation entity log."""
    out, first = {}, {}
    for line in path.read_text().splitlines():
        m = re.match(r"\s*E t(-?\d+) id=(\d+) minecraft:(\w*fireball) pos=\(([^)]*)\) vel=\(([^)]*)\)", line)
        if m:
            pos = tuple(float(v) for v in m.group(4).split(", "))
            key = first.setdefault(int(m.group(2)), (m.group(3), pos))
            out.setdefault(int(m.group(1)), {})[key] = (pos, tuple(float(v) for v in m.group(5).split(", ")))
    return out


def _fireball_rows(world, actions, ticks):
    """tick -> {(kind, position at the start): (position, velocity)} of the world's fireballs after each tick."""
    first = {f.id: (f.kind, f.pos) for f in world.fireballs()}
    out = {}
    for k in range(ticks):
        for p, s in actions.get(k, ()):
            world.set_block(p, s)
        world.step(1)
        out[k] = {first[f.id]: (f.pos, f.velocity) for f in world.fireballs()}
    return out


def test_the_head_shoves_fireballs_as_in_vanilla_every_tick():
    """piston_entity's fireball lanes: the small fireball (0.3125 wide, centred in the head's slot) goes 0.16625
    then 0.5 to x 4.16625, the dragon fireball (a whole block) 0.51 then 0.5 to 4.51; both keep no velocity and
    stay there, as the log has them at each of its 30 ticks."""
    logged = _logged_fireballs(NUCLEATION / "piston_entity.entities.log")
    got = _fireball_rows(_piston_entity_world(), ENTITY_ACTIONS, 30)
    assert got == {k: logged[k] for k in range(30)}
    assert got[3][("small_fireball", (3.5, 1.0, 5.5))][0] == (4.16625, 1.0, 5.5)
    assert got[3][("dragon_fireball", (3.5, 1.0, 7.5))][0] == (4.51, 1.0, 7.5)


def test_an_extending_head_shoves_a_cart_by_its_depth_in_the_sweep_as_in_vanilla():
    """piston_entity: the head sweeps half a block a tick; the cart centred in its slot goes 0.49000000953674316 (its
    box's depth in the slab, 0.98F wide) + 0.01, then 0.49 + 0.01, and no further (the retraction leaves it)."""
    w = _piston_entity_world()
    blocks, carts = _run(w, ENTITY_ACTIONS, 30)
    logged = _logged_x(NUCLEATION / "piston_entity.entities.log", 1)
    got = {k: carts[k][1][0][0] for k in range(30)}
    assert got == {k: logged[k] for k in range(30)}
    assert got[2] == 4.000000009536743 and got[3] == 4.500000009536743
    assert all(carts[k][1][1] == (0.0, 0.0, 0.0) for k in range(30))  # a push gives no velocity
    assert blocks == vanilla_changes(json.loads((NUCLEATION / "piston_entity.json").read_text()))


def test_without_the_push_the_cart_would_stay_in_the_head():
    """The same lane with the cart a block away from the head's path: nothing moves it."""
    w = World.from_build_file(NUCLEATION / "piston_entity.snbt")
    w.spawn_minecart((5.5, 1.0, 1.5))
    _, carts = _run(w, ENTITY_ACTIONS, 20)
    assert {carts[k][1][0] for k in range(20)} == {(5.5, 1.0, 1.5)}


def _cart_support_world(tmp_path):
    """Nucleation's piston_cart_support structure: four unfuelled furnace minecarts at rest."""
    return World.from_build_file(NUCLEATION / "piston_cart_support.snbt")


def test_a_cart_on_a_piston_that_extends_and_retracts_under_it_stays_as_in_vanilla(tmp_path):
    """piston_cart_support: carts on a sticky piston, a piston and stone never move (the extending head's sweep is
    below them, the retracting base's moving block holds them up); the cart over air falls as in the game."""
    w = _cart_support_world(tmp_path)
    cap = json.loads((NUCLEATION / "piston_cart_support.json").read_text())
    blocks, carts = _run(w, SUPPORT_ACTIONS, 23)
    assert blocks == vanilla_changes(cap)
    for i in (1, 2, 3):
        assert {carts[k][i] for k in range(23)} == {((4.5, 2.0, 2.5 + 5 * (i - 1)), (0.0, 0.0, 0.0))}
    moves = {t["tick"]: e for t in cap["ticks"] for e in t["events"] if e["kind"] == "entity_moved"}
    assert sorted(moves) == list(range(20))
    for k, e in moves.items():  # the falling cart, to the last tick the capture sees it (air drag 0.95F); heights to
        pos, vel = carts[k][4]  # 1e-9, the game's world standing higher up (tests/test_rules_minecart.py)
        assert vel == tuple(e["velocity"]) and all(abs(a - b) <= 1e-9 for a, b in zip(pos, e["pos"])), k


def test_the_retracting_base_holds_a_cart_up_while_its_head_comes_home(tmp_path):
    """Between the retraction's start (tick 20) and its end (tick 22) the piston's cell holds a moving_piston; the
    cart on it stays at y = 2 in both ticks, where a cell of air would let it fall 0.04 at once."""
    w = _cart_support_world(tmp_path)
    for k in range(21):
        for p, s in SUPPORT_ACTIONS.get(k, ()):
            w.set_block(p, s)
        w.step(1)
    assert "moving_piston" in w.get_block((4, 1, 2))
    assert [c.pos for c in w.minecarts()][0] == (4.5, 2.0, 2.5)
    w.set_block((4, 1, 7), "minecraft:air")
    w.step(1)
    assert [c.pos[1] for c in w.minecarts()][1] < 2.0


def test_a_retracting_head_drags_a_cart_against_its_base_and_puts_it_back_as_in_vanilla():
    """piston_clip_sizes lanes z=9 and z=29 (the harness's unfuelled furnace minecarts): the pull drags the cart a
    quarter east, stopped by the retracting base's slot at 5.25; fixEntityWithinPistonBase puts it back out of the
    piston's cell; the push shoves the other 0.51, then 0.5."""
    w = World.from_build_file(NUCLEATION / "piston_plate_clip.snbt")
    w.spawn_minecart((4.51, 1.0, 9.5), kind="furnace_minecart")
    w.spawn_minecart((4.51, 1.0, 29.5), kind="furnace_minecart")
    blocks, carts = _run(w, CLIP_ACTIONS, 20)
    for i, z in enumerate((9, 29), start=1):
        xs = {k: carts[k][i][0][0] for k in range(20)}
        want, x = {}, 4.51
        for k in range(20):
            x = CLIP_X[z].get(k, x)
            want[k] = x
        assert xs == want, z
    cap = vanilla_changes(json.loads((NUCLEATION / "piston_clip_sizes.json").read_text()))
    want = {k: {p: s for p, s in v.items() if p[2] in (9, 29)} for k, v in cap.items()}
    got = {k: {p: s for p, s in v.items() if p[2] in (9, 29)} for k, v in blocks.items()}
    # the plate standing on the piston that extends stays, as in the game (docs/redstone.md section 93)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}


def _piston_row(floor=True):
    """A sticky piston at (2, 1, 0) facing east on a stone floor; power it with a redstone block at (1, 1, 0)."""
    w = World()
    if floor:
        for x in range(0, 9):
            w.set_block((x, 0, 0), "minecraft:stone")
    w.set_block((2, 1, 0), "minecraft:sticky_piston[facing=east]")
    return w


def test_an_item_in_the_head_slot_is_shoved_to_a_hundredth_clear_of_the_head():
    """An item (0.25 wide) centred in the slot: 0.125 + 0.01 on the first step, 0.49 + 0.01 on the second, so it
    ends with its back 0.01 clear of the head's face at x = 4; its velocity is its own (falling back to the floor)."""
    w = _piston_row()
    w.spawn_item("redstone", 1, (3.5, 1.0, 0.5), pickup_delay=32767)
    w.step(2)
    w.set_block((1, 1, 0), "minecraft:redstone_block")
    w.step(1)
    e = w.item_entities()[0]
    assert e.pos[0] == 3.5 + 0.125 + 0.01
    w.step(1)
    e = w.item_entities()[0]
    assert e.pos[0] == 3.635 + 0.49 + 0.01
    assert e.pos[0] - 0.125 == pytest.approx(4.01, abs=1e-12)
    w.step(5)
    assert w.item_entities()[0].pos == (e.pos[0], 1.0, 0.5)


def test_a_slime_block_launches_the_item_it_pushes_up():
    """A sticky piston facing up pushes a slime block with an item on it: the item's vertical velocity becomes 1
    (SlimeBlock: a moving slime block sets the velocity along its axis) and it is pushed 0.51 the same tick."""
    w = World()
    w.set_block((0, 0, 0), "minecraft:sticky_piston[facing=up]")
    w.set_block((0, 1, 0), "minecraft:slime_block")
    w.spawn_item("redstone", 1, (0.5, 2.0, 0.5), pickup_delay=32767)
    w.step(3)
    assert w.item_entities()[0].pos == (0.5, 2.0, 0.5)
    w.set_block((1, 0, 0), "minecraft:redstone_block")
    w.step(1)
    e = w.item_entities()[0]
    assert e.velocity[1] == 1.0 and e.pos[1] == 2.51
    w.step(1)
    assert w.item_entities()[0].pos[1] > 3.0  # flying up at its own speed


def test_an_item_on_a_block_pushed_up_rides_up_on_it():
    """A piston facing up pushes the stone an item lies on: each step lifts the item 0.5 + 0.01 above where the
    stone's top stood (2.51, then 3.01); between the steps it falls onto the half-way stone's top (2.5: the
    moving_piston collides as its block where the move stands), and it comes to rest on the landed stone at 3."""
    w = World()
    w.set_block((0, 0, 0), "minecraft:piston[facing=up]")
    w.set_block((0, 1, 0), "minecraft:stone")
    w.spawn_item("redstone", 1, (0.5, 2.0, 0.5), pickup_delay=32767)
    w.step(3)
    w.set_block((1, 0, 0), "minecraft:redstone_block")
    ys = []
    for _ in range(8):
        w.step(1)
        ys.append(w.item_entities()[0].pos[1])
    assert ys[:2] == [2.51, 3.01]
    assert ys[-1] == 3.0 and w.get_block((0, 2, 0)) == "minecraft:stone"


def test_a_honey_block_moving_sideways_carries_the_item_on_it():
    """A sticky piston pushes a honey block east with an item resting on its top (15/16 high): the item goes half a
    block with each step, 1 in all, and is not swept (it is above the honey's box)."""
    w = _piston_row()
    w.set_block((3, 1, 0), "minecraft:honey_block")
    w.spawn_item("redstone", 1, (3.5, 2.0, 0.5), pickup_delay=32767)
    w.step(10)
    e = w.item_entities()[0]
    assert e.pos[1] == 1.9375
    x0 = e.pos[0]
    w.set_block((1, 1, 0), "minecraft:redstone_block")
    w.step(1)
    assert w.item_entities()[0].pos[0] == x0 + 0.5
    w.step(1)
    assert w.item_entities()[0].pos[0] == x0 + 1.0


def test_a_cart_pushed_onto_a_detector_rail_sets_it_off():
    """A piston shoves a cart onto a detector rail: the rail powers the tick the push ends on it (entityInside after
    the push's move)."""
    w = _piston_row()
    w.set_block((4, 1, 0), "minecraft:detector_rail[shape=east_west]")
    w.spawn_minecart((3.5, 1.0, 0.5))
    w.step(2)
    assert "powered=false" in w.get_block((4, 1, 0))
    w.set_block((1, 1, 0), "minecraft:redstone_block")
    w.step(1)
    assert "powered=true" in w.get_block((4, 1, 0))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(u=st.floats(0.0, 1.8), kind=st.sampled_from(["item", "cart"]))
def test_a_pushed_entity_ends_a_hundredth_clear_of_the_head_or_is_not_touched(u, kind):
    """Whatever stands on the floor ahead of an extending head within its reach ends with its back exactly 0.01
    beyond the head's face (x = 4) once the head is out, never moved more than 0.51 a tick; what stands beyond the
    head's reach does not move. `u` is how far the entity's back stands from the piston's face (x = 3)."""
    w = _piston_row()
    half = 0.125 if kind == "item" else 0.49000000953674316
    x = 3.0 + u + half
    if kind == "item":
        w.spawn_item("redstone", 1, (x, 1.0, 0.5), pickup_delay=32767)
    else:
        w.spawn_minecart((x, 1.0, 0.5))

    def where():
        return (w.item_entities() if kind == "item" else w.minecarts())[0].pos[0]

    w.step(1)
    start = where()
    w.set_block((1, 1, 0), "minecraft:redstone_block")
    xs = [start]
    for _ in range(3):
        w.step(1)
        xs.append(where())
    assert all(abs(b - a) <= 0.51 + 1e-12 for a, b in zip(xs, xs[1:], strict=False))
    if start - half >= 4.0:
        assert xs[-1] == start
    else:
        assert math.isclose(xs[-1] - half, 4.01, abs_tol=1e-12)


def test_items_on_plates_power_the_dust_beside_the_plates_support_as_in_vanilla(tmp_path):
    """plate_recheck's lanes z = 25, 28 and 31 (its fireball lanes apart): an iron ingot on a light weighted
    plate and one on an oak plate press them at tick 0, and dust touching only the block under each plate reads 1
    and 15 (a plate strongly powers the block it stands on, and that block's neighbours hear of it); the ingot on
    plain stone powers nothing. Nothing else changes there in the capture's 31 ticks (the weighted plate's recheck
    every 10 ticks finds its item still on it)."""
    text = "\n".join(line for line in (NUCLEATION / "plate_recheck.snbt").read_text().splitlines()
                     if "small_fireball" not in line)
    path = tmp_path / "plate_recheck_items.snbt"
    path.write_text(text)
    w = World.from_build_file(path)
    w.structure_updates([p for p in w.blocks() if p[2] >= 25])
    cap = vanilla_changes(json.loads((NUCLEATION / "plate_recheck.json").read_text()))
    blocks, _ = _run(w, {}, 32)
    lanes = {k: {p: s for p, s in v.items() if p[2] >= 25} for k, v in blocks.items()}
    want = {k: {p: s for p, s in v.items() if p[2] >= 25} for k, v in cap.items()}
    assert {k: v for k, v in lanes.items() if v} == {k: v for k, v in want.items() if v}


PLATE_RECHECK_ACTIONS = {1: [((7, 2, 0), "minecraft:redstone_block"), ((7, 2, 18), "minecraft:redstone_block")],
                         3: [((9, 2, 22), "minecraft:redstone_block")], 5: [((7, 2, 3), "minecraft:redstone_block")],
                         9: [((7, 2, 6), "minecraft:redstone_block")], 13: [((7, 2, 9), "minecraft:redstone_block")],
                         19: [((7, 2, 12), "minecraft:redstone_block")]}


def _plate_recheck_world():
    w = World.from_build_file(NUCLEATION / "plate_recheck.snbt")
    w.structure_updates([p for p in w.blocks() if p[2] >= 25])  # the ingot lanes' dust, as in the test above
    return w


def test_plate_recheck_with_its_fireballs_matches_vanilla_every_tick():
    """The whole plate_recheck capture, fireball lanes included: eight small fireballs resting on light weighted
    plates press them (two in one lane count 2), pistons shove five off at staggered ticks and the plates let go at
    their rechecks (ticks 10, 10, 20, 20, 30); every block change of the 32 ticks and every fireball's position and
    velocity at each of the 44 ticks of the entity log are the game's."""
    cap = vanilla_changes(json.loads((NUCLEATION / "plate_recheck.json").read_text()))
    blocks, _ = _run(_plate_recheck_world(), PLATE_RECHECK_ACTIONS, 32)
    assert {k: v for k, v in blocks.items() if v} == cap
    logged = _logged_fireballs(NUCLEATION / "plate_recheck.entities.log")
    got = _fireball_rows(_plate_recheck_world(), PLATE_RECHECK_ACTIONS, 44)
    assert len(got[0]) == 8 and got == {k: logged[k] for k in range(44)}


CLIP_ALL_ACTIONS = {2: [((6, 1, z), "minecraft:redstone_block") for z in (1, 17, 29)],
                    6: [((6, 1, 5), "minecraft:air"), ((6, 1, 9), "minecraft:air")],
                    8: [((6, 1, 1), "minecraft:air"), ((6, 1, 17), "minecraft:air")],
                    14: [((6, 1, 29), "minecraft:air")]}


def _clip_sizes_world():
    """piston_plate_clip with what the harness spawned for piston_clip_sizes: three dragon fireballs at rest
    (x 4.5, y 1.875, lanes z = 1, 5, 17), then the two furnace minecarts."""
    w = World.from_build_file(NUCLEATION / "piston_plate_clip.snbt")
    for z in (1.5, 5.5, 17.5):
        w.spawn_fireball((4.5, 1.875, z), kind="dragon_fireball", power=0.0)
    w.spawn_minecart((4.51, 1.0, 9.5), kind="furnace_minecart")
    w.spawn_minecart((4.51, 1.0, 29.5), kind="furnace_minecart")
    return w


def test_pistons_shove_and_drag_dragon_fireballs_as_in_vanilla():
    """piston_clip_sizes' fireball lanes: in lanes z=1 and z=17 a quartz block pushed west under a dragon fireball
    (its box overlapping the quartz by 1/8) shoves it to x 3.99, then 3.5 in lane 1 and 3.49 in lane 17; in lane z=5
    the retracting sticky piston drags it a quarter and puts it back, and the plate standing on that piston stays
    (section 93) and powers it again. Every fireball matches the log at every tick, and the three lanes' block
    changes match the game's."""
    logged = _logged_fireballs(NUCLEATION / "piston_clip_sizes.entities.log")
    got = _fireball_rows(_clip_sizes_world(), CLIP_ALL_ACTIONS, 20)
    for z in (1.5, 5.5, 17.5):
        key = ("dragon_fireball", (4.5, 1.875, z))
        assert {k: got[k][key] for k in range(20)} == {k: logged[k][key] for k in range(20)}, key
    assert got[6][("dragon_fireball", (4.5, 1.875, 5.5))][0] == (4.75, 1.875, 5.5)
    blocks, _ = _run(_clip_sizes_world(), CLIP_ALL_ACTIONS, 20)
    cap = vanilla_changes(json.loads((NUCLEATION / "piston_clip_sizes.json").read_text()))
    want = {k: {p: s for p, s in v.items() if p[2] in (1, 5, 17)} for k, v in cap.items()}
    got_b = {k: {p: s for p, s in v.items() if p[2] in (1, 5, 17)} for k, v in blocks.items()}
    assert {k: v for k, v in got_b.items() if v} == {k: v for k, v in want.items() if v}
