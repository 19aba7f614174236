"""Decorative blocks (fences, walls, panes, iron bars, chains, carpets, signs, banners, lanterns, flower pots,
ladders, candles, torches): none conducts; what their faces hold comes from their shapes; some need a neighbour
and pop off without it; a piston moves, breaks or cannot move them. docs/redstone.md sections 42-44."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redstone_helpers import name, new_world, on, power, run
from test_compiled import _compare, _compare_or_refused, _inputs

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.errors import PlacementError

FENCE, WALL, PANE = "oak_fence", "cobblestone_wall", "glass_pane"
INERT = [FENCE, WALL, PANE, "iron_bars", "white_stained_glass_pane", "chain[axis=y]", "flower_pot", "potted_poppy",
         "lantern", "soul_lantern", "oak_sign[rotation=4]", "white_banner", "candle", "torch", "soul_torch"]


# ------------------------------------------------------------------------------------------ 42. what they are
@pytest.mark.parametrize("state", ["oak_fence[east=true,west=true]", "nether_brick_fence", WALL, "andesite_wall",
                                   PANE, "red_stained_glass_pane", "iron_bars", "chain", "white_carpet",
                                   "moss_carpet", "oak_sign", "oak_wall_sign", "white_banner", "red_wall_banner",
                                   "lantern[hanging=true]", "soul_lantern", "flower_pot", "potted_cactus", "ladder",
                                   "candle[candles=3,lit=true]", "blue_candle", "torch", "soul_wall_torch"])
def test_decorative_blocks_are_known_by_their_vanilla_states(state):
    st_ = B.parse_state(state)
    assert st_.id == B.PARTIAL and B.is_known(st_.name)
    assert B.vanilla_state_of(B.vanilla_number(st_.name, st_.props)) == str(st_)


@pytest.mark.parametrize("name_", ["crafter", "calibrated_sculk_sensor", "oak_hanging_sign", "candle_cake"])
def test_blocks_with_a_behaviour_of_their_own_stay_unknown(name_):
    assert not B.is_known(name_)


@pytest.mark.parametrize("block", INERT)
def test_decorative_blocks_never_conduct(block):
    """A repeater pointing into the block: a lamp behind it stays dark (stone, the control, lights it)."""
    for middle, lit in (("stone", True), (block, False)):
        w = new_world()
        w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
        w.set_block((1, 1, 0), "repeater[facing=west]")  # input from the west, output east
        w.set_block((2, 1, 0), middle)
        w.set_block((3, 1, 0), "redstone_lamp")
        w.use((0, 1, 0))
        w.step(4)
        assert on(w, (1, 1, 0)) and on(w, (3, 1, 0)) == lit, middle


@pytest.mark.parametrize("cover, cut", [(FENCE, False), (WALL, False), (PANE, False), ("oak_wall_sign", False),
                                        ("white_carpet", False), ("white_concrete", True)])
def test_dust_steps_down_past_a_decorative_block_never_cut_by_one(cover, cut):
    """Upper dust at (0, 2, 0), lower dust at (1, 1, 0), the block above the lower dust at (1, 2, 0)."""
    w = World()
    for p in ((0, 1, 0), (1, 0, 0), (-1, 1, 0)):
        w.set_block(p, "stone")
    w.set_block((0, 2, 0), "redstone_wire")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((-1, 2, 0), "redstone_block")
    if cover == "oak_wall_sign":
        w.set_block((1, 2, 1), "stone")
        cover = "oak_wall_sign[facing=north]"
    w.set_block((1, 2, 0), cover)  # a carpet stands on the lower dust itself (any block but air holds it)
    assert power(w, (0, 2, 0)) == 15 and power(w, (1, 1, 0)) == (0 if cut else 14)


@pytest.mark.parametrize("support", [FENCE, WALL, PANE, "iron_bars", "chain[axis=x]", "white_carpet", "oak_sign",
                                     "lantern", "flower_pot", "ladder[facing=north]"])
def test_dust_and_repeaters_stand_on_none_of_them(support):
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 1), "stone")  # behind a ladder facing north
    w.set_block((0, 1, 0), support)
    for thing in ("redstone_wire", "repeater", "comparator", "lever[face=floor]"):
        with pytest.raises(PlacementError, match="cannot place .* at \\(0, 2, 0\\)"):
            w.set_block((0, 2, 0), thing)


@pytest.mark.parametrize("support, holds", [(FENCE, True), (WALL, True), (PANE, True), ("iron_bars", True),
                                            ("chain[axis=y]", True), ("chain[axis=x]", False),
                                            ("white_carpet", False), ("oak_sign", False), ("flower_pot", False),
                                            ("lantern", False), ("oak_fence_gate", True),
                                            ("oak_fence_gate[open=true]", False)])
def test_a_torch_stands_on_the_middle_of_a_post(support, holds):
    """Vanilla canSupportCenter: a fence, wall, pane, bars or upright chain hold a torch at their top's centre."""
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), support.removesuffix("[open=true]"))
    if support.endswith("[open=true]"):
        w.use((0, 1, 0))  # opened by hand
        assert "open=true" in w.get_block((0, 1, 0))
    for torch in ("redstone_torch", "torch", "soul_torch", "candle", "lantern"):
        if holds:
            w.set_block((0, 2, 0), torch)
            assert name(w, (0, 2, 0)) == torch
            w.remove_block((0, 2, 0))
        else:
            with pytest.raises(PlacementError, match="at \\(0, 2, 0\\)"):
                w.set_block((0, 2, 0), torch)


