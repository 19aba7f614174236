"""The paper's tables from a directory of runs, checked against values worked out by hand.

The runs are made here with the environment and a scripted agent whose outcome we choose: two models
x two settings x the four conditions (and, for hint+scientist in the curriculum, the three book
formats) x two tasks x two epochs. A passing run builds the reference solution; m1's failing runs
leave out the lamp that lights last, m2's leave out the button. One run of m2 (curriculum,
hint+scientist, cpce, task C, epoch 2) is missing on purpose, so its cells are incomplete."""

from __future__ import annotations

import csv
import html as htmllib
import json
import re

import pytest
from typer.testing import CliRunner

from scicraft_viz import tasks
from scicraft_viz.cli import app
from scicraft_viz.engine.blocks import is_attached
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.experiments import report
from scicraft_viz.tasks import evaluator, solutions

TASK_A, TASK_C = "A_simultaneous_lights_L1", "C_sequential_activation_L1"
# (model, setting, condition, consolidation) -> passed for (A epoch 1, A epoch 2, C epoch 1, C epoch 2); None: no run
I, C = "independent", "curriculum"
DESIGN = {
    ("m1", I, "baseline", "cpce"): (1, 0, 0, 0),
    ("m1", I, "hint", "cpce"): (1, 1, 0, 0),
    ("m1", I, "scientist", "cpce"): (1, 1, 1, 0),
    ("m1", I, "hint+scientist", "cpce"): (1, 1, 1, 1),
    ("m1", C, "baseline", "cpce"): (1, 1, 0, 0),
    ("m1", C, "hint", "cpce"): (1, 1, 1, 0),
    ("m1", C, "scientist", "cpce"): (1, 0, 1, 0),
    ("m1", C, "hint+scientist", "summary"): (1, 0, 0, 0),
    ("m1", C, "hint+scientist", "fee"): (1, 1, 0, 0),
    ("m1", C, "hint+scientist", "cpce"): (1, 1, 1, 1),
    ("m2", I, "baseline", "cpce"): (0, 0, 0, 0),
    ("m2", I, "hint", "cpce"): (1, 0, 0, 0),
    ("m2", I, "scientist", "cpce"): (0, 1, 0, 0),
    ("m2", I, "hint+scientist", "cpce"): (1, 1, 0, 1),
    ("m2", C, "baseline", "cpce"): (0, 1, 0, 0),
    ("m2", C, "hint", "cpce"): (1, 0, 0, 1),
    ("m2", C, "scientist", "cpce"): (1, 1, 0, 0),
    ("m2", C, "hint+scientist", "summary"): (0, 0, 1, 1),
    ("m2", C, "hint+scientist", "fee"): (1, 0, 1, 0),
    ("m2", C, "hint+scientist", "cpce"): (1, 1, 1, None),
}
USAGE = {"m1": (100, 10), "m2": (200, 20)}  # input, output tokens of every call's model turn


def plan(task_id: str):
    """The reference build in placing order (supports first) and the lamp that lights last."""
    t = tasks.load(task_id)
    blocks = solutions.solution_blocks(t)
    lamps = evaluator.evaluate(t, blocks).measured["lamps"]
    last = tuple(max(lamps, key=lambda x: (x["on"], x["pos"]))["pos"])
    ordered = sorted(blocks.items(), key=lambda kv: (is_attached(kv[1]), kv[0][1], kv[0]))
    return t, ordered, last


PLANS = {tid: plan(tid) for tid in (TASK_A, TASK_C)}


