"""Plain and detector rails, and every rail's shape from its neighbours (docs/redstone.md sections 61 and 62)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vanilla_capture import NUCLEATION

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.errors import InputError
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world
from scicraft_viz.views.geometry import P_PLATE, build


def floor(n=4, replay=False):
    """Stone from -n to n in x and z at y = 0."""
    w = World(replay=replay)
    w.set_blocks([((x, 0, z), "stone") for x in range(-n, n + 1) for z in range(-n, n + 1)])
    return w


def shape(w, p):
    s = w.get_block(p)
    return s.split("shape=")[1].split(",")[0].split("]")[0]


def test_a_lone_rail_keeps_its_shape_and_a_second_one_lines_up_with_it():
    w = floor()
    w.set_block((0, 1, 0), "rail")  # north_south by default
    assert shape(w, (0, 1, 0)) == "north_south"
    w.set_block((1, 1, 0), "rail")  # placed as north_south, beside it to the east
    assert (shape(w, (0, 1, 0)), shape(w, (1, 1, 0))) == ("east_west", "east_west")
    assert w.get_block((1, 1, 0)) == "minecraft:rail[shape=east_west,waterlogged=false]"
    shapes = [(e.tick, e.pos, e.kind, e.old, e.new) for e in w.events if e.kind == "shape"]
    assert shapes == [(0, (1, 1, 0), "shape", 0, 1), (0, (0, 1, 0), "shape", 0, 1)]  # the new rail, then the old


def test_a_rail_beside_the_end_of_a_line_bends_it_into_a_curve():
    w = floor()
    w.set_blocks([((0, 1, 0), "rail"), ((1, 1, 0), "rail")])
    w.set_block((0, 1, 1), "rail")  # south of the line's west end
    assert (shape(w, (0, 1, 0)), shape(w, (1, 1, 0)), shape(w, (0, 1, 1))) == ("south_east", "east_west",
                                                                               "north_south")


def test_straight_rails_never_curve():
    for kind in ("powered_rail", "activator_rail", "detector_rail"):
        w = floor()
        w.set_blocks([((0, 1, 0), kind), ((1, 1, 0), kind)])
        w.set_block((0, 1, 1), kind)
        assert (shape(w, (0, 1, 0)), shape(w, (0, 1, 1))) == ("east_west", "north_south"), kind


def test_a_rail_climbs_toward_a_rail_one_block_up():
    w = floor()
    w.set_block((2, 1, 0), "stone")
    w.set_block((2, 2, 0), "rail")
    w.set_block((1, 1, 0), "rail")
    assert (shape(w, (1, 1, 0)), shape(w, (2, 2, 0))) == ("ascending_east", "east_west")
    w.remove_block((2, 1, 0))  # the block it climbs toward goes: the slope pops, as does the rail on that block
    assert w.get_block((1, 1, 0)) == "minecraft:air" and w.get_block((2, 2, 0)) == "minecraft:air"


def test_a_full_rail_takes_no_third_connection():
    """A rail whose two connections both lead to rails that connect back keeps its shape: a rail placed beside
    it stays as placed, and the full one does not turn."""
    w = floor()
    w.set_blocks([((-1, 1, 0), "rail"), ((0, 1, 0), "rail"), ((1, 1, 0), "rail")])
    assert [shape(w, (x, 1, 0)) for x in (-1, 0, 1)] == ["east_west"] * 3
    w.set_block((0, 1, 1), "rail[shape=east_west]")
    assert shape(w, (0, 1, 0)) == "east_west"
    assert shape(w, (0, 1, 1)) == "east_west"  # no rail around takes it: it keeps the shape it was given


def test_a_lever_switches_a_plain_t_junction():
    """Rails east, west and south of a plain rail: unpowered it curves south-east, powered south-west, as the
    lever beside it is switched (the shape changes in the tick of the click)."""
    w = floor()
    w.set_blocks([((-1, 1, 0), "rail[shape=east_west]"), ((1, 1, 0), "rail[shape=east_west]"),
                  ((0, 1, 1), "rail[shape=north_south]")])
    w.set_block((0, 1, 0), "rail")
    assert shape(w, (0, 1, 0)) == "south_east"
    w.set_block((0, 1, -1), "lever[face=floor]")
    w.step(2)
    w.use((0, 1, -1))
    assert shape(w, (0, 1, 0)) == "south_west"
    assert [e.tick for e in w.events if e.kind == "shape" and e.pos == (0, 1, 0)][-1] == 2
    w.use((0, 1, -1))
    assert shape(w, (0, 1, 0)) == "south_east"


def structure(rails):
    """A structure file (SNBT) of a 5 x 2 x 5 stone floor with rails on it, each (x, z, kind, shape) as given."""
    states = ['{Name: "minecraft:stone"}'] + [
        f'{{Name: "minecraft:{k}", Properties: {{shape: "{sh}", waterlogged: "false"'
        + (', powered: "false"' if k != "rail" else "") + "}}" for _, _, k, sh in rails]
    blocks = [f"{{pos: [{x}, 0, {z}], state: 0}}" for x in range(5) for z in range(5)]
    blocks += [f"{{pos: [{x}, 1, {z}], state: {i + 1}}}" for i, (x, z, _, _) in enumerate(rails)]
    return (f"{{DataVersion: 3465, size: [5, 2, 5], palette: [{', '.join(states)}], blocks: [{', '.join(blocks)}], "
            "entities: []}").encode()


def test_a_paste_keeps_every_rails_shape_as_saved():
    """Shapes no placement would give (a curve with nothing around it, a line of north-south rails running east)
    load as saved from a structure file; the same blocks set by /setblock line up."""
    rails = [(0, 0, "rail", "north_west")] + [(x, 2, "rail", "north_south") for x in range(3)]
    v = World.from_build_file(structure(rails), fmt="snbt")
    assert shape(v, (0, 1, 0)) == "north_west" and [shape(v, (x, 1, 2)) for x in range(3)] == ["north_south"] * 3
    w = floor(replay=True)
    w.set_blocks([((x, 1, z), f"{k}[shape={sh}]") for x, z, k, sh in rails])
    assert shape(w, (0, 1, 0)) == "north_west" and [shape(w, (x, 1, 2)) for x in range(3)] == ["east_west"] * 3


_FLAT = ("north_south", "east_west", "south_east", "south_west", "north_west", "north_east")


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from(["rail", "powered_rail",
                                                                                   "detector_rail"]),
                          st.integers(0, 5)), min_size=1, max_size=14, unique_by=lambda t: t[:2]))
def test_saving_and_loading_keeps_every_rails_shape(rails):
    """Whatever flat rails a structure file holds, in whatever shapes (curves only for plain rails), loading it,
    saving it and loading that again gives every rail the shape the file gave it."""
    rails = [(x, z, k, _FLAT[s if k == "rail" else s % 2]) for x, z, k, s in rails]
    v = World.from_build_file(structure(rails), fmt="snbt")
    again = World.from_build_file(v.to_schem(), fmt="schem")
    for x, z, k, sh in rails:
        assert shape(v, (x, 1, z)) == sh and shape(again, (x, 1, z)) == sh
        assert again.get_block((x, 1, z)).startswith(f"minecraft:{k}[")


def test_a_plain_rail_pops_without_its_support():
    w = World()
    with pytest.raises(InputError):
        w.set_block((0, 1, 0), "rail")
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "rail[shape=south_east]")
    w.remove_block((0, 0, 0))
    assert w.get_block((0, 1, 0)) == "minecraft:air"
    assert [e.kind for e in w.events if e.pos == (0, 1, 0)][-1] == "popped"


def test_the_compiled_engine_refuses_plain_rails():
    w = floor(1)
    w.set_block((0, 1, 0), "rail")
    with pytest.raises(CompileRefused, match="rails are not compiled"):
        compile_world(w)


def test_the_views_draw_rails_flat_and_slopes_as_steps():
    w = floor()
    w.set_blocks([((2, 1, 0), "stone"), ((2, 2, 0), "rail"), ((1, 1, 0), "rail"), ((0, 1, 3), "detector_rail")])
    f = frame_from_world(w)
    g = build(f.layout)
    slope = g.part[g.block == f.layout.at((1, 1, 0))]
    flat = g.part[g.block == f.layout.at((2, 2, 0))]
    assert list(slope) == [P_PLATE] * 4 and list(flat) == [P_PLATE]
    assert describe_block(f, (1, 1, 0)).endswith("ascending east (a plain rail: no power of its own)")
    assert "unpowered (it gives 15 only under a minecart" in describe_block(f, (0, 1, 3))


def test_a_detector_rail_is_unpowered_and_powers_nothing():
    w = floor()
    w.set_blocks([((0, 1, 0), "detector_rail[shape=east_west]"), ((0, 1, 1), "redstone_lamp"),
                  ((1, 1, 0), "redstone_block")])
    w.step(2)
    assert w.get_block((0, 1, 0)) == "minecraft:detector_rail[powered=false,shape=east_west,waterlogged=false]"
    assert "lit=false" in w.get_block((0, 1, 1)) and w.power((0, 1, 1)).level == 0


def test_dust_turns_toward_a_detector_rail():
    """Dust with dust to its east bends north toward a detector rail (a signal source), not toward a plain rail."""
    for kind, north in (("detector_rail", "side"), ("rail", "none")):
        w = floor()
        w.set_blocks([((0, 1, 0), f"{kind}[shape=east_west]"), ((0, 1, 1), "redstone_wire"),
                      ((1, 1, 1), "redstone_wire")])
        assert f"north={north}" in w.get_block((0, 1, 1)) and "east=side" in w.get_block((0, 1, 1)), kind


def test_a_comparator_reads_0_from_a_detector_rail():
    w = floor()
    w.set_blocks([((0, 1, 0), "detector_rail[shape=east_west]"), ((0, 1, 1), "comparator[facing=north]"),
                  ((0, 1, 2), "redstone_lamp")])
    w.step(4)
    assert w.power((0, 1, 1)).level == 0 and "lit=false" in w.get_block((0, 1, 2))


def test_a_saved_powered_detector_rail_loads_unpowered():
    w = floor(1, replay=True)
    w.set_block((0, 1, 0), "detector_rail[powered=true,shape=north_south]")
    assert w.get_block((0, 1, 0)) == "minecraft:detector_rail[powered=false,shape=north_south,waterlogged=false]"


def test_a_structure_with_a_tnt_minecart_is_refused_naming_it(tmp_path):
    """Nucleation's `cart_ledge` structure with TNT minecarts for its two furnace minecarts: the engine does not move
    TNT minecarts, so the file is refused, naming them (plain, chest, hopper and furnace minecarts load:
    tests/test_rules_minecart.py, tests/test_rules_furnace_minecart.py)."""
    path = tmp_path / "cart_ledge_tnt.snbt"
    path.write_text((NUCLEATION / "cart_ledge.snbt").read_text().replace("furnace_minecart", "tnt_minecart"))
    with pytest.raises(InputError, match="2 entities \\(minecraft:tnt_minecart x2"):
        World.from_build_file(path)
