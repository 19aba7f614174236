"""The package layout: old import paths stay the very same modules, and imports run one way."""

from __future__ import annotations

import ast
import importlib
import pathlib
import sys

import pytest

import scicraft_viz

PACKAGE = pathlib.Path(scicraft_viz.__file__).parent

# Each old module under scicraft_viz/agents/ and its new home.
MOVED = {
    "env": "env.environment", "trajectory": "env.trajectory", "replay": "env.replay",
    "mcp_server": "env.mcp_server", "conditions": "env.conditions", "book": "env.book",
    "scientist": "env.scientist", "inspect_task": "experiments.inspect_task", "offline": "experiments.offline",
    "report": "experiments.report", "aggregate": "experiments.aggregate", "examples": "experiments.examples",
}


def test_every_old_module_is_listed():
    old = {p.stem for p in (PACKAGE / "agents").glob("*.py")} - {"__init__"}
    assert old == set(MOVED)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_same_module(old, monkeypatch):
    shim = importlib.import_module(f"scicraft_viz.agents.{old}")
    new = importlib.import_module(f"scicraft_viz.{MOVED[old]}")
    assert shim is new
    assert sys.modules[f"scicraft_viz.agents.{old}"] is new
    # a monkeypatch through one path is seen through the other
    monkeypatch.setattr(shim, "_layout_probe", old, raising=False)
    assert new._layout_probe == old


def test_short_names_reach_the_new_homes():
    assert scicraft_viz.trajectory is importlib.import_module("scicraft_viz.env.trajectory")
    assert scicraft_viz.report is importlib.import_module("scicraft_viz.experiments.report")
    from scicraft_viz import env
    from scicraft_viz.env.environment import SciCraftEnv

    # `scicraft_viz.env` was the environment module: its names still resolve on the package
    assert env.SciCraftEnv is SciCraftEnv
    with pytest.raises(AttributeError):
        env.no_such_name  # noqa: B018


def _imports(folder: str) -> dict[str, set[str]]:
    """Every scicraft_viz module each file of a subpackage imports (at the top or inside a function)."""
    found = {}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("scicraft_viz"):
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names if a.name.startswith("scicraft_viz"))
        found[str(path.relative_to(PACKAGE))] = names
    return found


@pytest.mark.parametrize("folder, forbidden", [
    ("env", ("experiments", "agents")),
    ("tasks", ("env", "experiments", "agents", "views", "diagnose")),
    ("engine", ("env", "experiments", "agents", "tasks", "views", "diagnose")),
    ("diagnose", ("env", "experiments", "agents", "views")),
])
def test_imports_run_one_way(folder, forbidden):
    prefixes = tuple(f"scicraft_viz.{f}" for f in forbidden)
    bad = {file: sorted(n for n in names if n.startswith(prefixes))
           for file, names in _imports(folder).items()}
    assert {file: names for file, names in bad.items() if names} == {}

