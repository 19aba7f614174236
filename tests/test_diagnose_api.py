"""The debugger's API as docs/api.md describes it: the worked example (from a replay to a world and its
task) runs as a doctest, so it cannot drift from the code; the diagnosis modules' own examples run too;
and an unknown task id gets a suggestion only when it misspells a known one."""

import doctest
import re
from pathlib import Path

import pytest

from scicraft_viz import tasks

ROOT = Path(__file__).resolve().parent.parent


def _run_doctest(text: str, name: str, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples name files relative to the repository
    test = doctest.DocTestParser().get_doctest(text, {}, name, str(ROOT / "docs/api.md"), 0)
    assert test.examples, f"{name}: no examples found"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed (see the output above)"


def test_worked_example_in_api_md(monkeypatch):
    doc = (ROOT / "docs/api.md").read_text()
    section = doc.split("### Worked example: from a replay to a world and its task", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    _run_doctest(block, "docs/api.md worked example", monkeypatch)


@pytest.mark.parametrize("module", ["scicraft_viz.diagnose.run", "scicraft_viz.diagnose.repair"])
def test_module_examples(module, monkeypatch):
    import importlib

    mod = importlib.import_module(module)
    _run_doctest(mod.__doc__, module, monkeypatch)


def test_api_md_names_the_debuggers_objects():
    doc = (ROOT / "docs/api.md").read_text()
    for name in ("trial_diff(n)", "blocks_at(i)", "build_at(i)", "final_world()", "r.trials[i].build",
                 "Trajectory.task()", "evaluator.evaluate(task, world)", "f.fix_lines", "f.fix_calls", "d.repair"):
        assert name in doc, name


def test_a_generated_task_id_is_not_a_file_and_the_message_says_where_it_lives():
    doc = tasks.generate_task("A", 20)
    assert doc["task_id"] == "A_simultaneous_lights_n20"
    with pytest.raises(tasks.TaskNotFoundError) as ei:
        tasks.load(doc["task_id"])
    msg = str(ei.value)
    assert "did you mean" not in msg  # above all, not A_simultaneous_lights_L2
    assert "is a generated task (family A, N=20), not a task file" in msg
    assert "trajectory header" in msg and "Trajectory.task()" in msg
    assert len(msg) < 300 and "\n" not in msg


@pytest.mark.parametrize("given, suggested", [
    ("A_simultanous_lights_L2", "A_simultaneous_lights_L2"),   # a letter missing
    ("a_simultaneous_lights_l2", "A_simultaneous_lights_L2"),  # case
    ("B_branch_reach_L2x", "B_branch_reach_L2"),
    ("A_simultaneous_lights_L9", None),                         # no such level: no other level is offered
    ("A_simultaneous_lights_L12", None),
    ("C_sequential_activation_n6", None),                       # generated, N=6
    ("nonsense", None),
])
def test_did_you_mean_only_for_a_misspelt_known_id(given, suggested):
    with pytest.raises(tasks.TaskNotFoundError) as ei:
        tasks.load_by_id(given)
    msg = str(ei.value)
    if suggested is None:
        assert "did you mean" not in msg
    else:
        assert f"(did you mean {suggested}?)" in msg
