"""Decorative blocks in the views (docs/redstone.md section 42): drawn by their shape in their family's colour,
described in hover text by what they are to redstone, and left out of the heatmap's circuit."""

import numpy as np

from scicraft_viz import World
from scicraft_viz.views import geometry
from scicraft_viz.views.block_colors import WOODS, block_color
from scicraft_viz.views.canvas import describe_block
from scicraft_viz.views.frame import frame_from_world
from scicraft_viz.views.heatmap import _circuit


def _frame():
    w = World(replay=True)
    w.set_blocks([((x, 0, 0), "stone") for x in range(8)] + [
        ((0, 1, 0), "oak_fence[east=true]"), ((1, 1, 0), "oak_fence[west=true]"), ((2, 1, 0), "white_carpet"),
        ((3, 1, 0), "oak_sign[rotation=0]"), ((4, 1, 0), "lantern"), ((5, 1, 0), "glass_pane[north=true]"),
        ((6, 1, 0), "cobblestone_wall[up=false,north=tall,south=low]"), ((7, 1, 0), "candle[candles=2]"),
        ((4, 0, 1), "ladder[facing=south]"), ((0, 2, 0), "redstone_lamp")])
    return frame_from_world(w)


def _by_position(f):
    g = geometry.build(f.layout)
    lo = geometry._boxes(f.layout, np.ones(len(f.layout), bool))[2]  # the boxes in world units
    col = geometry.box_colors(g, f)
    out = {}
    for b, box, c, part in zip(g.block.tolist(), lo.tolist(), col.tolist(), g.part.tolist(), strict=True):
        out.setdefault(f.layout.positions[b], []).append((box, c, part))
    return out


def test_each_decorative_block_is_drawn_by_its_shape():
    boxes = {p: [b for b, _, _ in v] for p, v in _by_position(_frame()).items()}
    assert boxes[(0, 1, 0)] == [[0.375, 1, 0.375, 0.625, 2, 0.625],  # the post, and two rails to the east
                                [0.5, 1.375, 0.4375, 1, 1.5625, 0.5625], [0.5, 1.75, 0.4375, 1, 1.9375, 0.5625]]
    assert boxes[(2, 1, 0)] == [[2, 1, 0, 3, 1.0625, 1]]  # a carpet: a sixteenth thick
    assert boxes[(3, 1, 0)][0] == [3.453125, 1, 0.453125, 3.546875, 1.5625, 0.546875]  # a sign's post and board
    assert boxes[(3, 1, 0)][1] == [3, 1.5625, 0.453125, 4, 2, 0.546875]
    assert boxes[(4, 1, 0)] == [[4.3125, 1, 0.3125, 4.6875, 1.4375, 0.6875],  # a lantern and its lid
                                [4.375, 1.4375, 0.375, 4.625, 1.5625, 0.625]]
    # a pane: its post, its north arm, and an east arm, joined to the wall placed beside it after it (section 57)
    assert boxes[(5, 1, 0)] == [[5.4375, 1, 0.4375, 5.5625, 2, 0.5625], [5.4375, 1, 0, 5.5625, 2, 0.5],
                                [5.5, 1, 0.4375, 6, 2, 0.5625]]
    # a wall with no post, both arms low: the candle placed beside it after it made it work its heights out again,
    # and nothing above covers it (given north=tall; section 57)
    assert boxes[(6, 1, 0)] == [[6.3125, 1, 0, 6.6875, 1.875, 0.5], [6.3125, 1, 0.5, 6.6875, 1.875, 1]]
    assert len(boxes[(7, 1, 0)]) == 2  # one box per candle
    assert boxes[(4, 0, 1)][0] == [4.8125, 0, 1.0, 4.9375, 1, 1.09375]  # a ladder's rail against its wall (north)


def test_decorative_blocks_take_their_familys_colour():
    drawn = _by_position(_frame())
    oak = list(np.float32(WOODS["oak"]))
    assert {tuple(c) for _, c, _ in drawn[(0, 1, 0)]} == {tuple(oak)}
    assert {tuple(c) for _, c, _ in drawn[(3, 1, 0)]} == {tuple(oak)}
    assert drawn[(5, 1, 0)][0][2] == geometry.P_GLASS  # a glass pane is glass
    assert block_color("lantern") != block_color("flower_pot") and block_color("iron_bars") is not None


def test_hover_says_what_a_decorative_block_is_to_redstone():
    f = _frame()
    assert describe_block(f, (3, 1, 0)) == ("(3, 1, 0) oak_sign[rotation=0,waterlogged=false] · decorative, never "
                                           "powered; needs a solid block below; a piston cannot move it")
    assert describe_block(f, (4, 1, 0)).endswith("needs the middle of a face below; a piston breaks it")
    assert describe_block(f, (4, 0, 1)).endswith("needs a whole face behind; a piston breaks it")
    assert describe_block(f, (0, 1, 0)).endswith("· decorative, never powered; a piston moves it")


def test_the_heatmap_counts_only_the_lamp_as_circuit():
    f = _frame()
    assert [f.layout.positions[i] for i in np.flatnonzero(_circuit(f))] == [(0, 2, 0)]
