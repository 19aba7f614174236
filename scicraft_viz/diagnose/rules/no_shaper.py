"""No Shaper (this project's extension; family E): the lamps follow the button's own 10 rt press,
because nothing between the button and the lamps shortens the pulse."""

from __future__ import annotations

from scicraft_viz.diagnose.rules.base import Rule
from scicraft_viz.diagnose.rules.pulse import pulse_findings

RULE = Rule(
    id="no_shaper", title="No Shaper", category=4,
    definition=("A lamp stays lit for the button's whole press (10 rt) plus its own 2 rt off-delay: no torch on "
                "its path turns the signal off early, so the pulse is as long as the press."),
    fix="add a pulse limiter (a torch the signal turns off after a short repeater delay) before the lamps",
    detect=lambda ctx: pulse_findings(ctx, "no_shaper"),
)
