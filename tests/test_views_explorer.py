"""The composed explorer and its pieces, driven through their widget API (no browser)."""

import numpy as np
import pytest

from scicraft_viz import tasks
from scicraft_viz.demo import demo_world
from scicraft_viz.views import Explorer, LampTimeline, Palette, Session, SignalHeatmap, contract_view
from scicraft_viz.views import geometry as G
from scicraft_viz.views.canvas import Pick
from scicraft_viz.views.stepper import tick_text


@pytest.fixture
def ex():
    return Explorer(world=demo_world())


def message(ex):
    return ex.session.message


def test_double_click_places_the_palette_block_on_the_clicked_face(ex):
    ex.palette.choose("lamp")
    ex.canvas.click_face((2, 3, 3), (0, 1, 0))  # top face of a floor stone
    assert ex.session.world.get_block((2, 4, 3)) == "minecraft:redstone_lamp[lit=false]"
    assert message(ex) == "placed redstone_lamp at (2, 4, 3)"
    assert "scv-message" in ex.message.value and "placed redstone_lamp at (2, 4, 3)" in ex.message.value
    assert ex.canvas.frame.layout.at((2, 4, 3)) is not None
    assert not ex.undo_button.disabled


def test_facing_auto_takes_the_camera_s_look_as_the_game_takes_the_player_s(ex):
    ex.palette.choose("repeater", facing="auto", delay=1)
    ex.canvas.camera.position = (-12.0, 6.0, 1.0)  # west of the build, looking east
    ex.canvas.click_face((2, 3, 3), (0, 1, 0))
    # input on the viewer's side (west), output pointing the way the camera looks (east)
    assert ex.session.world.get_block((2, 4, 3)).startswith("minecraft:redstone_repeater[delay=1,facing=west")


def test_shift_double_click_removes_and_ctrl_double_click_uses(ex):
    ex.canvas.click_face((2, 3, 3), (0, 1, 0), shift=True)
    assert ex.session.world.get_block((2, 3, 3)) == "minecraft:air"
    ex.canvas.click_face((2, 4, 0), (0, 1, 0), ctrl=True)  # the first repeater
    assert "delay=2" in ex.session.world.get_block((2, 4, 0))
    ex.undo_button.click()
    ex.undo_button.click()
    assert ex.session.world.get_block((2, 3, 3)) == "minecraft:stone"
    assert "delay=1" in ex.session.world.get_block((2, 4, 0))


def test_clicks_that_cannot_work_say_why(ex):
    ex.canvas.click(None)
    assert message(ex) == "nothing there: double-click on a block or on the grey floor of the region"
    ex.palette.choose("dust")
    ex.canvas.click_face((9, 3, 3), (1, 0, 0))  # the east side of the floor's corner: air below
    assert message(ex) == ("cannot place redstone_wire at (10, 3, 3): it needs a solid block below at (10, 2, 3), "
                           "but there is minecraft:air")
    ex.canvas.click_face((1, 4, 2), (0, 0, -1))  # north of a lamp is the dust branch already
    assert message(ex) == "there already is redstone_wire at (1, 4, 1)"
    ex.palette.choose("torch")
    ex.canvas.click_face((2, 3, 3), (0, -1, 0))
    assert message(ex) == "a torch cannot hang under a block: click a top or side face"
    ex.palette.choose("stone")
    ex.canvas.click_face((12, 3, 0), (1, 0, 0))
    assert message(ex) == "(13, 3, 0) is outside the build region (-4, 0, -4)..(12, 8, 6)"


def test_palette_turns_faces_into_states():
    p = Palette()
    side = Pick((0, 0, 0), (1, 0, 0), (1, 0, 0))
    top = Pick((0, 0, 0), (0, 1, 0), (0, 1, 0))
    assert p.choose("torch").state_for(side) == "redstone_wall_torch[facing=east]"
    assert p.choose("torch").state_for(top) == "redstone_torch"
    assert p.choose("button", facing="south").state_for(top) == "stone_button[face=floor,facing=south]"
    assert p.choose("button").state_for(side) == "stone_button[face=wall,facing=east]"
    assert p.choose("lever", face="ceiling", facing="west").state_for(side) == "lever[face=ceiling,facing=west]"
    assert p.choose("repeater", facing="west", delay=3).state_for(top) == "redstone_repeater[delay=3,facing=west]"
    assert p.choose("redstone_block").state_for(top) == "redstone_block"
    assert "input from the west, output to the east; delay 3 rt = 6 gt" in p.choose(
        "repeater", facing="west", delay=3).hint.value
    assert p.choose("comparator", facing="north").state_for(side) == "comparator[facing=north]"
    assert "input from the north, output to the south, sides compared" in p.hint.value
    assert p.facing.layout.display is None and p.delay.layout.display == "none"


