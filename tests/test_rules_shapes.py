"""Fences, walls, glass panes and iron bars take their sides from their neighbours (Java Edition 1.20 shape
updates): a player's when placed, every one at once when a neighbour changes; a paste keeps them as saved.
docs/redstone.md section 57."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redstone_helpers import parse

from scicraft_viz import World
from scicraft_viz.engine import blocks as B
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.engine.formats import encode_build
from scicraft_viz.errors import PlacementError

SIDES = ("north", "east", "south", "west")
STEP = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}


def sides(w, pos):
    props = parse(w.get_block(pos))[1]
    return {s: props[s] for s in SIDES}


def fence(**joined):
    return {s: "true" if s in joined else "false" for s in SIDES}


def test_a_placed_fence_joins_whole_faces_fences_of_its_kind_and_gates_across_it():
    w = World()
    w.set_block((0, 0, -1), "stone")  # a whole face
    w.set_block((1, 0, 0), "oak_fence")  # a fence of its kind (wooden)
    w.set_block((0, 0, 1), "oak_fence_gate[facing=east]")  # a gate facing east: it spans north-south
    w.set_block((-1, 0, 0), "oak_leaves[persistent=true]")  # whole, but leaves never join
    w.set_block((0, 0, 0), "spruce_fence")
    assert sides(w, (0, 0, 0)) == fence(north=1, east=1, south=1)
    w.set_block((3, 0, 0), "nether_brick_fence")  # another kind of fence, a gate along the line, a bottom slab
    w.set_block((2, 0, -1), "oak_fence_gate[facing=north]")  # its span runs east-west
    w.set_block((2, 0, 1), "oak_slab[type=bottom]")
    w.set_block((2, 0, 0), "oak_fence")
    assert sides(w, (2, 0, 0)) == fence(west=1)


def test_neighbours_take_their_side_at_once_and_an_observer_sees_it():
    w = World()
    w.set_block((0, 0, 0), "oak_fence")
    w.set_block((0, 0, -1), "observer[facing=south]")  # watches the fence from the north
    w.step(4)
    w.set_block((1, 0, 0), "stone")
    # no delay: the shape update comes with the placement (and the observer's face is whole too)
    assert sides(w, (0, 0, 0)) == fence(north=1, east=1)
    t = w.tick
    got = []
    for _ in range(5):
        got.append((w.tick - t, parse(w.get_block((0, 0, -1)))[1]["powered"]))
        w.step()
    assert got == [(0, "false"), (1, "false"), (2, "true"), (3, "true"), (4, "false")]
    w.remove_block((1, 0, 0))
    assert sides(w, (0, 0, 0)) == fence(north=1)


def test_walls_are_tall_under_what_covers_them_and_keep_a_post_at_ends_and_corners():
    w = World()
    for x in range(3):
        w.set_block((x, 0, 0), "cobblestone_wall")
    mid = parse(w.get_block((1, 0, 0)))[1]
    assert (mid["east"], mid["west"], mid["north"], mid["up"]) == ("low", "low", "none", "false")  # straight: no post
    assert parse(w.get_block((0, 0, 0)))[1]["up"] == "true"  # an end
    w.set_block((1, 1, 0), "stone")  # a full block above: tall sides
    mid = parse(w.get_block((1, 0, 0)))[1]
    assert (mid["east"], mid["west"], mid["up"]) == ("tall", "tall", "false")
    w.set_block((1, 1, 0), "redstone_torch")  # vanilla #wall_post_override: the post goes up again
    mid = parse(w.get_block((1, 0, 0)))[1]
    assert (mid["east"], mid["west"], mid["up"]) == ("low", "low", "true")
    w.set_block((1, 0, 1), "cobblestone_wall")  # a corner... a tee: the post stays
    assert parse(w.get_block((1, 0, 0)))[1]["south"] == "low"
    w.set_block((1, 1, 0), "air")
    w.set_block((2, 1, 0), "cobblestone_wall")  # a wall alone on a wall covers only its post
    assert parse(w.get_block((2, 0, 0)))[1]["west"] == "low"
    w.set_block((1, 1, 0), "cobblestone_wall")  # joined to it, its arm reaches west: the one below is tall there
    below = parse(w.get_block((2, 0, 0)))[1]
    assert (below["west"], below["up"]) == ("tall", "true")


def test_panes_and_iron_bars_join_each_other_and_walls_not_fences_or_gates():
    w = World()
    w.set_block((0, 0, -1), "iron_bars")
    w.set_block((1, 0, 0), "andesite_wall")
    w.set_block((0, 0, 1), "oak_fence")
    w.set_block((-1, 0, 0), "oak_fence_gate[facing=north]")
    w.set_block((0, 0, 0), "red_stained_glass_pane")
    assert sides(w, (0, 0, 0)) == fence(north=1, east=1)
    assert sides(w, (0, 0, -1)) == fence(south=1)
    assert parse(w.get_block((1, 0, 0)))[1]["west"] == "low"


def test_a_piston_moving_a_block_beside_a_fence():
    """The fence lets go of the block's old place as the push starts, and joins it where it lands."""
    w = World()
    for x in range(6):
        w.set_block((x, -1, 0), "stone")
    w.set_block((0, 0, 0), "piston[facing=east]")
    w.set_block((1, 0, 0), "stone")
    w.set_block((1, 0, 1), "oak_fence")  # beside the stone
    w.set_block((2, 0, 1), "oak_fence")  # beside where it lands
    assert sides(w, (1, 0, 1)) == fence(north=1, east=1) and sides(w, (2, 0, 1)) == fence(west=1)
    w.set_block((-1, 0, 0), "redstone_block")
    got = []
    for _ in range(5):
        got.append((w.tick, sides(w, (1, 0, 1))["north"], sides(w, (2, 0, 1))["north"]))
        w.step()
    # game tick 0's block events start the push: the stone's place becomes the moving head (whose face toward the
    # fence is not whole); the stone lands in game tick 2, and the fence beside it joins it then
    assert got == [(0, "true", "false"), (1, "false", "false"), (2, "false", "false"), (3, "false", "true"),
                   (4, "false", "true")]


