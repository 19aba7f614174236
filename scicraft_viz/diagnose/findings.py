"""What a diagnosis returns: findings (mode, guilty blocks, lamps, explanation, fix) and the
diagnosis of one build (lit and dark lamps, every finding, failures no rule explains)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scicraft_viz.diagnose.graph import Circuit, Pos, fmt


def _rule(mode: str):
    from scicraft_viz.diagnose.rules import REGISTRY

    return REGISTRY.get(mode)


@dataclass
class Finding:
    """One diagnosed failure: its mode, the blocks that cause it, the lamps it affects, a plain
    explanation and a suggested fix (`fix_blocks`: placements that apply it; `verified` when a
    simulation of the fixed build showed the lamps meet their windows, or light for dark lamps)."""

    mode: str
    positions: list[Pos]
    lamps: list[Pos]
    explanation: str
    fix: str
    fix_blocks: dict[Pos, str] = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    verified: bool = False

    @property
    def rule(self):
        return _rule(self.mode)

    @property
    def case(self) -> str | None:
        r = self.rule
        return r.case if r else None

    @property
    def category(self) -> int:
        r = self.rule
        return r.category if r else 0

    @property
    def category_name(self) -> str:
        from scicraft_viz.diagnose.rules.base import CATEGORIES

        return CATEGORIES[self.category]

    @property
    def title(self) -> str:
        r = self.rule
        return r.title if r else self.mode

    def to_dict(self) -> dict:
        return {
            "mode": self.mode, "case": self.case, "title": self.title, "category": self.category,
            "category_name": self.category_name, "positions": [list(p) for p in self.positions],
            "lamps": [list(p) for p in self.lamps], "explanation": self.explanation, "fix": self.fix,
            "fix_blocks": [[list(p), s] for p, s in self.fix_blocks.items()], "verified": self.verified,
            "details": _jsonable(self.details),
        }

    def __str__(self) -> str:
        return f"[{self.title}] {self.explanation} Fix: {self.fix}"


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


@dataclass
class Diagnosis:
    findings: list[Finding]
    lamps: list[Pos]
    lit: list[Pos]
    dark: list[Pos]
    pressed: Pos | None
    circuit: Circuit | None = field(default=None, repr=False)
    # per lamp: measured on/off ticks (game ticks after the press), its window and its delay budget
    timing: dict = field(default_factory=dict)
    # the contract checks that failed, with the evaluator's reasons
    failed_checks: list[str] = field(default_factory=list)
    # every block the press reached: position -> the block that changed it (None for the button)
    reached: dict = field(default_factory=dict, repr=False)

    def modes(self) -> list[str]:
        """Modes found, the one explaining most lamps first."""
        from scicraft_viz.diagnose.rules import ORDER

        score: dict[str, set] = {}
        for f in self.findings:
            score.setdefault(f.mode, set()).update(f.lamps)
        return sorted(score, key=lambda m: (-len(score[m]), ORDER.get(m, 99)))

    @property
    def primary(self) -> str | None:
        m = self.modes()
        return m[0] if m else None

    def by_mode(self, mode: str) -> list[Finding]:
        return [f for f in self.findings if f.mode == mode]

    def path_to(self, lamp: Pos) -> list[Pos]:
        """Blocks the signal crossed from the button to `lamp` (empty for a dark lamp)."""
        t = self.timing.get(tuple(lamp))
        return [tuple(s["pos"]) for s in t["path"]] if t else []

    def path_for(self, f: Finding) -> list[Pos]:
        """The signal's path to a finding: to its first lamp that lit, else as far as the signal got
        toward its guilty blocks (the last reached block beside one of them)."""
        for lp in f.lamps:
            if self.path_to(lp):
                return self.path_to(lp)
        ends = [q for p in f.positions for q in [p, *[(p[0] + dx, p[1] + dy, p[2] + dz) for dx, dy, dz in
                                                      ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1),
                                                       (0, 0, -1))]] if q in self.reached]
        if not ends:
            return []
        out = [ends[0]]
        while self.reached.get(out[-1]) is not None and len(out) < 4096:
            out.append(self.reached[out[-1]])
        return out[::-1]

    def budget_labels(self) -> dict[Pos, tuple[str, str]]:
        """Per lamp that lit: (compact, full) text of where its ticks went, for the lamp timeline."""
        out = {}
        for p, t in self.timing.items():
            if t["on"] is None:
                continue
            u = t["unit"]
            parts = " + ".join(f"{k} {x}" for k, x in t["budget"]) or "no delay"
            win = f", window +{t['window'][0]}..+{t['window'][1]} {u}" if t.get("window") else ""
            steps = " -> ".join(f"{s['block'].replace('redstone_', '')} {fmt(s['pos'])}"
                                + (f" +{s['delay']}" if s["delay"] else "") for s in t["path"] if s["delay"]
                                or s is t["path"][0] or s is t["path"][-1])
            lead = " + ".join(f"{k} {x}" for k, x in t["budget"] if k not in ("held", "lamp off-delay"))
            out[p] = (f"+{t['on']} {u} = {lead or 'no delay'}", f"on +{t['on']} {u}{win}: {parts} {u} ({steps})")
        return out

    def report(self) -> str:
        lines = [f"{len(self.lit)}/{len(self.lamps)} lamps lit after the press"
                 + (f" of the button at {fmt(self.pressed)}" if self.pressed else "")]
        if not self.findings:
            lines.append("no failure found" if not self.failed_checks else
                         "no rule explains the failure: " + "; ".join(self.failed_checks))
        for f in self.findings:
            lines.append(f"- [{f.category_name}: {f.title}] {f.explanation}")
            lines.append(f"    fix: {f.fix}" + (" (verified by simulation)" if f.verified else ""))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"lamps": len(self.lamps), "lit": len(self.lit), "dark": [list(p) for p in self.dark],
                "pressed": list(self.pressed) if self.pressed else None,
                "findings": [f.to_dict() for f in self.findings], "failed_checks": list(self.failed_checks),
                "timing": {fmt(p): _jsonable(t) for p, t in self.timing.items()}}
