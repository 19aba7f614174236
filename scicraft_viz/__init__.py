"""scicraft_viz: a tick-exact Minecraft redstone simulator with SciCrafter tasks and JupyterLab views."""

from scicraft_viz.engine.blocks import BlockState, parse_state
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
]
__version__ = "0.1.0"

# Submodules by their short public names, imported on first use so that `import scicraft_viz` stays cheap.
_SUBMODULES = {
    "blocks": "engine.blocks", "sim": "engine.kernels", "kernels": "engine.kernels", "world": "engine.world",
    "trace": "engine.trace", "mcfunction": "engine.mcfunction", "engine": "engine",
    "tasks": "tasks", "evaluator": "tasks.evaluator", "solutions": "tasks.solutions",
    "env": "agents.env", "trajectory": "agents.trajectory", "replay": "agents.replay",
    "mcp_server": "agents.mcp_server", "aggregate": "agents.aggregate", "agents": "agents",
    "diagnose": "diagnose", "gallery": "diagnose.gallery", "errors": "errors", "views": "views", "cli": "cli",
}


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"scicraft_viz.{_SUBMODULES[name]}")
    raise AttributeError(f"module 'scicraft_viz' has no attribute {name!r}")
