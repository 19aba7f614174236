"""No Button: There is no stone button, so nothing can be pressed."""

from __future__ import annotations

from scicraft_viz.diagnose.rules.base import Rule

RULE = Rule(
    id="no_button", title="No Button", category=1, case=None, failure="",
    definition=("There is no stone button, so nothing can be pressed."),
    fix="place one stone button on a stone block that the wiring starts from",
)