def test_a_redstone_torch_on_a_fence_stays_lit_and_powers_what_is_beside_it():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), FENCE)
    w.set_block((0, 2, 0), "redstone_torch")
    w.set_block((1, 2, 0), "redstone_lamp")
    assert on(w, (0, 2, 0)) and on(w, (1, 2, 0))


@pytest.mark.parametrize("above, hangs", [(FENCE, True), (WALL, True), (PANE, True), ("chain", True),
                                          ("stone", True), ("oak_slab[type=bottom]", True), ("hopper", True),
                                          ("hopper[facing=east]", False), ("oak_slab[type=top]", False),
                                          ("oak_stairs[half=bottom]", True), ("lantern[hanging=true]", False),
                                          ("redstone_lamp", True), ("oak_fence_gate", False)])
def test_a_lantern_hangs_under_the_middle_of_a_bottom_face(above, hangs):
    w = World()
    w.set_block((0, 3, 0), "stone")
    w.set_block((0, 2, 0), above)
    if hangs:
        w.set_block((0, 1, 0), "lantern[hanging=true]")
        assert w.get_block((0, 1, 0)) == "minecraft:lantern[hanging=true,waterlogged=false]"
    else:
        with pytest.raises(PlacementError, match="a block above that holds it at the centre of its face"):
            w.set_block((0, 1, 0), "lantern[hanging=true]")


# ------------------------------------------------------------------------------------------ 43. support
@pytest.mark.parametrize("state, support, kind", [
    ("white_carpet", (0, 0, 0), "a block below (not air)"),
    ("oak_sign[rotation=8]", (0, 0, 0), "a solid block below"),
    ("white_banner", (0, 0, 0), "a solid block below"),
    ("oak_wall_sign[facing=east]", (-1, 1, 0), "a solid block behind it (facing=east)"),
    ("white_wall_banner[facing=east]", (-1, 1, 0), "a solid block behind it (facing=east)"),
    ("ladder[facing=east]", (-1, 1, 0), "a block behind it (facing=east) with a whole face toward it"),
    ("wall_torch[facing=east]", (-1, 1, 0), "a block behind it (facing=east) with a whole face toward it"),
    ("lantern", (0, 0, 0), "a block below that holds it at the centre of its face"),
    ("lantern[hanging=true]", (0, 2, 0), "a block above that holds it at the centre of its face"),
    ("candle", (0, 0, 0), "a block below that holds it at the centre of its face"),
    ("soul_torch", (0, 0, 0), "a block below that holds it at the centre of its face"),
])
def test_a_block_that_needs_a_neighbour_is_refused_without_it_and_pops_when_it_goes(state, support, kind):
    w = World()
    with pytest.raises(PlacementError) as e:
        w.set_block((0, 1, 0), state)
    assert str(e.value) == (f"cannot place {B.parse_state(state).name} at (0, 1, 0): it needs {kind} at {support}, "
                            "but there is minecraft:air")
    assert w.blocks() == {}
    w.set_block(support, "stone")
    w.set_block((0, 1, 0), state)
    w.set_block((5, 0, 5), "stone")
    w.remove_block(support)
    assert w.blocks() == {(5, 0, 5): "minecraft:stone"}
    # an event names a vanilla block by its state while its cell holds it; a popped one by its kind
    assert [(e.kind, e.pos, e.block) for e in w.events][-2:] == [
        ("removed", support, "minecraft:stone"), ("popped", (0, 1, 0), "minecraft:partial_block")]


