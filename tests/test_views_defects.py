"""The explorer's reported defects, each pinned by what a user would see (no browser)."""

import pytest

from scicraft_viz import tasks
from scicraft_viz.demo import demo_world
from scicraft_viz.views import Explorer, LampTimeline, Session, contract_view


@pytest.fixture(scope="module")
def late_pulse():
    """E_pulse_shaping_L2 with one repeater at delay 3: its lamps go dark 2 rt late."""
    task = tasks.load("E_pulse_shaping_L2")
    ex = Explorer(task=task, build="solution")
    s = ex.session
    rep = next(p for p, st in s.world.blocks().items() if "repeater" in st)
    s.use(rep)
    s.use(rep)
    s.reset()
    s.run_test()
    return ex


def test_the_figure_title_names_the_shown_tick_while_the_standing_holds(late_pulse):
    ex = late_pulse
    press, lamp = ex.session.presses[-1], ex.timeline.lamps[0]
    for dt in (20, 24, 30):  # the lamps have missed their windows from +14 gt on: the standing stays the same
        ex.timeline.select(press + dt, lamp)
        assert ex.timeline.figure.layout.title.text.endswith(f"FAILING (as of press +{dt} gt)")


def test_scrubbing_back_judges_the_contract_as_of_the_shown_tick(late_pulse):
    ex = late_pulse
    s = ex.session
    press = s.presses[-1]
    assert len(ex.contract_at(s.end).violations) == 8  # at the end of the test all 8 lamps missed
    lamp = ex.timeline.lamps[0]
    for dt in (0, 4):
        ex.timeline.select(press + dt, lamp)  # a timeline click
        assert s.tick == press + dt
        view = ex.contract_at()
        assert view.violations == [] and not view.complete
        assert "violate" not in ex.timeline.title() and "FAILING" not in ex.timeline.title()
        assert ex.timeline.title().endswith(f"(as of press +{dt} gt)")
        assert ex.timeline.figure.layout.title.text == ex.timeline.title()  # the figure's title says so too
        assert ex.canvas.highlighted("violations") == []
        assert not any("MISSED" in t for row in ex.timeline.hover_texts() for t in row)
        assert len(ex.timeline.figure.data[3].x) == 0  # no pink outline
    # the same holds through the heatmap's slider, and the end shows the verdict again
    ex.heatmap.tick_slider.value = s.end
    assert len(ex.canvas.highlighted("violations")) == 8 and "8 lamp(s) violate it" in ex.timeline.title()
    # judging at a tick is judging the trace cut at that tick
    cut = contract_view(ex.task, s.trace, press, at=press + 12)
    assert cut.at == press + 12 and all(w.off_status != "ok" for w in cut.lamps)


def test_a_verdict_as_of_a_tick_does_not_speak_of_the_end_of_the_recording(late_pulse):
    """At +7 rt the late lamps are still lit as their off-window closes: the reason says so of that tick,
    not of "the end of the recording" (which goes on to +37 rt, where they went dark at +8 rt)."""
    ex = late_pulse
    s = ex.session
    press = s.presses[-1]
    view = contract_view(ex.task, s.trace, press, at=press + 14)
    off = next(c for c in view.checks if c.name == "pulse_off_window")
    assert view.verdict(off) == "failing"
    assert off.reason.startswith("lamp at (1, 4, -3) was still lit at this tick (+7 rt)"), off.reason
    assert "end of the recording" not in off.reason
    whole = next(c for c in contract_view(ex.task, s.trace, press).checks if c.name == "pulse_off_window")
    assert whole.reason.startswith("lamp at (1, 4, -3) went dark at +8 rt (lit for 6 rt)"), whole.reason
    ex.timeline.select(press + 14, ex.timeline.lamps[0])
    assert "still lit at this tick (+7 rt)" in ex.timeline.summary.value and "end of the recording" not in \
        ex.timeline.summary.value
    ex.timeline.select(press + 63, ex.timeline.lamps[0])  # the same standing, later: the reason moves on too
    assert "went dark at +8 rt (lit for 6 rt)" in ex.timeline.summary.value
    assert "still lit" not in ex.timeline.summary.value


def test_the_timeline_keeps_the_cursor_in_view_and_counts_from_the_press():
    ex = Explorer(world=demo_world())
    s = ex.session
    s.step(3)
    s.press()
    s.step(88)
    tl = ex.timeline
    ax = tl.figure.layout.xaxis
    assert ax.range[0] <= s.tick <= ax.range[1] and list(tl.figure.data[6].x) == [s.tick, s.tick]
    labels = dict(zip(ax.tickvals, ax.ticktext))
    assert labels[3] == "press" and labels[13] == "+10"
    assert ax.title.text == "game ticks after the press (gt)"
    tl.unit.value = "redstone"
    labels = dict(zip(tl.figure.layout.xaxis.tickvals, tl.figure.layout.xaxis.ticktext))
    assert labels[1.5] == "press" and labels[6.5] == "+5"  # x is tick / 2, labels in rt from the press
    shown = tuple(tl.figure.layout.xaxis.range)
    s.seek(8)  # inside the span shown: the axis stays as the user sees it and the tick line moves
    assert tuple(tl.figure.layout.xaxis.range) == shown and list(tl.figure.data[6].x) == [4, 4] and tl.in_view(8)