def agent_run(directory, key, task_id: str, epoch: int, passed: bool) -> int:
    """One scripted run; returns its number of calls. Every run opens with a refused out-of-region call,
    m2's runs also call a tool that does not exist. Under a scientist condition the scientist places a
    button in its scratch world and presses it once. Then the engineer builds, presses and submits."""
    model, setting, cond, cons = key
    t, ordered, last = PLANS[task_id]
    path = directory / f"{task_id}__{model}__{setting}__{cond.replace('+', '-')}__{cons}__e{epoch}.jsonl"
    cur = {"family": t.family, "position": 1, "levels": [task_id], "epoch": epoch} if setting == C else None
    env = SciCraftEnv.recording(t, path, actor_name=model, condition=cond, setting=setting, consolidation=cons,
                                curriculum=cur, session={"interface": "test", "epoch": epoch}, ticks_per_action=0,
                                started=f"2026-01-01T00:00:0{epoch}Z")
    inp, out = USAGE[model]
    usage = {"model": model, "input_tokens": inp, "output_tokens": out, "latency_s": 0.5}

    def call(tool, args=None):
        env.call(tool, args or {}, usage)

    call("set-block", {"pos": [50, 4, 0], "block": "stone"})
    if model == "m2":
        call("fly", {"speed": 3})
    if "scientist" in cond:
        call("ask-scientist", {"question": "When does a lamp next to a pressed button light?"})
        call("set-block", {"pos": [0, 4, 0], "block": "stone_button[face=floor]"})
        call("activate-button")
        call("end-experiment", {"answer": "at once"})
    for p, s in ordered:
        if passed or (model == "m1" and p != last) or (model == "m2" and "button" not in s):
            call("set-block", {"pos": list(p), "block": s})
    call("activate-button")
    call("submit")
    env.close()
    return env.steps


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    calls = {}
    for key, outcomes in DESIGN.items():
        for (tid, epoch), ok in zip([(TASK_A, 1), (TASK_A, 2), (TASK_C, 1), (TASK_C, 2)], outcomes):
            if ok is not None:
                calls[(*key, tid, epoch)] = agent_run(d, key, tid, epoch, bool(ok))
    # a client that only listed the tools: a header and nothing else
    SciCraftEnv.recording(tasks.load(TASK_A), d / "header_only.jsonl", actor_name="m1", condition="hint",
                          setting=C).close()
    return d, calls


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def records(runs, cache_dir):
    return report.load_runs(runs[0], progress=False, cache=cache_dir)


@pytest.fixture(scope="module")
def tabs(records):
    return report.build_tables(records)


def test_every_run_is_scored_from_its_replay(runs, records):
    d, calls = runs
    assert len(records) == 80
    by = {r.source.rsplit("/", 1)[-1]: r for r in records}
    assert by["header_only.jsonl"].status == "header-only"
    assert "a header and no call" in by["header_only.jsonl"].reason
    counted = [r for r in records if r.counted]
    assert len(counted) == 79 and not [p for r in counted for p in r.problems]
    for r in counted:
        key = (r.model, r.setting, r.condition, r.consolidation or "cpce")
        i = (0 if r.task_id == TASK_A else 2) + r.epoch - 1
        assert r.passed == bool(DESIGN[key][i]) and r.epoch == r.recorded_epoch
        assert r.steps == calls[(*key, r.task_id, r.epoch)]
    # where no book is kept the consolidation does not matter, so it is left empty
    assert {r.consolidation for r in counted if r.setting == I and r.condition in ("baseline", "hint")} == {None}


def test_table1_gap_decomposition_is_paired(tabs):
    t = tabs["table1"]
    assert t.title == "Table 1: gap decomposition (curriculum setting), success %"
    assert t.columns == ["model", "baseline %", "baseline 95% CI", "delta_id", "r_id", "hint %", "hint 95% CI",
                         "delta_ds", "r_ds", "hint+scientist %", "hint+scientist 95% CI", "delta_app", "r_app",
                         "paired task-epochs", "incomplete"]
    # m1: 2/4, 3/4, 4/4. m2: 1/4 and 2/4, but hint+scientist has 3 runs (no C epoch 2): its row is paired over
    # A e1, A e2, C e1, where baseline is 0,1,0 (33.3%), hint 1,0,0 (33.3%) and hint+scientist 1,1,1 (100%)
    assert t.rows == [
        ["m1", 50.0, "[15.0, 85.0]", 25.0, 0.5, 75.0, "[30.1, 95.4]", 25.0, 0.5, 100.0, "[51.0, 100.0]", 0.0, 0.0, 4,
         ""],
        ["m2", 25.0, "[4.6, 69.9]", 0.0, 0.0, 50.0, "[15.0, 85.0]", 66.7, 2.0, 100.0, "[43.9, 100.0]", 0.0, 0.0, 3,
         "delta_id; r_id; delta_ds; r_ds; hint+scientist %; delta_app; r_app"]]


