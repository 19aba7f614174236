"""The multimeter: block power, pending ticks, per-block series and causes in the Python API, and the
explorer's meters and 'why' panel built on them."""

import pytest

from scicraft_viz import World
from scicraft_viz.demo import demo_world
from scicraft_viz.engine.causes import explain
from scicraft_viz.views import Explorer


def readme_world():
    w = World()
    for x in range(0, 6):
        w.set_block((x, 0, 0), "stone")
    w.set_block((0, 1, 0), "stone_button[face=floor]")
    w.set_block((1, 1, 0), "redstone_wire")
    w.set_block((2, 1, 0), "redstone_repeater[facing=west,delay=2]")
    w.set_block((3, 1, 0), "redstone_lamp")
    return w


def test_power_strong_weak_and_level():
    w = readme_world()
    w.use((0, 1, 0))
    assert w.power((0, 0, 0)) == (15, 15, 0)  # the button strongly powers the stone it sits on
    assert w.power((1, 1, 0)).level == 15 and w.power((1, 0, 0)) == (0, 15, 0)  # dust on top: weak only
    assert w.power((3, 1, 0)) == (0, 0, 0)  # the repeater has not switched yet
    w.step(4)
    assert w.power((2, 1, 0)).level == 15 and w.power((3, 1, 0)).strong == 15
    assert w.power((9, 9, 9)) == (0, 0, 0)


def test_scheduled_ticks_pending():
    w = readme_world()
    w.use((0, 1, 0))
    due = w.scheduled()
    assert [(s.tick, s.pos, s.block) for s in due] == [(4, (2, 1, 0), "minecraft:redstone_repeater"),
                                                       (20, (0, 1, 0), "minecraft:stone_button")]
    w.step(5)
    assert [s.pos for s in w.scheduled()] == [(0, 1, 0)]


def test_a_series_for_any_block_and_first_on_for_a_torch():
    w = World()
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "redstone_torch")
    w.set_block((1, 0, 0), "stone")
    w.set_block((1, 1, 0), "redstone_wire")
    tr = w.record(3)
    assert tr.first_on((0, 1, 0)) == 0 and list(tr.series((1, 1, 0))) == [15] * 4
    assert tr.changes((1, 1, 0)) == []
    with pytest.raises(KeyError, match="no lamp, dust, repeater"):
        tr.series((5, 5, 5))


def test_each_event_has_its_cause_in_words():
    w = readme_world()
    n = w.events_total
    w.use((0, 1, 0))
    w.step(30)
    texts = [c.text for c in explain(w.events_since(n), w.blocks())]
    assert texts[:4] == [
        "button (0, 1, 0) was pressed: the player pressed it",
        "dust (1, 1, 0) reached power 15: at once, when button (0, 1, 0) was pressed",
        "repeater (2, 1, 0) turned on: scheduled 2 rt ago when dust (1, 1, 0) reached power 15",
        "lamp (3, 1, 0) lit: at once, when repeater (2, 1, 0) turned on",
    ]
    assert "lamp (3, 1, 0) went dark: scheduled 2 rt ago when repeater (2, 1, 0) turned off" in texts


def test_the_event_log_explains_the_shown_tick_and_selects_a_block():
    ex = Explorer(world=demo_world())
    s = ex.session
    s.press()
    s.step(10)
    ex.timeline.select(2, None)
    assert ex.event_log.texts()[0] == ("repeater (2, 4, 0) turned on: scheduled 1 rt ago when dust (1, 4, 0) "
                                       "reached power 15")
    assert "Why, at tick 2" in ex.event_log.title.value
    log = ex.event_log
    labels = [b.description for b in log.list.children]  # the page's list: every line, in full, numbered
    assert labels == [f"{k + 1}. {t}" for k, t in enumerate(log.texts())] and log.chosen() is None
    ex.event_log.choose(3)
    assert s.selected == (3, 4, 2) and ex.canvas.highlighted("selected") == [(3, 4, 2)]
    assert log.chosen() == 3 and [b.button_style for b in log.list.children] == ["", "", "", "info"]
    log.list.children[0].click()  # a click on the first line in the page
    assert s.selected == (2, 4, 0) and log.chosen() == 0
    assert [b.button_style for b in log.list.children] == ["info", "", "", ""]
    with pytest.raises(IndexError, match="has 4 change"):
        log.choose(len(log.texts()))
    s.seek(3)  # another tick: a new list, nothing chosen, the selection kept
    assert log.chosen() is None and s.selected == (2, 4, 0)
    assert all(getattr(b, "button_style", "") == "" for b in log.list.children)
    s.seek(4)
    # an empty tick says so once, in the list (the page showed the line twice when the detail said it too)
    assert ex.event_log.texts() == [] and log.list.children == (log.none,) and ex.event_log.detail.value == ""
    shown = "".join(w.value for w in (log.title, *log.list.children, log.detail))
    assert shown.count("nothing changed at this tick") == 1, shown
    ex.stepper.play.playing = True  # while playing the list waits for the pause; the title follows the tick
    s.seek(2)
    assert log.list.children == () and "Why, at tick 2" in log.title.value and "when paused" in log.title.value
    ex.stepper.play.playing = False
    assert len(log.list.children) == len(log.texts()) == 4 and "when paused" not in log.title.value


def test_meters_on_any_block_with_scheduled_marks():
    ex = Explorer(world=demo_world())
    s = ex.session
    s.press()
    s.step(10)
    from scicraft_viz.views.canvas import Pick

    ex._on_pick(Pick((2, 4, 0), (2, 5, 0), (0, 1, 0), alt=True))  # alt + double-click meters a block
    ex.meters.pos_text.value = "1, 4, 0"
    ex.meters.add_button.click()
    s.seek(1)
    rep, dust = ex.meters.rows()
    assert rep["label"] == "repeater (2, 4, 0) d1" and dust["label"] == "dust (1, 4, 0)"
    cells = {t: (v, due) for t, v, due in rep["cells"]}
    assert cells[0] == ("○", 2) and cells[2][0] == "●"  # scheduled at the press, output due at tick 2
    assert rep["due"] == ["output due at tick 2"]
    assert {t: v for t, v, _ in dust["cells"]}[0] == "15"
    assert "scv-meter-table" in ex.meters.table.value and "◆" in ex.meters.table.value
    ex.meters.pos_text.value = "1, 4"
    ex.meters.add_button.click()
    assert "three integers" in ex.meters.note.value
