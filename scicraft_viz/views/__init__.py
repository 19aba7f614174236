"""JupyterLab views of the simulator: the Explorer and its pieces.

`Explorer` composes everything around a `Session` (the model: a world, what was recorded, undo);
`Canvas`, `Stepper`, `SignalHeatmap`, `LampTimeline` and `Palette` can be used on their own.
`ReplayViewer` replays an agent's or a person's trajectory; `open_gallery` opens a failure-gallery
device in the explorer with its diagnosis. `views.render` draws pictures of a build headless;
`compare_builds` tests two builds of a task side by side with their build diff.

The names below are imported on first use, so that a light module of this package (`views.render`,
`views.geometry`, `views.frame`, which agents and servers use) loads without the widget libraries."""

from __future__ import annotations

from importlib import import_module

_WHERE = {
    "static_state": "scicraft_viz.engine.blocks",
    "Canvas": "scicraft_viz.views.canvas", "Pick": "scicraft_viz.views.canvas",
    "BuildComparison": "scicraft_viz.views.compare", "Difference": "scicraft_viz.views.compare",
    "build_diff": "scicraft_viz.views.compare", "compare_builds": "scicraft_viz.views.compare",
    "ContractView": "scicraft_viz.views.contract", "LampWindow": "scicraft_viz.views.contract",
    "contract_view": "scicraft_viz.views.contract",
    "Explorer": "scicraft_viz.views.explorer", "solution_path": "scicraft_viz.views.explorer",
    "Frame": "scicraft_viz.views.frame", "Layout": "scicraft_viz.views.frame",
    "frame_from_blocks": "scicraft_viz.views.frame", "frame_from_world": "scicraft_viz.views.frame",
    "SignalHeatmap": "scicraft_viz.views.heatmap",
    "Palette": "scicraft_viz.views.palette",
    "DiagnosisPanel": "scicraft_viz.views.replay", "ReplayViewer": "scicraft_viz.views.replay",
    "open_gallery": "scicraft_viz.views.replay",
    "Outcome": "scicraft_viz.views.session", "Session": "scicraft_viz.views.session",
    "Stepper": "scicraft_viz.views.stepper",
    "LampTimeline": "scicraft_viz.views.timeline",
}

__all__ = [
    "Explorer", "Session", "Outcome", "Canvas", "Pick", "Stepper", "SignalHeatmap", "LampTimeline", "Palette",
    "Frame", "Layout", "frame_from_blocks", "frame_from_world", "static_state", "ContractView", "LampWindow",
    "contract_view", "solution_path", "ReplayViewer", "DiagnosisPanel", "open_gallery", "compare_builds",
    "BuildComparison", "Difference", "build_diff",
]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'scicraft_viz.views' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
