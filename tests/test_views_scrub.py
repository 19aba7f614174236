"""The explorer's scrubber: what it sends the page decodes to exactly what the kernel's views draw at each
recorded tick, a tick the page drew moves the kernel without sending those views back, and the page's
requests for unrecorded ticks are simulated (the page's own drawing is checked in tests/browser)."""

import numpy as np
import pytest

from scicraft_viz.demo import demo_world
from scicraft_viz.views import Explorer
from scicraft_viz.views.explorer import PAGE_PLAY_BEAT_MS
from scicraft_viz.views.scrub import canvas_colors, quiet
from scicraft_viz.views.stepper import BEAT_MS, tick_text
from scicraft_viz.views.timeline import reach


@pytest.fixture
def ex():
    e = Explorer(world=demo_world())
    e.stepper.press_button.click()
    e.session.step(12)
    return e


def shown_colors(ex) -> np.ndarray:
    return np.concatenate([np.asarray(b.col_attr.array) for b in ex.canvas._buffers.values()])


def sent(widgets, log):
    """Record every state a widget sends to the page (plotly figures: every update message)."""
    for w in widgets:
        if hasattr(w, "_send_update_msg"):
            for name in ("_send_restyle_msg", "_send_relayout_msg", "_send_update_msg"):
                setattr(w, name, lambda *a, _w=w, **k: log.append(_w))
        else:
            w.send_state = lambda key=None, _w=w: log.append(_w)


def test_every_recorded_tick_decodes_to_what_the_canvas_and_heatmap_draw(ex):
    s, sc = ex.session, ex.scrubber
    assert (sc.meta["first"], sc.meta["last"]) == (s.start, s.end) and s.end - s.start == 12
    changed = 0
    for k, t in enumerate(range(s.start, s.end + 1)):
        s.seek(t)
        assert np.array_equal(sc.row_colors(k), shown_colors(ex)), t
        assert np.array_equal(sc.row_colors(k), canvas_colors(ex.canvas, s.frame(t)))
        p = sc.meta["heat"]["payloads"][sc.meta["heat"]["index"][k]]
        hm, marks = ex.heatmap.figure.data
        assert [list(r) for r in hm.z] == p["z"] and list(marks.text) == p["text"]
        assert list(marks.marker.color) == p["color"]
        changed += k > 0 and len(sc._deltas[k - 1][0]) > 0
    assert changed >= 3  # the demo's lamps and dust change on several ticks: deltas are not all empty
    # the page's buffers: the first row whole, then per row the changed vertices (old and new)
    n = sum(len(i) for i, _, _ in sc._deltas)
    assert len(sc.colors) == 3 * sum(sc.meta["caps"]) and len(sc.delta_index) == 4 * n
    assert len(sc.delta_old) == len(sc.delta_new) == 3 * n and len(sc.delta_start) == 4 * 12
    assert sc.meta["presses"] == s.presses and len(ex.timeline.lamps) == 4
    # the timeline's axis before it is widened to hold the tick: the press to 2 ticks past the last lamp change
    # (no tick held: nothing has played yet)
    assert sc.axis == {"factor": 1, "rows": 4, "lo": 0, "hi": 10, "first": s.start, "last": s.end,
                       "origin": s.presses[-1], "hold": None}


def test_a_tick_drawn_by_the_page_moves_the_kernel_without_sending_it_back(ex):
    s = ex.session
    log: list = []
    drawn = ex._drawn_by_page()
    sent(drawn, log)
    ex.scrubber.tick = s.start + 4  # what the page reports after a Back, a Step or a timeline click
    assert s.tick == s.start + 4 and ex.canvas.frame.tick == s.start + 4
    assert ex.stepper.counter.value == tick_text(s.tick, s.start, s.end, s.last_press(s.tick))
    assert ex.heatmap.tick_slider.value == s.tick and f"tick {s.tick} gt" in ex.heatmap.figure.layout.title.text
    assert list(ex.timeline.figure.data[6].x) == [s.tick, s.tick]
    assert np.array_equal(shown_colors(ex), ex.scrubber.row_colors(4))
    sent([ex.timeline.figure], log)
    ex.scrubber.tick = s.end  # past the axis's span (0..10): the page widened it as it drew; the kernel follows
    assert tuple(ex.timeline.figure.layout.xaxis.range) == (-0.5, 12.5) and ex.timeline.tick_range() == (0, 12)
    assert log == []
    s.seek(s.start + 6)  # a tick chosen in the kernel (a key, code) is sent as before, and the page follows
    assert {id(ex.stepper.counter), id(ex.heatmap.tick_slider), id(ex.heatmap.figure)} <= set(map(id, log))
    assert ex.scrubber.tick == s.start + 6


