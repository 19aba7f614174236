"""Honey blocks, hoppers and droppers in the views: honey drawn as its shape in its own colour, and hover text
that says what hoppers, droppers and sticky blocks do."""

import numpy as np

from scicraft_viz import World
from scicraft_viz.views import geometry
from scicraft_viz.views.block_colors import block_color
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world


def _frame():
    w = World(replay=True)
    w.set_blocks([((0, 0, 0), "honey_block"), ((1, 0, 0), "hopper[facing=east,enabled=true]"),
                  ((2, 0, 0), "dropper[facing=up]"), ((3, 0, 0), "slime_block"),
                  ((1, 1, 0), "redstone_block")])  # on the hopper: it is locked
    return frame_from_world(w)


def test_honey_is_drawn_as_its_shape_in_honey_colour():
    f = _frame()
    g = geometry.build(f.layout)
    col = geometry.box_colors(g, f)
    lo = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]
    honey = [(box, c) for b, box, c in zip(g.block.tolist(), lo.tolist(), col.tolist())
             if f.layout.positions[b] == (0, 0, 0)]
    assert honey == [([1 / 16, 0, 1 / 16, 15 / 16, 15 / 16, 15 / 16], list(np.float32(block_color("honey_block"))))]
    assert block_color("honey_block") != block_color("slime_block")


def test_hover_says_what_hoppers_droppers_and_sticky_blocks_do():
    f = _frame()
    assert describe_block(f, (0, 0, 0)).endswith("sticky: a piston moves the blocks touching it, but not slime")
    assert describe_block(f, (3, 0, 0)).endswith("sticky: a piston moves the blocks touching it, but not honey")
    assert describe_block(f, (1, 0, 0)).endswith(
        "moves an item to the east every 8 game ticks, pulls from above; locked (powered)")
    assert describe_block(f, (2, 0, 0)).endswith(
        "puts an item in the container it faces 4 game ticks after power arrives; waiting for power")
