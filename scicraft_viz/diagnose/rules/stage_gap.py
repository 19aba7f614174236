"""Stage Gap (this project's extension; family C): the lamps light one after another, but the time
between two successive stages is not the contract's delay."""

from __future__ import annotations

from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.sequence import sequence_findings


def detect(ctx) -> list[Finding]:
    return sequence_findings(ctx, "stage_gap")


RULE = Rule(
    id="stage_gap", title="Stage Gap", category=4,
    definition=("The lamps light in sequence, but the gap between two successive stages differs from the "
                "contract's delay by more than the tolerance: the stage between them has too much or too little "
                "delay."),
    fix="change the delay between the two stages (the repeater that feeds the later one)",
    detect=detect,
)
