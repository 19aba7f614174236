"""The report reads untrusted runs: forged results, malformed lines, FIFOs, devices, huge files, link
loops and out-of-range numbers are listed with their file and what is wrong, never counted, and the
command still writes its report and exits 0."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scicraft_viz.experiments import report

EXAMPLES = Path(__file__).resolve().parent.parent / "trajectories"


def lines(name: str) -> list[dict]:
    return [json.loads(x) for x in (EXAMPLES / name).read_text().splitlines() if x.strip()]


def write(path: Path, objs: list[dict]) -> None:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))


def submit_of(objs: list[dict]) -> dict:
    return next(o for o in reversed(objs) if o.get("type") == "step" and o["tool"] == "submit")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hostile")
    for p in sorted(EXAMPLES.glob("*.jsonl")):  # six honest runs
        shutil.copy(p, d / p.name)
    sub = d / "sub"
    sub.mkdir()
    # forged: the failing run's submit says it passed (and its run id is the honest file's)
    objs = lines("parallel_lines.jsonl")
    submit_of(objs)["result"]["passed"] = True
    write(sub / "forged.jsonl", objs)
    # the evaluator's measurement replaced by nonsense
    objs = lines("the_ring.jsonl")
    submit_of(objs)["result"]["measured"] = {"lamps": [1, 2]}
    objs[0]["run_id"] = "measured-nonsense"
    write(sub / "measured.jsonl", objs)
    # a number no usage can have
    objs = lines("working_A_L4.jsonl")
    objs[0]["run_id"] = "huge-usage"
    step = next(o for o in objs if o.get("type") == "step")
    step["usage"] = {"model": "x", "input_tokens": 10**400}
    write(sub / "usage.jsonl", objs)
    # malformed: a line cut short
    text = (EXAMPLES / "the_ring.jsonl").read_text().splitlines()
    (sub / "malformed.jsonl").write_text("\n".join(text[:5] + [text[5][:30]]) + "\n")
    # a number longer than Python reads, and arguments nested too deeply
    (sub / "digits.jsonl").write_text(text[0] + "\n" + text[1].replace('"step":0', '"step":' + "9" * 5000) + "\n")
    (sub / "deep.jsonl").write_text(text[0] + "\n" + '{"type":"step","args":' + "[" * 100_000 + "]" * 100_000 + "}\n")
    # an unknown task
    objs = lines("the_ring.jsonl")
    objs[0]["task_id"] = "Z_no_such_task_L1"
    objs[0].pop("task", None)
    write(sub / "unknown_task.jsonl", objs)
    # not regular files, links out, link loops, a huge file with no newline
    os.mkfifo(d / "fifo.jsonl")
    os.symlink("/dev/zero", d / "zero.jsonl")
    os.symlink(d / "loop_b.jsonl", d / "loop_a.jsonl")
    os.symlink(d / "loop_a.jsonl", d / "loop_b.jsonl")
    os.symlink(d / "missing.jsonl", d / "dangling.jsonl")
    outside = tmp_path_factory.mktemp("outside")
    shutil.copy(EXAMPLES / "the_ring.jsonl", outside / "ring.jsonl")
    os.symlink(outside / "ring.jsonl", d / "out_link.jsonl")
    os.symlink(d / "the_ring.jsonl", sub / "in_link.jsonl")  # inside: followed, and the same run
    os.symlink(outside, d / "linked_dir")  # a directory link is never walked
    with open(d / "huge.jsonl", "wb") as f:
        f.truncate(3 * 2**30)  # 3 GiB, sparse: takes no disk
    # a header and nothing else, and a run the Inspect runner set aside
    write(sub / "header_only.jsonl", [dict(lines("the_ring.jsonl")[0], run_id="listed-only")])
    shutil.copy(EXAMPLES / "the_ring.jsonl", sub / "errored.jsonl.incomplete")
    return d


def test_the_command_lists_every_bad_file_and_exits_0(hostile, tmp_path):
    out = tmp_path / "out"
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    res = subprocess.run([sys.executable, "-m", "scicraft_viz", "report", str(hostile), "--format", "html,csv,json",
                          "--out", f"{out}/", "--setting", "independent"], capture_output=True, text=True,
                         timeout=300, env=env)
    assert res.returncode == 0, res.stderr
    doc = json.loads((out / "report.json").read_text())
    cols = doc["tables"]["runs"]["columns"]
    runs = {Path(r[0]).name: dict(zip(cols, r)) for r in doc["tables"]["runs"]["rows"]}
    status = {k: v["status"] for k, v in runs.items()}
    honest = sorted(p.name for p in EXAMPLES.glob("*.jsonl"))
    assert sorted(k for k, v in status.items() if v == "counted") == honest
    assert {k: v for k, v in status.items() if v != "counted"} == {
        "forged.jsonl": "disagrees", "measured.jsonl": "disagrees", "usage.jsonl": "unreadable",
        "malformed.jsonl": "unreadable", "digits.jsonl": "unreadable", "deep.jsonl": "unreadable",
        "unknown_task.jsonl": "unreadable", "fifo.jsonl": "unreadable", "zero.jsonl": "unreadable",
        "loop_a.jsonl": "unreadable", "loop_b.jsonl": "unreadable", "dangling.jsonl": "unreadable",
        "out_link.jsonl": "unreadable", "huge.jsonl": "unreadable", "in_link.jsonl": "duplicate",
        "header_only.jsonl": "header-only", "errored.jsonl.incomplete": "incomplete"}
    why = {k: v["reason"] for k, v in runs.items()}
    assert why["forged.jsonl"].startswith(f"{hostile}/sub/forged.jsonl:")
    assert "(submit) differs from its replay: result.passed: recorded True, replay False" in why["forged.jsonl"]
    assert runs["forged.jsonl"]["mismatch_step"] == 117 and runs["forged.jsonl"]["passed"] is False
    assert "result.measured.lamps[0]" in why["measured.jsonl"]
    assert why["usage.jsonl"].endswith("usage.input_tokens must be an integer from 0 to 10^12, got a number of 401 "
                                       "digits")
    assert f"{hostile}/sub/malformed.jsonl:6: truncated JSON" in why["malformed.jsonl"]
    assert "Z_no_such_task_L1" in why["unknown_task.jsonl"]
    assert why["fifo.jsonl"] == f"{hostile}/fifo.jsonl: is a FIFO, not a regular file; not read"
    assert why["zero.jsonl"] == (f"{hostile}/zero.jsonl: a symbolic link to /dev/zero, outside the runs directory; "
                                 "not followed")
    assert "a symbolic link that cannot be followed (Too many levels of symbolic links)" in why["loop_a.jsonl"]
    assert "outside the runs directory" in why["out_link.jsonl"]
    assert why["huge.jsonl"] == (f"{hostile}/huge.jsonl: has 3,221,225,472 bytes, more than the 67,108,864 a run "
                                 "file may have; not read")
    assert why["in_link.jsonl"].endswith(f"the same content as {hostile}/the_ring.jsonl")
    # the forged success is not counted: 4 of the 6 honest runs passed
    cells = doc["tables"]["cells"]
    assert [r[4:10] for r in cells["rows"]] == [[6, 3, 4, 4, 66.7, 30.0]]
    assert doc["counts"] == {"counted": 6, "disagrees": 2, "header-only": 1, "unreadable": 12, "duplicate": 1,
                             "incomplete": 1, "files": 23}
    page = (out / "report.html").read_text()
    assert "forged.jsonl" in page and "is a FIFO" in page
    with open(out / "report.excluded.csv", newline="") as f:
        assert len(list(csv.reader(f))) == 18
    assert "left out (disagrees): " in res.stdout


def test_reading_refuses_what_is_not_a_regular_file(tmp_path):
    with pytest.raises(report.Refused, match="is a character device"):
        report.read_run_bytes("/dev/zero", follow=True)
    os.mkfifo(tmp_path / "f.jsonl")
    with pytest.raises(report.Refused, match="is a FIFO"):
        report.read_run_bytes(tmp_path / "f.jsonl")  # opened non-blocking: no writer, no hang
    os.symlink("/dev/zero", tmp_path / "z.jsonl")
    with pytest.raises(report.Refused, match="cannot be opened"):
        report.read_run_bytes(tmp_path / "z.jsonl")  # links are not followed unless asked
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(report.MAX_RUN_FILE_BYTES + 1)
    with pytest.raises(report.Refused, match="more than the 67,108,864"):
        report.read_run_bytes(big)
    # one file named on the command line: read as given, with the same checks
    recs = report.load_runs(tmp_path / "f.jsonl", progress=False, cache=None)
    assert [(r.status, r.reason) for r in recs] == [("unreadable", f"{tmp_path / 'f.jsonl'}: is a FIFO, not a "
                                                                    "regular file; not read")]


def test_scoring_never_raises():
    for data in (b"", b"\xff\xfe", b"[]\n", b'{"type": "header"}\n', b"{" * 10**6, b"\n" * 1000,
                 b'{"type":"header","format":"scicraft-trajectory","version":3,"task_id":"A_simultaneous_lights_L1",'
                 b'"actor":{"kind":"model"},"run_id":"x","started":"2026-01-01T00:00:00Z","budget":50,'
                 b'"session":{"epoch":1e999}}\n'):
        rec = report.score_bytes(data, "x.jsonl")
        assert rec.status in ("unreadable", "header-only") and rec.reason, data[:40]
    rec = report.score_bytes(b'{"type":"header","format":"scicraft-trajectory","version":3,"task_id":'
                             b'"A_simultaneous_lights_L1","actor":{"kind":"model"},"run_id":"x","started":'
                             b'"2026-01-01T00:00:00Z","budget":50,"session":{"epoch":-1}}\n', "x.jsonl")
    assert rec.reason == "x.jsonl:1: header.session.epoch must be an integer from 0 to 1,000,000, got -1"


def test_a_run_too_long_to_replay_is_refused_before_replaying():
    header = {"type": "header", "format": "scicraft-trajectory", "version": 3, "task_id": "A_simultaneous_lights_L1",
              "actor": {"kind": "model"}, "run_id": "x", "started": "2026-01-01T00:00:00Z", "budget": 1000,
              "env": {"ticks_per_action": 20, "observe_ticks": 12000}}
    steps = [{"type": "step", "step": i, "wall_s": 0, "tool": "activate-button", "args": {},
              "result": {"ok": True, "tick": 0}} for i in range(100)]
    data = "".join(json.dumps(o) + "\n" for o in [header, *steps]).encode()
    rec = report.score_bytes(data, "long.jsonl")
    assert (rec.status, rec.reason) == ("unreadable", "long.jsonl: replaying it would simulate about 1,200,000 game "
                                                      "ticks, more than the 1,000,000 a report replays in one run")
