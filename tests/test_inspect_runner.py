"""The Inspect AI runner, offline: Inspect's mock model plays scripted tool calls. A reference build
scores 1, a broken one scores 0 with a diagnosis, a press beyond the budget cuts the run off; every
sample is a trajectory that replays exactly, with each model turn's usage; Inspect logs convert back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from scicraft_viz import tasks  # noqa: E402
from scicraft_viz.cli import app  # noqa: E402
from scicraft_viz.diagnose import diagnose  # noqa: E402
from scicraft_viz.env import trajectory  # noqa: E402
from scicraft_viz.env.conditions import briefing  # noqa: E402
from scicraft_viz.env.replay import Replay  # noqa: E402
from scicraft_viz.experiments.inspect_task import scicraft, task_ids_for  # noqa: E402
from scicraft_viz.tasks import solutions  # noqa: E402
from scicraft_viz.tasks.evaluator import _order_key  # noqa: E402

TASK = "A_simultaneous_lights_L1"


def turn(fn: str, args: dict, k: int) -> ModelOutput:
    o = ModelOutput.for_tool_call("mockllm/model", fn, args, content=f"turn {k}")
    o.usage = ModelUsage(input_tokens=100 + k, output_tokens=10, total_tokens=110 + k)
    return o


def build_calls(blocks: dict) -> list[tuple[str, dict]]:
    items = sorted(enumerate(blocks.items()), key=_order_key)
    return [("set-block", {"pos": list(p), "block": s}) for _, (p, s) in items]


def run(calls: list[tuple[str, dict]], tmp_path: Path, **task_args):
    outputs = [turn(fn, args, k) for k, (fn, args) in enumerate(calls)]
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = inspect_eval(scicraft(family="A", level="L1", trajectories=str(tmp_path / "runs"), **task_args),
                         model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples
    [score] = sample.scores.values()
    return log, sample, score, trajectory.read(score.metadata["trajectory"])


def test_reference_build_scores_one_and_replays_exactly(tmp_path):
    t = tasks.load(TASK)
    calls = build_calls(solutions.solution_blocks(t)) + [("activate-button", {}), ("submit", {})]
    log, sample, score, traj = run(calls, tmp_path)
    assert score.value == 1.0 and score.answer == "passed"
    assert score.metadata["partial_credit"] == 1.0 and score.metadata["trials_used"] == 1
    assert log.results.scores[0].metrics["mean"].value == 1.0
    assert sample.messages[0].text == briefing(t, "baseline")
    assert traj.ok and traj.passed is True and traj.condition == "baseline"
    assert traj.actor == {"kind": "model", "name": "mockllm/model"}
    assert [s.tool for s in traj.steps] == [c[0] for c in calls]
    assert Replay(traj).matches
    # each model turn's usage is on one line: its reasoning (the turn's text) here
    assert [r.text for r in traj.reasoning] == [f"turn {k}" for k in range(len(calls))]
    totals = traj.usage_totals()
    n = len(calls)
    assert (totals["turns"], totals["input_tokens"], totals["output_tokens"]) == (n, 100 * n + n * (n - 1) // 2, 10 * n)
    assert all(r.usage["model"] == "mockllm/model" for r in traj.reasoning)


def test_broken_build_scores_zero_and_opens_with_its_diagnosis(tmp_path):
    t = tasks.load(TASK)
    broken, what = solutions.broken_variant(t, "missing_wire")
    calls = build_calls(broken) + [("activate-button", {}), ("submit", {})]
    _, _, score, traj = run(calls, tmp_path)
    assert score.value == 0.0 and score.answer == "failed"
    final = Replay(traj).final_world()
    d = diagnose(final, t)
    assert d.findings and score.metadata["primary_mode"] == d.primary and score.metadata["failure_modes"] == d.modes()
    first = d.findings[0]
    assert score.explanation.startswith(f"Diagnosis of the final build:\n- {first.mode}: {first.explanation}")
    assert traj.passed is False and 0 <= score.metadata["partial_credit"] < 1


def test_a_press_beyond_the_budget_cuts_the_run_off(tmp_path):
    t = tasks.load(TASK)
    calls = build_calls(solutions.solution_blocks(t))
    press_and_wait = [("activate-button", {}), ("get-block-state", {"pos": [0, 4, 0]})]
    calls += press_and_wait * 3 + [("submit", {})]
    _, sample, score, traj = run(calls, tmp_path, budget=2)
    assert score.value == 0.0
    assert score.metadata["cut_off"] == "cut off: the engineer requested a trial after all 2 were used"
    assert score.explanation.endswith("cut off: the engineer requested a trial after all 2 were used")
    presses = [s for s in traj.steps if s.tool == "activate-button"]
    assert [s.ok for s in presses] == [True, True, False]
    assert presses[-1].result["error"] == "activate-button: no verification trial left: all 2 are used"
    assert traj.steps[-1].tool == "activate-button" and traj.final is None and traj.budget == 2
    assert Replay(traj).matches


def test_import_inspect_rebuilds_the_trajectory(tmp_path):
    t = tasks.load(TASK)
    calls = build_calls(solutions.solution_blocks(t)) + [("submit", {})]
    log, _, _, traj = run(calls, tmp_path, condition="hint")
    res = CliRunner().invoke(app, ["import-inspect", log.location, "--out", str(tmp_path / "imported")])
    assert res.exit_code == 0, res.output
    [path] = res.output.split()
    imp = trajectory.read(path)
    assert imp.ok and imp.condition == "hint" and imp.passed is True
    assert [(s.tool, s.args, s.result) for s in imp.steps] == [(s.tool, s.args, s.result) for s in traj.steps]
    assert [r.text for r in imp.reasoning] == [r.text for r in traj.reasoning]
    for key in ("input_tokens", "output_tokens", "turns"):
        assert imp.usage_totals()[key] == traj.usage_totals()[key]
    bad = tmp_path / "bad.eval"
    bad.write_text("not a log")
    res = CliRunner().invoke(app, ["import-inspect", str(bad)])
    assert res.exit_code == 2 and res.output.startswith(f"error: cannot read the Inspect log {bad}: ")


def test_import_refuses_hostile_logs_and_never_writes_half_a_file(tmp_path):
    from inspect_ai.log import read_eval_log, write_eval_log

    t = tasks.load(TASK)
    log, _, _, _ = run(build_calls(solutions.solution_blocks(t)) + [("submit", {})], tmp_path)
    full = read_eval_log(log.location)
    out = tmp_path / "imported"
    # usage an edited log may hold (Inspect itself refuses NaN and infinity): negative, absurd; dropped, not written
    for k, v in enumerate((-5, 10**30)):
        full.samples[0].events[[i for i, e in enumerate(full.samples[0].events) if e.event == "model"][k]] \
            .output.usage.input_tokens = v
    forged = tmp_path / "usage.json"
    write_eval_log(full, str(forged), format="json")
    res = CliRunner().invoke(app, ["import-inspect", str(forged), "--out", str(out)])
    assert res.exit_code == 0, res.output
    imp = trajectory.read(res.output.split()[0])
    assert imp.ok and [r.usage.get("input_tokens") for r in imp.reasoning[:3]] == [None, None, 102]
    # a field of the wrong type is refused with where it is, before any file is written
    full.samples[0].metadata["budget"] = [1]
    write_eval_log(full, str(tmp_path / "budget.json"), format="json")
    before = sorted(out.iterdir())
    res = CliRunner().invoke(app, ["import-inspect", str(tmp_path / "budget.json"), "--out", str(out)])
    assert res.exit_code == 2
    assert res.output.strip() == (f"error: {tmp_path / 'budget.json'}: sample '{TASK}' (epoch 1): metadata.budget "
                                  "must be an integer 1..1000, got [1]")
    assert sorted(out.iterdir()) == before
    fifo = tmp_path / "log.json"
    os.mkfifo(fifo)
    res = CliRunner().invoke(app, ["import-inspect", str(fifo), "--out", str(out)])
    assert res.exit_code == 2 and res.output.strip() == f"error: Inspect log {fifo} is not a regular file (a device, " \
                                                         "FIFO or socket)"


def test_task_selection_and_bad_parameters():
    assert task_ids_for("C", "L2") == ["C_sequential_activation_L2"]
    assert task_ids_for("A,E", "L1,L5") == ["A_simultaneous_lights_L1", "A_simultaneous_lights_L5",
                                           "E_pulse_shaping_L1", "E_pulse_shaping_L5"]
    assert len(task_ids_for("all", "all")) == 25
    for fam, lvl, msg in [("F", "L1", "family must be one of A, B, C, D, E (or all), got 'F'"),
                          ("A", "L9", "level must be one of L1, L2, L3, L4, L5 (or all), got 'L9'")]:
        with pytest.raises(tasks.TaskError) as e:
            task_ids_for(fam, lvl)
        assert str(e.value) == msg
    with pytest.raises(ValueError) as e:
        scicraft(condition="oracle")
    assert str(e.value) == "unknown condition 'oracle'; choose one of baseline, hint, scientist, hint+scientist"
    assert json.loads(json.dumps(task_ids_for("B", "L3"))) == ["B_branch_reach_L3"]
    # Inspect passes -T family=A,C as a list; the order of levels follows the curriculum whatever was given
    assert task_ids_for(["A", "C"], ["L2", "L1"]) == ["A_simultaneous_lights_L1", "A_simultaneous_lights_L2",
                                                    "C_sequential_activation_L1", "C_sequential_activation_L2"]
    assert task_ids_for(["a"], "ALL") == task_ids_for("A", "all")


def test_an_inspect_limit_ends_the_run_and_it_is_still_scored(tmp_path):
    t = tasks.load(TASK)
    calls = build_calls(solutions.solution_blocks(t)) + [("submit", {})]
    outputs = [turn(fn, args, k) for k, (fn, args) in enumerate(calls)]
    [log] = inspect_eval(scicraft(family="A", level="L1", trajectories=str(tmp_path / "runs")),
                         model=get_model("mockllm/model", custom_outputs=outputs), log_dir=str(tmp_path / "logs"),
                         display="none", message_limit=8)
    [score] = log.samples[0].scores.values()
    assert score.value == 0.0 and score.metadata["cut_off"] == "cut off: Message limit reached. count: 8; limit: 8"
    traj = trajectory.read(score.metadata["trajectory"])
    # 2 opening messages, then an assistant message and a tool result per turn: 3 turns fit in 8 messages
    assert traj.ok and traj.final is None and len(traj.steps) == 3 and Replay(traj).matches