@pytest.mark.parametrize("state, under, ok", [
    ("oak_sign", FENCE, True), ("oak_sign", PANE, True), ("oak_sign", "white_carpet", False),
    ("oak_sign", "oak_slab[type=bottom]", True), ("oak_sign", "redstone_wire", False),
    ("oak_sign", "repeater", False), ("oak_sign", "stone_pressure_plate", True), ("oak_sign", "lantern", True),
    ("oak_sign", "ladder[facing=north]", False), ("oak_sign", "flower_pot", False),
    ("white_banner", "hopper", True), ("white_banner", "redstone_torch", False),
    ("white_carpet", "redstone_wire", True), ("white_carpet", "flower_pot", True), ("white_carpet", FENCE, True),
])
def test_signs_and_banners_need_a_solid_block_carpets_any_block(state, under, ok):
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 1), "stone")  # behind the ladder
    w.set_block((0, 1, 0), under)
    if ok:
        w.set_block((0, 2, 0), state)
        assert name(w, (0, 2, 0)) == B.parse_state(state).name
    else:
        with pytest.raises(PlacementError, match="at \\(0, 2, 0\\)"):
            w.set_block((0, 2, 0), state)


@pytest.mark.parametrize("wall, ok", [("stone", True), ("glass", True), ("oak_slab[type=bottom]", False),
                                      ("oak_stairs[facing=east]", True), (FENCE, False), ("redstone_lamp", True)])
def test_a_ladder_needs_a_whole_face_behind_it(wall, ok):
    w = World()
    w.set_block((-1, 1, 0), wall)
    if ok:
        w.set_block((0, 1, 0), "ladder[facing=east]")
    else:
        with pytest.raises(PlacementError, match="with a whole face toward it"):
            w.set_block((0, 1, 0), "ladder[facing=east]")


def test_placing_many_at_once_counts_the_supports_placed_before_them():
    w = World()
    w.set_block((5, -1, 0), "stone")
    w.set_blocks([((0, 0, 0), "stone"), ((0, 1, 0), FENCE), ((0, 2, 0), "redstone_torch"), ((1, 0, 0), "stone"),
                  ((1, 1, 0), "oak_sign"), ((2, 0, 0), "oak_fence_gate"), ((2, 1, 0), "lantern"),
                  ((2, 2, 0), "white_carpet")])
    assert len(w.blocks()) == 9
    with pytest.raises(PlacementError, match="item 1: cannot place white_carpet at \\(5, 2, 0\\)"):
        w.set_blocks([((5, 0, 0), "white_carpet"), ((5, 2, 0), "white_carpet")])  # the first on the floor below
    bad = w.set_blocks([((6, 0, 0), "flower_pot"), ((6, 1, 0), "oak_sign"), ((6, 0, 1), "stone"),
                        ((6, 1, 1), "lantern"), ((6, 1, 2), "white_carpet")], skip_errors=True)
    assert [i for i, _ in bad] == [1, 4]
    assert (6, 1, 1) in w.blocks() and (6, 1, 0) not in w.blocks()


def test_a_paste_keeps_an_unsupported_block_until_the_first_update_near_it():
    w = World(replay=True)
    w.set_block((0, 1, 0), "oak_wall_sign[facing=north]")
    w.set_block((0, 1, 3), "white_carpet")
    assert len(w.blocks()) == 2
    w.set_block((1, 1, 0), "stone")  # a neighbour update for the sign
    assert name(w, (0, 1, 0)) == "air" and name(w, (0, 1, 3)) == "white_carpet"
    assert [(e.kind, e.pos) for e in w.events if e.kind == "popped"] == [("popped", (0, 1, 0))]


