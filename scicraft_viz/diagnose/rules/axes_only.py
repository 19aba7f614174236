"""Axes Only: The wiring carries signal but no lamp touches any wire: the branches that would turn off the main
lines toward the lamps are missing."""

from __future__ import annotations

from functools import partial

from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.coverage import coverage_finding

RULE = Rule(
    id="axes_only", title="Axes Only", category=1, case='8', failure="No branch wires",
    definition=("The wiring carries signal but no lamp touches any wire: the branches that would turn off the main "
                "lines toward the lamps are missing."),
    fix="add branch wires that point into the lamps",
    finding=partial(coverage_finding, "axes_only"),
)