def test_table1_in_the_independent_setting(records):
    t = report.build_tables(records, setting="independent")["table1"]
    assert t.title == "Table 1: gap decomposition (independent setting), success %"
    # m2's baseline is 0%: no ratio
    assert t.rows == [
        ["m1", 25.0, "[4.6, 69.9]", 25.0, 1.0, 50.0, "[15.0, 85.0]", 50.0, 2.0, 100.0, "[51.0, 100.0]", 0.0, 0.0, 4,
         ""],
        ["m2", 0.0, "[0.0, 49.0]", 25.0, None, 25.0, "[4.6, 69.9]", 50.0, None, 75.0, "[30.1, 95.4]", 25.0, None, 4,
         ""]]
    with pytest.raises(ValueError, match="unknown setting 'both'"):
        report.build_tables(records, setting="both")


def test_table2_consolidation_formats(tabs):
    t = tabs["table2"]
    assert t.columns == ["model", "summary %", "summary 95% CI", "fee %", "fee 95% CI", "cpce %", "cpce 95% CI",
                         "delta_kc", "paired task-epochs", "incomplete"]
    # m2: cpce has 3 runs; over them summary is 0,0,1 (33.3%) and cpce 100%
    assert t.rows == [
        ["m1", 25.0, "[4.6, 69.9]", 50.0, "[15.0, 85.0]", 100.0, "[51.0, 100.0]", 75.0, 4, ""],
        ["m2", 50.0, "[15.0, 85.0]", 50.0, "[15.0, 85.0]", 100.0, "[43.9, 100.0]", 66.7, 3, "cpce %; delta_kc"]]


def test_table6_settings_by_conditions(tabs):
    t = tabs["table6"]
    assert t.columns == ["model", "independent baseline %", "independent hint %", "independent scientist %",
                         "independent hint+scientist %", "curriculum baseline %", "curriculum hint %",
                         "curriculum scientist %", "curriculum hint+scientist %", "incomplete"]
    assert t.rows == [["m1", 25.0, 50.0, 75.0, 100.0, 50.0, 75.0, 50.0, 100.0, ""],
                      ["m2", 0.0, 25.0, 25.0, 75.0, 25.0, 50.0, 50.0, 100.0, "curriculum hint+scientist %"]]


def test_tables_7_to_10_family_by_level(tabs):
    fams = ["A", "B", "C", "D", "E"]
    assert tabs["table7"].columns == ["model", "level", *(f"independent {f}" for f in fams), "independent Avg",
                                      *(f"curriculum {f}" for f in fams), "curriculum Avg", "incomplete"]

    def row(m, ia, ic, ca, cc, marks=""):
        return [m, "L1", ia, None, ic, None, None, round((ia + ic) / 2, 1), ca, None, cc, None, None,
                round((ca + cc) / 2, 1), marks]

    assert tabs["table7"].rows == [row("m1", 50.0, 0.0, 100.0, 0.0), row("m2", 0.0, 0.0, 50.0, 0.0)]
    assert tabs["table8"].rows == [row("m1", 100.0, 0.0, 100.0, 50.0), row("m2", 50.0, 0.0, 50.0, 50.0)]
    assert tabs["table9"].rows == [row("m1", 100.0, 50.0, 50.0, 50.0), row("m2", 50.0, 0.0, 100.0, 0.0)]
    assert tabs["table10"].rows == [row("m1", 100.0, 100.0, 100.0, 100.0),
                                    row("m2", 100.0, 50.0, 100.0, 100.0, "curriculum C; curriculum Avg")]
    assert tabs["table10"].title == "Table 10: success % by family and level, hint+scientist"


