"""scicraft_viz: a tick-exact Minecraft redstone simulator with SciCrafter tasks and JupyterLab views."""

from scicraft_viz.blocks import BlockState, parse_state
from scicraft_viz.errors import BlockStateError, BuildFileError, InputError, PlacementError, PositionError
from scicraft_viz.trace import Trace
from scicraft_viz.world import Event, World

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