def test_a_paste_keeps_the_saved_sides_and_the_structure_pass_works_them_out():
    build = [((0, 0, 0), "minecraft:oak_fence[east=false,north=true,south=false,waterlogged=false,west=false]"),
             ((1, 0, 0), "minecraft:stone")]
    w = World.from_build_file(encode_build(build, "schem"), fmt="schem")
    assert sides(w, (0, 0, 0)) == fence(north=1)  # as saved, though nothing stands north and stone east
    w.set_block((0, 0, 1), "stone")  # /setblock beside it: a shape update from the south only
    assert sides(w, (0, 0, 0)) == fence(north=1, south=1)
    w.structure_updates([(0, 0, 0)])  # vanilla's pass after a structure: every side from the neighbours
    assert sides(w, (0, 0, 0)) == fence(east=1, south=1)


def test_the_compiled_engine_refuses_a_fence_a_shape_update_would_change():
    w = World(replay=True)
    w.set_block((0, 0, 0), "stone")
    w.set_block((1, 0, 0), "lever[face=floor,facing=north]")
    w.set_block((0, 1, 0), "redstone_lamp")
    w.set_block((1, 1, 0), "oak_fence[west=false]")  # the lamp's face is whole: a shape update from it joins it
    with pytest.raises(CompileRefused, match=r"oak_fence.* at \(1, 1, 0\): its side toward the redstone_lamp at "
                                             r"\(0, 1, 0\) is not what its neighbours give"):
        compile_world(w)
    w.set_block((1, 1, 0), "oak_fence[west=true]")
    compile_world(w)
    w.set_block((1, 1, 1), "iron_trapdoor[half=bottom]")
    with pytest.raises(CompileRefused, match=r"the iron_trapdoor beside it changes its faces"):
        compile_world(w)
    w.set_block((1, 1, 1), "air")
    w.set_block((1, 0, 2), "redstone_lamp")
    w.set_block((1, 0, 1), "oak_stairs[facing=east,shape=outer_left]")  # /setblock: straight by what is around
    with pytest.raises(CompileRefused, match=r"oak_stairs.* at \(1, 0, 1\): its shape is not what the stairs around"):
        compile_world(w)


def test_both_engines_agree_beside_a_fence():
    from test_compiled_analog import compare

    w = World()
    for x in range(4):
        w.set_block((x, 0, 0), "stone")
    w.set_block((0, 1, 0), "lever[face=floor,facing=north]")
    w.set_block((1, 1, 0), "redstone_lamp")
    w.set_block((2, 1, 0), "oak_fence")
    w.set_block((3, 1, 0), "oak_fence")
    assert sides(w, (2, 1, 0)) == fence(west=1, east=1)
    assert compare(w, compile_world(w), [((0, 1, 0), 5), ((0, 1, 0), 5)]) > 0


def shape(w, pos):
    return parse(w.get_block(pos))[1]["shape"]


def test_stairs_turn_a_corner_with_the_stairs_in_front_or_behind_them():
    w = World()
    w.set_block((-1, 0, 0), "oak_stairs[facing=north]")  # behind stairs facing east, turned across
    w.set_block((0, 0, 0), "stone_stairs[facing=east]")
    assert shape(w, (0, 0, 0)) == "inner_left"  # north is east's left
    w.remove_block((-1, 0, 0))
    assert shape(w, (0, 0, 0)) == "straight"
    w.set_block((1, 0, 0), "oak_stairs[facing=south]")  # in front of them
    assert shape(w, (0, 0, 0)) == "outer_right"
    w.set_block((1, 0, 0), "oak_stairs[facing=south,half=top]")  # the other half: no corner
    assert shape(w, (0, 0, 0)) == "straight"
    w.set_block((0, 0, 1), "oak_stairs[facing=east]")  # stairs beside, facing the same way: only a shape update
    assert shape(w, (0, 0, 0)) == "straight" and shape(w, (0, 0, 1)) == "straight"