def test_cells_with_intervals_and_pass_at_k(tabs):
    t = tabs["cells"]
    assert t.columns == ["model", "setting", "condition", "consolidation", "runs", "tasks", "epochs", "passed",
                         "success %", "95% CI low", "95% CI high", "pass@1 %", "pass@2 %", "pass@4 %", "pass@8 %",
                         "paper tables"]
    m1 = [r for r in t.rows if r[0] == "m1"]
    assert m1 == [
        ["m1", I, "baseline", None, 4, 2, 2, 1, 25.0, 4.6, 69.9, 25.0, 50.0, None, None, "6, 7"],
        ["m1", I, "hint", None, 4, 2, 2, 2, 50.0, 15.0, 85.0, 50.0, 50.0, None, None, "6, 8"],
        ["m1", I, "scientist", "cpce", 4, 2, 2, 3, 75.0, 30.1, 95.4, 75.0, 100.0, None, None, "6, 9"],
        ["m1", I, "hint+scientist", "cpce", 4, 2, 2, 4, 100.0, 51.0, 100.0, 100.0, 100.0, None, None, "6, 10"],
        ["m1", C, "baseline", "cpce", 4, 2, 2, 2, 50.0, 15.0, 85.0, 50.0, 50.0, None, None, "1, 6, 7"],
        ["m1", C, "hint", "cpce", 4, 2, 2, 3, 75.0, 30.1, 95.4, 75.0, 100.0, None, None, "1, 6, 8"],
        ["m1", C, "scientist", "cpce", 4, 2, 2, 2, 50.0, 15.0, 85.0, 50.0, 100.0, None, None, "6, 9"],
        ["m1", C, "hint+scientist", "summary", 4, 2, 2, 1, 25.0, 4.6, 69.9, 25.0, 50.0, None, None, "2"],
        ["m1", C, "hint+scientist", "fee", 4, 2, 2, 2, 50.0, 15.0, 85.0, 50.0, 50.0, None, None, "2"],
        ["m1", C, "hint+scientist", "cpce", 4, 2, 2, 4, 100.0, 51.0, 100.0, 100.0, 100.0, None, None,
         "1, 2, 6, 10"]]
    # C has one run in m2's curriculum hint+scientist cpce cell: no pass@2
    assert t.rows[-1] == ["m2", C, "hint+scientist", "cpce", 3, 2, 2, 3, 100.0, 43.9, 100.0, 100.0, None, None,
                          None, "1, 2, 6, 10"]
    assert report.pass_at_k([(8, 2), (8, 0)], 4) == pytest.approx(100 * (1 - 15 / 70 + 0) / 2)
    assert report.pass_at_k([(3, 1)], 4) is None
    lo, hi = report.wilson(1, 4)
    assert (round(lo, 2), round(hi, 2)) == (4.56, 69.94) and report.wilson(0, 0) is None


def test_failure_modes_per_model_and_condition(tabs):
    t = tabs["failure_modes"]
    assert t.columns == ["model", "setting", "condition", "consolidation", "failed runs", "mode", "title", "category",
                         "capacity gap", "paper case", "runs with it", "share of failed %", "primary in"]
    rows = {tuple(r[:4]): r[4:] for r in t.rows}
    # m1 leaves a lamp out (a broken constraint: N lamps), m2 the button
    assert rows[("m1", I, "baseline", None)] == [3, "broken_constraint", "Broken Constraint", "structural", None, None,
                                                 3, 100.0, 3]
    assert rows[("m2", C, "hint", "cpce")] == [2, "no_button", "No Button", "structural", None, None, 2, 100.0, 2]
    failed = {k: sum(1 for x in v if x == 0) for k, v in DESIGN.items()}
    assert {k: v[0] for k, v in rows.items()} == {(m, s, c, None if s == I and c in ("baseline", "hint") else cons): n
                                                  for (m, s, c, cons), n in failed.items() if n}
    assert len(t.rows) == len(rows)  # one mode per cell


def test_repeats_trials_tokens_partial_credit(runs, tabs):
    _, calls = runs
    rep = {tuple(r[:4]): r[4:] for r in tabs["repeats"].rows}
    assert rep[("m1", C, "hint", "cpce")] == [2, "100.0 50.0", 75.0, 35.4, ""]
    assert rep[("m2", C, "hint+scientist", "cpce")] == [2, "100.0 100.0", 100.0, 0.0, "success % per epoch"]
    tri = {tuple(r[:4]): r[4:] for r in tabs["trials"].rows}
    # m1 always presses once (twice with a scientist: the scientist's press is trial 1)
    assert tri[("m1", C, "hint", "cpce")] == [4, 1.0, 1, 0.0, 3, 1.0]
    assert tri[("m1", I, "scientist", "cpce")] == [4, 2.0, 2, 1.0, 3, 2.0]
    # m2's failing runs have no button, so their press is refused: only the scientist's trial counts
    assert tri[("m2", C, "scientist", "cpce")] == [4, 1.5, 2, 1.0, 2, 2.0]
    assert tri[("m2", I, "baseline", None)] == [4, 0.0, 0, 0.0, 0, None]
    tok = {tuple(r[:4]): r[4:] for r in tabs["tokens"].rows}
    for key in DESIGN:
        m, s, c, cons = key
        n = [v for k, v in calls.items() if k[:4] == key]
        inp, out = USAGE[m]
        k4 = (m, s, c, None if s == I and c in ("baseline", "hint") else cons)
        mean = sum(n) / len(n)
        assert tok[k4] == [len(n), round(mean * inp, 2), round(mean * out, 2), round(mean * (inp + out), 2),
                           round(mean * 0.5, 2)]
    pc = {tuple(r[:4]): r[4:] for r in tabs["partial_credit"].rows}
    # m1's failing runs: 3 of 4 lamps meet their windows; m2's (no button): none
    assert pc[("m1", I, "baseline", None)] == [0.875, None, 0.75, None, None, 0.812]
    assert pc[("m2", C, "hint", "cpce")] == [0.5, None, 0.5, None, None, 0.5]


