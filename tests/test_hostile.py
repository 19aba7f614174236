"""Hostile and careless input, end to end: every surface refuses what it cannot use with a clear message,
exits 2 from the command line, never hangs, and stays within a stated memory bound.

Command-line runs go through a small wrapper process that caps the command's address space (so a blow-up
fails at once instead of swapping) and reports the command's own peak RSS: the wrapper's only child is the
command, so `RUSAGE_CHILDREN` measures nothing else."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from scicraft_viz import World, replay, tasks
from scicraft_viz.errors import BuildFileError

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "tasks" / "solutions" / "A_simultaneous_lights_L1.mcfunction"
PEAK_RSS_MB = 400  # every command below stays under this; a full evaluation peaks near 180 MB
ADDRESS_SPACE = 3 * 2**29  # 1.5 GiB, cap on the command's virtual memory: a blow-up dies fast instead of swapping

WRAPPER = """
import json, resource, subprocess, sys
args, timeout, cap, cwd, env = json.loads(sys.argv[1])
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, preexec_fn=limit, cwd=cwd, env=env,
                       stdin=subprocess.DEVNULL)
    rc, out, err = p.returncode, p.stdout, p.stderr
except subprocess.TimeoutExpired as e:
    rc, out, err = "timeout", "", str(e)
print(json.dumps({"rc": rc, "out": out, "err": err,
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


@dataclass
class Run:
    rc: int | str
    out: str
    err: str
    peak_mb: float


def cli(*args, cwd=None, timeout=60, env=None) -> Run:
    """`scicraft-viz ARGS` in a fresh process, capped and measured."""
    full_env = {**os.environ, **(env or {})}
    cmd = [sys.executable, "-m", "scicraft_viz", *map(str, args)]
    spec = json.dumps([cmd, timeout, ADDRESS_SPACE, str(cwd or ROOT), full_env])
    p = subprocess.run([sys.executable, "-c", WRAPPER, spec], capture_output=True, text=True, timeout=timeout + 60)
    return Run(**json.loads(p.stdout))


def python(code: str, timeout=60) -> Run:
    """A Python snippet in a fresh process, capped and measured like `cli`."""
    spec = json.dumps([[sys.executable, "-c", code], timeout, ADDRESS_SPACE, str(ROOT), dict(os.environ)])
    p = subprocess.run([sys.executable, "-c", WRAPPER, spec], capture_output=True, text=True, timeout=timeout + 60)
    return Run(**json.loads(p.stdout))


def billion_laughs_task() -> tuple[str, int]:
    """A 4 KB task file whose metadata holds nine levels of nine-fold aliases (9**9 strings once expanded),
    and the line of its first anchor."""
    text = (ROOT / "tasks" / "A_simultaneous_lights_L1.yaml").read_text()
    lines = ['  lol0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    text = text.replace("metadata:\n", "metadata:\n" + "\n".join(lines) + "\n", 1)
    first = text.splitlines().index(lines[0]) + 1
    return text, first


# ------------------------------------------------------------------------------- task files
def test_billion_laughs_task_file_via_evaluate(tmp_path):
    text, line = billion_laughs_task()
    assert len(text.encode()) < 5000
    (tmp_path / "laughs.yaml").write_text(text)
    r = cli("evaluate", "laughs.yaml", SOLUTION, cwd=tmp_path)
    assert (r.rc, r.out) == (2, "")
    assert r.err == f"error: laughs.yaml: line {line}: anchors and aliases (& and *) are not allowed in a task file\n"
    assert r.peak_mb < PEAK_RSS_MB


def test_billion_laughs_task_file_via_serve_mcp_writes_nothing(tmp_path):
    text, line = billion_laughs_task()
    (tmp_path / "laughs.yaml").write_text(text)
    (tmp_path / "runs").mkdir()
    r = cli("serve-mcp", "--task", "laughs.yaml", "--trajectory", "runs/", cwd=tmp_path, timeout=60)
    assert (r.rc, r.out) == (2, "")
    assert r.err == f"error: laughs.yaml: line {line}: anchors and aliases (& and *) are not allowed in a task file\n"
    assert r.peak_mb < PEAK_RSS_MB
    assert list((tmp_path / "runs").iterdir()) == []


def test_nan_tolerance_is_refused_not_a_silent_failure(tmp_path):
    text = (ROOT / "tasks" / "A_simultaneous_lights_L1.yaml").read_text()
    text = text.replace("  tolerance_ticks: 1\n", "  tolerance_ticks: .nan\n", 1)
    (tmp_path / "nan.yaml").write_text(text)
    r = cli("evaluate", "nan.yaml", SOLUTION, cwd=tmp_path)
    assert (r.rc, r.out, r.err) == (2, "", "error: nan.yaml: contract.tolerance_ticks: nan is not a finite number\n")
    with pytest.raises(tasks.TaskValidationError, match="contract.tolerance_ticks: nan is not a finite number"):
        tasks.load(tmp_path / "nan.yaml")


def test_one_broken_task_file_does_not_hide_the_others(tmp_path):
    for tid in ("A_simultaneous_lights_L1", "C_sequential_activation_L2"):
        (tmp_path / f"{tid}.yaml").write_text((ROOT / "tasks" / f"{tid}.yaml").read_text())
    (tmp_path / "B_broken.yaml").write_text("task_id: [\n")
    laughs, line = billion_laughs_task()
    (tmp_path / "B_laughs.yaml").write_text(laughs)
    r = cli("tasks", cwd=tmp_path, env={"SCICRAFT_TASKS_DIR": str(tmp_path)})
    assert r.rc == 2
    assert [ln.split()[0] for ln in r.out.splitlines()] == ["A_simultaneous_lights_L1", "C_sequential_activation_L2"]
    assert r.err.splitlines() == [
        "error: B_broken.yaml: line 2: invalid YAML: did not find expected node content",
        f"error: B_laughs.yaml: line {line}: anchors and aliases (& and *) are not allowed in a task file",
        "error: 2 of 4 task files could not be loaded",
    ]
    r = cli("tasks", "--json", cwd=tmp_path, env={"SCICRAFT_TASKS_DIR": str(tmp_path)})
    assert r.rc == 2 and [d["task_id"] for d in json.loads(r.out)] == ["A_simultaneous_lights_L1",
                                                                       "C_sequential_activation_L2"]


def test_task_arguments_that_are_not_small_regular_files(tmp_path):
    with open(tmp_path / "huge.yaml", "wb") as f:
        f.truncate(10**12)  # sparse: reading it would take a terabyte
    os.mkfifo(tmp_path / "fifo.yaml")  # no writer: reading would block forever
    r = cli("evaluate", "huge.yaml", SOLUTION, cwd=tmp_path)
    assert (r.rc, r.err) == (2, "error: huge.yaml: (top level): 1000000000000 bytes, more than the limit of 262144 "
                                "bytes for a task file\n")
    r = cli("evaluate", "fifo.yaml", SOLUTION, cwd=tmp_path, timeout=60)
    assert (r.rc, r.err) == (2, "error: task file fifo.yaml is not a regular file\n")
    r = cli("evaluate", "/dev/zero", SOLUTION, cwd=tmp_path)
    assert (r.rc, r.err) == (2, "error: task file /dev/zero is not a regular file\n")
    assert r.peak_mb < PEAK_RSS_MB


# ------------------------------------------------------------------------------- ids from untrusted places
def test_annotator_page_refuses_a_path_as_task():
    from scicraft_viz.views.annotator import annotator_page

    page = annotator_page("task=/etc/passwd&participant=P01")
    assert ("This session cannot start: task id &#x27;/etc/passwd&#x27; looks like a path; only a task id is "
            "accepted here") in page.value
    assert "root:" not in page.value


def test_replay_refuses_a_path_as_task_id(tmp_path):
    header = json.loads((ROOT / "trajectories" / "parallel_lines.jsonl").read_text().splitlines()[0])
    header["task_id"] = "/etc/passwd"
    header.pop("task", None)
    p = tmp_path / "evil.jsonl"
    p.write_text(json.dumps(header) + "\n")
    r = replay.replay_file(p)
    assert r.task is None
    messages = [pr.message for pr in r.problems]
    assert "cannot replay: task id '/etc/passwd' looks like a path; only a task id is accepted here " \
           "(see 'scicraft-viz tasks')" in messages
    assert not any("root:" in m for m in messages)


# ------------------------------------------------------------------------------- build files
def test_evaluate_dev_zero_build(tmp_path):
    r = cli("evaluate", "A_simultaneous_lights_L1", "/dev/zero", cwd=tmp_path)
    assert (r.rc, r.out) == (2, "")
    assert r.err == "error: /dev/zero is not a regular file (a device, FIFO or socket); give a build file\n"
    assert r.peak_mb < PEAK_RSS_MB


def test_evaluate_fifo_build_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "build.mcfunction")
    r = cli("evaluate", "A_simultaneous_lights_L1", "build.mcfunction", cwd=tmp_path, timeout=60)
    assert r.rc == 2
    assert r.err == "error: build.mcfunction is not a regular file (a device, FIFO or socket); give a build file\n"


def test_evaluate_980k_line_build(tmp_path):
    lines = [f"setblock {i % 400} {4 + i // 160_000} {i // 400 % 400} stone" for i in range(980_000)]
    big = tmp_path / "big.mcfunction"
    big.write_text("\n".join(lines) + "\n")
    size = big.stat().st_size
    r = cli("evaluate", "A_simultaneous_lights_L1", "big.mcfunction", cwd=tmp_path)
    assert (r.rc, r.out) == (2, "")
    assert r.err == f"error: big.mcfunction is {size:,} bytes; build files may be at most 16 MiB\n"
    assert r.peak_mb < PEAK_RSS_MB
    (tmp_path / "many.mcfunction").write_text("\n".join(lines[:150_000]) + "\n")  # under the size limit
    r = cli("evaluate", "A_simultaneous_lights_L1", "many.mcfunction", cwd=tmp_path)
    assert (r.rc, r.out) == (2, "")
    assert r.err == ("error: many.mcfunction:100001: more than 100,000 setblock lines; a build holds at most "
                     "100,000 blocks\n")
    assert r.peak_mb < PEAK_RSS_MB


@pytest.mark.parametrize("line,message", [
    ("setblock 1_0 4 0 stone", "b.mcfunction:1: coordinates must be integers (digits 0-9 with an optional leading "
                               "'-'), got '1_0'"),
    ("setblock +3 4 0 stone", "b.mcfunction:1: coordinates must be integers (digits 0-9 with an optional leading "
                              "'-'), got '+3'"),
    ("setblock \u0661 4 0 stone", "b.mcfunction:1: unexpected character '\u0661' (U+0661) at column 10; setblock "
                                  "lines are printable ASCII, one per line"),
    ("setblock 0 4 0 stone\u2028setblock 1 4 0 stone", "b.mcfunction:1: unexpected character '\\u2028' (U+2028) "
                                                       "at column 21; setblock lines are printable ASCII, one per "
                                                       "line"),
])
def test_build_coordinates_are_plain_ascii_integers(line, message):
    with pytest.raises(BuildFileError) as ei:
        World.from_mcfunction(line + "\n", source="b.mcfunction")
    assert str(ei.value) == message


def test_build_coordinate_error_via_evaluate(tmp_path):
    (tmp_path / "b.mcfunction").write_text("setblock 0 4 0 stone\u2028setblock 1 4 0 stone\n")
    r = cli("evaluate", "A_simultaneous_lights_L1", "b.mcfunction", cwd=tmp_path)
    assert (r.rc, r.out) == (2, "")
    assert r.err == ("error: b.mcfunction:1: unexpected character '\\u2028' (U+2028) at column 21; setblock lines "
                     "are printable ASCII, one per line\n")


# ------------------------------------------------------------------------------- the engine
def test_two_blocks_1000_apart_cost_little_memory():
    r = python("from scicraft_viz import World\n"
               "w = World()\n"
               "w.set_block((0, 0, 0), 'stone')\n"
               "w.set_block((1000, 0, 0), 'stone')\n"
               "w.set_block((0, 1000, 1000), 'stone')\n"
               "w.step(100)\n"
               "print(w.get_block((1000, 0, 0)), w.get_block((0, 1000, 1000)))\n")
    assert (r.rc, r.out, r.err) == (0, "minecraft:stone minecraft:stone\n", "")
    assert r.peak_mb < PEAK_RSS_MB


def test_step_and_record_beyond_the_limits_are_clear_errors():
    w = World()
    w.set_block((0, 0, 0), "stone")
    with pytest.raises(ValueError) as ei:
        w.step(2**70)
    assert str(ei.value) == ("step count 1180591620717411303424 would take the world past game tick 2**60 = "
                             "1,152,921,504,606,846,976, the engine's limit (now at tick 0)")
    with pytest.raises(ValueError) as ei:
        w.record(10**9)
    assert str(ei.value).startswith("record(1000000000) would need 7.5 GiB")
    assert "a trace may take at most 1 GiB" in str(ei.value)
    assert w.tick == 0


def test_yaml_is_read_by_libyaml():
    assert yaml.__with_libyaml__ and tasks.model._YAML_LOADER is yaml.CSafeLoader


def test_a_build_of_blank_lines_costs_no_memory_per_line():
    """The array reader sizes its arrays by the blocks a text can hold (at most MAX_BLOCKS), not by
    its line count: 4 million blank lines read into nothing without hundreds of megabytes."""
    import tracemalloc

    from scicraft_viz.engine.mcfunction import read_setblocks

    text = "\n" * 4_000_000 + "setblock 0 4 0 stone\n"
    read_setblocks("setblock 0 0 0 stone\n")  # the compiled scanner loaded before measuring
    tracemalloc.start()
    try:
        xyz, sid, states = read_setblocks(text, "blank.mcfunction")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert xyz.tolist() == [[0, 4, 0]] and states == ["minecraft:stone"]
    assert peak < 4_000_000 + 16 * 1024 * 1024  # the text's own bytes, and arrays for 100,000 blocks at most