def test_windows_are_outlines_so_lit_cells_keep_their_colour(late_pulse):
    for trace in late_pulse.timeline.figure.data[1:5]:
        assert trace.fill in (None, "none")


def test_an_empty_timeline_says_why_and_draws_no_stray_line():
    tl = LampTimeline()
    tl.show(Session().trace, cursor=0)
    assert [a.text for a in tl.figure.layout.annotations] == ["no lamps in this build"]
    assert tl.figure.data[6].x == () and tl.figure.layout.xaxis.visible is False


def test_hover_text_is_dark_on_the_white_page():
    ex = Explorer(world=demo_world())
    ex.canvas.click_face((1, 4, 0), (0, 1, 0))
    from scicraft_viz.views.canvas import pick_from_point

    text = ex.canvas.hover(pick_from_point((1.5, 5.0, 0.5), (0, 1, 0)))
    assert text.startswith("(1, 4, 0) redstone_wire")
    assert "color:#1d2128" in ex.canvas.hover_info.value and "#ccc" not in ex.canvas.hover_info.value


def test_export_writes_dust_with_its_connections_like_to_mcfunction():
    ex = Explorer(task="A_simultaneous_lights_L1", build="solution")
    name, data = ex.exporter.export("mcfunction")
    mine = {ln for ln in data.decode().splitlines() if "redstone_wire" in ln}
    world = {ln for ln in ex.session.world.to_mcfunction().splitlines() if "redstone_wire" in ln}
    assert mine and mine <= world
    assert any("=side" in ln for ln in mine)


def test_editing_while_replaying_says_it_jumped_to_live():
    ex = Explorer(world=demo_world())
    s = ex.session
    s.press()
    s.step(10)
    s.seek(4)
    out = s.place((2, 4, 3), "redstone_lamp")
    assert out.ok and s.tick == s.end
    assert "you were replaying tick 4" in out.message and f"live tick {s.end}" in out.message
    assert "replaying" not in s.place((4, 4, 3), "redstone_lamp").message  # said once, when it happened


def test_long_parameter_lists_are_shortened_in_the_header_and_run_test_sits_with_step():
    ex = Explorer(task="C_sequential_activation_L5", build="solution")
    head = ex.children[0].value
    assert "in all)]" in head and head.count(",") < 40
    assert ex.test_button in ex.stepper.row1.children
    assert "white-space:nowrap" in ex.stepper.counter.value


def test_gallery_findings_are_told_apart_and_sit_beside_the_canvas():
    from scicraft_viz.views import open_gallery

    ex = open_gallery("parallel_lines")
    panel = ex.diagnosis_panel
    labels = [lb for lb, _ in panel.list.options]
    assert len(labels) > 2 and len(set(labels)) == len(labels)
    assert all(len(lb) <= 44 and "lamp (" in lb for lb in labels)
    assert panel in ex.children[2].children[1].children  # the column beside the canvas
    panel.move(1)
    assert panel.list.value == 1 and ex.canvas.highlighted("finding-lamps") == list(panel.selected.lamps)
    panel.move(-2)
    assert panel.list.value == len(labels) - 1


def test_the_trial_menu_names_its_empty_choice_and_the_diff_says_how_many_more():
    from scicraft_viz.views.replay import _first

    rows = _first([f"+ {i}" for i in range(70)], "added")
    assert len(rows) == 7 and rows[-1].endswith("… and 64 more added")
    from pathlib import Path

    from scicraft_viz.views.replay import ReplayViewer

    path = Path(__file__).parent.parent / "trajectories"
    files = sorted(path.glob("*.jsonl"))
    if not files:
        pytest.skip("no trajectory to replay")
    v = ReplayViewer(files[0])
    v.go_to(-1)
    assert v.trial_select.index == 0 and v.trial_select.label == "no trial yet"