def test_validity_counts_unknown_tools_and_refusals(runs, tabs):
    _, calls = runs
    got = {(r[0], r[1]): r[2:] for r in tabs["validity"].rows}
    n_runs = {m: sum(1 for k in calls if k[0] == m) for m in USAGE}
    assert (n_runs["m1"], n_runs["m2"]) == (40, 39)
    assert got[("m2", "unknown-tool")] == [39, 0, 39, 0.0] and ("m1", "unknown-tool") not in got
    assert got[("m1", "submit")] == [40, 40, 0, 100.0]
    sci = {m: sum(1 for k in calls if k[0] == m and "scientist" in k[2]) for m in USAGE}
    assert got[("m1", "ask-scientist")] == [sci["m1"], sci["m1"], 0, 100.0]
    assert got[("m1", "end-experiment")] == [sci["m1"], sci["m1"], 0, 100.0]
    m2_failed = sum(1 for k, v in DESIGN.items() if k[0] == "m2" for x in v if x == 0)
    assert m2_failed == 22
    presses = 39 + sci["m2"]
    assert got[("m2", "activate-button")] == [presses, presses - 22, 22, round(100 * (presses - 22) / presses, 1)]
    assert tabs["refusals"].rows == [["m1", "outside region", 40, 100.0], ["m2", "outside region", 39, 39.0],
                                     ["m2", "unknown tool", 39, 39.0], ["m2", "button missing or extra", 22, 22.0]]


def test_runs_and_excluded_tables(records, tabs):
    t = tabs["runs"]
    assert len(t.rows) == 80 and t.columns[:3] == ["source", "status", "reason"]
    assert sorted({r[1] for r in t.rows}) == ["counted", "header-only"]
    assert [r[0] for r in tabs["excluded"].rows] == ["header-only"]
    assert tabs["excluded"].rows[0][1].endswith("header_only.jsonl")


def test_epochs_are_numbered_where_none_is_recorded(tmp_path):
    """Runs without a recorded epoch (an MCP or annotator session) are numbered by start time."""
    t, ordered, _ = PLANS[TASK_A]
    for i, started in enumerate(["2026-01-01T00:00:09Z", "2026-01-01T00:00:01Z"]):
        env = SciCraftEnv.recording(t, tmp_path / f"r{i}.jsonl", actor_name="p", started=started, ticks_per_action=0)
        if i == 0:
            for p, s in ordered:
                env.set_block(p, s)
        env.submit()
        env.close()
    recs = report.load_runs(tmp_path, progress=False, cache=None)
    assert [(r.source.rsplit("/", 1)[-1], r.passed, r.epoch) for r in recs] == [("r0.jsonl", True, 2),
                                                                               ("r1.jsonl", False, 1)]


# ---------------------------------------------------------------------------------------- the command and formats
def _html_tables(page: str) -> dict[str, list[list[str]]]:
    out = {}
    for name, body in re.findall(r"<table class='scv' data-table='(\w+)'>(.*?)</table>", page):
        rows = []
        for tr in re.findall(r"<tr>(.*?)</tr>", body):
            cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr)
            rows.append([htmllib.unescape(re.sub(r"<sup>\*</sup>", "", c)) for c in cells])
        out[name] = rows
    return out


def _text(v) -> str:
    return "-" if v is None else str(v)


