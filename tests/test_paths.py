"""The project's default output folders are created on first use, with their parents; a path a user
gives keeps the one-missing-level rule, so a typo is refused rather than created."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scicraft_viz import paths


def test_default_runs_dir_creates_its_parents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.default_runs_dir() == Path("runs") and (tmp_path / "runs").is_dir()
    assert paths.default_runs_dir("inspect") == Path("runs/inspect") and (tmp_path / "runs/inspect").is_dir()
    assert paths.default_runs_dir("inspect") == Path("runs/inspect")  # already there: nothing to do
    base = tmp_path / "elsewhere"
    assert paths.default_runs_dir("human", base=base) == base / "runs" / "human" and (base / "runs/human").is_dir()


def test_default_runs_dir_refusals(tmp_path):
    (tmp_path / "runs").write_text("a file where the folder should be")
    with pytest.raises(paths.OutputDirError) as ei:
        paths.default_runs_dir("inspect", base=tmp_path)
    assert str(ei.value) == (f"cannot create the output folder {tmp_path / 'runs' / 'inspect'}: "
                             f"{tmp_path / 'runs'} exists and is not a folder")
    assert isinstance(ei.value, OSError)
    for bad in ("", "..", "a/b"):
        with pytest.raises(ValueError, match="one plain name"):
            paths.default_runs_dir(bad, base=tmp_path)


@pytest.mark.parametrize("path,default", [
    ("runs", True), ("runs/", True), ("runs/human", True), ("/home/x/study/runs/human", True),
    ("runs/inspect", True), ("runs/inspect-import/", True),
    ("runs/humans", False), ("rnus/human", False), ("/data/sessions", False), ("runs/human/P01", False),
])
def test_which_folders_are_defaults(path, default):
    assert paths.is_default_runs_dir(path) is default


def test_serve_mcp_creates_runs_on_first_use(tmp_path):
    """`scicraft-viz serve-mcp` without --trajectory, in a folder without runs/: the episode's file is
    written in a new runs/ (the server stops at once: its stdin is empty)."""
    r = subprocess.run(["scicraft-viz", "serve-mcp", "--task", "A_simultaneous_lights_L1"], cwd=tmp_path,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    files = list((tmp_path / "runs").glob("A_simultaneous_lights_L1__*.jsonl"))
    assert len(files) == 1, r.stderr


def test_a_given_trajectory_path_may_lack_only_its_last_level(tmp_path):
    r = subprocess.run(["scicraft-viz", "serve-mcp", "--task", "A_simultaneous_lights_L1", "--trajectory",
                        str(tmp_path / "rnus" / "mcp") + "/"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and not (tmp_path / "rnus").exists(), r.stderr
    assert f"the directory {tmp_path / 'rnus'} does not exist" in r.stderr, r.stderr