def test_the_axis_widens_in_steps_of_half_its_span_to_hold_the_tick():
    assert reach(10, 30, 0, 200, 20) == (10, 30)  # inside, with room: unchanged
    assert reach(10, 30, 0, 200, 29) == (10, 40)  # 2 ticks of room beyond the tick, in steps of 10
    assert reach(10, 30, 0, 200, 55) == (10, 60)
    assert reach(10, 30, 0, 200, 10) == (0, 30)  # and one before it
    assert reach(10, 30, 0, 35, 34) == (10, 35)  # never past the recording
    assert reach(10, 12, 0, 200, 13) == (10, 16)  # at least 4 ticks a step
    assert reach(10, 30, 0, 200, 250) == (10, 30)  # a tick not recorded leaves it


def test_quiet_keeps_a_change_from_the_page_and_restores_sending():
    import ipywidgets as W

    slider = W.IntSlider()
    log: list = []
    sent([slider], log)
    with quiet(slider):
        slider.value = 5
    assert slider.value == 5 and log == []
    slider.value = 6
    assert log == [slider]


def test_playing_past_the_recording_asks_the_kernel_to_simulate(ex):
    s = ex.session
    end = s.end
    ex.scrubber._on_msg(ex.scrubber, {"advance": end + 3}, [])
    assert s.end == end + 3 and s.tick == end + 3 and ex.scrubber.tick == end + 3
    assert ex.scrubber.meta["last"] == end + 3
    for k, t in enumerate(range(s.start, s.end + 1)):  # the rows kept from before still decode right
        assert np.array_equal(ex.scrubber.row_colors(k), canvas_colors(ex.canvas, s.frame(t)))
    ex.scrubber._on_msg(ex.scrubber, {"advance": s.start + 2}, [])
    assert s.tick == s.start + 2 and s.end == end + 3


def test_the_kernel_leaves_beats_to_a_page_that_plays_by_itself(ex):
    s = ex.session
    now = [100.0]
    ex.stepper._clock = lambda: now[0]
    assert ex.stepper.play.interval == BEAT_MS
    ex.scrubber.client = True
    assert ex.stepper.play.interval == PAGE_PLAY_BEAT_MS  # the page's timer beats for nothing: slowed right down
    ex.stepper.play.playing = True
    now[0] += 0.5
    tick = s.tick
    ex.stepper.play.value = 1
    assert s.tick == tick  # the page stepped (and reports its tick): the kernel's beat does nothing
    ex.scrubber.client = False
    assert ex.stepper.play.interval == BEAT_MS
    ex.stepper.play.value = 2
    assert s.tick == tick + 5


def test_an_edit_starts_a_new_run_and_a_layer_change_reencodes(ex):
    s = ex.session
    s.place((2, 4, 3), "redstone_lamp")
    sc = ex.scrubber
    assert sc.meta["first"] == sc.meta["last"] == s.end  # rows of the old arrangement are the kernel's to draw
    s.step(3)
    assert (sc.meta["first"], sc.meta["last"]) == (s.end - 3, s.end)
    ex.canvas.layer.value = 3
    assert len(sc.colors) == 3 * sum(b.cap for b in ex.canvas._buffers.values())
    for k, t in enumerate(range(s.end - 3, s.end + 1)):
        assert np.array_equal(sc.row_colors(k), canvas_colors(ex.canvas, s.frame(t)))


