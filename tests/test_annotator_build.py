"""Faster building in the annotator: hotkeys, facing from the camera as in the game, the ghost box
where a double-click would place, and fill a line or box; every edit is a set-block call recorded
in the trajectory, as an agent's would be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicraft_viz.views.annotator import FILL_LIMIT, Annotator
from scicraft_viz.views.canvas import pick_from_point
from scicraft_viz.views.palette import Palette


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def started(tmp_path) -> Annotator:
    a = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path, clock=Clock())
    a.participant.value = "P01"
    a.consent.value = True
    a.start_button.click()
    assert a.env is not None, a.last_message
    return a


def set_blocks(a: Annotator) -> list[tuple[tuple, str]]:
    steps = [json.loads(line) for line in Path(a.path).read_text(encoding="utf-8").splitlines()]
    return [(tuple(s["args"]["pos"]), s["args"]["block"]) for s in steps
            if s.get("type") == "step" and s.get("tool") == "set-block"]


# a camera on this side of the build looks the opposite way
CAMERA = {"north": (0.0, 6.0, 12.0), "south": (0.0, 6.0, -12.0), "east": (-12.0, 6.0, 1.0), "west": (12.0, 6.0, -1.0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}


def look(a: Annotator, way: str) -> None:
    a.canvas.camera.position = CAMERA[way]
    assert a.canvas.look_direction() == way


def test_the_canvas_reads_the_way_its_camera_looks(tmp_path):
    a = started(tmp_path)
    for way in CAMERA:
        look(a, way)
    a.canvas.view("top")  # straight down, north at the top of the picture
    assert a.canvas.look_direction() == "north"
    a.canvas.view("front")  # from the south
    assert a.canvas.look_direction() == "north"


@pytest.mark.parametrize("way", ["north", "east", "south", "west"])
def test_a_repeater_with_facing_auto_points_its_output_the_way_the_camera_looks(tmp_path, way):
    a = started(tmp_path)
    assert a.palette.facing.value == "auto"
    look(a, way)
    a.palette.choose("repeater", delay=2)
    a.canvas.click_face((0, 3, 0), (0, 1, 0))
    # Minecraft stores the side the input comes from: the player's side, opposite the look
    state = f"redstone_repeater[delay=2,facing={OPPOSITE[way]}]"
    assert set_blocks(a) == [((0, 4, 0), state)]
    assert a.env.world.get_block((0, 4, 0)).startswith("minecraft:redstone_repeater[delay=2,facing="
                                                       f"{OPPOSITE[way]}")


@pytest.mark.parametrize("way", ["north", "east", "south", "west"])
def test_facing_auto_for_comparators_levers_buttons_and_wall_blocks(way):
    p = Palette()
    p.facing.value = "auto"
    top = pick_from_point((0.5, 4.0, 0.5), (0, 1, 0))
    below = pick_from_point((0.5, 3.0, 0.5), (0, -1, 0))
    side = pick_from_point((1.0, 3.5, 0.5), (1, 0, 0))
    assert p.choose("comparator").state_for(top, way) == f"comparator[facing={OPPOSITE[way]}]"
    # on a floor or a ceiling a lever or button faces the way the player looks
    assert p.choose("lever", face="auto").state_for(top, way) == f"lever[face=floor,facing={way}]"
    assert p.choose("button", face="auto").state_for(below, way) == f"stone_button[face=ceiling,facing={way}]"
    # on a wall it faces away from the wall, whichever way the camera looks
    assert p.choose("button", face="auto").state_for(side, way) == "stone_button[face=wall,facing=east]"
    assert p.choose("torch", face="auto").state_for(side, way) == "redstone_wall_torch[facing=east]"
    # a chosen facing wins over the camera
    p.facing.value = "north"
    assert p.choose("repeater", delay=1).state_for(top, way) == "redstone_repeater[delay=1,facing=north]"


def test_facing_auto_without_a_camera_says_to_choose_one():
    p = Palette().choose("repeater", facing="auto")
    with pytest.raises(ValueError, match="facing auto follows the camera"):
        p.state_for(pick_from_point((0.5, 4.0, 0.5), (0, 1, 0)))


def test_hotkeys_choose_the_block_turn_the_facing_and_change_the_delay(tmp_path):
    a = started(tmp_path)
    names = list(a.palette.block.options)
    assert names == ["stone", "glass", "dust", "repeater", "torch", "lamp", "button"]
    assert a.on_key({"key": "4"}) == "block: repeater" and a.palette.block.value == "repeater"
    assert a.on_key({"key": "8"}) is None and a.palette.block.value == "repeater"  # no eighth block here
    facings = [a.on_key({"key": "r"}) for _ in range(5)]
    assert facings == ["facing: north", "facing: east", "facing: south", "facing: west", "facing: auto"]
    assert a.on_key({"key": "R"}) == "facing: west"
    assert a.on_key({"key": "d"}) == "delay: 2" and a.on_key({"key": "D"}) == "delay: 1"
    assert a.on_key({"key": "d"}) == "delay: 2"
    assert a.on_key({"key": "t"}) == "tool: remove" and a.on_key({"key": "T"}) == "tool: place"
    assert a.on_key({"key": "r", "ctrlKey": True}) is None and a.palette.facing.value == "west"
    a.canvas.click_face((2, 3, 0), (0, 1, 0))
    assert set_blocks(a) == [((2, 4, 0), "redstone_repeater[delay=2,facing=west]")]
    assert a.on_key({"key": "z"}) == "undo"
    assert set_blocks(a)[-1] == ((2, 4, 0), "air")
    # the keys listen on the canvas only: the notes box (outside it) takes its typing as text
    assert a._keys.source is a.canvas and a.notes not in a.canvas.children
    assert "R / shift+R turn the facing" in a.canvas.help.value


def test_hotkeys_do_nothing_before_the_start_or_after_submitting(tmp_path):
    a = Annotator("A_simultaneous_lights_L1", out_dir=tmp_path, clock=Clock())
    assert a.on_key({"key": "4"}) is None and a.palette.block.value == "dust"
    a.participant.value, a.consent.value = "P01", True
    a.start_button.click()
    a.request_submit()
    a.confirm_submit()
    assert a.finished
    assert a.on_key({"key": "4"}) is None and a.palette.block.value == "dust"


def test_the_ghost_shows_where_a_double_click_would_place(tmp_path):
    a = started(tmp_path)
    top_of_floor = pick_from_point((0.5, 4.0, 0.5), (0, 1, 0))
    a._on_hover(top_of_floor)
    assert a.canvas.ghost_at == (0, 4, 0)
    a.on_key({"key": "t"})  # remove: nothing is placed, no ghost
    a._on_hover(top_of_floor)
    assert a.canvas.ghost_at is None
    a.on_key({"key": "T"})
    a._on_hover(pick_from_point((1.0, 3.5, 0.5), (1, 0, 0)))
    assert a.canvas.ghost_at == (1, 3, 0)
    a._on_hover(None)
    assert a.canvas.ghost_at is None


def test_fill_a_line_places_each_block_by_its_own_call_and_undo_takes_it_back_at_once(tmp_path):
    a = started(tmp_path)
    a.palette.choose("dust")
    assert a.on_key({"key": "l"}) == "fill on"
    a.canvas.click_face((3, 3, 1), (0, 1, 0))
    assert set_blocks(a) == [] and a.canvas.highlighted("fill-corner") == [(3, 4, 1)]
    a.canvas.click_face((-1, 3, 1), (0, 1, 0))
    line = [((x, 4, 1), "redstone_wire") for x in range(-1, 4)]
    assert set_blocks(a) == line
    assert a.last_message == "filled 5 cell(s) from (-1, 4, 1) to (3, 4, 1) with redstone_wire"
    assert a.fill_button.value and a.canvas.highlighted("fill-corner") == []  # ready for the next fill
    for x in range(-1, 4):
        assert a.env.world.get_block((x, 4, 1)).startswith("minecraft:redstone_wire")
    a.undo_button.click()
    assert set_blocks(a)[5:] == [((x, 4, 1), "air") for x in (-1, 0, 1, 2, 3)]
    assert all(a.env.world.get_block((x, 4, 1)) == "minecraft:air" for x in range(-1, 4))
    assert a.undo_button.disabled


def test_fill_a_box_goes_bottom_up_and_skips_cells_that_hold_the_block_already(tmp_path):
    a = started(tmp_path)
    a.palette.choose("glass")
    a.canvas.click_face((1, 3, 0), (0, 1, 0))  # one glass placed by hand first, at (1, 4, 0)
    a.fill_button.value = True
    a.canvas.click_face((1, 3, 1), (0, 1, 0))  # corner (1, 4, 1)
    a.canvas.click_face((0, 4, 0), (0, 0, -1))  # a face looking north: corner (0, 4, -1)
    a.fill((0, 4, 0), (1, 5, 1), "glass")  # a 2 x 2 x 2 box over them
    assert set_blocks(a) == [((1, 4, 0), "glass"),
                             ((0, 4, -1), "glass"), ((0, 4, 0), "glass"), ((0, 4, 1), "glass"), ((1, 4, -1), "glass"),
                             ((1, 4, 1), "glass"),
                             ((0, 5, 0), "glass"), ((0, 5, 1), "glass"), ((1, 5, 0), "glass"), ((1, 5, 1), "glass")]
    assert len(a.history) == 3


def test_a_fill_too_large_or_outside_the_region_is_refused_before_anything_is_placed(tmp_path):
    a = started(tmp_path)
    assert FILL_LIMIT == 125
    assert a.fill((-3, 4, -3), (2, 8, 2), "glass") is None  # 6 x 5 x 6 = 180
    assert a.last_message == ("fill from (-3, 4, -3) to (2, 8, 2) refused: 180 blocks, more than the 125 one edit "
                              "may place")
    assert a.fill((8, 4, 0), (11, 4, 0), "glass") is None
    assert a.last_message == ("fill from (8, 4, 0) to (11, 4, 0) refused: (11, 4, 0) is outside the build region "
                              "(x -10..10, y -6..14, z -10..10)")
    assert set_blocks(a) == [] and a.history == []


def test_copy_a_box_and_paste_it_elsewhere_block_by_block_with_one_undo(tmp_path):
    a = started(tmp_path)
    a.palette.choose("repeater", facing="west", delay=3)
    a.canvas.click_face((0, 3, 0), (0, 1, 0))  # repeater at (0, 4, 0)
    a.palette.choose("dust")
    a.canvas.click_face((1, 3, 0), (0, 1, 0))  # dust at (1, 4, 0)
    a.palette.choose("glass")
    a.canvas.click_face((1, 4, 0), (0, 1, 0))  # glass on top of the dust: (1, 5, 0)
    assert a.paste_button.disabled and a.on_key({"key": "v"}) is None
    assert a.last_message == "nothing to paste: copy a box first (C)"
    assert a.on_key({"key": "c"}) == "copy on"
    a.canvas.click_face((0, 4, 0), (0, 1, 0))  # the repeater: one corner
    a.canvas.click_face((1, 5, 1), (0, 1, 0))  # a cell of air at the other corner: the box is 2 x 2 x 2
    assert a.clipboard == {(0, 0, 0): "minecraft:redstone_repeater[delay=3,facing=west]",
                           (1, 0, 0): "minecraft:redstone_wire", (1, 1, 0): "minecraft:glass"}
    assert not a.copy_button.value and not a.paste_button.disabled
    assert a.last_message.startswith("copied 3 block(s) from (0, 4, 0) to (1, 5, 1)")
    calls = len(set_blocks(a))
    assert a.on_key({"key": "v"}) == "paste on"
    a.canvas.click_face((4, 3, 2), (0, 1, 0))  # the copy's lowest corner goes to (4, 4, 2)
    # in the order a build is placed: free-standing blocks bottom up, then those that need a support
    assert set_blocks(a)[calls:] == [((5, 5, 2), "glass"), ((4, 4, 2), "redstone_repeater[delay=3,facing=west]"),
                                     ((5, 4, 2), "redstone_wire")]
    assert a.last_message == "pasted 3 block(s) of 3 at (4, 4, 2)"
    assert a.env.world.get_block((4, 4, 2)).startswith("minecraft:redstone_repeater[delay=3,facing=west")
    assert a.paste_button.value  # paste again elsewhere, as often as wanted
    a.undo_button.click()
    assert set_blocks(a)[calls + 3:] == [((5, 5, 2), "air"), ((4, 4, 2), "air"), ((5, 4, 2), "air")]
    assert a.paste((10, 4, 0)) is None  # the repeater would go in, the dust and the glass (x 11) not
    assert a.last_message == ("paste at (10, 4, 0) refused: (11, 4, 0) is outside the build region "
                              "(x -10..10, y -6..14, z -10..10)")
    assert len(set_blocks(a)) == calls + 6 and a.env.world.get_block((10, 4, 0)) == "minecraft:air"
    assert a.on_key({"key": "Escape"}) == "paste off" and not a.paste_button.value


def test_r_turns_the_copy_while_pasting_positions_and_facings_alike(tmp_path):
    a = started(tmp_path)
    a.palette.choose("repeater", facing="west", delay=2)  # output to the east, into the dust
    a.canvas.click_face((0, 3, 0), (0, 1, 0))
    a.palette.choose("dust")
    a.canvas.click_face((1, 3, 0), (0, 1, 0))
    a.copy((0, 4, 0), (1, 4, 0))
    a.on_key({"key": "v"})
    assert a.on_key({"key": "r"}) == "paste turned" and a.palette.facing.value == "west"  # not the palette's
    # a quarter turn clockwise: the output points south, into the dust now south of the repeater
    assert a.clipboard == {(0, 0, 0): "minecraft:redstone_repeater[delay=2,facing=north]",
                           (0, 0, 1): "minecraft:redstone_wire"}
    calls = len(set_blocks(a))
    a.canvas.click_face((-3, 3, 2), (0, 1, 0))
    assert set_blocks(a)[calls:] == [((-3, 4, 2), "redstone_repeater[delay=2,facing=north]"),
                                     ((-3, 4, 3), "redstone_wire")]
    a.on_key({"key": "R"})  # back a quarter turn: as copied
    assert a.clipboard == {(0, 0, 0): "minecraft:redstone_repeater[delay=2,facing=west]",
                           (1, 0, 0): "minecraft:redstone_wire"}
    a.turn_clipboard(2)  # half a turn: output to the west, the dust on the west
    assert a.clipboard == {(1, 0, 0): "minecraft:redstone_repeater[delay=2,facing=east]",
                           (0, 0, 0): "minecraft:redstone_wire"}


def test_pasting_shows_the_whole_copy_where_it_would_land_turned_as_it_is(tmp_path):
    from scicraft_viz.views.annotator import GHOST_COLOR

    a = started(tmp_path)
    a.palette.choose("repeater", facing="west", delay=2)
    a.canvas.click_face((0, 3, 0), (0, 1, 0))  # repeater at (0, 4, 0)
    a.palette.choose("dust")
    a.canvas.click_face((1, 3, 0), (0, 1, 0))  # dust at (1, 4, 0)
    a.palette.choose("glass")
    a.canvas.click_face((1, 4, 0), (0, 1, 0))  # glass at (1, 5, 0)
    a.copy((0, 4, 0), (1, 5, 0))
    floor = pick_from_point((4.5, 4.0, 2.5), (0, 1, 0))  # the top of the floor block (4, 3, 2): target (4, 4, 2)
    a._on_hover(floor)
    assert a.canvas.ghost_cells == [] and a.canvas.ghost_at == (4, 4, 2)  # placing: the one-block ghost
    assert a.on_key({"key": "v"}) == "paste on"
    # the footprint shows at once where the mouse already is: every copied block, not the air between
    assert a.canvas.ghost_cells == [(4, 4, 2), (5, 4, 2), (5, 5, 2)] and a.canvas.ghost_at is None
    assert a.canvas._footprint.material.color == GHOST_COLOR["paste"]
    # one mesh: 12 triangles per copied block
    assert len(a.canvas._footprint.geometry.attributes["position"].array) == 3 * 36
    a.on_key({"key": "r"})  # a quarter turn clockwise: east becomes south
    assert a.canvas.ghost_cells == [(4, 4, 2), (4, 4, 3), (4, 5, 3)]
    a.canvas.click_face((4, 3, 2), (0, 1, 0))
    assert a.last_message == "pasted 3 block(s) of 3 at (4, 4, 2)"
    assert a.env.world.get_block((4, 5, 3)) == "minecraft:glass"  # it landed where the footprint was
    a._on_hover(pick_from_point((10.5, 4.0, 0.5), (0, 1, 0)))  # (10, 4, 0): the turned copy reaches z 1, x 10
    assert a.canvas.ghost_cells == [(10, 4, 0), (10, 4, 1), (10, 5, 1)]
    assert a.canvas._footprint.material.color == GHOST_COLOR["paste"]
    a.on_key({"key": "R"})  # back: it would now reach x 11, outside the region, and the footprint says so
    assert a.canvas.ghost_cells == [(10, 4, 0), (11, 4, 0), (11, 5, 0)]
    assert a.canvas._footprint.material.color == GHOST_COLOR["refused"]
    assert a.on_key({"key": "Escape"}) == "paste off" and a.canvas.ghost_cells == []
    assert a.canvas.ghost_at == (10, 4, 0)  # the one-block ghost of placing is back
