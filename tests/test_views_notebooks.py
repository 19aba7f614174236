"""The notebooks run top to bottom in a fresh kernel without errors (outputs are not kept), and each
widget is saved in the state the text beside it describes."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
VIEW = "application/vnd.jupyter.widget-view+json"


def widget_texts(nb, cell) -> str:
    """Every HTML value inside the widgets a cell displays (walking each widget's children)."""
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    todo = [o["data"][VIEW]["model_id"] for o in cell.outputs if VIEW in o.get("data", {})]
    seen, texts = set(), []
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        s = state[mid]["state"]
        if state[mid]["model_name"] == "HTMLModel":
            texts.append(s.get("value", ""))
        for key in ("children", "titles"):
            for child in s.get(key) or []:
                if isinstance(child, str) and child.startswith("IPY_MODEL_"):
                    todo.append(child.removeprefix("IPY_MODEL_"))
    return "\n".join(texts)


def cell_with(nb, text: str):
    return next(c for c in nb.cells if c.cell_type == "code" and text in c.source)


@pytest.mark.parametrize("name", ["quickstart", "redstone_course", "task_walkthrough", "replay"])
def test_notebook_runs(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    widgets = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if VIEW in o.get("data", {})]
    assert widgets, "the notebook shows no widget"
    assert nb.cells[-1].cell_type == "code", "the notebook ends on text with nothing to run"
    if name == "quickstart":
        assert "placed redstone_lamp at (1, 4, 3)" in text
        assert "cannot place redstone_wire at (4, 7, 4)" in text
        first = widget_texts(nb, cell_with(nb, "ex = Explorer(world=demo_world())"))
        assert "<b>tick 0 gt</b> · 0 rt · live" in first and "press +" not in first  # untouched, as described
        second = widget_texts(nb, cell_with(nb, "ex2 = Explorer"))
        assert "<b>tick 12 gt</b> · 6 rt · press +12 gt" in second
        third = widget_texts(nb, cell_with(nb, "ex3 = Explorer"))
        assert "contract_on_times</b>: ok" in third or "</b>: ok" in third
        assert "FAIL" not in third and "pending" not in third
    if name == "task_walkthrough":
        assert "E_pulse_shaping_L2: PASS" in text and "lamps violating the contract: 8 of 8" in text
        assert "build equals the reference: True" in text and "violations after two undos: 0" in text
        broken = widget_texts(nb, cell_with(nb, "broken = Explorer"))
        assert "pulse_off_window</b>: FAIL" in broken  # the broken explorer still shows the broken build
        fixed = widget_texts(nb, cell_with(nb, "fixed = Explorer"))
        assert "pulse_off_window</b>: ok" in fixed
        assert "broken has redstone_repeater[delay=3,facing=south], reference has redstone_repeater[delay=1" in text
        side = widget_texts(nb, cell_with(nb, "side = compare_builds"))
        assert "1 block differ" in side and ">FAIL</b> · 8 of 8 lamps miss a window" in side
        assert ">PASS</b> · every lamp within its windows" in side
    if name == "redstone_course":
        assert "lamps on after the press (gt): [2, 4, 6, 8]" in text
        assert "torch at (1, 2, 0) burnt out" in text
        assert "comparator output (tick, strength): [(2, 15), (4, 2), (6, 15), (8, 2), (10, 15), (12, 2)]" in text
        assert " 1728 stone: level 15, comparator output 15" in text and "dust: [5, 4, 3]" in text
        # observers, pistons with quasi-connectivity (a BUD), and the flying machine
        assert "dust behind the east observer (tick, power): [(4, 15), (6, 0), (10, 15), (12, 0), (16, 15)" in text
        assert "after 10 gt: minecraft:piston[extended=false,facing=east]" in text
        assert "11 ['piston', 'moving_piston', 'moving_piston', 'air']" in text
        assert "13 ['piston', 'piston_head', 'stone', 'air']" in text
        assert "west end of the machine every 10 gt: [2, 3, 4, 5, 5, 5, 5, 5]" in text
        # the burn-out section reads its causes off the event log and opens the explorer with meters there
        assert "torch (1, 2, 0) burnt out: it turned off 8 times within 3 s" in text
        assert "torch (1, 2, 0) lit: scheduled 1 rt ago when dust (1, 1, 1) fell to power 0" in text
        meters = widget_texts(nb, cell_with(nb, "ex9 = explore(w)"))
        assert "scv-meter-table" in meters and "Why, at tick 30" in meters and "burnt out" not in meters[:0]
    if name == "replay":
        gallery = widget_texts(nb, cell_with(nb, 'open_gallery("parallel_lines")'))
        assert "the button was pressed at tick" in gallery


def test_the_lab_command_opens_a_notebook_and_allows_root():
    import shlex
    import sys

    from typer.testing import CliRunner

    from scicraft_viz.cli import app
    from scicraft_viz.views.launch import lab_command

    root = NOTEBOOKS.parent
    assert lab_command("quickstart", as_root=True) == [
        sys.executable, "-m", "jupyterlab", str(NOTEBOOKS / "quickstart.ipynb"), f"--ServerApp.root_dir={root}",
        "--LabApp.default_url=/lab/tree/notebooks/quickstart.ipynb", "--allow-root"]
    assert "--allow-root" not in lab_command("replay.ipynb", as_root=False)
    out = CliRunner().invoke(app, ["lab", "task_walkthrough", "--port", "8899", "--no-browser", "--print"])
    assert out.exit_code == 0
    cmd = shlex.split(out.output)
    assert cmd[3:6] == [str(NOTEBOOKS / "task_walkthrough.ipynb"), f"--ServerApp.root_dir={root}",
                        "--LabApp.default_url=/lab/tree/notebooks/task_walkthrough.ipynb"]
    assert cmd[-3:] == ["--ServerApp.port=8899", "--ServerApp.port_retries=0", "--no-browser"]
    bad = CliRunner().invoke(app, ["lab", "nope", "--print"])
    assert bad.exit_code == 2
    assert "error: no notebook 'nope'; the notebooks are: annotator, quickstart, redstone_course" in bad.output
