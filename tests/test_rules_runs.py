"""Runs under a rule variant: the task's ruleset reaches the evaluator and the environment, is recorded in
the trajectory header (older files load as vanilla) and a replay runs under it; the agent is not told."""

import json
from pathlib import Path

import pytest

from scicraft_viz import World, tasks
from scicraft_viz.engine.rules import VANILLA, VARIANTS, random_ruleset
from scicraft_viz.env.conditions import CONDITIONS, briefing, task_yaml
from scicraft_viz.env.environment import SciCraftEnv
from scicraft_viz.env.replay import replay_file
from scicraft_viz.env.trajectory import make_header, parse_text
from scicraft_viz.tasks.evaluator import BuildError, build_world, evaluate

SOL = Path(__file__).resolve().parent.parent / "tasks" / "solutions"


def test_evaluator_builds_under_the_tasks_rules():
    task = tasks.load("E_pulse_shaping_L5")
    text = (SOL / "E_pulse_shaping_L5.mcfunction").read_text()
    assert evaluate(task, text).passed
    slow = task.with_rules("short-button")
    assert build_world(slow, text).rules == VARIANTS["short-button"]
    res = evaluate(slow, text)
    assert not res.passed  # the button's pulse is the design's pulse: 10 gt instead of 20 misses tau
    assert [c.name for c in res.failures] == ["pulse_off_window"]
    # a world made under one ruleset is not judged under another
    with pytest.raises(BuildError, match="runs under the ruleset vanilla, the task under short-button"):
        evaluate(slow, build_world(task, text))


def test_task_with_rules_keeps_everything_else():
    task = tasks.load("A_simultaneous_lights_L2")
    v = task.with_rules("random:5")
    assert v.rules == random_ruleset(5) and v.id == task.id and v.contract == task.contract
    assert v.world_key != task.world_key and task.rules == VANILLA
    # the document says it, and reloading the document gives the same ruleset
    assert tasks.from_dict(v.doc, "again").rules == v.rules


def _run(task, path: Path) -> None:
    """Build the vanilla reference design under the task's ruleset and submit it."""
    from scicraft_viz.engine.blocks import is_attached
    from scicraft_viz.tasks.solutions import solution_blocks

    design = sorted(solution_blocks(task.with_rules("vanilla")).items(),
                    key=lambda it: (is_attached(it[1]), it[0][1], it[0][0], it[0][2]))
    with SciCraftEnv.recording(task, path, actor_kind="script", run_id="r1", started="2026-01-01T00:00:00Z") as env:
        assert env.world.rules == task.rules
        for p, state in design:
            assert env.call("set-block", {"pos": list(p), "block": state})["ok"]
        env.call("activate-button", {})
        env.call("submit", {})