def test_the_heatmap_zooms_to_the_build_writes_power_numbers_and_keeps_lamps_on_its_layer():
    ex = Explorer(task="E_pulse_shaping_L2", build="solution")
    hm = ex.heatmap
    (x0, x1), (z1, z0) = hm.figure.layout.xaxis.range, hm.figure.layout.yaxis.range
    assert x1 - x0 <= 14 and z1 - z0 <= 14  # the build, not the 21-block region
    assert hm.figure.data[0].texttemplate == "%{z}"
    hm.numbers.value = False
    assert hm.figure.data[0].texttemplate is None
    lay = ex.session.frame().layout
    from scicraft_viz.engine import blocks as B

    lamps = {(x, z) for x, _, z in lay.pos[lay.kind == B.LAMP].tolist()}
    drawn = set(zip(hm.figure.data[1].x, hm.figure.data[1].y))
    assert lamps <= drawn  # every lamp is on the heatmap, whatever layer it is shown
    assert hm.figure.data[1].marker.line.color == "#d0d4da"  # a rim: an unpowered repeater stays visible


def test_the_timeline_filters_to_the_lamps_failing_at_the_shown_tick(late_pulse):
    ex = late_pulse
    s = ex.session
    tl = ex.timeline
    tl.failing_only.value = True
    s.seek(s.presses[-1] + 2)
    assert tl.lamps == [] and "no lamp has missed" in tl.figure.layout.annotations[0].text
    s.seek(s.end)
    assert len(tl.lamps) == 8
    tl.failing_only.value = False
    assert len(tl.lamps) == 8


def test_an_empty_heatmap_says_so_and_frames_the_first_blocks_placed():
    from scicraft_viz.views.heatmap import BACKGROUND

    ex = Explorer(task="C_sequential_activation_L1")  # the task's region, nothing built yet
    hm = ex.heatmap
    fig = hm.figure.layout
    assert [a.text for a in fig.annotations] == ["nothing built yet: place blocks in the 3D view"]
    assert fig.xaxis.visible is False and fig.yaxis.visible is False
    assert [sh.fillcolor for sh in fig.shapes] == [BACKGROUND]  # a dark panel under the light message
    (x0, y0, z0), _ = ex.session.region
    ex.place((x0 + 3, y0, z0 + 3), "stone")
    ex.place((x0 + 3, y0 + 1, z0 + 3), "redstone_lamp")
    assert hm.layer.value == y0 + 1  # the layer of the lamp, chosen when the first blocks came
    (a, b), (c, d) = fig.xaxis.range, fig.yaxis.range
    assert a < x0 + 3 < b and d < z0 + 3 < c
    assert fig.annotations == () and fig.shapes == () and fig.xaxis.visible is True and fig.yaxis.visible is True
    hm.layer.value = y0 + 2
    assert [a.text for a in fig.annotations] == [f"no blocks on layer y={y0 + 2}: choose another layer"]


def test_before_anything_runs_the_timeline_shows_a_message_not_a_lone_column():
    ex = Explorer(task="E_pulse_shaping_L2", build="solution")
    tl, fig = ex.timeline, ex.timeline.figure
    assert len(ex.session.trace.ticks) == 1  # the settled start only
    why = "nothing recorded yet: Step, Play, Run test or Press button to record ticks"
    assert tl.empty_reason() == why and [a.text for a in fig.layout.annotations] == [why]
    assert len(fig.data[0].z) == 0 and len(fig.data[6].x) == 0  # no dark rows, no tick line
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert ex.scrubber.axis_meta(tl)["rows"] == 0  # the page draws no tick line either
    ex.session.step(1)
    assert tl.empty_reason() is None and fig.layout.annotations == ()
    assert len(fig.data[0].z) == 8 and len(fig.data[6].x) > 0 and fig.layout.yaxis.visible is True


def test_a_machine_without_dust_or_lamps_is_charted_on_its_own_layer():
    """A flying machine is slime, observers and pistons: the heatmap shows their layer with a marker for each
    of its blocks, not an empty layer above them saying nothing is built."""
    from scicraft_viz import builds

    w = builds.flying_machine(wall_x=9)
    parts = builds.flying_machine_parts(w)
    assert {y for _, y, _ in parts} == {0}
    hm = Explorer(world=w).heatmap
    assert hm.layer.value == 0 and hm.empty_text() is None
    markers = set(zip(hm.figure.data[1].x, hm.figure.data[1].y))
    assert {(x, z) for x, _, z in parts} <= markers


def test_a_placement_is_the_players_and_what_it_does_at_once_follows_from_it():
    """Placing a lamp beside powered dust: the log said "placed: 6 rt after lamp (1, 4, 2) lit" and "lit:
    6 rt after lamp (1, 4, 2) lit", as if an earlier lamp had caused the edit."""
    from scicraft_viz.engine.causes import explain

    s = Session(demo_world())
    s.press()
    s.step(12)
    w = s.world
    n0 = len(w.events)
    s.place((1, 4, 3), "redstone_lamp")
    s.undo()
    texts = [c.text for c in explain(w.events, w.blocks(), w.rules)[n0:]]
    assert texts == ["lamp (1, 4, 3) placed: the player", "lamp (1, 4, 3) lit: at once, when lamp (1, 4, 3) placed",
                     "lamp (1, 4, 3) removed: the player"], texts
