"""README's "Reproduce the paper": the worked example runs as written (offline agents, no network) and
gives the CSV the README shows; the paper's commands parse as `inspect eval` commands, build the
tasks they name, and cost what the README's table says."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section() -> str:
    start = README.index("## Reproduce the paper\n")
    end = README.index("\n## ", start + 10)
    return README[start:end]


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", section(), flags=re.S)


def commands(block: str) -> list[str]:
    """The block's commands, continuation lines joined and comments dropped."""
    out, cur = [], ""
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        out.append((cur + line).strip())
        cur = ""
    return out


def test_the_section_follows_conditions():
    heads = re.findall(r"^## (.+)$", README, flags=re.M)
    assert heads[heads.index("Conditions") + 1] == "Reproduce the paper"


def test_the_paper_commands_build_the_tasks_they_claim():
    pytest.importorskip("inspect_ai")
    from inspect_ai._cli.eval import eval_command

    from scicraft_viz.experiments.inspect_task import scicraft

    cmds = commands(blocks("bash")[0])
    model = next(c for c in cmds if c.startswith("MODEL=")).split("=", 1)[1]
    evals = [c for c in cmds if c.startswith("inspect eval ")]
    assert len(evals) == 10 and cmds[-1].startswith("scicraft-viz report runs/inspect ")
    protocols, samples, task_runs = set(), 0, 0
    for c in evals:
        argv = shlex.split(c.replace("$MODEL", model))[2:]
        ctx = eval_command.make_context("eval", argv)
        assert ctx.params["tasks"] == ("scicraft_viz/scicraft",) and ctx.params["model"] == model
        assert ctx.params["epochs"] == 8
        targs = dict(t.split("=", 1) for t in ctx.params["t"])
        assert (targs["family"], targs["level"]) == ("all", "all")
        task = scicraft(**targs)
        protocols.add((targs["setting"], targs["condition"], targs["consolidation"]))
        samples += len(task.dataset) * 8
        task_runs += sum(len(s.metadata["task_ids"]) for s in task.dataset) * 8
    table1 = {("curriculum", c, "cpce") for c in ("baseline", "hint", "hint+scientist")}
    table2 = {("curriculum", "hint+scientist", f) for f in ("summary", "fee", "cpce")}
    table6 = {(s, c, "cpce") for s in ("independent", "curriculum")
              for c in ("baseline", "hint", "scientist", "hint+scientist")}
    assert protocols == table1 | table2 | table6
    assert (samples, task_runs) == (1040, 2000)
    assert "| all: 25 tasks x 8 epochs x (4 conditions x 2 settings + 2 formats) | 10 | 1,040 | 2,000 |" in section()


def test_the_worked_example_runs_as_written(tmp_path):
    pytest.importorskip("inspect_ai")
    script = blocks("bash")[1]
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("INSPECT_LOG_DIR", None)
    res = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Table 1: gap decomposition (curriculum setting), success %" in res.stdout
    assert res.stdout.strip().splitlines()[-1] == ("12 run(s) counted, 0 left out -> report.html, report.json, "
                                                   "report.<table>.csv (20 tables)")
    expected = blocks("text")[0]
    assert (tmp_path / "report.table1.csv").read_text(encoding="utf-8") == expected
    for name in ("report.html", "report.json", "report.runs.csv", "report.failure_modes.csv"):
        assert (tmp_path / name).is_file()