def test_header_records_the_ruleset_and_replay_runs_under_it(tmp_path):
    task = tasks.load("C_sequential_activation_L1").with_rules("slow-repeaters")
    path = tmp_path / "run.jsonl"
    _run(task, path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 5 and header["rules"] == VARIANTS["slow-repeaters"].to_json()
    assert "task" not in header  # a canonical task: the id and the ruleset are enough
    submit = json.loads(lines[-1])
    assert submit["tool"] == "submit" and submit["result"]["passed"] is False  # delays doubled
    t = parse_text(path.read_text(), "run.jsonl")
    assert t.rules == VARIANTS["slow-repeaters"] and t.task().rules == t.rules
    rp = replay_file(path)
    assert rp.matches, rp.report()
    assert rp.task.rules == VARIANTS["slow-repeaters"]
    # the same run replayed as vanilla would not match: the header's ruleset is what makes it exact
    header.pop("rules")
    vanilla = tmp_path / "vanilla.jsonl"
    vanilla.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    assert not replay_file(vanilla).matches


def test_older_headers_load_as_vanilla():
    task = tasks.load("A_simultaneous_lights_L1")
    h = make_header(task, run_id="x", started="2026-01-01T00:00:00Z")
    h.pop("rules")
    h["version"] = 4
    t = parse_text(json.dumps(h) + "\n", "old.jsonl")
    assert t.ok and t.rules == VANILLA and t.task().rules == VANILLA


def test_a_bad_header_ruleset_is_a_problem_not_a_crash():
    h = make_header(tasks.load("A_simultaneous_lights_L1"), run_id="x", started="2026-01-01T00:00:00Z")
    h["rules"]["torch_delay"] = 99
    t = parse_text(json.dumps(h) + "\n", "bad.jsonl")
    assert not t.ok and any("rules" in str(p) for p in t.problems)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_agents_are_not_told_the_ruleset(condition):
    task = tasks.load("E_pulse_shaping_L2")
    v = task.with_rules({"base": "short-dust", "name": "secret-rules", "torch_delay": 3})
    assert briefing(v, condition) == briefing(task, condition)
    assert task_yaml(v, condition) == task_yaml(task, condition)


def test_world_rules_survive_into_the_environment_copy():
    env = SciCraftEnv(tasks.load("A_simultaneous_lights_L1").with_rules("no-locking"))
    assert env.world.rules.name == "no-locking" and isinstance(env.world, World)


def test_a_requirement_stating_a_vanilla_value_the_ruleset_changes_is_withheld():
    task = tasks.load("B_branch_reach_L4")
    claim = "At least one repeater must be used (reach beyond the 15-block dust budget)"
    assert f"- {claim}\n" in briefing(task, "hint")
    for name in ("short-dust", "random:1"):
        v = task.with_rules(name)
        assert v.rules.dust_decay == 2
        text = briefing(v, "hint")
        assert "15-block" not in text and "- At least one repeater must be used\n" in text
        assert "At least one repeater must be used" in task_yaml(v, "hint") and "15-block" not in task_yaml(v)
    # every other ruleset keeps it word for word
    assert briefing(task.with_rules("fast-torches"), "hint") == briefing(task, "hint")


def test_report_splits_success_by_ruleset(tmp_path):
    from scicraft_viz.engine.blocks import is_attached
    from scicraft_viz.experiments import report
    from scicraft_viz.tasks.solutions import solution_blocks

    t = tasks.load("C_sequential_activation_L1")
    design = sorted(solution_blocks(t).items(), key=lambda it: (is_attached(it[1]), it[0][1], it[0][0], it[0][2]))
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, rules, builds in (("v1", "vanilla", True), ("v2", "vanilla", False), ("d1", "short-dust", True),
                                ("r1", "slow-repeaters", True), ("r2", "slow-repeaters", False)):
        with SciCraftEnv.recording(t.with_rules(rules), runs / f"{name}.jsonl", actor_name="m") as env:
            for p, s in design if builds else ():
                assert env.set_block(list(p), s)["ok"]
            env.submit()
    recs = report.load_runs(runs, progress=False, cache=None)
    assert [r.status for r in recs] == ["counted"] * 5
    tabs = report.tables(recs, setting="independent")
    tab = tabs["rules"]
    assert tab.columns == ["model", "setting", "condition", "consolidation", "observation", "rules", "runs", "tasks",
                           "passed", "success %", "95% CI low", "95% CI high"]
    # the vanilla design passes under short-dust (its delay line has no dust) and fails under slow repeaters
    assert [row[:10] for row in tab.rows] == [
        ["m", "independent", "baseline", None, "text", "vanilla", 2, 1, 1, 50.0],
        ["m", "independent", "baseline", None, "text", "short-dust", 1, 1, 1, 100.0],
        ["m", "independent", "baseline", None, "text", "slow-repeaters", 2, 1, 0, 0.0],
    ]
    # the paper's cells keep the vanilla runs only
    [cell] = tabs["cells"].rows
    assert cell[:8] == ["m", "independent", "baseline", None, 2, 1, 2, 1]  # runs, tasks, epochs, passed
    col = tabs["runs"].columns.index("rules")
    assert sorted(r[col] for r in tabs["runs"].rows) == ["short-dust", "slow-repeaters", "slow-repeaters", "vanilla",
                                                         "vanilla"]


def _inspect_run(tmp_path: Path, **task_args):
    from inspect_ai import eval as inspect_eval

    from scicraft_viz.experiments.inspect_task import scicraft

    [log] = inspect_eval(scicraft(family="C", level="L1", trajectories=str(tmp_path / "runs"), **task_args),
                         model="scicraft/oracle", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples
    return log, next(iter(sample.scores.values()))


def test_an_inspect_run_under_a_variant_records_it_and_the_oracle_builds_for_it(tmp_path):
    from scicraft_viz.env import trajectory

    log, score = _inspect_run(tmp_path, rules="slow-repeaters")
    assert log.eval.task_args["rules"] == "slow-repeaters"
    traj = trajectory.read(score.metadata["trajectory"])
    assert traj.rules == VARIANTS["slow-repeaters"]
    # the oracle reads the run's ruleset and builds the generator's design for it; the vanilla design,
    # whose every repeater now waits twice as long, fails the same task
    assert score.value == 1.0
    task = tasks.load("C_sequential_activation_L1")
    vanilla = (SOL / "C_sequential_activation_L1.mcfunction").read_text()
    assert [c.name for c in evaluate(task.with_rules("slow-repeaters"), vanilla).failures] == ["sequence"]
    assert replay_file(score.metadata["trajectory"]).matches
    # without the option the same agent passes, and its header says vanilla
    _, vanilla = _inspect_run(tmp_path / "v")
    assert vanilla.value == 1.0 and trajectory.read(vanilla.metadata["trajectory"]).rules == VANILLA


def test_a_bad_rules_option_is_refused_before_any_run():
    from scicraft_viz.errors import InputError
    from scicraft_viz.experiments.inspect_task import scicraft

    with pytest.raises(InputError, match="-T rules: unknown ruleset 'sideways'"):
        scicraft(family="C", level="L1", rules="sideways")


def test_serve_mcp_refuses_an_unknown_ruleset_in_one_line(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "scicraft_viz", "serve-mcp", "--task", "A_simultaneous_lights_L1",
                        "--rules", "sideways", "--trajectory", str(tmp_path / "runs") + "/"],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("error: --rules: unknown ruleset 'sideways'; use one of vanilla, fast-torches")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_ruleset_drawn_from_a_seed_breaks_the_memorised_solutions_it_should():
    rs = random_ruleset(2)
    assert rs.repeater_step == 4 and rs.dust_decay == 2  # repeaters twice as slow, dust half as far
    verdicts = {}
    for tid in ("A_simultaneous_lights_L1", "B_branch_reach_L1", "C_sequential_activation_L1"):
        task = tasks.load(tid)
        text = (SOL / f"{tid}.mcfunction").read_text()
        assert evaluate(task, text).passed
        verdicts[tid] = [c.name for c in evaluate(task.with_rules("random:2"), text).failures]
    assert verdicts == {"A_simultaneous_lights_L1": [],
                        "B_branch_reach_L1": ["t_junction", "all_lamps_activate", "simultaneity"],
                        "C_sequential_activation_L1": ["sequence"]}


def test_no_briefing_changes_under_a_variant_but_the_withheld_phrase():
    """Every canonical task under every listed variant, hint condition: the briefing (hint included: each
    names a mechanism every variant keeps) is the vanilla one, but for the one phrase a dust variant makes
    false."""
    phrase = " (reach beyond the 15-block dust budget)"
    changed = set()
    for task in tasks.load_all():
        base = briefing(task, "hint")
        for name, rs in VARIANTS.items():
            text = briefing(task.with_rules(rs), "hint")
            if text != base:
                assert text == base.replace(phrase, ""), (task.id, name)
                changed.add((task.id, name))
    assert changed == {("B_branch_reach_L4", "short-dust"), ("B_branch_reach_L5", "short-dust")}
