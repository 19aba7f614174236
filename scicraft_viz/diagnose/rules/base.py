"""What a rule is: one failure mode with its id, name, definition, detector and fix."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# 0-3 are the paper's (Appendix I, Table 11); 4 is this project's extension for lamps that light at the wrong time.
CATEGORIES = {0: "other", 1: "structural", 2: "signal propagation", 3: "wire semantics", 4: "timing"}
GAPS = {1: "Application", 2: "Discovery", 3: "Identification"}


@dataclass(frozen=True)
class Rule:
    """A failure mode. `case` is the paper's case number (None: this project's extension).

    A rule finds failures in one of two ways: `finding(walk, key, lamps, info)` turns the evidence
    the dark-lamp walk collected for it into a Finding, or `detect(ctx)` looks at the whole
    diagnosis context itself (timing rules) and returns Findings; `repair(c, candidate, lamps)`
    words a repair that a simulation showed to work (`fixes`) as this rule's Finding. `fix` says
    in words what its findings change; each finding carries the concrete change."""

    id: str
    title: str
    category: int
    definition: str
    fix: str
    case: str | None = None
    failure: str = ""
    finding: Callable | None = None
    detect: Callable | None = None
    repair: Callable | None = None

    @property
    def gap(self) -> str:
        return GAPS.get(self.category, "")

    @property
    def extension(self) -> bool:
        return self.case is None
