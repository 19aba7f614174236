"""The registry of failure modes, in the way a linter keeps its rules: one module per mode (id,
name, definition, detector, fix), listed here once. A new mode is one new module and one line.

The paper's 12 modes (Appendix I, Table 11) come first, then this project's extensions: blocks
that popped off, no button, the timing modes for lamps that light at the wrong time, and the
finding for failures no mode explains."""

from __future__ import annotations

from scicraft_viz.diagnose.rules import (
    axes_only,
    backwards_repeaters,
    broken_bridge,
    broken_constraint,
    connection_trap,
    dead_end_hooks,
    glass_pedestal,
    islands,
    long_snake,
    missing_rails,
    no_button,
    no_shaper,
    parallel_lines,
    popped_off,
    pulse_start,
    pulse_width,
    skew,
    stage_gap,
    stage_order,
    the_ring,
    tiny_core,
    unexplained,
)
from scicraft_viz.diagnose.rules.base import CATEGORIES, Rule

RULES: list[Rule] = [
    glass_pedestal.RULE,
    broken_bridge.RULE,
    axes_only.RULE,
    backwards_repeaters.RULE,
    long_snake.RULE,
    missing_rails.RULE,
    tiny_core.RULE,
    islands.RULE,
    parallel_lines.RULE,
    connection_trap.RULE,
    dead_end_hooks.RULE,
    the_ring.RULE,
    popped_off.RULE,
    no_button.RULE,
    skew.RULE,
    stage_gap.RULE,
    stage_order.RULE,
    pulse_start.RULE,
    pulse_width.RULE,
    no_shaper.RULE,
    broken_constraint.RULE,
    unexplained.RULE,
]
REGISTRY: dict[str, Rule] = {r.id: r for r in RULES}
ORDER: dict[str, int] = {r.id: i for i, r in enumerate(RULES)}
# mode -> (paper case, category, title, failure mode, capacity gap): the paper's Table 11
TAXONOMY: dict[str, tuple[str, int, str, str, str]] = {
    r.id: (r.case, r.category, r.title, r.failure, r.gap) for r in RULES if not r.extension}
# this project's modes: mode -> (category, title)
EXTRA: dict[str, tuple[int, str]] = {r.id: (r.category, r.title) for r in RULES if r.extension}
MODES = list(TAXONOMY)

__all__ = ["CATEGORIES", "EXTRA", "MODES", "ORDER", "REGISTRY", "RULES", "TAXONOMY", "Rule"]
