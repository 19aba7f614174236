"""CLI: `scicraft-viz tasks` and `scicraft-viz evaluate TASK BUILD... [--json] [--jobs N] [--scheduler ADDRESS]`
(exit 0 / 1 / 2)."""

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


# ------------------------------------------------------------------------------- many builds
def many_builds(tmp_path, *, bad=True):
    """A directory with two passing builds, one failing (sub-directory) and, optionally, an unusable one."""
    d = tmp_path / "runs"
    (d / "sub").mkdir(parents=True)
    shutil.copy(SOL / "A_simultaneous_lights_L1.mcfunction", d / "a1.mcfunction")
    shutil.copy(SOL / "A_simultaneous_lights_L1.mcfunction", d / "sub" / "c.mcfunction")
    (d / "b.mcfunction").write_text("setblock 0 4 0 stone\nsetblock 0 5 0 stone_button[face=floor]\n")
    (d / "notes.txt").write_text("not a build")
    if bad:
        (d / "z.mcfunction").write_text("setblock 0 4 0 stone\nsetblock 1 2\n")
    return d


def test_evaluate_many_files_one_line_each_in_order(tmp_path):
    d = many_builds(tmp_path, bad=False)
    r = run("evaluate", "A_simultaneous_lights_L1", d / "b.mcfunction", d / "a1.mcfunction")
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[1] == f"PASS {d / 'a1.mcfunction'}"
    assert lines[0] == (f"FAIL {d / 'b.mcfunction'}: lamp_count: 0 redstone_lamps placed, the task needs exactly 4; "
                        "all_lamps_activate: there are no lamps to observe; simultaneity: no lamp turned on, so no "
                        "skew can be measured")
    r = run("evaluate", "A_simultaneous_lights_L1", d / "a1.mcfunction", d / "sub")
    assert r.exit_code == 0 and r.stdout.splitlines() == [f"PASS {d / 'a1.mcfunction'}",
                                                          f"PASS {d / 'sub' / 'c.mcfunction'}"]


def test_evaluate_directory_exit_2_if_any_build_is_unusable(tmp_path):
    d = many_builds(tmp_path)
    r = run("evaluate", "A_simultaneous_lights_L1", d)
    assert r.exit_code == 2, r.output
    names = ["a1.mcfunction", "b.mcfunction", "sub/c.mcfunction", "z.mcfunction"]  # sorted paths, .txt skipped
    lines = r.stdout.splitlines()
    assert [ln.split()[1].rstrip(":") for ln in lines] == [str(d / n) for n in names]
    assert [ln.split()[0] for ln in lines] == ["PASS", "FAIL", "PASS", "ERROR"]
    z = d / "z.mcfunction"
    assert lines[3] == f"ERROR {z}: {z}:2: expected 'setblock X Y Z STATE' (5 words), got 3 words"
    r = run("evaluate", "A_simultaneous_lights_L1", d, "--json")
    assert r.exit_code == 2
    objs = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [o["passed"] for o in objs] == [True, False, True, False]
    assert objs[0]["task_id"] == "A_simultaneous_lights_L1" and objs[0]["build"] == str(d / "a1.mcfunction")
    assert objs[3] == {"build": str(d / "z.mcfunction"), "passed": False,
                       "error": f"{d / 'z.mcfunction'}:2: expected 'setblock X Y Z STATE' (5 words), got 3 words"}
    missing = tmp_path / "missing.mcfunction"
    r = run("evaluate", "A_simultaneous_lights_L1", d / "a1.mcfunction", missing)
    assert r.exit_code == 2 and r.stdout.splitlines()[1] == f"ERROR {missing}: build file {missing} does not exist"


def test_evaluate_directory_without_builds_exit_2(tmp_path):
    r = run("evaluate", "A_simultaneous_lights_L1", tmp_path)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == f"error: no build files (.mcfunction, .litematic, .schem) in {tmp_path}"


def test_evaluate_on_a_dask_scheduler_by_address(tmp_path):
    from distributed import LocalCluster

    d = many_builds(tmp_path)
    serial = run("evaluate", "A_simultaneous_lights_L1", d, "--json")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        r = run("evaluate", "A_simultaneous_lights_L1", d, "--json", "--scheduler", cluster.scheduler_address)
    assert r.exit_code == 2 and r.stdout == serial.stdout


def test_evaluate_unreachable_scheduler_exit_2(tmp_path):
    d = many_builds(tmp_path, bad=False)
    r = run("evaluate", "A_simultaneous_lights_L1", d, "--scheduler", "tcp://127.0.0.1:9")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def test_the_program_runs_one_usual_build_on_the_plain_python_kernels(tmp_path):
    big = tmp_path / "big.mcfunction"  # past the size limit: the compiled engine
    big.write_text("# padding\n" * 7000 + (SOL / "A_simultaneous_lights_L1.mcfunction").read_text())
    code = ("import sys\nfrom scicraft_viz import cli\nsys.argv = ['scicraft-viz', 'evaluate', "
            "'A_simultaneous_lights_L1', sys.argv[1]]\ntry:\n    cli.run()\nexcept SystemExit as e:\n"
            "    code = e.code\nfrom scicraft_viz.engine import kernels\nprint(code, kernels.JIT)\n")
    env = {k: v for k, v in _env().items() if k != "SCICRAFT_NOJIT"}
    for build, jit in ((SOL / "A_simultaneous_lights_L1.mcfunction", False), (big, True)):
        p = subprocess.run([sys.executable, "-c", code, str(build)], capture_output=True, text=True, cwd=ROOT,
                           env=env, timeout=300)
        assert p.stdout.splitlines()[-1] == f"0 {jit}", p.stderr[-2000:]


def test_task_validation_imports_no_format_checker_libraries():
    code = ("import importlib.util, sys\nfrom scicraft_viz import tasks\n"
            "tasks.load_text(open(sys.argv[1]).read(), 'a.yaml')\n"
            "from scicraft_viz.validation import FORMAT_LIBRARIES\n"
            "print(sorted(m for m in FORMAT_LIBRARIES if m in sys.modules), 'jsonschema' in sys.modules)\n"
            "import jsonschema\nprint(jsonschema.Draft202012Validator({'format': 'iri'}).is_valid('x'))\n")
    p = subprocess.run([sys.executable, "-c", code, str(ROOT / "tasks" / "A_simultaneous_lights_L1.yaml")],
                       capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=300)
    assert p.stdout.splitlines() == ["[] True", "True"], p.stderr[-2000:]