@pytest.fixture(scope="module")
def written(runs, records, cache_dir, tmp_path_factory):
    d, _ = runs
    out = tmp_path_factory.mktemp("out")
    # the same cache as `records`: the command reads every run's result from it
    res = CliRunner().invoke(app, ["report", str(d), "--format", "csv,json,html", "--out", f"{out}/",
                                   "--cache", str(cache_dir)])
    return out, res


def test_report_command_prints_tables_1_2_6_and_writes_every_format(written, tabs):
    out, res = written
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[-1] == (f"79 run(s) counted, 1 left out -> {out}/report.html, {out}/report.json, "
                         f"{out}/report.<table>.csv (20 tables)")
    assert "reading runs" in res.stderr  # the progress bar
    for name in ("table1", "table2", "table6"):
        text = report.render_text(tabs[name])
        assert text in res.stdout
        assert text.splitlines()[1].split() == " ".join(tabs[name].columns).split()
    assert lines[0] == "Table 1: gap decomposition (curriculum setting), success %"
    assert re.search(r"^m2 +25\.0 +\[4\.6, 69\.9\] +0\.0 +0\.0 +50\.0 .* 66\.7 +2\.0 +100\.0 .* 3 +delta_id; r_id;",
                     res.stdout, re.M)
    assert any(line.startswith("left out (header-only): ") for line in lines)


def test_csv_json_and_html_hold_the_same_numbers(written, tabs):
    out, _ = written
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and not re.search("<script[^>]*src=", page)
    shown = _html_tables(page)
    doc = json.loads((out / "report.json").read_text())
    assert doc["format"] == "scicraft-report" and doc["setting"] == "curriculum"
    assert doc["counts"] == {"counted": 79, "disagrees": 0, "header-only": 1, "unreadable": 0, "duplicate": 0,
                             "incomplete": 0, "files": 80}
    assert list(doc["tables"]) == list(report.ORDER)
    for name in report.ORDER:
        t = tabs[name]
        j = doc["tables"][name]
        assert j["columns"] == t.columns and j["title"] == t.title
        with open(out / f"report.{name}.csv", newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        assert rows[0] == t.columns
        # the same values, cell by cell, in all three
        for i, row in enumerate(t.rows):
            assert [_text(v) for v in j["rows"][i]] == [_text(v) for v in row]
            assert rows[i + 1] == ["" if v is None else str(v) for v in row]
            assert shown[name][i + 1] == [_text(v) for v in row], (name, i)
        assert len(rows) == len(t.rows) + 1 and len(shown[name]) == len(t.rows) + 1
    # the incomplete cells are marked in the page
    assert page.count("<sup>*</sup>") == sum(len(t.marked(i)) for t in tabs.values() for i in range(len(t.rows)))


def test_out_names_a_file_a_stem_or_a_folder(tmp_path):
    p = report.output_paths
    assert p(None, ["html"]) == {"html": tmp_path.__class__("report.html")}
    assert p(str(tmp_path / "r.html"), ["html"]) == {"html": tmp_path / "r.html"}
    assert p(str(tmp_path / "r.html"), ["html", "json"]) == {"html": tmp_path / "r.html", "json": tmp_path / "r.json"}
    assert p(str(tmp_path / "res"), ["csv", "json"]) == {"csv": tmp_path / "res", "json": tmp_path / "res.json"}
    assert p(str(tmp_path), ["json"]) == {"json": tmp_path / "report.json"}
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        report.parse_formats("csv,pdf")


def test_report_refuses_unusable_input(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [f"error: {tmp_path / 'nope'} is neither a directory of runs nor a "
                                               "trajectory file"]
    res = runner.invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "r.html"), "--no-cache"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines()[-1] == f"error: {tmp_path} holds no trajectory (*.jsonl)"
    res = runner.invoke(app, ["report", str(tmp_path), "--format", "pdf"])
    assert res.exit_code == 2 and "unknown format 'pdf'" in res.output
    res = runner.invoke(app, ["report", str(tmp_path), "--setting", "both"])
    assert res.exit_code == 2 and "unknown setting 'both'" in res.output
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
    assert report.refusal_cause("unknown tool 'fly'; the tools are set-block") == "unknown tool"
    assert report.refusal_cause("something new") == "other"