def test_a_torch_on_a_fence_gate_pops_when_power_opens_the_gate():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "oak_fence_gate[facing=north]")
    w.set_block((0, 2, 0), "torch")
    w.set_block((1, 0, 0), "stone")
    w.set_block((1, 1, 0), "lever[face=floor,facing=north]")
    w.use((1, 1, 0))
    assert w.get_block((0, 1, 0)).startswith("minecraft:oak_fence_gate[facing=north,in_wall=false,open=true")
    assert name(w, (0, 2, 0)) == "air"


def test_support_kinds_follow_the_data():
    """Each family's need is where its rule says, for every state (blocks.NEED)."""
    assert B.support_need("lantern", {"hanging": "true", "waterlogged": "false"}) == (4, B.SUPPORT_CENTRE)
    assert B.support_need("lantern", {"hanging": "false", "waterlogged": "true"}) == (5, B.SUPPORT_CENTRE)
    assert B.support_need("oak_wall_sign", {"facing": "north", "waterlogged": "false"}) == (2, B.SUPPORT_SOLID)
    assert B.support_need("ladder", {"facing": "west", "waterlogged": "false"}) == (1, B.SUPPORT_FULL)
    assert B.support_need("red_carpet", {}) == (5, B.SUPPORT_ANY)
    assert B.support_need("oak_fence", {k: "false" for k in ("east", "north", "south", "waterlogged", "west")}) is None
    assert B.support_need("oak_slab", {"type": "top", "waterlogged": "false"}) is None


# ------------------------------------------------------------------------------------------ 44. pistons
def _pushed(front, below=None):
    """A piston facing east at (0, 1, 0) pushing `front` at (1, 1, 0); a lever at (0, 1, 1)."""
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    if below is not None:
        w.set_block((1, 1, 0), below)
        w.set_block((1, 2, 0), front)
    else:
        w.set_block((1, 1, 0), front)
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.use((0, 1, 1))
    return w


@pytest.mark.parametrize("front", ["oak_fence[east=true,west=true]", "cobblestone_wall[up=true]",
                                   "glass_pane[north=true,south=true]", "iron_bars", "chain[axis=x]",
                                   "white_carpet"])
def test_a_piston_moves_fences_walls_panes_bars_chains_and_carpets_as_they_are(front):
    w = _pushed(front)
    state = B.canonical(front)
    if B.link_kind(B.parse_state(front).name) != B.L_NONE:  # it lands joined to its new neighbours (section 57)
        state = _JOINED_WEST[B.parse_state(front).name]
    assert run(w, 4, lambda: (name(w, (1, 1, 0)), w.get_block((2, 1, 0)))) == [
        (0, (B.parse_state(front).name, "minecraft:air")),
        (1, ("moving_piston", "minecraft:moving_piston[facing=east,type=normal]")),
        (3, ("piston_head", state))]


def test_a_carpet_pushed_where_nothing_holds_it_falls_as_it_lands():
    w = World()
    for x in range(-1, 2):
        for z in range(-1, 3):
            w.set_block((x, 0, z), "stone")  # no floor under (2, 1, 0)
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((1, 1, 0), "white_carpet")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.use((0, 1, 1))
    assert run(w, 4, lambda: name(w, (2, 1, 0))) == [(0, "air"), (1, "moving_piston"), (3, "air")]
    assert [(e.tick, e.kind, e.pos) for e in w.events if e.kind == "popped"] == [(3, "popped", (2, 1, 0))]


# What a fence, wall, pane or iron bars pushed east lands as: joined to the head's whole face behind it, nothing else.
_JOINED_WEST = {
    "oak_fence": "minecraft:oak_fence[east=false,north=false,south=false,waterlogged=false,west=true]",
    "cobblestone_wall":
        "minecraft:cobblestone_wall[east=none,north=none,south=none,up=true,waterlogged=false,west=low]",
    "glass_pane": "minecraft:glass_pane[east=false,north=false,south=false,waterlogged=false,west=true]",
    "iron_bars": "minecraft:iron_bars[east=false,north=false,south=false,waterlogged=false,west=true]",
}


@pytest.mark.parametrize("front", ["lantern", "flower_pot", "potted_poppy", "candle", "torch",
                                   "ladder[facing=east]", "wall_torch[facing=east]"])
