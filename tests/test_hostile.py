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
    broken, *rest = r.err.splitlines()
    # the YAML library's own words after "invalid YAML:" are its business; the rest of the line is the project's
    assert broken.startswith("error: B_broken.yaml: line 2: invalid YAML: ") and "(and " not in broken, broken
    assert rest == [
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


# =============================================================================== second round: one case per class
# Each test below stands for a class of hostile input (not for one probe): hangs, forged output, half-written
# files, tracebacks instead of refusals, unbounded resources, wrong answers. See docs/limits.md, "One rule".

def _listener(behaviour: str):
    """A 127.0.0.1 TCP server this test owns: 'silent' accepts and waits (as a web server waits for a
    request), 'junk' sends bytes that are not a Dask handshake. Returns (port, stop)."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()
    held = []

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            held.append(conn)
            if behaviour == "junk":
                conn.sendall(b"\xff" * 64 + b"HTTP/1.0 400 Bad Request\r\n\r\n")
        for c in held:
            c.close()
        srv.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()

    def close():
        stop.set()
        t.join(5)

    return srv.getsockname()[1], close


def _two_builds(tmp_path) -> Path:
    d = tmp_path / "builds"
    d.mkdir()
    (d / "a.mcfunction").write_text(SOLUTION.read_text())
    (d / "b.mcfunction").write_text(SOLUTION.read_text())
    return d


# ------------------------------------------------------------------------------- hangs
@pytest.mark.parametrize("behaviour,message", [
    ("silent", "error: tcp://127.0.0.1:{port} sent no Dask handshake within 5 s; it is not a Dask scheduler (or not "
               "answering)\n"),
    ("junk", "error: tcp://127.0.0.1:{port} is not a Dask scheduler: it did not send a Dask handshake (its first "
             "bytes are b'\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff')\n"),
], ids=["silent", "junk"])
def test_a_scheduler_address_that_is_not_dask_is_refused_within_the_timeout(tmp_path, behaviour, message):
    import time

    d = _two_builds(tmp_path)
    port, close = _listener(behaviour)
    try:
        t0 = time.monotonic()
        r = cli("evaluate", "A_simultaneous_lights_L1", d, "--scheduler", f"tcp://127.0.0.1:{port}", cwd=tmp_path,
                timeout=60)
        elapsed = time.monotonic() - t0
    finally:
        close()
    assert (r.rc, r.out, r.err) == (2, "", message.format(port=port))
    assert elapsed < 30  # the 5 s handshake timeout, plus starting Python
    assert r.peak_mb < PEAK_RSS_MB


def test_fifos_wherever_a_file_name_reaches_never_block(tmp_path):
    """A FIFO with no writer, named where a task file, a build in a folder, a book or a trajectory is
    expected: each is refused by name, at once."""
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / "A_simultaneous_lights_L1.yaml").write_text((ROOT / "tasks" / "A_simultaneous_lights_L1.yaml")
                                                             .read_text())
    os.mkfifo(tasks_dir / "B_fifo.yaml")
    r = cli("tasks", cwd=tmp_path, env={"SCICRAFT_TASKS_DIR": str(tasks_dir)}, timeout=60)
    assert r.rc == 2 and r.out.split()[0] == "A_simultaneous_lights_L1"
    assert r.err == (f"error: task file {tasks_dir / 'B_fifo.yaml'} is not a regular file\n"
                     "error: 1 of 2 task files could not be loaded\n")

    d = _two_builds(tmp_path)
    os.mkfifo(d / "c.mcfunction")
    r = cli("evaluate", "A_simultaneous_lights_L1", "builds", cwd=tmp_path, timeout=60)
    assert (r.rc, r.out) == (2, "PASS builds/a.mcfunction\nPASS builds/b.mcfunction\nERROR builds/c.mcfunction: "
                                "builds/c.mcfunction is not a regular file (a device, FIFO or socket); give a build "
                                "file\n")

    os.mkfifo(tmp_path / "book.md")
    os.mkfifo(tmp_path / "run.jsonl")
    for args, message in [
        (["--book", "book.md", "--trajectory", "runs/"], "error: the book file book.md is not a regular file\n"),
        (["--trajectory", "run.jsonl", "--overwrite"], "error: trajectory file run.jsonl exists and is not a regular "
                                                       "file\n"),
    ]:
        r = cli("serve-mcp", "--task", "A_simultaneous_lights_L1", *args, cwd=tmp_path, timeout=60)
        assert (r.rc, r.out, r.err) == (2, "", message)


# ------------------------------------------------------------------------------- forged output
def test_names_cannot_forge_verdict_lines_and_links_are_not_followed(tmp_path):
    d = _two_builds(tmp_path)
    (d / "b.mcfunction").rename(d / "bad\nPASS forged.mcfunction\nx.mcfunction")
    (d / "esc\x1b[2J.mcfunction").write_text(SOLUTION.read_text())
    (d / "x").symlink_to(".")  # a loop: never followed
    (d / "up").symlink_to("..")  # out of the folder: never followed
    (d / "passwd.mcfunction").symlink_to("/etc/passwd")  # a file out of the folder: reported, not read
    (d / "same.mcfunction").symlink_to("a.mcfunction")  # a file inside: read
    r = cli("evaluate", "A_simultaneous_lights_L1", "builds", cwd=tmp_path)
    assert r.out.splitlines() == [
        "PASS builds/a.mcfunction",
        "PASS builds/bad\\nPASS forged.mcfunction\\nx.mcfunction",
        "PASS builds/esc\\x1b[2J.mcfunction",
        "ERROR builds/passwd.mcfunction: builds/passwd.mcfunction is a link out of builds; it is not followed",
        "PASS builds/same.mcfunction",
    ]
    assert (r.rc, r.err) == (2, "")
    r = cli("evaluate", "A_simultaneous_lights_L1", "builds", "--json", cwd=tmp_path)
    objs = [json.loads(ln) for ln in r.out.splitlines()]
    assert [o["build"] for o in objs][1] == "builds/bad\\nPASS forged.mcfunction\\nx.mcfunction"
    (d / "passwd.mcfunction").unlink()
    r = cli("evaluate", "A_simultaneous_lights_L1", "builds", cwd=tmp_path)
    assert (r.rc, r.err, len(r.out.splitlines())) == (0, "", 4)  # every build once, all pass
    # one file named on the command line: its report and its errors are one line each, too
    r = cli("evaluate", "A_simultaneous_lights_L1", "builds/bad\nPASS forged.mcfunction\nx.mcfunction",
            cwd=tmp_path)
    assert r.rc == 0 and r.out.splitlines()[0] == ("A_simultaneous_lights_L1: PASS (builds/bad\\nPASS "
                                                   "forged.mcfunction\\nx.mcfunction)")
    r = cli("evaluate", "A_simultaneous_lights_L1", "no\nPASS such.mcfunction", cwd=tmp_path)
    assert (r.rc, r.out, r.err) == (2, "", "error: build file no\\nPASS such.mcfunction does not exist\n")


def test_json_output_is_standard_json():
    from scicraft_viz.safeio import json_text

    assert json_text({"a": float("nan"), "b": [float("inf"), 1.5]}) == '{"a": null, "b": [null, 1.5]}'


# ------------------------------------------------------------------------------- half-written files
def test_a_failed_write_leaves_no_partial_file_and_keeps_the_old_one(tmp_path):
    good = tmp_path / "out.litematic"
    r = cli("convert", SOLUTION, good, cwd=tmp_path)
    assert r.rc == 0
    before = good.read_bytes()
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)); "
            "from scicraft_viz.cli import app; sys.argv[0] = 'scicraft-viz'; app()")
    for target, extra in [("new.litematic", []), ("out.litematic", ["--overwrite"]), ("new.schem", [])]:
        r = python(code.replace("app()", f"app({['convert', str(SOLUTION), str(tmp_path / target), *extra]!r})"))
        assert (r.rc, r.out) == (2, ""), r.err
        assert r.err == f"error: cannot write {tmp_path / target}: File too large\n"
    assert good.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.litematic"]  # no partial file, no temporary one


# ------------------------------------------------------------------------------- refusals, not tracebacks
def _schem(sch, v3=True) -> bytes:
    import gzip
    import io

    import nbtlib

    buf = io.BytesIO()
    nbtlib.File(nbtlib.Compound({"Schematic": sch}) if v3 else sch, root_name="" if v3 else "Schematic").write(buf)
    return gzip.compress(buf.getvalue())


def _sponge(**fields):
    from nbtlib import Compound, Int, Short

    sch = Compound({"Version": Int(3), "DataVersion": Int(3465), "Width": Short(1), "Height": Short(1),
                    "Length": Short(1)})
    for k, v in fields.items():
        if v is None:
            del sch[k]
        else:
            sch[k] = v
    return sch


def _malformed_schematics():
    from nbtlib import ByteArray, Compound, Int, IntArray, List, String

    blocks = Compound({"Palette": Compound({"minecraft:stone": Int(0)}), "Data": ByteArray([0])})
    return [
        (_sponge(Entities=Int(5)), "Schematic.Entities is Int, expected List"),
        (_sponge(Blocks=blocks, Entities=String("x")), "Schematic.Entities is String, expected List"),
        (_sponge(Blocks=Compound({**blocks, "BlockEntities": Int(1)})), "Schematic.Blocks.BlockEntities is Int, "
                                                                        "expected List"),
        (_sponge(Blocks=Compound({**blocks, "Palette": List[Int]([Int(1)])})), "Schematic.Blocks.Palette is List[Int], "
                                                                               "expected Compound"),
        (_sponge(Blocks=Compound({**blocks, "Data": IntArray([0])})), "Schematic.Blocks.Data is IntArray, expected "
                                                                      "ByteArray"),
        (_sponge(Blocks=Compound({"Palette": Compound({"minecraft:stone": String("0")}), "Data": ByteArray([0])})),
         "Schematic.Blocks.Palette['minecraft:stone'] is String '0'; expected an Int >= 0"),
        (_sponge(Width=List[Int]([Int(1)])), "Schematic.Width is List[Int], expected Short"),
        (_sponge(Version=None), "Schematic.Version is missing"),
    ]


@pytest.mark.parametrize("case", range(len(_malformed_schematics())))
def test_malformed_schematic_structure_is_refused_with_the_field_path(tmp_path, case):
    sch, message = _malformed_schematics()[case]
    (tmp_path / "bad.schem").write_bytes(_schem(sch))
    r = cli("evaluate", "A_simultaneous_lights_L1", "bad.schem", cwd=tmp_path)
    assert (r.rc, r.out, r.err) == (2, "", f"error: bad.schem: {message}\n")
    r = cli("convert", "bad.schem", "out.mcfunction", cwd=tmp_path)
    assert (r.rc, r.out, r.err) == (2, "", f"error: bad.schem: {message}\n")
    assert not (tmp_path / "out.mcfunction").exists()


@pytest.mark.parametrize("args,message", [
    (["--jobs", "1000000000"], "jobs must be at most {max} (4 per CPU, {cpus} CPUs here), got 1000000000"),
    (["--scheduler", "tcp://127.0.0.1:99999"], "scheduler address 'tcp://127.0.0.1:99999': the port must be a "
                                               "number from 1 to 65535"),
    (["--scheduler", "tcp://127.0.0.1"], "scheduler address 'tcp://127.0.0.1' names no port (tcp://HOST:PORT, "
                                         "e.g. tcp://127.0.0.1:8786)"),
    (["--scheduler", "inproc://x"], "scheduler address 'inproc://x': an inproc:// address names a scheduler "
                                    "inside one Python process; give tcp://HOST:PORT"),
    (["--scheduler", "tls://127.0.0.1:8786"], "scheduler address 'tls://127.0.0.1:8786': only tcp://HOST:PORT "
                                              "addresses can be used, not tls://"),
    (["--trials-used", "10000000000000000000000"], "--trials-used must be at most 1,000,000, got "
                                                   "10000000000000000000000"),
])
def test_option_values_and_addresses_have_bounds(tmp_path, args, message):
    from scicraft_viz.tasks import batch

    d = _two_builds(tmp_path)
    r = cli("evaluate", "A_simultaneous_lights_L1", d, *args, cwd=tmp_path)
    message = message.format(max=batch.max_jobs(), cpus=batch.cpu_count())
    assert (r.rc, r.out, r.err) == (2, "", f"error: {message}\n")
    assert r.peak_mb < PEAK_RSS_MB


def _stdio_server(tmp_path):
    return subprocess.Popen([sys.executable, "-m", "scicraft_viz", "serve-mcp", "--task", "A_simultaneous_lights_L1",
                             "--trajectory", str(tmp_path / "s.jsonl")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(ROOT))


def test_an_oversized_or_unreadable_mcp_line_is_answered_and_the_server_stays_up(tmp_path):
    """A 300 MB line on the stdio server is skipped as it arrives (its memory stays bounded) and answered
    with a JSON-RPC error; lines that are not JSON or not JSON-RPC are answered too; the next call works."""
    proc = _stdio_server(tmp_path)

    def send(raw: bytes) -> dict:
        proc.stdin.write(raw + b"\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    try:
        init = send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
            .encode())
        assert init["result"]["serverInfo"]["name"] == "scicraft-viz"
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        head = (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set-block","arguments":'
                b'{"pos":[0,4,0],"block":"')
        proc.stdin.write(head)
        chunk = b"x" * 2**20
        for _ in range(300):
            proc.stdin.write(chunk)
        big = send(b'"}}}')
        not_json = send(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":')
        not_rpc = send(b'{"jsonrpc":"2.0","id":4,"metho":"ping"}')
        good = send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "set-block", "arguments": {"pos": [0, 4, 0], "block": "stone"}}}).encode())
        peak_kb = int(next(ln for ln in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                           if ln.startswith("VmHWM:")).split()[1])
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    size = len(head) + 300 * 2**20 + len(b'"}}}\n')
    assert big == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32600, "message": (
        f"the message is {size:,} bytes, more than the 4,194,304 this server reads in one message (the same limit "
        "as a request body over HTTP)")}}
    assert not_json["id"] == 3 and not_json["error"]["code"] == -32700
    assert not_json["error"]["message"].startswith("the message is not valid JSON (")
    assert not_rpc["id"] == 4 and not_rpc["error"]["code"] == -32600
    assert good["result"]["structuredContent"]["ok"] is True
    assert peak_kb / 1024 < PEAK_RSS_MB


# ------------------------------------------------------------------------------- resources
def test_mcp_http_sessions_expire_and_are_capped(tmp_path):
    """Real loopback HTTP: with a 2 s idle timeout and a cap of 3 (the defaults are 900 s and 16), a 4th
    session is refused with 503, an idle one is closed (404), and room frees up once they expire."""
    import socket
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = ("import sys; from scicraft_viz import tasks; from scicraft_viz.env import mcp_server; "
            "env = mcp_server.open_env(tasks.load('A_simultaneous_lights_L1'), sys.argv[1]); "
            "mcp_server.serve(env, 'streamable-http', int(sys.argv[2]), session_idle_timeout=2, max_sessions=3)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "h.jsonl"), str(port)], cwd=str(ROOT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}

    def post(body: dict, session: str | None = None) -> tuple[int, str | None]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if session:
            headers["Mcp-Session-Id"] = session
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                resp.read()
                return resp.status, resp.headers.get("Mcp-Session-Id")
        except urllib.error.HTTPError as e:
            return e.code, None

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        opened = [post(init) for _ in range(5)]
        assert [status for status, _ in opened] == [200, 200, 200, 503, 503]
        time.sleep(3.5)
        assert post({"jsonrpc": "2.0", "id": 2, "method": "ping"}, opened[0][1])[0] == 404
        assert [post(init)[0] for _ in range(3)] == [200, 200, 200]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_refusing_a_schematic_costs_what_reading_one_does():
    """4,096 unknown palette entries over 128^3 cells (about 50 KB compressed) are refused in about the time a
    valid file of the same shape takes to read, not 4,096 scans of two million cells."""
    import time

    import numpy as np
    from nbtlib import ByteArray, Compound, Int, Short

    from scicraft_viz.engine import formats, schematic

    n = 128

    def sponge(palette: dict, idx) -> bytes:
        data = schematic.encode_varints(idx)
        return _schem(Compound({"Version": Int(3), "DataVersion": Int(3465), "Width": Short(n), "Height": Short(n),
                                "Length": Short(n), "Blocks": Compound({
                                    "Palette": Compound({k: Int(v) for k, v in palette.items()}),
                                    "Data": ByteArray(np.frombuffer(data, dtype=np.int8))})}))

    idx = np.arange(n**3) % 4096
    bad = sponge({f"minecraft:unknown_block_{i}": i for i in range(4096)}, idx)
    valid_idx = np.where(np.arange(n**3) % 64 == 0, idx % 4096, 0)  # mostly air, the same two bytes per cell
    valid_idx[valid_idx > 0] = 4095
    good = sponge({"minecraft:air": 0, **{f"minecraft:unused_{i}": i for i in range(1, 4095)},
                   "minecraft:stone": 4095}, valid_idx)

    def cpu(data: bytes) -> tuple[float, str]:
        t = time.process_time()
        try:
            out = f"{len(formats.decode_build(data, None, 'x.schem'))} blocks"
        except BuildFileError as e:
            out = str(e)
        return time.process_time() - t, out

    cpu(good)  # warm
    t_bad, why = cpu(bad)
    t_good, _ = cpu(good)
    assert why.startswith("x.schem: 4096 block state(s) cannot be imported: minecraft:unknown_block_0 at (0, 0, 0), "
                          "(0, 0, 32), (0, 0, 64) and 509 more: not in the palette;")
    assert why.count(" at (") == 8 and "; and 4088 more (the palette: " in why
    assert t_bad < 3 * t_good + 0.5, (t_bad, t_good)


# ------------------------------------------------------------------------------- wrong answers
def test_a_property_value_cannot_smuggle_in_another_property():
    import gzip
    import io

    import nbtlib
    from nbtlib import Compound, String

    from scicraft_viz.engine import formats

    data = formats.encode_build([((0, 4, 0), "stone"), ((0, 5, 0), "redstone_repeater[facing=west]")], "litematic")
    root = nbtlib.File.parse(io.BytesIO(gzip.decompress(data)))
    region = next(iter(root["Regions"]))
    for i, entry in enumerate(root["Regions"][region]["BlockStatePalette"]):
        if "repeater" in str(entry["Name"]):
            entry["Properties"] = Compound({"facing": String("west,delay=4")})
            where = f"Regions.{region}.BlockStatePalette[{i}]"
    buf = io.BytesIO()
    root.write(buf)
    with pytest.raises(BuildFileError) as ei:
        formats.decode_build(gzip.compress(buf.getvalue()), None, "s.litematic")
    assert str(ei.value) == (f"s.litematic: {where}.Properties.facing is 'west,delay=4'; a property value is "
                             "lowercase letters, digits and '_' (no ',', '=' or ']')")
    # a list where a number is due: refused with the field's path
    from nbtlib import Int, List

    root["Regions"][region]["Size"]["x"] = List[Int]([Int(1)])
    buf = io.BytesIO()
    root.write(buf)
    with pytest.raises(BuildFileError) as ei:
        formats.decode_build(gzip.compress(buf.getvalue()), None, "s.litematic")
    assert str(ei.value) == f"s.litematic: Regions.{region}.Size.x is List[Int], expected Int"


def test_positions_are_checked_the_same_way_whichever_engine_runs():
    from scicraft_viz.errors import PositionError

    w = World(log_events=False)
    w.set_block((0, 0, 0), "stone")
    w.set_block((0, 1, 0), "stone_button[face=floor]")
    w.set_block((1, 0, 0), "redstone_lamp")
    w.step(100_000)  # long enough that the world runs on the compiled engine
    assert w._cg is not None
    for bad in [(0.0, 1, 0), (0, True, 0), (0, 1), "010", [0, 1.5, 0]]:
        with pytest.raises(PositionError, match="position must be three integers"):
            w.use(bad)
        with pytest.raises(PositionError, match="position must be three integers"):
            World().use(bad)
    assert w.use((0, 1, 0)) is True


def test_participant_ids_match_exactly(tmp_path):
    from scicraft_viz.env.environment import SciCraftEnv
    from scicraft_viz.views.annotator import attempt_path, previous_attempts

    task = tasks.load("A_simultaneous_lights_L1")
    path = attempt_path(tmp_path, task.id, "P07__retake", "0123456789ab")
    with SciCraftEnv.recording(task, path, actor_kind="human", actor_name="P07__retake", run_id="0123456789ab") as env:
        env.submit()
    assert previous_attempts(tmp_path, task.id, "P07") == []
    assert previous_attempts(tmp_path, task.id, "P07__retake") == [(path, True)]
    assert previous_attempts(tmp_path, "A_simultaneous_lights_L*", "P07__retake") == []  # no pattern matching
