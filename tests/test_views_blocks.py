"""Vanilla full and partial blocks in the views: their family's colour, slabs as half boxes, stairs with a
step, the block's own name in hover text."""

import numpy as np

from scicraft_viz import World
from scicraft_viz.views import geometry
from scicraft_viz.views.block_colors import DYES, WOODS, block_color
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world
from scicraft_viz.views.heatmap import SignalHeatmap


def _frame():
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "white_concrete"), ((1, 0, 0), "oak_slab[type=top]"),
                  ((2, 0, 0), "spruce_stairs[facing=east,half=bottom]"), ((3, 0, 0), "red_stained_glass"),
                  ((4, 0, 0), "stone"), ((5, 0, 0), "oak_slab[type=bottom]")])
    return frame_from_world(w)


def test_family_colours():
    assert block_color("white_concrete") == DYES["white"]
    assert block_color("light_blue_wool") == DYES["light_blue"]
    assert block_color("blue_stained_glass") == DYES["blue"]
    assert block_color("dark_oak_planks") == WOODS["dark_oak"] and block_color("oak_slab") == WOODS["oak"]
    assert block_color("stripped_birch_log") == WOODS["birch"]
    assert block_color("red_sandstone_stairs") != block_color("red_wool")
    assert block_color("barrier") is None


def test_boxes_shapes_and_colours():
    f = _frame()
    g = geometry.build(f.layout)
    col = geometry.box_colors(g, f)
    lo = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]  # the boxes in world units
    by_row = {}
    for b, box, c in zip(g.block.tolist(), lo.tolist(), col.tolist()):
        by_row.setdefault(f.layout.positions[b], []).append((box, c))
    assert by_row[(1, 0, 0)] == [([1, 0.5, 0, 2, 1, 1], list(np.float32(WOODS["oak"])))]  # top slab: upper half
    assert by_row[(5, 0, 0)][0][0] == [5, 0, 0, 6, 0.5, 1]  # bottom slab: lower half
    stairs = [box for box, _ in by_row[(2, 0, 0)]]
    assert stairs == [[2, 0, 0, 3, 0.5, 1], [2.5, 0.5, 0, 3, 1, 1]]  # base, and the step on the east side
    assert by_row[(0, 0, 0)][0][1] == list(np.float32(DYES["white"]))
    assert by_row[(3, 0, 0)][0][1] == list(np.float32(DYES["red"]))
    assert by_row[(4, 0, 0)][0][1] != list(np.float32(DYES["white"]))  # stone keeps its grey


def test_hover_names_the_block():
    f = _frame()
    assert f.describe((1, 0, 0)) == "oak_slab[type=top,waterlogged=false]"
    assert f.layout.name(0) == "white_concrete"
    assert describe_block(f, (2, 0, 0)).startswith("(2, 0, 0) spruce_stairs[facing=east,half=bottom,")
    assert SignalHeatmap._color(f, 0) == "#dbdede"