def test_a_piston_breaks_lanterns_flower_pots_candles_torches_and_ladders(front):
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), front)  # on the floor, or (ladder, wall torch) on the stone the piston pushes into it
    w.use((0, 1, 1))
    w.step(3)
    assert w.get_block((2, 1, 0)) == "minecraft:stone" and name(w, (3, 1, 0)) == "air"
    assert name(w, (1, 1, 0)) == "piston_head"


@pytest.mark.parametrize("front", ["oak_sign", "oak_wall_sign[facing=east]", "white_banner",
                                   "white_wall_banner[facing=east]"])
def test_a_piston_cannot_move_signs_or_banners(front):
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "stone")
    w.set_block((2, 1, 0), front)  # on the floor, or on the stone the piston would push into it
    w.use((0, 1, 1))
    w.step(3)
    assert w.get_block((0, 1, 0)) == "minecraft:piston[extended=false,facing=east]"
    assert name(w, (1, 1, 0)) == "stone" and name(w, (2, 1, 0)) == B.parse_state(front).name


def test_a_sign_and_a_carpet_stay_on_the_piston_head_that_pushed_their_block_and_fall_when_it_goes():
    """What stands on or hangs from the stone a piston pushes sees, once the push starts, the moving head there:
    solid and not air, so a wall sign and a carpet stay (and then stay on the head), while a redstone wall torch,
    which needs a whole face, pops at once. When a normal piston retracts, its head leaves air: they fall."""
    w = new_world()
    w.set_block((0, 1, 0), "piston[facing=east]")
    w.set_block((0, 1, 1), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "stone")
    hung = {(1, 1, -1): "oak_wall_sign[facing=north]", (1, 1, 1): "redstone_wall_torch[facing=south]",
            (1, 2, 0): "white_carpet"}
    for p, s in hung.items():
        w.set_block(p, s)
    w.use((0, 1, 1))
    got = run(w, 5, lambda: (name(w, (1, 1, 0)), *(name(w, p) for p in hung)))
    assert got == [(0, ("stone", "oak_wall_sign", "redstone_wall_torch", "white_carpet")),
                   (1, ("moving_piston", "oak_wall_sign", "air", "white_carpet")),
                   (3, ("piston_head", "oak_wall_sign", "air", "white_carpet"))]
    w.use((0, 1, 1))
    got = run(w, 3, lambda: (name(w, (1, 1, 0)), *(name(w, p) for p in hung)))
    assert got == [(w.tick - 3, ("piston_head", "oak_wall_sign", "air", "white_carpet")),
                   (w.tick - 2, ("air", "air", "air", "air"))]


# ------------------------------------------------------------------------------------------ both engines
def test_the_compiled_engine_runs_a_circuit_among_decorative_blocks_as_the_reference_does():
    w = new_world()
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((2, 1, 0), FENCE)
    w.set_block((2, 2, 0), "redstone_torch")  # on the fence: never powered, always lit
    w.set_block((1, 1, 1), "oak_sign")
    w.set_block((1, 1, -1), "white_carpet")
    w.set_block((3, 1, 0), "repeater[facing=west]")
    w.set_block((4, 1, 0), "redstone_lamp")
    w.set_block((4, 2, 0), "lantern")
    w.set_block((4, 3, 0), "stone")
    w.set_block((3, 2, 0), "redstone_lamp")  # lit by the torch on the fence beside it
    cw = compile_world(w)
    _compare(w, cw, [((0, 1, 0), 3), ((0, 1, 0), 5)])
    assert on(w, (3, 2, 0))


def test_the_compiled_engine_refuses_a_block_on_a_fence_gate_power_can_open():
    w = new_world()
    w.set_block((0, 1, 0), "oak_fence_gate")
    w.set_block((0, 2, 0), "torch")
    w.set_block((1, 1, 0), "lever[face=floor,facing=north]")
    with pytest.raises(CompileRefused, match=r"at \(0, 2, 0\) rests on it"):
        compile_world(w)


def test_the_compiled_engine_refuses_an_unsupported_pasted_decorative_block():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_torch")
    w.set_block((3, 1, 0), "oak_wall_sign[facing=north]")
    with pytest.raises(CompileRefused, match=r"partial_block at \(3, 1, 0\) has no support"):
        compile_world(w)


_DECO = ["oak_fence", "glass_pane", "cobblestone_wall", "white_carpet", "oak_sign", "lantern", "flower_pot",
         "torch", "candle", "chain"]


