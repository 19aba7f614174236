"""Starting JupyterLab on one of the project's notebooks (what `scicraft-viz lab` runs)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def notebook_path(name: str) -> Path:
    """A notebook by name ('quickstart', 'replay.ipynb', ...) in the repository's notebooks/, or a path."""
    given = Path(name)
    if given.suffix == ".ipynb" and given.is_file():
        return given.resolve()
    stem = given.name.removesuffix(".ipynb")
    path = NOTEBOOKS / f"{stem}.ipynb"
    if not path.is_file():
        known = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) if NOTEBOOKS.is_dir() else []
        listing = f"; the notebooks are: {', '.join(known)}" if known else (
            f"; no notebooks/ folder at {NOTEBOOKS} (run from a clone of the repository, installed with pip -e)")
        raise FileNotFoundError(f"no notebook {name!r}{listing}")
    return path


def lab_command(name: str = "quickstart", *, as_root: bool | None = None, port: int | None = None) -> list[str]:
    """The command that opens JupyterLab on a notebook; Jupyter refuses to run as root without --allow-root."""
    path = notebook_path(name)
    if as_root is None:
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    # the server's root must hold the notebook, wherever the command is run from
    root = NOTEBOOKS.parent if path.parent == NOTEBOOKS else path.parent
    cmd = [sys.executable, "-m", "jupyter", "lab", str(path), f"--ServerApp.root_dir={root}"]
    if as_root:
        cmd.append("--allow-root")
    if port is not None:
        cmd.append(f"--ServerApp.port={port}")
    return cmd
