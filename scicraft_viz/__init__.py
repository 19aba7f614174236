"""scicraft_viz: a tick-exact Minecraft redstone simulator with SciCrafter tasks and JupyterLab views."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scicraft_viz.engine.blocks import BlockState, parse_state
    from scicraft_viz.engine.gametest import GameTestResult, run_game_test
    from scicraft_viz.engine.trace import Trace
    from scicraft_viz.engine.world import Event, World
    from scicraft_viz.errors import BlockStateError, BuildFileError, InputError, PlacementError, PositionError

__all__ = [
    "World",
    "Event",
    "Trace",
    "BlockState",
    "parse_state",
    "InputError",
    "BlockStateError",
    "PositionError",
    "PlacementError",
    "BuildFileError",
    "run_game_test",
    "GameTestResult",
]
__version__ = "0.1.0"

# Everything is imported on first use: `import scicraft_viz` (and so every command of the CLI) stays cheap,
# and the engine's compiled kernels load only when something needs them.
_NAMES = {
    "World": "engine.world", "Event": "engine.world", "Trace": "engine.trace", "BlockState": "engine.blocks",
    "parse_state": "engine.blocks", "InputError": "errors", "BlockStateError": "errors", "PositionError": "errors",
    "PlacementError": "errors", "BuildFileError": "errors", "run_game_test": "engine.gametest",
    "GameTestResult": "engine.gametest",
}
# Submodules by their short public names.
_SUBMODULES = {
    "blocks": "engine.blocks", "sim": "engine.kernels", "kernels": "engine.kernels", "world": "engine.world",
    "trace": "engine.trace", "mcfunction": "engine.mcfunction", "formats": "engine.formats",
    "schematic": "engine.schematic", "gametest": "engine.gametest", "engine": "engine",
    "tasks": "tasks", "evaluator": "tasks.evaluator", "solutions": "tasks.solutions", "batch": "tasks.batch",
    "env": "env", "environment": "env.environment", "trajectory": "env.trajectory", "replay": "env.replay",
    "mcp_server": "env.mcp_server", "conditions": "env.conditions", "experiments": "experiments",
    "aggregate": "experiments.aggregate", "report": "experiments.report", "agents": "agents",
    "diagnose": "diagnose", "gallery": "diagnose.gallery", "errors": "errors", "views": "views", "cli": "cli",
}


def __getattr__(name: str):
    import importlib

    if name in _NAMES:
        return getattr(importlib.import_module(f"scicraft_viz.{_NAMES[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"scicraft_viz.{_SUBMODULES[name]}")
    raise AttributeError(f"module 'scicraft_viz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES) | set(_SUBMODULES))
