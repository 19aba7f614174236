"""The notebooks run top to bottom in a fresh kernel without errors (outputs are not kept)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.mark.parametrize("name", ["quickstart", "redstone_course", "task_walkthrough", "replay"])
def test_notebook_runs(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    widgets = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets, "the notebook shows no widget"
    if name == "quickstart":
        assert "placed redstone_lamp at (1, 4, 3)" in text
        assert "cannot place redstone_wire at (4, 7, 4)" in text
    if name == "task_walkthrough":
        assert "E_pulse_shaping_L2: PASS" in text and "lamps violating the contract: 8 of 8" in text
    if name == "redstone_course":
        assert "lamps on after the press (gt): [2, 4, 6, 8]" in text
        assert "torch at (1, 2, 0) burnt out" in text