def test_task_palette_offers_the_task_blocks():
    p = Palette(blocks=tasks.load("A_simultaneous_lights_L1").allowed_blocks)
    assert list(p.block.options) == ["stone", "glass", "dust", "repeater", "torch", "lamp", "button"]


def test_stepper_steps_presses_and_counts_in_both_units(ex):
    ex.stepper.press_button.click()
    for _ in range(3):
        ex.stepper.step_button.click()
    ex.stepper.step_rt_button.click()
    s = ex.session
    assert (s.tick, s.end, s.presses) == (5, 5, [0])
    assert "tick 5 gt</b> · 2.5 rt · press +5 gt (+2.5 rt) · live" in ex.stepper.counter.value
    ex.stepper.back_button.click()
    assert s.tick == 4 and "replaying 0..5" in ex.stepper.counter.value
    now = [100.0]
    ex.stepper._clock = lambda: now[0]
    ex.stepper.play.playing = True  # 10 gt/s from tick 4
    now[0] = 100.3
    ex.stepper.play.value = 1  # a beat of the play timer, 0.3 s after play started
    assert s.tick == 7
    now[0] = 101.0
    ex.stepper.play.value = 2  # a late beat catches up: time decides the tick, not the number of beats
    assert s.tick == 14
    ex.stepper.play.value = 0  # its stop button: no step
    assert s.tick == 14
    ex.stepper.speed.value = 20  # a new speed counts from now
    now[0] = 101.5
    ex.stepper.play.value = 1
    assert s.tick == 24
    ex.stepper.play.playing = False
    ex.stepper.reset_button.click()
    assert (s.tick, s.end, s.presses) == (0, 0, [])


def test_tick_text():
    assert tick_text(7, 0, 9, 2) == ("<span class='scv-tick' style='font-family:monospace;white-space:nowrap'>"
                                     "<b>tick 7 gt</b> · 3.5 rt · press +5 gt (+2.5 rt) · replaying 0..9</span>")


def test_scrubbing_moves_every_view_to_the_recorded_row(ex):
    s = ex.session
    s.press()
    s.step(10)
    ex.heatmap.tick_slider.value = 2
    assert s.tick == 2 and s.world.tick == 10
    frame = s.frame(2)
    assert ex.canvas.frame.tick == 2
    expected = G.vertex_colors(ex.canvas._geom, frame)["solid"]
    got = ex.canvas._buffers["solid"].col_attr.array[: len(expected)]
    assert np.array_equal(got, expected)
    assert list(ex.timeline.figure.data[6].x) == [2, 2]
    grid = ex.heatmap.power_grid()
    assert grid[0 - (-4), 1 - (-4)] == frame.power[frame.layout.at((1, 4, 0))] == 15
    assert grid[0 - (-4), 5 - (-4)] == 0  # dust after the delay-2 repeater: not yet at tick 2


def test_selecting_a_timeline_cell_selects_tick_and_lamp(ex):
    ex.session.press()
    ex.session.step(8)
    ex.timeline.select(4, (3, 4, 2))
    assert ex.session.tick == 4
    assert ex.canvas.highlighted("selected") == [(3, 4, 2)]
    assert ex.timeline.figure.data[5].x[0] is not None  # the selected row's band


def test_timeline_rows_and_cells_come_from_the_trace():
    s = Session(demo_world())
    s.press()
    s.step(9)
    t = LampTimeline()
    t.show(s.trace, presses=s.presses, cursor=9)
    assert t.lamps == [(1, 4, 2), (3, 4, 2), (5, 4, 2), (7, 4, 2)]
    assert t.cells().tolist() == [
        [1] * 10,
        [0, 0] + [1] * 8,
        [0] * 6 + [1] * 4,
        [0] * 8 + [1] * 2,
    ]
    t.unit.value = "redstone"
    assert list(t.figure.data[0].x) == [i / 2 for i in range(10)]
    assert t.figure.layout.xaxis.title.text == "redstone ticks after the press (rt)"
    # x stays the absolute tick (a click names it); the labels count from the press
    ax = t.figure.layout.xaxis
    assert ax.tickmode == "array" and ax.ticktext[list(ax.tickvals).index(0)] == "press"
    assert [sh.x0 for sh in t.figure.layout.shapes] == [0]


