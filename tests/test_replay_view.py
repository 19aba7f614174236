"""The replay widget and the gallery's diagnosis panel, driven without a browser: the step slider
drives the canvas, trials show their timeline and diff, findings outline their blocks."""

import io
import json
from pathlib import Path

import pytest

pytest.importorskip("pythreejs")
pytest.importorskip("plotly")

from scicraft_viz.views.replay import ReplayViewer, open_gallery  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "trajectories"


@pytest.fixture(scope="module")
def viewer():
    return ReplayViewer(EXAMPLES / "working_A_L4.jsonl")


def test_opens_at_the_last_step_and_trial(viewer):
    assert viewer.step == 153 and viewer.trial_select.value == 3
    assert "every replayed result reproduced tick for tick" in viewer.header.value
    assert "no failure found" in viewer.findings.title.value


def test_step_slider_drives_the_canvas(viewer):
    viewer.go_to(5)
    assert viewer.canvas.highlighted("changed") == [(-7, 4, 2)]
    assert "#5 set-block (-7, 4, 2) redstone_lamp" in viewer.step_info.value
    lamps = viewer.canvas.frame.layout
    assert lamps.at((-7, 4, 2)) is not None and lamps.at((-5, 4, -2)) is None  # not placed yet at step 5
    viewer.go_to(-1)
    assert viewer.canvas.frame.layout.at((-9, 4, -8)) is None
    viewer.go_to(10**6)
    assert viewer.step == 153


def test_trial_shows_timeline_diff_and_diagnosis(viewer):
    viewer.select_trial(2)
    assert viewer.step == viewer.replay.trials[1].step
    assert "24/32 lamps lit" in viewer.diff.value and "24 added" in viewer.diff.value
    assert len(viewer.canvas.highlighted("diff")) == 24
    assert len(viewer.timeline.lamps) == 32
    f = viewer.findings.selected
    assert f.mode == "missing_rails"
    assert sorted(viewer.canvas.highlighted("finding-lamps")) == sorted(f.lamps)
    assert sorted(viewer.canvas.highlighted("finding")) == sorted(f.positions)


def test_diagnose_any_step(viewer):
    d = viewer.diagnose_step(70)
    assert d.modes() == ["axes_only"] and "after step 70" in viewer.findings.title.value


def test_badges_for_rejected_and_popped_steps():
    v = ReplayViewer(EXAMPLES / "glass_pedestal_fixed.jsonl")
    v.go_to(0)
    assert ">rejected</span>" in v.step_info.value
    v.go_to(3)
    assert ">popped</span>" in v.step_info.value and v.canvas.highlighted("popped") == [(5, 6, 5)]
    assert v.strip.value.count("#d6336c") >= 2


def test_bad_files_never_crash_the_viewer(tmp_path):
    v = ReplayViewer(tmp_path / "missing.jsonl")
    assert "cannot read the file" in v.header.value and "not replayed" in v.header.value
    lines = (EXAMPLES / "the_ring.jsonl").read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    obj = json.loads(lines[5])
    obj["tool"] = "place-block"
    bad.write_text("\n".join([lines[0], *lines[1:5], json.dumps(obj), *lines[6:20], lines[20][:30]]) + "\n")
    v = ReplayViewer(bad)
    assert "unknown tool &#x27;place-block&#x27;" in v.header.value and "truncated JSON" in v.header.value
    assert v.replay.steps and v.step == len(v.replay.steps) - 1
    (tmp_path / "nohead.jsonl").write_text("\n".join(lines[1:10]) + "\n")
    v = ReplayViewer(tmp_path / "nohead.jsonl")
    assert "missing header" in v.header.value and v.replay.steps == []


def test_gallery_device_opens_in_the_explorer_with_its_diagnosis():
    ex = open_gallery("backwards_repeaters")
    panel = ex.diagnosis_panel
    assert len(panel.list.options) == 4
    panel.select(1)
    f = panel.selected
    assert f.mode == "backwards_repeaters" and ex.canvas.highlighted("finding") == f.positions
    assert "faces toward the button" in panel.detail.value