def _items(rnd: random.Random, size: int) -> list:
    out = [((x, 3, z), "stone") for x in range(-1, size + 1) for z in range(-1, size + 1)]
    low = ["air", "stone", "redstone_wire", "redstone_wire", "redstone_lamp", "redstone_torch", "lever[face=floor]",
           *_DECO]
    high = ["air", "air", "redstone_wire", "redstone_lamp", "stone", "redstone_torch", "lantern[hanging=true]",
            *_DECO]
    for y, pool in ((4, low), (5, high), (6, high)):
        for x in range(size):
            for z in range(size):
                r = rnd.random()
                if r < 0.15:
                    s = f"repeater[facing={rnd.choice(('north', 'east', 'south', 'west'))},delay={rnd.randint(1, 4)}]"
                else:
                    s = rnd.choice(pool)
                out.append(((x, y, z), s))
    return out


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_both_engines_agree_among_decorative_blocks(rnd):
    w = World(log_events=False)
    for p, s in _items(rnd, 4):
        try:
            w.set_block(p, s)
        except PlacementError:
            pass
    w.step(rnd.randint(0, 20))
    _compare_or_refused(w, rnd, 5, 30)


def test_a_candles_lit_is_part_of_the_build_a_lamps_is_not():
    """What a builder chose stays in a build's static states: a candle is lit by hand, a lamp by power."""
    assert B.static_state("minecraft:candle[candles=2,lit=true,waterlogged=false]") == (
        "minecraft:candle[candles=2,lit=true,waterlogged=false]")
    assert B.static_state("minecraft:redstone_lamp[lit=true]") == "minecraft:redstone_lamp"


_POSTS = ["oak_fence", "nether_brick_fence", "glass_pane", "iron_bars", "cobblestone_wall[up=true]", "chain[axis=y]"]


def _as_fence(state: str) -> str:
    return "minecraft:oak_fence[east=false,north=false,south=false,waterlogged=false,west=false]" if (
        B.decorative_family(B.split_state(state)[0].removeprefix("minecraft:")) in ("fence", "wall", "pane", "chain")
    ) else state


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_any_post_behaves_tick_for_tick_as_a_fence(rnd):
    """Fences, panes, bars, walls with a post and upright chains need nothing, never conduct and hold a torch
    or lantern at their middle: a circuit runs the same whichever of them stands at each place."""
    items = [(p, "oak_fence" if s in _DECO else s) for p, s in _items(rnd, 4)]
    swap = [(p, rnd.choice(_POSTS) if s == "oak_fence" else s) for p, s in items]
    a, b = World(log_events=False), World(log_events=False)
    for w, its in ((a, items), (b, swap)):
        for p, s in its:
            try:
                w.set_block(p, s)
            except PlacementError:
                pass
    inputs = _inputs(a)
    for _ in range(5):
        if inputs:
            p = rnd.choice(inputs)
            assert a.use(p) == b.use(p)
        for _ in range(rnd.randint(1, 12)):
            a.step(1)
            b.step(1)
            assert {p: _as_fence(s) for p, s in b.blocks().items()} == {p: _as_fence(s) for p, s in a.blocks().items()}


_FULL_AND_PARTIAL = ["stone", "glass", "oak_planks", "dirt", "obsidian", "white_stained_glass", "shulker_box",
                     "white_shulker_box", "oak_slab[type=bottom]", "slime_block", "honey_block", "granite",
                     "redstone_block", "barrel[facing=up]"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_FULL_AND_PARTIAL), st.sampled_from(_FULL_AND_PARTIAL), st.booleans())
def test_a_block_set_over_another_replaces_it_and_over_itself_changes_nothing(first, second, replay):
    """Vanilla's full and partial blocks share the engine's ids with stone and glass and differ in the state they
    keep: setting any of them over any other replaces it (stone over oak planks or a shulker box included), and
    setting a block over itself logs no event."""
    w = World.from_blocks([((0, 0, 0), first)], replay=replay)
    before = len(w.events)
    w.set_block((0, 0, 0), second)
    want = World.from_blocks([((0, 0, 0), second)], replay=replay).blocks()
    assert w.blocks() == want
    assert (len(w.events) == before) == (want == World.from_blocks([((0, 0, 0), first)], replay=replay).blocks())
