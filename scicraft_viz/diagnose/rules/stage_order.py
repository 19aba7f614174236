"""Stage Order (this project's extension; family C): lamps that should light one after another
light in the same tick (or out of turn), so a stage is missing from the sequence."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.sequence import sequence_findings


def detect(ctx) -> list[Finding]:
    return sequence_findings(ctx, "stage_order")


RULE = Rule(
    id="stage_order", title="Stage Order", category=4,
    definition=("Two lamps that should be successive stages light in the same tick (a gap of zero), so the "
                "measured order is not the sequence: both hang on the same stage of the delay chain."),
    fix="give the later lamp its own delay stage (a repeater between the two lamps)",
    detect=detect,
)