def test_contract_windows_are_drawn_and_violations_coloured():
    task = tasks.load("E_pulse_shaping_L2")
    ex = Explorer(task=task, build="solution")
    ex.session.run_test()
    tl = ex.timeline
    press = ex.session.presses[-1]
    assert ex.session.tick == press + task.record_game_ticks
    assert tl.figure.data[3].x == ()  # no violated windows
    on_x = [x for x in tl.figure.data[1].x if x is not None]
    assert min(on_x) == press - 0.5 and max(on_x) == press + 4.5  # on-window [t, t+2 rt] of every lamp
    assert set(np.unique(tl.cells())) == {0, 1}
    assert "pulse_off_window</b>: ok" in tl.summary.value
    assert tl.title().endswith("E_pulse_shaping_L2 contract: all lamps within their windows")

    broken = Explorer(task=task, build="solution")
    s = broken.session
    rep = next(p for p, st in s.world.blocks().items() if "repeater" in st)
    s.use(rep)
    s.use(rep)  # delay 1 -> 3: the pulse ends 2 rt late
    s.reset()
    s.run_test()
    view = contract_view(task, s.trace, s.presses[-1])
    assert view.violations and len(broken.timeline.figure.data[3].x) > 0
    # a missed window is an outline: the lamp's cells still say when it was lit, and hovering says what was missed
    assert set(np.unique(broken.timeline.cells())) == {0, 1}
    assert broken.timeline.figure.data[3].fill in (None, "none")
    row = broken.timeline.lamps.index(view.violations[0])
    on = view.window_of(view.violations[0]).on
    text = broken.timeline.hover_texts()[row][on - s.start]
    assert text == "lit<br>must light at +0..+4 gt: met<br>must go dark at +10..+14 gt: MISSED"
    assert broken.canvas.highlighted("violations") == view.violations
    assert "FAIL" in broken.timeline.summary.value


def test_contract_view_for_a_sequence():
    task = tasks.load("C_sequential_activation_L1")
    s = Session(task=task, build="tasks/solutions/C_sequential_activation_L1.mcfunction")
    s.run_test()
    view = contract_view(task, s.trace, s.presses[-1])
    ons = sorted(w.on for w in view.lamps)
    wins = {w.on: w.on_window for w in view.lamps}
    delays = [2 * d for d in task.contract["delays_ticks"]]
    for prev, cur, d in zip(ons, ons[1:], delays):
        assert wins[cur] == (prev + d - 2, prev + d + 2)
    assert all(w.on_status == "ok" for w in view.lamps) and view.complete


def test_heatmap_layer_markers_and_hover():
    s = Session(demo_world())
    h = SignalHeatmap(s.region)
    h.show(s.frame())
    assert h.layer.value == 4
    sc = h.figure.data[1]
    assert (0, 0) in set(zip(sc.x, sc.y))  # the button
    i = list(zip(sc.x, sc.y)).index((2, 0))
    assert sc.marker.symbol[i] == "triangle-right"  # repeater facing west: output east
    assert "redstone_repeater[delay=1,facing=west,locked=false,powered=false]" in sc.text[i]
    assert "(%{x}, 4, %{y})<br>redstone_wire<br>power %{z}" in h.figure.data[0].hovertemplate


def test_explorer_accepts_a_task_id_and_a_solution():
    ex = Explorer(task="A_simultaneous_lights_L1", build="solution")
    assert ex.session.task.id == "A_simultaneous_lights_L1"
    assert "A_simultaneous_lights_L1" in ex.children[0].value
    with pytest.raises(ValueError, match="build='solution' needs a task"):
        Explorer(build="solution")


def test_displaying_refreshes_the_figure_snapshots(ex):
    ex.session.press()
    ex.session.step(3)
    ex._repr_mimebundle_()
    assert ex.timeline.figure._widget_data[0]["z"] is not None
    assert len(ex.timeline.figure._widget_data[0]["y"]) == 4


