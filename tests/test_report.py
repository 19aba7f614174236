"""The paper's tables from a directory of runs. The runs are generated here with the environment and
scripted agents (two models, two conditions, two repeats, two tasks), so every value is known."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from scicraft_viz import tasks
from scicraft_viz.agents import report
from scicraft_viz.agents.env import SciCraftEnv
from scicraft_viz.cli import app
from scicraft_viz.tasks import evaluator, solutions
from scicraft_viz.tasks.evaluator import _order_key

TASKS = ("A_simultaneous_lights_L1", "C_sequential_activation_L1")
# (model, condition, repeat, task) -> passed
PASSES = {
    ("m1", "baseline"): {"A": [True, True], "C": [False, False]},
    ("m1", "hint"): {"A": [True, True], "C": [True, False]},
    ("m2", "baseline"): {"A": [False, True], "C": [False, False]},
    ("m2", "hint"): {"A": [True, True], "C": [True, True]},
}
USAGE = {"m1": (100, 10), "m2": (200, 20)}  # input, output tokens of every call's model turn


def builds(task_id: str):
    """The reference build in placing order, and the lamp that lights last (left out by failing agents:
    the other N-1 lamps still meet their windows, so partial credit is (N-1)/N)."""
    t = tasks.load(task_id)
    blocks = solutions.solution_blocks(t)
    lamps = evaluator.evaluate(t, blocks).measured["lamps"]
    last = tuple(max(lamps, key=lambda x: (x["on"], x["pos"]))["pos"])
    ordered = [kv for _, kv in sorted(enumerate(blocks.items()), key=_order_key)]
    return t, ordered, last


def agent_run(directory, model: str, condition: str, repeat: int, task_id: str, passed: bool) -> int:
    """One scripted run; returns its number of calls. Every run opens with a refused out-of-region call
    (and m2's with a refused palette one too). A passing baseline run builds, tests once and submits; a
    passing hint run first tests without the last lamp, adds it and tests again; a failing run never
    places the last lamp."""
    t, ordered, last = builds(task_id)
    path = directory / f"{task_id}__{model}__{condition}__r{repeat}.jsonl"
    env = SciCraftEnv.recording(t, path, actor_name=model, condition=condition, run_id=f"{model}-{condition}-{repeat}",
                                started=f"2026-01-01T00:00:0{repeat}Z")
    inp, out = USAGE[model]

    def call(tool, args=None):
        env.call(tool, args or {}, {"model": model, "input_tokens": inp, "output_tokens": out, "latency_s": 0.5})

    call("set-block", {"pos": [50, 4, 0], "block": "stone"})
    if model == "m2":
        call("set-block", {"pos": [0, 4, 0], "block": "redstone_block"})
    for p, s in ordered:
        if p != last:
            call("set-block", {"pos": list(p), "block": s})
    if passed and condition == "hint":
        call("activate-button")
    if passed:
        call("set-block", {"pos": list(last), "block": dict(ordered)[last]})
    call("activate-button")
    call("submit")
    env.close()
    return env.steps


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    calls = {}
    for (model, cond), per_task in PASSES.items():
        for fam, outcomes in per_task.items():
            tid = next(t for t in TASKS if t.startswith(fam))
            for rep, ok in enumerate(outcomes):
                calls[(model, cond, fam, rep)] = agent_run(d, model, cond, rep, tid, ok)
    return d, calls


@pytest.fixture(scope="module")
def records(runs):
    return report.load_runs(runs[0], progress=False)


def test_every_table_with_exact_values(runs, records):
    d, calls = runs
    assert len(records) == 16 and not [p for r in records for p in r.problems]
    tabs = report.tables(records)
    assert tabs["success"] == (["model", "condition", "level", "A", "B", "C", "D", "E", "Avg"], [
        ["m1", "baseline", "L1", 100.0, None, 0.0, None, None, 50.0],
        ["m1", "hint", "L1", 100.0, None, 50.0, None, None, 75.0],
        ["m2", "baseline", "L1", 50.0, None, 0.0, None, None, 25.0],
        ["m2", "hint", "L1", 100.0, None, 100.0, None, None, 100.0]])
    assert tabs["hint_gain"] == (["model", "baseline runs", "baseline %", "hint runs", "hint %", "gain (points)",
                                  "gain / baseline"], [["m1", 4, 50.0, 4, 75.0, 25.0, 0.5],
                                                       ["m2", 4, 25.0, 4, 100.0, 75.0, 3.0]])
    assert tabs["repeats"] == (["model", "condition", "repeats", "success % per repeat", "mean %", "std %"], [
        ["m1", "baseline", 2, "50.0 50.0", 50.0, 0.0], ["m1", "hint", 2, "100.0 50.0", 75.0, 35.4],
        ["m2", "baseline", 2, "0.0 50.0", 25.0, 35.4], ["m2", "hint", 2, "100.0 100.0", 100.0, 0.0]])
    assert tabs["trials"] == (["model", "condition", "runs", "mean trials used", "max trials used",
                               "runs with a passing trial", "mean trials to first success"], [
        ["m1", "baseline", 4, 1.0, 1, 2, 1.0], ["m1", "hint", 4, 1.75, 2, 3, 2.0],
        ["m2", "baseline", 4, 1.0, 1, 1, 1.0], ["m2", "hint", 4, 2.0, 2, 4, 2.0]])

    def per_attempt(model, cond):
        n = [c for (m, cd, _, _), c in calls.items() if (m, cd) == (model, cond)]
        return round(sum(n) / len(n) * USAGE[model][0], 2), round(sum(n) / len(n) * USAGE[model][1], 2), \
            round(sum(n) / len(n) * sum(USAGE[model]), 2), round(sum(n) / len(n) * 0.5, 2)

    assert tabs["tokens"][0] == ["model", "condition", "runs with usage", "input tokens / attempt",
                                 "output tokens / attempt", "tokens / attempt", "model latency s / attempt"]
    assert tabs["tokens"][1] == [[m, c, 4, *per_attempt(m, c)] for m, c in PASSES]

    cols, rows = tabs["validity"]
    assert cols == ["model", "tool", "calls", "valid", "refused", "validity %"]
    got = {(r[0], r[1]): r[2:] for r in rows}
    assert set(got) == {(m, t) for m in USAGE for t in ("set-block", "activate-button", "submit")}
    for m, refused in (("m1", 8), ("m2", 16)):
        n = sum(c for (mm, *_), c in calls.items() if mm == m) - got[(m, "activate-button")][0] - 8
        assert got[(m, "set-block")] == [n, n - refused, refused, round(100 * (n - refused) / n, 1)]
        assert got[(m, "submit")] == [8, 8, 0, 100.0]
    # presses: one per run, plus one more in each passing hint run (m1: 3 of them, m2: 4)
    assert got[("m1", "activate-button")] == [11, 11, 0, 100.0]
    assert got[("m2", "activate-button")] == [12, 12, 0, 100.0]
    assert tabs["refusals"] == (["model", "refusal cause", "refused calls", "share %"], [
        ["m1", "outside region", 8, 100.0], ["m2", "outside region", 8, 50.0], ["m2", "not in palette", 8, 50.0]])
    # failing runs leave out one of the 4 lamps: 3/4 meet their windows
    assert tabs["partial_credit"] == (["model", "condition", "A", "B", "C", "D", "E", "Avg"], [
        ["m1", "baseline", 1.0, None, 0.75, None, None, 0.875],
        ["m1", "hint", 1.0, None, 0.875, None, None, round(0.9375, 3)],
        ["m2", "baseline", 0.875, None, 0.75, None, None, round(0.8125, 3)],
        ["m2", "hint", 1.0, None, 1.0, None, None, 1.0]])


def test_report_command_writes_one_static_page(runs, records, tmp_path):
    d, _ = runs
    out = tmp_path / "report.html"
    res = CliRunner().invoke(app, ["report", str(d), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines()[-1] == f"16 run(s) -> {out}"
    assert "reading runs" in res.output  # the progress bar, on stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "16 run(s), 2 model(s): m1, m2; 10 passed" in page
    for name, (cols, rows) in report.tables(records).items():
        table = re.search(f"<table class='scv' data-table='{name}'>(.*?)</table>", page).group(1)
        assert re.findall("<th>(.*?)</th>", table) == cols
        assert table.count("<tr>") == len(rows) + 1
    for chart in ("success", "hint_gain", "validity"):
        assert f'id="chart-{chart}"' in page
    # plotly.js is inlined once (no script loaded from elsewhere), so the page works offline
    assert not re.search("<script[^>]*src=", page) and page.count("Plotly.newPlot(") == 3


def test_report_refuses_unusable_input(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [f"error: {tmp_path / 'nope'} is neither a directory of runs nor a "
                                               "trajectory file"]
    res = runner.invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 2
    assert res.output.strip().splitlines()[-1] == f"error: {tmp_path} holds no trajectory (*.jsonl)"
    assert not (tmp_path / "r.html").exists()


def test_lamps_meeting_their_windows():
    seq = tasks.load("C_sequential_activation_L1")  # delays [1, 2, 1] rt, tolerance 1
    lamps = [{"pos": [i, 4, 0], "on": t, "off": None} for i, t in enumerate([0, 1, 3, 9])]
    assert seq.contract["delays_ticks"] == [1, 2, 1] and report.lamps_meeting(seq, {"lamps": lamps}) == 3
    a = tasks.load("A_simultaneous_lights_L1")
    assert report.lamps_meeting(a, {"lamps": [{"on": 3}, {"on": 4}, {"on": 9}, {"on": None}]}) == 2
    e = tasks.load("E_pulse_shaping_L1")  # on within 2 rt, off at 4 +- 1 rt
    assert report.lamps_meeting(e, {"lamps": [{"on": 2, "off": 5}, {"on": 3, "off": 5}, {"on": 0, "off": 6},
                                              {"on": 1, "off": None}]}) == 1
    assert report.refusal_cause("set-block: pos [50, 4, 0] is outside the build region: x -10..10") == "outside region"
    assert report.refusal_cause("something new") == "other"
