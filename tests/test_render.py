"""The headless renderer: the explorer's colours at exact pixels, every preset and an explicit camera,
unknown blocks drawn plainly, clear refusals of bad views, stable pixel hashes, the lamp timeline."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from scicraft_viz import tasks
from scicraft_viz.engine.trace import Trace
from scicraft_viz.views import geometry as G
from scicraft_viz.views import render as R

SIZE = (256, 200)
FLOOR = {(x, 3, z): "stone" for x in range(-2, 3) for z in range(-2, 3)}


def centre(r: R.Rendering) -> tuple[int, int, int]:
    """The pixel the top view puts the middle of the view box at (the one block standing there)."""
    w, h = r.image.size
    return r.image.getpixel((w // 2, R._CAPTION_H + (h - R._CAPTION_H) // 2))


def colour(name: str, shade: float = 1.0) -> tuple[int, ...]:
    return tuple(int(v) for v in np.clip(np.array(G._COLORS[name], np.float32) * shade * 255.0 + 0.5, 0, 255))


@pytest.mark.parametrize(("state", "name"), [("redstone_lamp[lit=true]", "lamp_on"),
                                             ("redstone_lamp[lit=false]", "lamp_off"),
                                             ("redstone_block", "rblock")])
def test_top_view_shows_the_canvas_colour_of_the_block_from_above(state, name):
    r = R.render(FLOOR | {(0, 4, 0): state}, camera="top", size=SIZE)
    assert centre(r) == colour(name)


@pytest.mark.parametrize(("state", "name"), [("observer[facing=north]", "observer"),
                                             ("observer[facing=up]", "observer_face"),
                                             ("piston[facing=up]", "plate"),
                                             ("sticky_piston[facing=up]", "sticky_plate"),
                                             ("piston[facing=up,extended=true]", "piston"),
                                             ("piston_head[facing=up,type=sticky]", "sticky_plate")])
def test_observers_and_pistons_show_their_face_from_above(state, name):
    r = R.render(FLOOR | {(0, 4, 0): state}, camera="top", size=SIZE)
    assert centre(r) == colour(name)


def test_a_block_the_views_do_not_know_is_a_plain_cube_not_an_error():
    r = R.render(FLOOR | {(0, 4, 0): "minecraft:tnt[unstable=false]"}, camera="top", size=SIZE)
    expected = tuple(int(v) for v in np.clip(np.array(R.UNKNOWN, np.float32) * 255.0 + 0.5, 0, 255))
    assert centre(r) == expected
    assert r.caption.endswith("26 blocks shown")  # the 5 x 5 floor and the block on it


@pytest.mark.parametrize("short, full", [("lightning_rod", "lightning_rod[facing=up,powered=false,waterlogged=false]"),
                                         ("oak_fence[east=true]", "oak_fence[east=true,north=false,south=false,"
                                                                  "waterlogged=false,west=false]")])
def test_a_state_that_leaves_out_its_defaults_is_drawn_as_the_full_state(short, full):
    drawn = [R.render(FLOOR | {(0, 4, 0): state}, size=SIZE).sha256 for state in (short, full)]
    assert drawn[0] == drawn[1]


@pytest.mark.parametrize("state", ["white_concrete", "oak_planks", "minecraft:repeater[facing=west,delay=2]"])
def test_vanilla_blocks_and_vanilla_names_are_drawn_as_the_canvas_draws_them(state):
    from scicraft_viz.views.frame import frame_from_blocks

    r = R.render(FLOOR | {(0, 4, 0): state}, camera="top", size=SIZE)
    assert centre(r) != tuple(int(v) for v in np.clip(np.array(R.UNKNOWN, np.float32) * 255.0 + 0.5, 0, 255))
    if "repeater" not in state:  # a full block's top face shows its family's colour, as on the canvas
        f = frame_from_blocks({(0, 4, 0): state})
        g = G.build(f.layout)
        top = G.box_colors(g, f)[0]
        assert centre(r) == tuple(int(v) for v in np.clip(np.asarray(top, np.float32) * 255.0 + 0.5, 0, 255))


def test_lit_and_dark_builds_differ_and_the_same_build_hashes_the_same():
    dark = R.render(FLOOR | {(0, 4, 0): "redstone_lamp[lit=false]"}, size=SIZE)
    again = R.render(FLOOR | {(0, 4, 0): "redstone_lamp[lit=false]"}, size=SIZE)
    lit = R.render(FLOOR | {(0, 4, 0): "redstone_lamp[lit=true]"}, size=SIZE)
    assert dark.sha256 == again.sha256 != lit.sha256
    assert dark.sha256 == R.pixel_hash(Image.open(io.BytesIO(dark.png)))  # the PNG holds exactly those pixels


def test_repeater_facing_and_delay_change_the_picture():
    shas = {R.render(FLOOR | {(0, 4, 0): f"redstone_repeater[facing={f},delay={d}]"}, camera="top", size=SIZE).sha256
            for f in ("north", "east", "south", "west") for d in (1, 4)}
    assert len(shas) == 8


@pytest.mark.parametrize("camera", list(R.PRESETS))
def test_every_preset_draws_the_build_at_the_requested_size(camera):
    r = R.render(FLOOR | {(0, 4, 0): "redstone_lamp[lit=true]"}, camera=camera, size=(320, 240))
    assert r.image.size == (320, 240) and r.camera == camera
    assert colour("lamp_on") in {c for _, c in r.image.getcolors(320 * 240)}
    assert r.caption.startswith(f"{camera} view · x -2..2, z -2..2")


def test_an_explicit_camera_sees_only_what_is_in_front_of_it():
    blocks = FLOOR | {(0, 4, 0): "redstone_block"}
    toward = R.render(blocks, position=[0.5, 8, 6], look=[0, -1, -1.2], size=SIZE)
    away = R.render(blocks, position=[0.5, 8, 6], look=[0, 0, 1], size=SIZE)
    red = {c for _, c in toward.image.getcolors(SIZE[0] * SIZE[1])}
    assert colour("rblock") in red or colour("rblock", 0.66) in red or colour("rblock", 0.8) in red
    colours = {c for _, c in away.image.getcolors(SIZE[0] * SIZE[1])}
    assert not colours & {colour("rblock", s) for s in (1.0, 0.8, 0.66, 0.55)}
    assert toward.caption.startswith("from (0.5, 8.0, 6.0) looking")


@pytest.mark.parametrize(("kw", "message"), [
    ({"camera": "diagonal"}, "camera must be one of iso, iso-nw, top, north, south, east, west, got 'diagonal'"),
    ({"size": (10, 100)}, "width must be an integer 64..1024 pixels, got 10"),
    ({"size": (100, 5000)}, "height must be an integer 64..1024 pixels, got 5000"),
    ({"size": (100, True)}, "height must be an integer 64..1024 pixels, got True"),
    ({"size": [100]}, "size must be [width, height] in pixels, got [100]"),
    ({"position": [0, 1, 2]}, "position and look go together: where the camera stands and the direction it looks"),
    ({"position": [0, 1, 2], "look": [0, 0, 0]}, "look must be a direction, not [0, 0, 0]"),
    ({"position": [0, float("nan"), 2], "look": [0, 0, 1]},
     "position must be three finite numbers [x, y, z] within 10000 of 0, got [0, nan, 2]"),
    ({"position": [0, 1, 2], "look": [0, 1]},
     "look must be three finite numbers [x, y, z] within 10000 of 0, got [0, 1]"),
])
def test_an_unusable_view_is_refused_with_what_is_wrong(kw, message):
    with pytest.raises(R.RenderError) as e:
        R.render(FLOOR, **kw)
    assert str(e.value) == message


def test_nothing_at_all_still_gives_a_picture():
    r = R.render({}, size=SIZE)
    assert r.image.size == SIZE and r.caption.endswith("0 blocks shown")


STATES = st.sampled_from(["stone", "glass", "redstone_lamp[lit=true]", "redstone_wire[power=7]", "redstone_block",
                          "redstone_torch[lit=false]", "lever[face=wall,facing=east,powered=true]",
                          "stone_button[face=ceiling,facing=north,powered=false]", "redstone_repeater[delay=3]",
                          "target", "minecraft:observer[facing=up]", "not a state", "redstone_lamp[lit=maybe]"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.tuples(*[st.integers(-6, 6)] * 3), STATES, max_size=40),
       st.sampled_from(list(R.PRESETS)), st.integers(64, 300), st.integers(64, 300))
def test_any_blocks_from_any_preset_render_without_error(blocks, camera, w, h):
    r = R.render(blocks, camera=camera, size=(w, h))
    assert r.image.size == (w, h) and r.image.mode == "RGB"
    assert r.sha256 == R.pixel_hash(r.image) and len(r.sha256) == 64


def test_lamp_timeline_marks_lit_ticks_and_the_contract_windows():
    t = tasks.load("A_simultaneous_lights_L1")
    lamps = [(1, 4, 0), (2, 4, 0)]
    lit = np.zeros((40, 2), bool)
    lit[3:20, 0] = True
    lit[5:20, 1] = True
    trace = Trace(ticks=np.arange(100, 140), lamp_positions=lamps, lamp_lit=lit, dust_positions=[],
                  dust_power=np.zeros((40, 0), np.uint8), component_positions=[], component_kinds=[],
                  component_on=np.zeros((40, 0), bool))
    r = R.render_timeline(trace, 100, task=t, trial=2, width=400)
    assert r.caption.startswith("lamp timeline of trial 2 · 2 lamps · 40 game ticks from the press at tick 100")
    assert "green outline: window to light" in r.caption
    left, top, row_h = 96, 36, 14
    cell = (400 - left - 8) / 40
    y = top + row_h // 2
    assert r.image.getpixel((int(left + 10.5 * cell), y)) == R.LAMP_ON  # lamp 1 lit at +10
    assert r.image.getpixel((int(left + 30.5 * cell), y)) == R.LAMP_OFF  # and dark at +30
    assert r.image.getpixel((int(left + 4.5 * cell), y + row_h)) == R.LAMP_OFF  # lamp 2 not yet lit at +4
    greens = sum(1 for x in range(left, 400) for yy in range(top, top + 2 * row_h)
                 if r.image.getpixel((x, yy)) == R.ON_WINDOW)
    assert greens > 0  # the window the skew rule allows, outlined


def test_the_api_example_runs_as_written():
    import doctest
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    section = text[text.index("## Pictures of a build"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    test = doctest.DocTestParser().get_doctest(code, {}, "api.md: pictures", "docs/api.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(0, 5)