def test_the_timeline_title_says_failing_once_a_lamp_has_missed_its_window():
    from scicraft_viz.diagnose import gallery

    dev = gallery.device("backwards_repeaters")
    ex = Explorer(task=dev.task(), world=dev.world())
    s = ex.session
    s.press()
    assert ex.timeline.title().endswith("contract: no window missed yet (test running) (as of press +0 gt)")
    s.step(20)  # the lit lamps lit at once; the others have already missed the skew window
    view = contract_view(ex.task, s.trace, s.presses[-1])
    dark = int((~s.trace.lamp_lit.any(0)).sum())
    assert dark == 24 and len(view.violations) == 24 and not view.complete
    assert ex.timeline.title() == ("lamp timeline · A_simultaneous_lights_L4 contract: 24 lamp(s) already missed a "
                                   "window: FAILING (as of press +20 gt)")
    assert ex.timeline.figure.layout.title.text == ex.timeline.title()
    assert "failing</span>" in ex.timeline.summary.value


def test_the_timeline_zooms_to_the_activity_with_whole_ticks(ex):
    s = ex.session
    s.press()
    s.step(100)
    tl = ex.timeline
    lit = s.trace.lamp_lit
    last = int(s.trace.ticks[np.flatnonzero((lit[1:] != lit[:-1]).any(1))[-1] + 1])
    pad = max(2, last // 10)
    assert tl.tick_range() == (0, 100)  # the cursor, at the live tick, is always in view
    s.seek(10)
    assert tl.tick_range() == (0, last + pad)
    # the tick is in the span shown: the axis stays as the user sees it, only the tick line moves
    assert tuple(tl.figure.layout.xaxis.range) == (-0.5, 100.5) and list(tl.figure.data[6].x) == [10, 10]
    tl.span.value = "whole"
    assert tuple(tl.figure.layout.xaxis.range) == (-0.5, 100.5) and tl.figure.layout.xaxis.dtick == 10
    tl.span.value = "activity"  # laid out again: the activity's span
    assert tuple(tl.figure.layout.xaxis.range) == (-0.5, last + pad + 0.5)
    assert tl.figure.layout.xaxis.dtick == 5 and tl.figure.layout.xaxis.tickformat == "d"
    s.seek(last + pad + 8)  # a tick outside the span shown: the axis widens to hold it
    assert tuple(tl.figure.layout.xaxis.range) == tuple(v - 0.5 + k for v, k in zip(tl.tick_range(), (0, 1)))
    assert tl.tick_range()[1] >= last + pad + 10 and tl.in_view(s.tick)
    empty = LampTimeline()
    empty.show(Session(demo_world()).trace)
    assert empty.figure.layout.xaxis.dtick == 1  # no fractional ticks on an empty timeline


def test_hovering_a_timeline_cell_says_lit_or_dark_in_words(ex):
    ex.session.press()
    ex.session.step(3)
    texts = ex.timeline.hover_texts()
    assert texts[1] == ["dark", "dark", "lit", "lit"]
    assert "%{text}" in ex.timeline.figure.data[0].hovertemplate
    assert "(0 dark" not in ex.timeline.figure.data[0].hovertemplate


def test_hovering_the_canvas_describes_the_block(ex):
    ex.session.press()
    ex.session.step(4)
    c = ex.canvas
    assert c.hover(Pick((1, 4, 0), (1, 5, 0), (0, 1, 0))) == (
        "(1, 4, 0) redstone_wire[east=side,north=none,power=15,south=side,west=side] · power 15 of 15")
    assert "power 15 of 15" in c.hover_info.value
    text = c.hover(Pick((2, 4, 0), (2, 5, 0), (0, 1, 0)))
    assert text == ("(2, 4, 0) redstone_repeater[delay=1,facing=west,locked=false,powered=true] · input from the west, "
                    "output to the east, delay 1 rt; powered")
    assert c.hover(None) == "hover a block to read its position, state and power"


def test_keyboard_shortcuts(ex):
    s = ex.session
    assert ex.on_key({"key": "ArrowRight"}) == "step" and s.tick == 1
    assert ex.on_key({"key": "ArrowRight", "shiftKey": True}) == "step" and s.tick == 3
    assert ex.on_key({"key": "ArrowLeft"}) == "back" and s.tick == 2
    assert ex.on_key({"key": " "}) == "play" and ex.stepper.play.playing
    assert ex.on_key({"key": " "}) == "pause" and not ex.stepper.play.playing
    ex.place((2, 4, 3), "redstone_lamp")
    assert ex.on_key({"key": "z"}) == "undo" and s.world.get_block((2, 4, 3)) == "minecraft:air"
    assert ex.on_key({"key": "Z", "shiftKey": True}) == "redo" and "redstone_lamp" in s.world.get_block((2, 4, 3))
    assert ex.on_key({"key": "q"}) is None
    assert ex.events.watched_events == ["keydown"] and ex.events.source is ex


def all_widgets(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from all_widgets(child)


def test_every_control_has_a_tooltip():
    import ipywidgets as W

    ex = Explorer(task="A_simultaneous_lights_L1", build="solution")
    controls = (W.Button, W.ToggleButton, W.IntSlider, W.Dropdown, W.Play, W.Select, W.Checkbox)
    seen = 0
    for w in all_widgets(ex):
        if isinstance(w, W.ToggleButtons):
            assert len(w.tooltips) == len(w.options) and all(w.tooltips), w.options
            seen += 1
        elif isinstance(w, controls):
            assert w.tooltip, f"{type(w).__name__} {getattr(w, 'description', '')!r} has no tooltip"
            seen += 1
    assert seen >= 20


def test_the_heatmap_names_its_tick_and_explains_its_markers(ex):
    ex.session.press()
    ex.session.step(5)
    assert ex.heatmap.figure.layout.title.text == "dust power on layer y=4 · tick 5 gt"
    assert "▲ repeater (points to its output)" in ex.heatmap.legend.value
    ex.session.seek(2)
    assert ex.heatmap.figure.layout.title.text == "dust power on layer y=4 · tick 2 gt"


def test_a_long_evaluator_report_wraps_beside_the_heatmap():
    ex = Explorer(task="A_simultaneous_lights_L1", build="solution")
    ex.show_evaluation()
    assert ex.report.layout.width == "480px" and "overflow-wrap:anywhere" in ex.report.value
    assert ex.heatmap.layout.flex == "0 0 auto"


def test_export_the_build_in_every_format_and_the_test_as_a_gif(tmp_path):
    import io

    from PIL import Image

    from scicraft_viz.engine.formats import read_build, write_build
    from scicraft_viz.views.animation import pick_ticks

    ex = Explorer(task="A_simultaneous_lights_L1", build="solution")
    blocks = ex._export_blocks()
    assert blocks and not any(p[1] == 3 and st == "minecraft:stone" for p, st in blocks.items())  # no floor
    for fmt, ext in (("mcfunction", ".mcfunction"), ("litematic", ".litematic"), ("schem", ".schem")):
        name, data = ex.exporter.export(fmt)
        assert name == f"A_simultaneous_lights_L1_build{ext}"
        if fmt == "mcfunction":
            assert data == write_build(blocks, fmt)
        assert f"download='{name}'" in ex.exporter.link.value and ";base64," in ex.exporter.link.value
        (tmp_path / name).write_bytes(data)
        assert dict(read_build(tmp_path / name)).keys() == blocks.keys()
    ex.session.run_test()
    name, data = ex.exporter.export("gif")
    img = Image.open(io.BytesIO(data))
    lo, hi = ex.timeline.tick_range()
    assert name == "A_simultaneous_lights_L1_build.gif" and img.n_frames == len(pick_ticks(lo, max(hi, lo + 40)))
    img.seek(0)
    first = np.asarray(img.convert("RGB"))
    img.seek(img.n_frames // 2)
    assert not np.array_equal(first, np.asarray(img.convert("RGB")))  # the lamps change as the test runs



def test_the_counter_shows_a_press_at_once(ex):
    ex.stepper.press_button.click()
    assert "press +0 gt (+0 rt) · live" in ex.stepper.counter.value


def test_a_window_open_until_the_end_does_not_stretch_the_timeline():
    ex = Explorer(task="C_sequential_activation_L1", build="solution")
    s = ex.session
    s.run_test()
    s.seek(s.presses[-1] + 10)
    lo, hi = ex.timeline.tick_range()
    view = contract_view(ex.task, s.trace, s.presses[-1])
    last_on = max(w.on_window[1] for w in view.lamps if w.on_window[1] < view.horizon)
    assert view.horizon == s.end and lo == s.start == s.presses[-1] and last_on <= hi < s.end - 40
