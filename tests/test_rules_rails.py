"""Powered and activator rails (docs/redstone.md section 48): a neighbour signal powers a rail and up to 8 more
powered rails of its kind in a line, level or on slopes, all in the same tick."""

import numpy as np
import pytest
from vanilla_capture import Action, differences

from scicraft_viz import World
from scicraft_viz.engine.compiled import CompileRefused, compile_world
from scicraft_viz.errors import PlacementError
from scicraft_viz.views import geometry
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world


def line(kind="powered_rail", n=12):
    """n east-west rails on stone at x = 1..n, y = 1; x = 0 is left for the power."""
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(n + 2)])
    w.set_blocks([((x, 1, 0), f"{kind}[shape=east_west]") for x in range(1, n + 1)])
    return w


def powered(w, xs, y=1):
    return [x for x in xs if "powered=true" in w.get_block((x, y, 0))]


@pytest.mark.parametrize("kind", ["powered_rail", "activator_rail"])
def test_a_signal_reaches_nine_rails_and_no_more_and_leaves_them_all_at_once(kind):
    w = line(kind)
    assert powered(w, range(1, 13)) == []
    w.set_block((0, 1, 0), "redstone_block")
    assert powered(w, range(1, 13)) == list(range(1, 10))  # the rail beside it and 8 more
    w.step(1)
    assert powered(w, range(1, 13)) == list(range(1, 10))
    w.remove_block((0, 1, 0))
    assert powered(w, range(1, 13)) == []


def test_a_signal_in_the_middle_goes_both_ways():
    w = line(n=20)
    w.set_block((10, 2, 0), "stone")
    w.set_block((10, 3, 0), "redstone_block")
    assert powered(w, range(1, 21)) == []  # a redstone block does not power the stone between it and the rail
    w.set_block((10, 2, 0), "redstone_block")
    assert powered(w, range(1, 21)) == list(range(2, 19))  # rail 10 and 8 on each side


def test_powered_and_activator_rails_do_not_pass_power_to_each_other():
    w = line(n=6)
    w.set_block((4, 1, 0), "activator_rail[shape=east_west]")
    w.set_block((0, 1, 0), "redstone_block")
    assert powered(w, range(1, 7)) == [1, 2, 3]


def test_a_rail_across_the_line_breaks_it():
    w = line(n=6)
    w.set_block((4, 1, 0), "powered_rail[shape=north_south]")
    w.set_block((0, 1, 0), "redstone_block")
    assert powered(w, range(1, 7)) == [1, 2, 3]


def test_power_climbs_and_descends_slopes():
    """Rails at y 1 (x 1-3), a slope at x 4 up to rails on a step at y 2 (x 5-7): the chain runs up the slope and,
    powered from the top, down it."""
    w = World()
    w.set_blocks([((x, 0, 0), "stone") for x in range(9)] + [((x, 1, 0), "stone") for x in range(5, 9)])
    w.set_blocks([((x, 1, 0), "powered_rail[shape=east_west]") for x in (1, 2, 3)]
                 + [((4, 1, 0), "powered_rail[shape=ascending_east]")]
                 + [((x, 2, 0), "powered_rail[shape=east_west]") for x in (5, 6, 7)])
    w.set_block((0, 1, 0), "redstone_block")
    assert powered(w, range(1, 5)) == [1, 2, 3, 4] and powered(w, range(5, 8), y=2) == [5, 6, 7]
    w.remove_block((0, 1, 0))
    assert powered(w, range(1, 5)) == [] and powered(w, range(5, 8), y=2) == []
    w.set_block((8, 2, 0), "redstone_block")
    assert powered(w, range(1, 5)) == [1, 2, 3, 4] and powered(w, range(5, 8), y=2) == [5, 6, 7]


def test_a_rail_needs_a_block_below_and_a_slope_the_block_it_climbs_toward():
    w = World()
    with pytest.raises(PlacementError):
        w.set_block((0, 1, 0), "powered_rail")
    w.set_blocks([((0, 0, 0), "stone"), ((1, 1, 0), "stone"), ((1, 0, 0), "stone")])
    w.set_block((0, 1, 0), "powered_rail[shape=ascending_east]")
    w.remove_block((1, 1, 0))
    assert w.get_block((0, 1, 0)) == "minecraft:air"


def test_nucleations_capture_of_nine_golden_rails():
    """Vanilla 26.2: a redstone block placed at tick 0 beside a line of powered rails lights nine of them in that
    tick, and breaking it at tick 2 darkens them in that tick."""
    acts = [Action(0, "place", (0, 1, 1), "minecraft:redstone_block"), Action(2, "place", (0, 1, 1), "minecraft:air")]
    assert differences("rails_chain.snbt", "rails_chain.json", acts, placement=True) == []


def test_the_compiled_engine_refuses_rails_naming_why():
    w = line(n=3)
    with pytest.raises(CompileRefused, match="rails pass power along their line"):
        compile_world(w)


def test_the_views_draw_a_rail_and_name_its_shape_and_power():
    w = line(n=2)
    w.set_block((3, 1, 0), "activator_rail[shape=east_west]")
    w.set_block((0, 1, 0), "redstone_block")
    f = frame_from_world(w)
    assert describe_block(f, (1, 1, 0)).endswith("east west, powered")
    assert describe_block(f, (3, 1, 0)).endswith("east west, unpowered")
    assert f.describe((2, 1, 0)) == "powered_rail[powered=true,shape=east_west,waterlogged=false]"
    g = geometry.build(f.layout)
    boxes = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]
    col = geometry.box_colors(g, f)
    by_pos = {f.layout.positions[b]: (box, c) for b, box, c in zip(g.block.tolist(), boxes.tolist(), col.tolist())}
    assert by_pos[(3, 1, 0)][0] == [3, 1, 0, 4, 1.125, 1]  # a thin plate over the whole cell
    assert by_pos[(3, 1, 0)][1] == list(np.float32(geometry._COLORS["activator_rail"]))  # unpowered: its own colour
    assert by_pos[(2, 1, 0)][1] != list(np.float32(geometry._COLORS["gold_plate"]))  # powered: redder
