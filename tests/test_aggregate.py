"""Aggregation over many trajectories: success per family and level, failure modes found by
diagnosing failed runs, trials used, charts and the progress bar."""

import shutil
from pathlib import Path

import pytest

from scicraft_viz import aggregate

EXAMPLES = Path(__file__).resolve().parent.parent / "trajectories"


@pytest.fixture(scope="module")
def runs():
    return aggregate.summarize(aggregate.load_many(EXAMPLES, progress=False), progress=False)


def test_runs(runs):
    by = {Path(r.source).stem: r for r in runs}
    assert sorted(by) == sorted(p.stem for p in EXAMPLES.glob("*.jsonl"))
    assert (by["parallel_lines"].passed, by["parallel_lines"].failure_modes) == (False, ["parallel_lines"])
    assert (by["the_ring"].primary_mode, by["the_ring"].level) == ("the_ring", "L3")
    w = by["working_A_L4"]
    assert (w.passed, w.failure_modes, w.trials_used, w.steps, w.family, w.level) == (True, [], 3, 154, "A", "L4")
    assert by["glass_pedestal_fixed"].rejected == 2
    assert by["dead_end_hooks_fixed"].level == "custom"


def test_by_family_level(runs):
    rows = aggregate.by_family_level(runs)
    assert [(r["family"], r["level"], r["runs"], r["passed"], r["success_rate"], r["mean_trials"]) for r in rows] == [
        ("A", "L3", 1, 0, 0.0, 1.0), ("A", "L4", 4, 3, 0.75, 2.0), ("A", "custom", 1, 1, 1.0, 2.0)]
    assert aggregate.failure_modes(runs) == {"parallel_lines": 1, "the_ring": 1}
    text = aggregate.table(runs)
    assert text.splitlines()[2] == "A      L4          4       3      75%     2.0"
    assert text.splitlines()[-1] == "failure modes: parallel_lines 1, the_ring 1"


def test_figures(runs):
    pytest.importorskip("plotly")
    figs = aggregate.figures(runs)
    assert set(figs) == {"success", "modes", "trials"}
    heat = figs["success"].data[0]
    assert list(heat.x) == ["L3", "L4", "custom"] and list(heat.y) == ["A"]
    assert [list(r) for r in heat.z] == [[0.0, 75.0, 100.0]]
    assert list(figs["modes"].data[0].x) == ["Parallel Lines", "The Ring"]


def test_bad_files_are_summarised_not_raised(tmp_path):
    shutil.copy(EXAMPLES / "the_ring.jsonl", tmp_path / "a.jsonl")
    (tmp_path / "b.jsonl").write_text('{"type": "step"\n')
    (tmp_path / "c.jsonl").write_bytes(b"\xff\xfe")
    runs = aggregate.summarize(aggregate.load_many(tmp_path, progress=False), progress=False)
    assert [Path(r.source).name for r in runs] == ["a.jsonl", "b.jsonl", "c.jsonl"]
    assert runs[0].failure_modes == ["the_ring"] and not runs[0].problems
    # the JSON parser's own words between "truncated JSON:" and the column are not the project's to check
    problem = runs[1].problems[0]
    assert runs[1].task_id is None and "b.jsonl:1: truncated JSON: " in problem and problem.endswith("(column 16)")
    rows = aggregate.by_family_level(runs)
    assert rows[-1]["family"] == "?" and rows[-1]["runs"] == 2


def test_progress_bar(capsys):
    aggregate.load_many([EXAMPLES / "the_ring.jsonl"], progress=True)
    assert "reading trajectories" in capsys.readouterr().err


def test_verdicts_come_from_the_replay_and_files_are_read_safely(tmp_path):
    import json
    import os

    objs = [json.loads(x) for x in (EXAMPLES / "parallel_lines.jsonl").read_text().splitlines()]
    submit = next(o for o in reversed(objs) if o.get("type") == "step" and o["tool"] == "submit")
    submit["result"]["passed"] = True  # forged
    (tmp_path / "forged.jsonl").write_text("".join(json.dumps(o) + "\n" for o in objs))
    os.mkfifo(tmp_path / "pipe.jsonl")
    os.symlink("/dev/zero", tmp_path / "zero.jsonl")
    runs = aggregate.summarize(aggregate.load_many(tmp_path, progress=False), progress=False)
    by = {Path(r.source).name: r for r in runs}
    forged = by["forged.jsonl"]
    assert (forged.passed, forged.replay_matches, forged.failure_modes) == (False, False, ["parallel_lines"])
    assert "step 117 (submit) differs from its replay: result.passed: recorded True, replay False" in \
        forged.problems[-1]
    assert by["pipe.jsonl"].problems == [f"{tmp_path / 'pipe.jsonl'}: is a FIFO, not a regular file; not read"]
    assert "cannot be opened" in by["zero.jsonl"].problems[0]  # a link inside a folder is not followed
    assert aggregate.by_family_level(runs)[0]["passed"] == 0