def test_a_page_drawn_tick_keeps_the_timeline_title_without_sending_it():
    """While the test runs, the timeline's title ends with the tick its verdict is judged at. The page writes
    that ending as it draws a tick, so the kernel keeps the same title without sending it (a plotly relayout
    per tick held every frame of Play); a tick chosen in the kernel still sends it."""
    ex = Explorer(task="A_simultaneous_lights_L1", build="solution")
    s = ex.session
    s.run_test()
    p = s.presses[-1]
    s.seek(p)
    ex.scrubber.tick = p + 3  # the lamps' standing changes between the press and here: that is sent
    log: list = []
    sent([ex.timeline.figure], log)
    for t in range(p + 4, p + 8):
        ex.scrubber.tick = t
        assert ex.timeline.figure.layout.title.text == ("lamp timeline · A_simultaneous_lights_L1 contract: no window "
                                                        f"missed yet (test running) (as of press +{t - p} gt)")
    assert log == []
    s.seek(p + 8)
    assert ex.timeline.figure.layout.title.text.endswith("(as of press +8 gt)") and log


def test_play_lays_the_axis_out_once_to_the_recordings_end(ex):
    """Play's start holds the timeline's axis out to the last recorded tick (the page sets the same span as it
    starts playing, so the kernel sends nothing); the ticks played then never move the axis, pausing keeps it,
    and a new press (a new run) lets it go."""
    s, tl, sc = ex.session, ex.timeline, ex.scrubber
    s.step(80)
    s.seek(s.presses[-1])
    tl.span.value, tl.span.value = "whole", "activity"  # laid out again around the press: the activity's span
    lo, hi = tl.tick_range()
    assert hi < s.end - 40 and tuple(tl.figure.layout.xaxis.range) == (lo - 0.5, hi + 0.5)
    log: list = []
    sent([tl.figure], log)
    sc.client = True  # a page that plays by itself
    ex.stepper.play.playing = True
    assert tuple(tl.figure.layout.xaxis.range) == (lo - 0.5, s.end + 0.5) and tl.tick_range() == (lo, s.end)
    assert sc.axis["hold"] == s.end and log == []
    for t in range(s.tick + 1, s.end + 1):  # what the page reports as it plays
        sc.tick = t
        assert tuple(tl.figure.layout.xaxis.range) == (lo - 0.5, s.end + 0.5) and list(tl.figure.data[6].x) == [t, t]
    ex.stepper.play.playing = False
    assert tuple(tl.figure.layout.xaxis.range) == (lo - 0.5, s.end + 0.5) and log == []
    ex.stepper.press_button.click()  # another press: the held span is let go
    assert sc.axis["hold"] is None


def test_the_page_writes_the_event_logs_header_as_the_kernel_does(ex):
    """The header pieces sent to the page, filled in for a tick, give the kernel's own header for that tick;
    the counts are the number of changes the log lists at each recorded tick."""
    s, sc = ex.session, ex.scrubber
    e = sc.meta["events"]
    first, last = sc.meta["first"], sc.meta["last"]
    assert len(e["counts"]) == last - first + 1 and sum(e["counts"]) > 0
    for k, t in enumerate(range(first, last + 1)):
        s.seek(t)
        assert e["counts"][k] == len(s.causes(t)) == len(ex.event_log.texts())
        note = e["notes"]["more" if e["counts"][k] > e["max"] else "paused"].format(n=e["counts"][k], m=e["max"])
        assert ex.event_log.title.value == e["title"].format(t=t, note=note)
    ex.event_log.refresh(playing=True)
    note = e["notes"]["playing"].format(n=e["counts"][-1], m=e["max"])
    assert ex.event_log.title.value == e["title"].format(t=last, note=note)


def test_a_pause_heard_before_the_pages_last_tick_keeps_the_header_the_page_wrote(ex):
    """The page reports the tick it stopped at after its pause reached the kernel: the kernel's header for its
    older tick is not sent over the page's, and the tick then heard brings the kernel's log to the page's."""
    from scicraft_viz.views.multimeter import events_title

    s, sc = ex.session, ex.scrubber
    sc.client = True  # a page that plays by itself
    ex.stepper.play.playing = True
    sc.tick = s.start + 3
    log: list = []
    sent([ex.event_log.title], log)
    ex.stepper.play.playing = False
    sc.tick = s.start + 4  # the page stopped here
    assert log == []
    assert ex.event_log.title.value == events_title(s.start + 4, len(s.causes(s.start + 4)), playing=False)
    assert ex.event_log.texts() == [c.text for c in s.causes(s.start + 4)]
