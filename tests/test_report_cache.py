"""The report's cache: results by file content and code key, read back without replaying, and itself
untrusted (a bad entry is ignored and recomputed)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from scicraft_viz.experiments import report

EXAMPLES = Path(__file__).resolve().parent.parent / "trajectories"


@pytest.fixture()
def runs_dir(tmp_path) -> Path:
    d = tmp_path / "runs"
    d.mkdir()
    for name in ("the_ring.jsonl", "working_A_L4.jsonl", "parallel_lines.jsonl"):
        shutil.copy(EXAMPLES / name, d / name)
    return d


def comparable(recs):
    return [dataclasses.replace(r, source=Path(r.source).name, reason=None, problems=[]) for r in recs]


def no_scoring(monkeypatch):
    def boom(data, source):
        raise AssertionError(f"{source} was scored again")

    monkeypatch.setattr(report, "score_bytes", boom)


def test_a_second_report_reads_the_cache(runs_dir, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = report.load_runs(runs_dir, progress=False, cache=cache)
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 3
    sha = hashlib.sha256((runs_dir / "the_ring.jsonl").read_bytes()).hexdigest()
    assert (cache / report.code_key()[:24] / sha[:2] / f"{sha}.json") in entries
    no_scoring(monkeypatch)
    again = report.load_runs(runs_dir, progress=False, cache=cache)
    assert comparable(again) == comparable(first)
    assert [r.failure_modes for r in again] == [["parallel_lines"], ["the_ring"], []]
    # the cache is keyed by content: a moved file still hits, and its messages name the new path
    (runs_dir / "sub").mkdir()
    os.replace(runs_dir / "the_ring.jsonl", runs_dir / "sub" / "ring.jsonl")
    moved = report.load_runs(runs_dir, progress=False, cache=cache)
    assert [Path(r.source).name for r in moved] == ["parallel_lines.jsonl", "working_A_L4.jsonl", "ring.jsonl"]


@pytest.mark.parametrize("damage", ["garbage", "empty", "wrong type", "extra field", "other sha", "other key",
                                    "fifo", "link", "huge", "out of range"])
def test_a_bad_entry_is_ignored_and_recomputed(tmp_path, monkeypatch, damage):
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    shutil.copy(EXAMPLES / "the_ring.jsonl", runs_dir)
    cache = tmp_path / "cache"
    first = report.load_runs(runs_dir, progress=False, cache=cache)
    sha = hashlib.sha256((runs_dir / "the_ring.jsonl").read_bytes()).hexdigest()
    entry = cache / report.code_key()[:24] / sha[:2] / f"{sha}.json"
    doc = json.loads(entry.read_text())
    entry.unlink()
    if damage == "garbage":
        entry.write_bytes(b"\x00\xff{not json")
    elif damage == "empty":
        entry.write_text("")
    elif damage == "wrong type":
        doc["record"]["passed"] = "yes"
        entry.write_text(json.dumps(doc))
    elif damage == "extra field":
        doc["record"]["extra"] = 1
        entry.write_text(json.dumps(doc))
    elif damage == "other sha":
        doc["sha256"] = doc["record"]["sha256"] = "0" * 64
        entry.write_text(json.dumps(doc))
    elif damage == "other key":
        doc["key"] = "an older version"
        entry.write_text(json.dumps(doc))
    elif damage == "fifo":
        os.mkfifo(entry)
    elif damage == "link":
        os.symlink("/dev/zero", entry)
    elif damage == "huge":
        entry.write_text(" " * (report.MAX_CACHE_ENTRY_BYTES + 1))
    elif damage == "out of range":
        doc["record"]["partial_credit"] = 7.0  # out of range
        entry.write_text(json.dumps(doc))
    scored = []
    real = report.score_bytes
    monkeypatch.setattr(report, "score_bytes", lambda data, source: scored.append(source) or real(data, source))
    again = report.load_runs(runs_dir, progress=False, cache=cache)
    assert [Path(s).name for s in scored] == ["the_ring.jsonl"]
    assert comparable(again) == comparable(first)
    if damage not in ("fifo", "link"):
        assert json.loads(entry.read_text())["record"]["status"] == "counted"  # rewritten


def test_an_unwritable_cache_is_not_an_error(runs_dir, tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    recs = report.load_runs(runs_dir, progress=False, cache=blocker)
    assert [r.status for r in recs] == ["counted"] * 3


def test_many_cached_runs_are_read_fast(tmp_path):
    """2,000 distinct runs whose results are cached: read back in a few seconds (the cost is reading and
    hashing the files, not replaying them)."""
    d = tmp_path / "runs"
    d.mkdir()
    cache = report.Cache(tmp_path / "cache")
    base = (EXAMPLES / "the_ring.jsonl").read_text().splitlines()
    header = json.loads(base[0])
    rec = report.score_bytes((EXAMPLES / "the_ring.jsonl").read_bytes(), "the_ring.jsonl")
    for i in range(2000):
        header["run_id"] = f"run-{i:05d}"
        data = ("\n".join([json.dumps(header)] + base[1:]) + "\n").encode()
        p = d / f"r{i:05d}.jsonl"
        p.write_bytes(data)
        cache.put(dataclasses.replace(rec, source=str(p), sha256=hashlib.sha256(data).hexdigest(),
                                      run_id=header["run_id"]))
    t = time.perf_counter()
    recs = report.load_runs(d, progress=False, cache=tmp_path / "cache")
    took = time.perf_counter() - t
    assert len(recs) == 2000 and all(r.counted and not r.passed for r in recs)
    assert sorted({r.epoch for r in recs}) == list(range(1, 2001))  # no recorded epoch: numbered by start
    tabs = report.build_tables(recs, setting="independent")
    assert tabs["cells"].rows[0][4:8] == [2000, 1, 2000, 0]
    assert took < 30, took


def test_jobs_spread_the_replays_over_workers(runs_dir, tmp_path):
    one = report.load_runs(runs_dir, progress=False, cache=None)
    two = report.load_runs(runs_dir, progress=False, cache=tmp_path / "cache", jobs=2)
    assert comparable(two) == comparable(one)
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 3