def test_finding_outlines_the_signal_path_and_the_timeline_shows_delay_budgets(viewer):
    viewer.select_trial(3)
    d = viewer.findings.diagnosis
    lamp = d.lamps[0]
    label = viewer.timeline._label(lamp)
    row = viewer.timeline.lamps.index(lamp)
    budget = d.timing[lamp]["budget"]
    compact, full = d.budget_labels()[lamp]
    assert compact == f"+{d.timing[lamp]['on']} rt = " + " + ".join(
        f"{k} {x}" for k, x in budget if k not in ("held", "lamp off-delay"))
    assert viewer.timeline.figure.layout.yaxis.ticktext[row] == f"{label}  {compact}"
    assert "delay budget: on +" in viewer.timeline.hover_texts()[row][0]
    # a gallery finding: the path from the button as far as the signal got, ending beside the guilty repeater
    ex = open_gallery("backwards_repeaters")
    panel = ex.diagnosis_panel
    panel.select(0)
    f = panel.selected
    path = ex.canvas.highlighted("finding-path")
    assert path == panel.diagnosis.path_for(f) and path[0] == (0, 5, 0)
    r = f.positions[0]
    assert sum(abs(a - b) for a, b in zip(path[-1], r)) == 1


def test_the_trial_panel_follows_the_step(viewer):
    steps = {t.number: viewer.trial_step(t.number) for t in viewer.replay.trials}
    viewer.go_to(0)
    assert viewer.trial is None and viewer.trial_select.label == "no trial yet"
    assert "no trial run yet at this step" in viewer.diff.value
    assert viewer.timeline.lamps == [] and viewer.findings.diagnosis is None
    viewer.go_to(steps[2])
    assert viewer.trial_select.value == 2 and "<b>trial 2</b>" in viewer.diff.value
    viewer.go_to(steps[2] - 1)  # before trial 2: the panel goes back to trial 1, and the step stays
    assert viewer.trial_select.value == 1 and viewer.step == steps[2] - 1
    viewer.go_to(10**6)
    assert viewer.trial_select.value == 3


def test_finding_labels_fit_the_panel_and_cut_at_a_word(viewer):
    viewer.select_trial(2)
    for label, _ in viewer.findings.list.options:
        assert len(label) <= 44 and not label.endswith(("-", " "))
    f = viewer.findings.selected
    assert f.explanation in viewer.findings.detail.value.replace("&#x27;", "'")


def test_the_replay_exports_the_build_at_the_step_and_the_trial_as_a_gif(viewer, tmp_path):
    from PIL import Image

    from scicraft_viz.engine.formats import read_build

    viewer.go_to(5)
    name, data = viewer.exporter.export("schem")
    assert name == "A_simultaneous_lights_L4_step5.schem"
    (tmp_path / name).write_bytes(data)
    back = dict(read_build(tmp_path / name))
    assert back.keys() == viewer._export_blocks().keys() and len(back) == 6
    viewer.select_trial(1)
    name, data = viewer.exporter.export("gif")
    assert name.endswith(".gif") and "download='" in viewer.exporter.link.value
    img = Image.open(io.BytesIO(data))
    assert img.format == "GIF" and img.n_frames == 41  # at least the first 40 ticks after the press


def test_the_gallery_opens_pressed_with_what_it_shows_in_words():
    ex = open_gallery("backwards_repeaters")
    s = ex.session
    assert s.presses and s.end == s.presses[-1] + ex.task.record_game_ticks
    intro = ex.gallery_intro.value
    assert f"the button was pressed at tick {s.presses[-1]} and the test recorded: 8 lamp(s) lit during" in intro
    assert f"shown at tick {s.tick}, when 8 were lit at once" in intro
    assert s.trace.lamp_lit[s.tick - s.start].sum() == 8
    assert "8/32 lamps lit" in ex.diagnosis_panel.title.value


def test_a_gif_of_no_trial_says_why(viewer):
    viewer.go_to(0)
    assert viewer.exporter.export("gif") is None
    assert viewer.exporter.link.value == (
        "<span class='scv-download-error' style='font-size:12px;color:#d6336c'>cannot export: no trial is shown: "
        "choose a trial (or a step after one) to animate it</span>")


def test_the_header_gives_the_verdict_only_from_the_submit_step_on(viewer):
    """Scrubbing back to a step before the submit shows the run as it stood then: no end verdict yet."""
    def verdict() -> str:
        return viewer.header.value.split(" · ")[5]

    assert viewer.submit_step() == 153
    viewer.go_to(153)
    assert verdict() == "submitted: <b style='color:#2e9d4f'>PASS</b>"
    viewer.go_to(152)  # the third trial's press: the run is not submitted yet
    assert verdict() == "<span style='color:#555'>not submitted yet (submits at step 153)</span>"
    viewer.go_to(10)
    assert "PASS" not in viewer.header.value and "not submitted yet (submits at step 153)" in viewer.header.value
    viewer.go_to(-1)
    assert "PASS" not in viewer.header.value
    viewer.go_to(153)
    assert verdict() == "submitted: <b style='color:#2e9d4f'>PASS</b>"
