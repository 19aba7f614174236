"""Tiny Core: Lamps beyond the extent of the wiring: the wires stop before they reach them."""

from __future__ import annotations

from functools import partial

from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.coverage import coverage_finding

RULE = Rule(
    id="tiny_core", title="Tiny Core", category=2, case='7', failure="Insufficient wire reach",
    definition=("Lamps beyond the extent of the wiring: the wires stop before they reach them."),
    fix="extend the wiring out to the far lamps",
    finding=partial(coverage_finding, "tiny_core"),
)
