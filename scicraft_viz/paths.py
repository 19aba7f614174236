"""The project's default output folders, created on first use.

Runs are written under `runs/` in the working directory unless a path is given: `runs/` itself for
`scicraft-viz serve-mcp`, `runs/human/` for the annotator page, `runs/inspect/` for the Inspect runner
and `runs/inspect-import/` for `scicraft-viz import-inspect`. These defaults are created with their
parents the first time something is written there, so every documented command works in a fresh clone.

A path a user types is different: a trajectory path may create at most its last missing level (see
`scicraft_viz.env.trajectory.prepare_directory`), so that a mistyped folder is refused instead of
created. `is_default_runs_dir` tells the two apart for settings that may hold either (the annotator's
`SCICRAFT_RUNS`, whose documented value is `$PWD/runs/human`).
"""

from __future__ import annotations

import os
from pathlib import Path

RUNS_DIR = "runs"
# the sub-folders of runs/ the project itself writes by default
DEFAULT_SUBDIRS = ("human", "inspect", "inspect-import")


class OutputDirError(OSError):
    """A default output folder could not be created; the message names it and says why."""


def default_runs_dir(*parts: str, base: str | os.PathLike | None = None) -> Path:
    """The default output folder `runs/<parts...>` under `base` (default: the working directory,
    returned as a relative path), created with its parents if missing. Raises OutputDirError when a
    level of it exists and is not a folder, or cannot be created."""
    for part in parts:
        if not part or part in (".", "..") or "/" in part or "\\" in part:
            raise ValueError(f"a default output folder's name must be one plain name, got {part!r}")
    path = Path(base, RUNS_DIR, *parts) if base is not None else Path(RUNS_DIR, *parts)
    return ensure_dir(path)


def ensure_dir(path: str | os.PathLike) -> Path:
    """Create the folder `path` with its parents (for defaults only, never for a path a user typed)."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), path)
        raise OutputDirError(f"cannot create the output folder {path}: {blocker} exists and is not a folder") from None
    except OSError as e:
        raise OutputDirError(f"cannot create the output folder {path}: {e.strerror or e}") from None
    return path


def is_default_runs_dir(path: str | os.PathLike) -> bool:
    """True if `path` is one of the project's default output folders, relative or under any base:
    `runs` or `runs/human`, `runs/inspect`, `runs/inspect-import` (a trailing slash is ignored)."""
    parts = Path(path).parts
    if parts[-1:] == (RUNS_DIR,):
        return True
    return len(parts) >= 2 and parts[-2] == RUNS_DIR and parts[-1] in DEFAULT_SUBDIRS