def test_a_stairs_corner_changes_its_whole_faces_and_a_fence_beside_follows():
    w = World()
    w.set_block((0, 0, 0), "oak_stairs[facing=east,half=top]")
    w.set_block((0, 0, 1), "oak_fence")
    assert sides(w, (0, 0, 1))["north"] == "false"  # the south face of straight stairs facing east is not whole
    w.set_block((-1, 0, 0), "oak_stairs[facing=south,half=top]")  # behind them: an inner corner, whole to the south
    assert shape(w, (0, 0, 0)) == "inner_right"
    assert sides(w, (0, 0, 1))["north"] == "true"


def test_the_data_keeps_every_stairs_states_whole_faces():
    for name in ("oak_stairs", "stone_stairs", "cut_copper_stairs"):
        for number, props in B._states(name):
            assert B.STURDY[number] == B.vanilla_kind(name, tuple(props.items()))[1]


# ----------------------------------------------------------------------------- the property
# A player's placements and removals in a small box; after each, every fence, wall and pane says what its
# neighbours dictate, worked out here from vanilla's rules over the blocks' data.
PLACED = ("stone", "glass", "oak_leaves[persistent=true]", "oak_slab[type=bottom]", "oak_fence", "birch_fence",
          "nether_brick_fence", "cobblestone_wall", "andesite_wall", "glass_pane", "iron_bars",
          "oak_fence_gate[facing=north]", "oak_fence_gate[facing=east]", "redstone_torch", "air")
BOX = [(x, y, z) for x in range(3) for y in range(2) for z in range(3)]


def _kind(name):
    return B.link_kind(name) if name in B.VANILLA else B.L_NONE


def _joins(kind, state, side):
    name, props = parse(state)
    if name.endswith("_fence_gate"):
        return kind != B.L_PANE and (props["facing"] in ("north", "south")) != (side in ("north", "south"))
    other = _kind(name)
    if (kind in (B.L_WALL, B.L_PANE) and other in (B.L_WALL, B.L_PANE)) or (kind == other and kind != B.L_WALL):
        return True
    if other == B.L_NEVER or name not in B.VANILLA and name not in ("stone", "glass"):
        return False
    if name in ("stone", "glass") or B.VANILLA[name][0] != B.PARTIAL:
        return True  # a full block
    face = B.DIRECTIONS.index({"north": "south", "south": "north", "east": "west", "west": "east"}[side])
    return bool(B.vanilla_kind(name, props)[1] >> face & 1)


def _cover(state):
    name, props = parse(state)
    if name == "air":
        return 0
    if name == "redstone_torch":
        return B.WALL_POST_OVERRIDE
    if name.endswith("_fence_gate"):
        return 1 | (20 if props["facing"] in ("north", "south") else 10)
    if name in ("stone", "glass"):
        return 31
    return int(B.WALL_COVER[B.vanilla_number(name, props)])


def _expected(w, pos):
    name, props = parse(w.get_block(pos))
    kind = _kind(name)
    at = {s: w.get_block(tuple(a + b for a, b in zip(pos, STEP[s], strict=True))) for s in SIDES}
    joined = {s: _joins(kind, at[s], s) for s in SIDES}
    if kind != B.L_WALL:
        return {s: "true" if joined[s] else "false" for s in SIDES}
    above = w.get_block((pos[0], pos[1] + 1, pos[2]))
    cov = _cover(above)
    out = {s: ("tall" if cov & (2 << i) else "low") if joined[s] else "none" for i, s in enumerate(SIDES)}
    none = {s: out[s] == "none" for s in SIDES}
    aname, aprops = parse(above)
    if _kind(aname) == B.L_WALL and aprops["up"] == "true":
        up = True
    elif all(none.values()) or none["north"] != none["south"] or none["east"] != none["west"]:
        up = True
    elif (out["north"] == out["south"] == "tall") or (out["east"] == out["west"] == "tall"):
        up = False
    else:
        up = bool(cov & (B.WALL_POST_OVERRIDE | 1))
    return {**out, "up": "true" if up else "false"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(BOX), st.sampled_from(PLACED)), min_size=1, max_size=30))
def test_every_fence_wall_and_pane_says_what_its_neighbours_dictate(moves):
    w = World()
    for pos, state in moves:
        try:
            w.set_block(pos, state)
        except PlacementError:  # a torch on nothing is refused and places nothing
            pass
        for p in BOX:
            name, props = parse(w.get_block(p))
            if _kind(name) in (B.L_WOOD_FENCE, B.L_NETHER_FENCE, B.L_WALL, B.L_PANE):
                want = _expected(w, p)
                assert {k: props[k] for k in want} == want, (p, w.get_block(p))
