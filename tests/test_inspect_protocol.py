"""The whole protocol through Inspect AI with the built-in offline agents, no network: curriculum and
independent settings, the scientist sub-agent on the shared budget, the knowledge book carried from
level to level, list-valued -T options through Inspect's own command line, and loud failures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from scicraft_viz.env import trajectory  # noqa: E402
from scicraft_viz.env.book import check_book, entries  # noqa: E402
from scicraft_viz.env.replay import replay_file  # noqa: E402
from scicraft_viz.experiments.inspect_task import scicraft  # noqa: E402

INSPECT = str(Path(sys.executable).with_name("inspect"))


def run(tmp_path: Path, model: str = "scicraft/oracle", model_args: dict | None = None, epochs: int = 1, **task_args):
    out = tmp_path / "runs"
    [log] = inspect_eval(scicraft(trajectories=str(out), **task_args), model=get_model(model, **(model_args or {})),
                         log_dir=str(tmp_path / "logs"), display="none", epochs=epochs)
    assert log.status == "success", log.error
    return log, out


def runs_in(out: Path) -> dict[str, trajectory.Trajectory]:
    return {t.task_id: t for t in (trajectory.read(p) for p in sorted(out.glob("*.jsonl")))}


def test_curriculum_carries_the_book_and_nothing_else_from_level_to_level(tmp_path):
    log, out = run(tmp_path, family="A", level="L1,L2,L3", condition="hint+scientist", setting="curriculum",
                   consolidation="cpce")
    [sample] = log.samples
    [score] = sample.scores.values()
    assert sample.id == "A_curriculum" and score.value == 1.0 and score.answer == "3/3 levels passed"
    assert [lv["task_id"] for lv in score.metadata["levels"]] == [f"A_simultaneous_lights_L{i}" for i in (1, 2, 3)]
    runs = runs_in(out)
    l1, l2, l3 = (runs[f"A_simultaneous_lights_L{i}"] for i in (1, 2, 3))
    for i, t in enumerate((l1, l2, l3), 1):
        assert (t.condition, t.setting, t.consolidation) == ("hint+scientist", "curriculum", "cpce")
        assert t.curriculum["position"] == i and t.curriculum["family"] == "A"
        assert replay_file(t.source).matches
    assert l1.book_in == ""
    book1 = next(s for s in reversed(l1.steps) if s.tool == "update-knowledge-book").args["book"]
    assert check_book(book1, "cpce") is None and len(entries(book1)) == 1
    # what L1's scientist wrote is what L2's engineer reads first; no transcript goes along
    assert l2.book_in == book1
    assert l2.steps[0].tool == "read-knowledge-book" and l2.steps[0].result["book"] == book1
    assert l2.steps[0].agent == "engineer"
    # the scientist presses three times, the engineer once: all from one budget
    for t in (l1, l2, l3):
        presses = [s.agent for s in t.steps if s.tool == "activate-button" and s.ok]
        assert presses == ["scientist"] * 3 + ["engineer"] and t.trials_used == 4
    assert (out / Path(l2.source).name.replace(".jsonl", ".book.md")).read_text().strip() == book1.strip()


def test_the_engineer_keeps_the_book_in_a_curriculum_without_scientist(tmp_path):
    _, out = run(tmp_path, family="C", level="L1,L2", condition="baseline", setting="curriculum",
                 consolidation="fee")
    runs = runs_in(out)
    l1, l2 = runs["C_sequential_activation_L1"], runs["C_sequential_activation_L2"]
    written = next(s for s in l1.steps if s.tool == "update-knowledge-book").args["book"]
    assert "### Finding" in written and check_book(written, "fee") is None
    assert l2.book_in == written and not any(s.tool == "ask-scientist" for s in l2.steps)


def test_independent_tasks_start_with_an_empty_book(tmp_path):
    log, out = run(tmp_path, family="B", level="L1,L2", condition="scientist", setting="independent",
                   consolidation="summary")
    assert [s.id for s in log.samples] == ["B_branch_reach_L1", "B_branch_reach_L2"]
    for t in runs_in(out).values():
        assert t.book_in == "" and t.setting == "independent" and t.passed


def test_a_scientist_that_spends_the_budget_cuts_the_episode_off(tmp_path):
    log, out = run(tmp_path, family="D", level="L1", condition="scientist", budget=2)
    [score] = log.samples[0].scores.values()
    assert score.value == 0.0
    assert score.metadata["cut_off"] == "cut off: the scientist requested a trial after all 2 were used"
    [t] = runs_in(out).values()
    assert t.trials_used == 2 and t.steps[-1].agent == "scientist" and t.steps[-1].tool == "activate-button"
    assert t.steps[-1].result["error"] == "activate-button: no verification trial left: all 2 are used"
    assert not any(s.tool == "submit" for s in t.steps) and replay_file(t.source).matches


def test_the_oracle_solves_every_task_under_the_full_protocol(tmp_path):
    log, out = run(tmp_path, family="all", level="all", condition="hint+scientist", setting="curriculum")
    assert [s.scores["scicraft_scorer"].value for s in log.samples] == [1.0] * 5
    assert len(list(out.glob("*.jsonl"))) == 25 and all(t.passed for t in runs_in(out).values())


def test_random_and_replay_agents(tmp_path):
    log, out = run(tmp_path / "r", model="scicraft/random", model_args={"seed": 3, "turns": 25}, family="E",
                   level="L1", budget=2)
    [t] = runs_in(out).values()
    assert t.trials_used <= 2 and t.final is not None and replay_file(t.source).matches
    # a recorded run played again through Inspect gives the same calls and the same verdict
    _, first = run(tmp_path / "o", family="E", level="L1", condition="scientist")
    [orig] = runs_in(first).values()
    _, again = run(tmp_path / "p", model="scicraft/replay", model_args={"trajectory": orig.source}, family="E",
                   level="L1", condition="scientist")
    [copy] = runs_in(again).values()
    assert [(s.agent, s.tool, s.args) for s in copy.steps] == [(s.agent, s.tool, s.args) for s in orig.steps]
    assert copy.passed is True


def test_calls_inspect_refuses_itself_are_still_recorded(tmp_path):
    o1 = ModelOutput.for_tool_call("mockllm/model", "place-block", {"pos": [0, 4, 0]})
    o2 = ModelOutput.for_tool_call("mockllm/model", "set-block", {"pos": [0, 4], "block": "stone"})
    o3 = ModelOutput.for_tool_call("mockllm/model", "submit", {})
    for o in (o1, o2, o3):
        o.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
    [log] = inspect_eval(scicraft(trajectories=str(tmp_path / "runs")),
                         model=get_model("mockllm/model", custom_outputs=[o1, o2, o3]),
                         log_dir=str(tmp_path / "logs"), display="none")
    [t] = runs_in(tmp_path / "runs").values()
    assert [(s.tool, s.ok) for s in t.steps] == [("unknown-tool", False), ("set-block", False), ("submit", True)]
    assert t.steps[1].result["error"] == "set-block: pos must be three integers [x, y, z], got [0, 4]"


def _inspect(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run([INSPECT, "eval", "scicraft_viz/scicraft", *args, "--log-dir", str(cwd / "logs"),
                           "--display", "none"], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_command_line_takes_lists_and_scores_the_oracle_offline(tmp_path):
    p = _inspect(["--model", "scicraft/oracle", "-T", "family=all", "-T", "level=L1,L2"], tmp_path)
    assert p.returncode == 0, p.stderr
    [log_file] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    assert len(log.samples) == 10 and log.results.scores[0].metrics["mean"].value == 1.0
    # the default folder is created on first use
    assert len(list((tmp_path / "runs" / "inspect").glob("*.jsonl"))) == 10


def test_a_run_that_cannot_write_its_trajectory_fails_loudly(tmp_path):
    p = _inspect(["--model", "scicraft/oracle", "-T", f"trajectories={tmp_path / 'no' / 'such'}"], tmp_path)
    assert p.returncode == 1
    assert "scicraft: the run did not complete: scicraft_viz/scicraft (scicraft/oracle)" in p.stderr
    assert not (tmp_path / "no").exists()
