"""Water (docs/redstone.md sections 67-69): sources, flowing and falling water, waterlogged blocks and the fluid
tick, with exact ticks; Nucleation's vanilla captures of water spreading and falling into a hole."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vanilla_capture import Action, differences

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world

AIR = "minecraft:air"


def water(level: int) -> str:
    return f"minecraft:water[level={level}]"


def floor(w, x0=-8, x1=8, z0=-8, z1=8, y=0):
    w.set_blocks({(x, y, z): "stone" for x in range(x0, x1 + 1) for z in range(z0, z1 + 1)})


def first_tick(w, pos, state, limit=80):
    """The first game tick after which pos holds state (None within limit)."""
    for _ in range(limit):
        if w.get_block(pos) == state:
            return w.tick
        w.step(1)
    return w.get_block(pos) == state and w.tick or None


def test_a_source_on_a_floor_spreads_one_block_per_five_ticks():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "water")
    w.step(4)
    assert w.get_block((1, 1, 0)) == AIR
    w.step(1)
    assert [w.get_block((x, 1, 0)) for x in range(0, 3)] == [water(0), water(1), AIR]
    assert {w.get_block(p) for p in ((-1, 1, 0), (0, 1, 1), (0, 1, -1))} == {water(1)}
    w.step(5)
    assert w.get_block((2, 1, 0)) == water(2)
    w.step(25)
    assert [w.get_block((x, 1, 0)) for x in range(0, 9)] == [water(k) for k in range(8)] + [AIR]
    # a diamond: the level is the distance from the source, 7 at most
    assert [w.get_block((4, 1, z)) for z in (2, 3, 4)] == [water(6), water(7), AIR]


def test_flowing_water_falls_then_spreads_at_the_bottom():
    w = World()
    floor(w, y=0)
    w.set_blocks({(x, 3, z): "stone" for x in range(-1, 2) for z in range(-1, 2)})
    w.set_block((0, 4, 0), "water")
    w.set_block((1, 3, 0), "air")  # a hole beside the source
    w.step(5)
    assert w.get_block((1, 4, 0)) == water(1) and w.get_block((-1, 4, 0)) == AIR  # only toward the hole
    w.step(5)
    assert w.get_block((1, 3, 0)) == water(8)  # falling
    w.step(5)
    assert w.get_block((1, 2, 0)) == water(8)
    w.step(5)
    assert w.get_block((1, 1, 0)) == water(8)
    w.step(5)
    assert w.get_block((2, 1, 0)) == water(1)  # falling water spreads as a source would, at level 1


def test_slope_finding_sends_water_toward_the_nearest_drop_only():
    w = World()
    floor(w)
    w.set_block((3, 0, 0), "air")  # a drop three blocks east
    w.set_block((0, 1, 0), "water")
    w.step(5)
    assert [w.get_block(p) for p in ((1, 1, 0), (-1, 1, 0), (0, 1, 1), (0, 1, -1))] == [water(1), AIR, AIR, AIR]


def test_two_sources_make_a_third_over_a_solid_block():
    w = World()
    floor(w, -1, 1, 0, 0)
    w.set_blocks({(x, 1, z): "stone" for x in range(-2, 3) for z in (-1, 1)})
    w.set_blocks({(-2, 1, 0): "stone", (2, 1, 0): "stone"})
    w.set_blocks({(-1, 1, 0): "water", (1, 1, 0): "water"})
    w.step(4)
    assert w.get_block((0, 1, 0)) == AIR
    w.step(1)  # the first source's spread asks what water the gap would hold: a source (getNewLiquid)
    assert w.get_block((0, 1, 0)) == water(0)
    assert w._fluid.sources_made == 1


def test_no_source_forms_over_air():
    w = World()
    w.set_blocks({(x, 1, z): "stone" for x in range(-2, 3) for z in (-1, 1)})
    w.set_blocks({(-2, 1, 0): "stone", (2, 1, 0): "stone", (-1, 0, 0): "stone", (1, 0, 0): "stone"})
    w.set_blocks({(-1, 1, 0): "water", (1, 1, 0): "water"})
    w.step(30)
    assert w.get_block((0, 1, 0)) == water(8) or w.get_block((0, 1, 0)) == water(1)
    assert w.get_block((0, 1, 0)) != water(0)


def test_flowing_water_dries_up_when_its_source_goes():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "water")
    w.step(40)
    assert w.get_block((3, 1, 0)) == water(3)
    w.set_block((0, 1, 0), "stone")
    w.step(5)  # the water beside it takes the most its other neighbours give, less one: level 3
    assert [w.get_block((x, 1, 0)) for x in (1, 2, 3)] == [water(3), water(2), water(3)]
    w.step(5)
    assert [w.get_block((x, 1, 0)) for x in (1, 2, 3)] == [water(3), water(4), water(3)]
    w.step(80)
    assert w.water() == {}


def test_water_breaks_dust_and_a_torch_and_the_lamp_goes_off():
    w = World()
    floor(w)
    w.set_blocks({(2, 1, 0): "redstone_torch", (3, 1, 0): "redstone_wire", (4, 1, 0): "redstone_lamp"})
    w.step(4)
    assert w.get_block((4, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
    w.set_block((0, 1, 0), "water")
    w.step(10)
    assert w.get_block((2, 1, 0)) == water(2)  # the torch is washed away at 10
    w.step(3)
    assert w.get_block((4, 1, 0)) == "minecraft:redstone_lamp[lit=true]"
    w.step(1)
    assert w.get_block((4, 1, 0)) == "minecraft:redstone_lamp[lit=false]"  # 4 game ticks after losing power
    assert w.get_block((3, 1, 0)).startswith("minecraft:redstone_wire") and "power=0" in w.get_block((3, 1, 0))
    w.step(1)
    assert w.get_block((3, 1, 0)) == water(3)


def test_solid_blocks_and_doors_stop_water():
    w = World()
    floor(w)
    w.set_blocks({(1, 1, 0): "stone", (-1, 1, 0): "oak_door[half=lower]", (-1, 2, 0): "oak_door[half=upper]",
                  (0, 1, 1): "observer", (0, 1, -1): "oak_slab"})
    w.set_block((0, 1, 0), "water")
    w.step(20)
    assert w.get_block((1, 1, 0)) == "minecraft:stone"
    assert w.get_block((-1, 1, 0)).startswith("minecraft:oak_door")
    assert w.get_block((0, 1, -1)) == "minecraft:oak_slab[type=bottom,waterlogged=false]"  # only a source fills it


def test_a_waterlogged_slab_is_a_source_that_stays():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "oak_slab[waterlogged=true]")
    w.step(5)
    assert w.get_block((1, 1, 0)) == water(1)
    assert w.get_block((0, 1, 0)) == "minecraft:oak_slab[type=bottom,waterlogged=true]"
    w.step(40)
    assert w.get_block((0, 1, 0)) == "minecraft:oak_slab[type=bottom,waterlogged=true]"
    assert w.get_block((7, 1, 0)) == water(7)


def test_a_waterlogged_top_slab_lets_its_water_fall():
    w = World()
    w.set_block((0, 2, 0), "oak_slab[type=top,waterlogged=true]")
    w.step(5)
    assert w.get_block((0, 1, 0)) == water(8)  # its shape leaves the bottom face open
    assert w.get_block((1, 2, 0)) == AIR  # falling water that can fall does not spread sideways


def test_an_observer_sees_water_arrive():
    w = World()
    floor(w)
    w.set_blocks({(2, 1, 0): "observer[facing=west]", (3, 1, 0): "redstone_lamp"})
    w.set_block((0, 1, 0), "water")
    w.step(5)
    assert w.get_block((1, 1, 0)) == water(1)
    assert w.get_block((2, 1, 0)).endswith("powered=false]")
    w.step(2)
    assert w.get_block((2, 1, 0)).endswith("powered=true]")  # 2 game ticks after the change it watches
    assert w.get_block((3, 1, 0)) == "minecraft:redstone_lamp[lit=true]"


def test_a_piston_pushes_a_block_into_water_and_the_water_comes_back():
    w = World()
    floor(w)
    w.set_blocks({(0, 1, 0): "piston[facing=east]", (1, 1, 0): "stone"})
    w.set_block((2, 1, 0), "water")
    w.step(10)
    w.set_block((-1, 1, 0), "redstone_block")
    w.step(3)
    assert w.get_block((2, 1, 0)) == "minecraft:stone"  # the source is gone
    assert w.get_block((3, 1, 0)) == AIR or w.get_block((3, 1, 0)) == water(1)
    w.step(20)
    assert not any(s == water(0) for s in w.water().values())


def test_pending_fluid_ticks_are_listed_and_copies_agree():
    w = World()
    floor(w)
    w.set_block((0, 1, 0), "water")
    assert w.fluid_ticks() == [(5, (0, 1, 0), "water")]
    c = w.copy()
    w.step(30)
    c.step(30)
    assert w.blocks() == c.blocks()


def test_the_compiled_engine_refuses_water():
    w = World()
    floor(w, -1, 1, -1, 1)
    w.set_block((0, 1, 0), "water")
    with pytest.raises(CompileRefused, match=r"water at \(0, 1, 0\).*no fluid ticks"):
        compile_world(w)


@pytest.mark.parametrize("name,pos", [("water_spread", (2, 1, 1)), ("water_hole", (2, 2, 1))])
@pytest.mark.parametrize("placement", [False, True])
def test_water_spreads_and_falls_as_in_vanilla(name, pos, placement):
    assert differences(f"{name}.snbt", f"{name}.json", [Action(0, "place", pos, AIR)], placement=placement) == []


@pytest.mark.parametrize("name,capture", [("item_stream", "item_stream.json"), ("item_float", "item_float_water.json")])
def test_water_pasted_stable_stays_as_in_vanilla(name, capture):
    assert differences(f"{name}.snbt", capture) == []


_CELLS = [(x, y, z) for x in range(-2, 3) for y in range(0, 3) for z in range(-2, 3)]


@settings(max_examples=15, deadline=None)
@given(st.dictionaries(st.sampled_from(_CELLS), st.sampled_from(
    ["stone", "water", "redstone_wire", "oak_slab", "oak_slab[waterlogged=true]", "glass", "air"]), max_size=25))
def test_water_makes_sources_only_by_the_infinite_source_rule_and_is_deterministic(layout):
    w = World(replay=True)
    w.set_blocks(layout)
    sources0 = sum(1 for s in w.water().values() if s == water(0) or "waterlogged=true" in s)
    c = w.copy()
    for _ in range(6):
        w.step(5)
        made = w._fluid.sources_made if w._fluid is not None else 0
        sources = sum(1 for s in w.water().values() if s == water(0) or "waterlogged=true" in s)
        assert sources <= sources0 + made
    c.step(30)
    assert c.blocks() == w.blocks()


def test_water_is_drawn_translucent_blue_as_high_as_its_level_and_named_in_hover_text():
    import numpy as np

    from scicraft_viz.views import geometry
    from scicraft_viz.views.canvas import describe_block
    from scicraft_viz.views.frame import frame_from_world

    w = World(replay=True)
    w.set_blocks({(0, 0, 0): "stone", (0, 1, 0): "water[level=3]", (1, 1, 0): "oak_slab[waterlogged=true]",
                  (2, 1, 0): "water", (3, 1, 0): "water[level=8]"})
    f = frame_from_world(w)
    g = geometry.build(f.layout)
    lo = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]
    col = geometry.box_colors(g, f)
    drawn = {f.layout.positions[b]: (box, c, part) for b, box, c, part in
             zip(g.block.tolist(), lo.tolist(), col.tolist(), g.part.tolist(), strict=True)
             if part == geometry.P_WATER}
    assert sorted(drawn) == [(0, 1, 0), (2, 1, 0), (3, 1, 0)]
    heights = {p: round(box[4] - box[1], 4) for p, (box, _, _) in drawn.items()}
    assert heights == {(0, 1, 0): round(5 / 9, 4), (2, 1, 0): round(8 / 9, 4), (3, 1, 0): 1.0}  # amount / 9
    assert all(c[2] > c[0] for _, c, _ in drawn.values())  # blue
    assert geometry._MESH_OF_PART[geometry.P_WATER] == "glass"  # the translucent mesh
    assert describe_block(f, (0, 1, 0)) == ("(0, 1, 0) water[level=3] · flowing water, 5 of 8 (it dries up without a "
                                            "feed); it breaks dust, repeaters, torches, levers, buttons and plates it "
                                            "reaches")
    assert describe_block(f, (1, 1, 0)).endswith("waterlogged: a water source that stays, spreading from it")
