"""Pulse Start (this project's extension; family E): the lamps' pulse begins outside the on-window
after the press, because too much delay lies between the button and the lamps."""

from __future__ import annotations

from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.pulse import pulse_findings

RULE = Rule(
    id="pulse_start", title="Pulse Start", category=4,
    definition=("A lamp turns on later than the pulse's on-window after the press: the path from the button to "
                "the lamp has too much delay."),
    fix="take delay out of the path from the button to the lamps",
    detect=lambda ctx: pulse_findings(ctx, "pulse_start"),
)
