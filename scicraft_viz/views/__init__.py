"""JupyterLab views of the simulator: the Explorer and its pieces.

`Explorer` composes everything around a `Session` (the model: a world, what was recorded, undo);
`Canvas`, `Stepper`, `SignalHeatmap`, `LampTimeline` and `Palette` can be used on their own.
`ReplayViewer` replays an agent's or a person's trajectory; `open_gallery` opens a failure-gallery
device in the explorer with its diagnosis; `compare_builds` tests two builds of a task side by side with
their build diff."""

from scicraft_viz.engine.blocks import static_state
from scicraft_viz.views.canvas import Canvas, Pick
from scicraft_viz.views.compare import BuildComparison, Difference, build_diff, compare_builds
from scicraft_viz.views.contract import ContractView, LampWindow, contract_view
from scicraft_viz.views.explorer import Explorer, solution_path
from scicraft_viz.views.frame import Frame, Layout, frame_from_blocks, frame_from_world
from scicraft_viz.views.heatmap import SignalHeatmap
from scicraft_viz.views.palette import Palette
from scicraft_viz.views.replay import DiagnosisPanel, ReplayViewer, open_gallery
from scicraft_viz.views.session import Outcome, Session
from scicraft_viz.views.stepper import Stepper
from scicraft_viz.views.timeline import LampTimeline

__all__ = [
    "Explorer", "Session", "Outcome", "Canvas", "Pick", "Stepper", "SignalHeatmap", "LampTimeline", "Palette",
    "Frame", "Layout", "frame_from_blocks", "frame_from_world", "static_state", "ContractView", "LampWindow",
    "contract_view", "solution_path", "ReplayViewer", "DiagnosisPanel", "open_gallery", "compare_builds",
    "BuildComparison", "Difference", "build_diff",
]
