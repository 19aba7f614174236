"""CLI: `scicraft-viz tasks` and `scicraft-viz evaluate TASK BUILD [--json]` (exit 0 / 1 / 2)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scicraft_viz import solutions, tasks
from scicraft_viz.cli import app

ROOT = Path(__file__).resolve().parent.parent
SOL = ROOT / "tasks" / "solutions"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(map(str, args)))


def test_tasks_lists_all_with_parameters():
    r = run("tasks")
    assert r.exit_code == 0
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 25
    assert any(line.startswith("B_branch_reach_L4") and "max_reach_blocks=18" in line and "require_repeater=True"
               in line for line in lines)
    assert any(line.startswith("E_pulse_shaping_L1") and "tau_ticks=4" in line and "relaxed" in line
               for line in lines)
    data = json.loads(run("tasks", "--json").stdout)
    assert [d["task_id"] for d in data] == tasks.task_ids()
    c5 = next(d for d in data if d["task_id"] == "C_sequential_activation_L5")
    assert c5["parameters"]["N"] == 64 and len(c5["parameters"]["delays_ticks"]) == 63


def test_evaluate_pass_json():
    r = run("evaluate", "D_equal_delay_distribution_L2", SOL / "D_equal_delay_distribution_L2.mcfunction", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["passed"] is True and d["task_id"] == "D_equal_delay_distribution_L2"
    assert {c["name"] for c in d["checks"]} >= {"palette", "region", "one_button", "lamp_count", "nothing_on_lamps",
                                               "distance_buckets", "all_lamps_activate", "simultaneity"}
    assert d["measured"]["skew"] == 0 and d["measured"]["unit"] == "rt"
    assert all(lamp["on"] == 1 and lamp["distance"] in (3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17)
               for lamp in d["measured"]["lamps"])
    assert d["trials"] == {"used": 0, "budget": 50, "remaining": 50}


def test_evaluate_by_task_path_and_text_report(tmp_path):
    r = run("evaluate", ROOT / "tasks" / "C_sequential_activation_L1.yaml",
            SOL / "C_sequential_activation_L1.mcfunction")
    assert r.exit_code == 0
    assert "C_sequential_activation_L1: PASS" in r.stdout and "delays (rt): [1, 2, 1]" in r.stdout


def test_evaluate_failure_exit_1_with_reasons(tmp_path):
    t = tasks.load("C_sequential_activation_L2")
    blocks, what = solutions.broken_variant(t, "wrong_delay")
    p = tmp_path / "broken.mcfunction"
    p.write_text("# " + what + "\n" + "".join(f"setblock {x} {y} {z} {s}\n" for (x, y, z), s in blocks.items()))
    r = run("evaluate", t.id, p, "--json")
    assert r.exit_code == 1
    d = json.loads(r.stdout)
    failed = {c["name"]: c["reason"] for c in d["checks"] if not c["passed"]}
    assert list(failed) == ["sequence"] and "expected 1 rt +/- 1 rt" in failed["sequence"]
    r = run("evaluate", t.id, p)
    assert r.exit_code == 1 and "[FAIL] sequence:" in r.stdout


def test_trials_used_option():
    args = ("evaluate", "A_simultaneous_lights_L1", SOL / "A_simultaneous_lights_L1.mcfunction", "--json")
    assert run(*args, "--trials-used", "50").exit_code == 0
    r = run(*args, "--trials-used", "51")
    assert r.exit_code == 1
    d = json.loads(r.stdout)
    assert d["trials"]["used"] == 51 and not next(c for c in d["checks"] if c["name"] == "trial_budget")["passed"]


@pytest.mark.parametrize("task_arg,build_text,words", [
    ("A_simultaneous_lights_L7", "setblock 0 4 0 stone\n", "unknown task 'A_simultaneous_lights_L7'"),
    ("A_simultaneous_lights_L1", "setblock 0 4 0 stone\nsetblock 1 4\n", "b.mcfunction:2: expected 'setblock X Y Z"),
    ("A_simultaneous_lights_L1", "setblock 0 4 0 redstone_repeater[facing=up]\n",
     "redstone_repeater property 'facing' cannot be 'up'"),
    ("A_simultaneous_lights_L1", "setblock 0 4 0 minecraft:tnt\n", "unknown block 'tnt'"),
    ("A_simultaneous_lights_L1", "setblock 0 4 ~1 stone\n", "relative coordinates"),
    ("A_simultaneous_lights_L1", None, "does not exist"),
])
def test_unusable_input_exit_2_one_line(tmp_path, task_arg, build_text, words):
    b = tmp_path / "b.mcfunction"
    if build_text is not None:
        b.write_text(build_text)
    r = run("evaluate", task_arg, b)
    assert r.exit_code == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and words in err
    assert "Traceback" not in r.output and r.stdout == ""


def test_invalid_task_file_exit_2(tmp_path):
    doc = tasks.canonical_task("A", "L1")
    doc["contract"]["tolerance_ticks"] = -1
    doc["tick_unit"] = "minutes"
    p = tmp_path / "bad_task.yaml"
    p.write_text(tasks.dump_yaml(doc))
    r = run("evaluate", p, SOL / "A_simultaneous_lights_L1.mcfunction")
    assert r.exit_code == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1
    assert "bad_task.yaml: contract.tolerance_ticks: -1 is less than the minimum of 0" in err
    assert "(and 1 more problem(s))" in err


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_python_dash_m_entry_point():
    cmd = [sys.executable, "-m", "scicraft_viz", "evaluate", "E_pulse_shaping_L2",
           str(SOL / "E_pulse_shaping_L2.mcfunction"), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["passed"] and {lamp["off"] for lamp in d["measured"]["lamps"]} == {6}
    p = subprocess.run([sys.executable, "-m", "scicraft_viz", "evaluate", "nope", "x.mcfunction"],
                       capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=300)
    assert p.returncode == 2 and p.stderr.startswith("error: unknown task") and "Traceback" not in p.stderr


@pytest.mark.skipif(shutil.which("scicraft-viz") is None, reason="package not installed (no console script)")
def test_installed_console_script():
    p = subprocess.run(["scicraft-viz", "tasks"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0 and len(p.stdout.strip().splitlines()) == 25
