"""The replay widget and the gallery's diagnosis panel, driven without a browser: the step slider
drives the canvas, trials show their timeline and diff, findings outline their blocks."""

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
