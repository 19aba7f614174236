"""What a diagnosis returns: findings (mode, guilty blocks, lamps, explanation, fix) and the
diagnosis of one build (lit and dark lamps, every finding, failures no rule explains, and one
combined repair with its own verdict).

A fix is literal: `fix_blocks` maps each position to the full block state to place there (or
"minecraft:air"), in the order to apply them; `fix_lines` gives the same operations as build-file
lines and `fix_calls` as the environment's set-block calls; the prose `fix` quotes the same
states. `verified` says that exactly these operations, simulated on the whole build, bring the
finding's lamps into their windows without putting any lamp that met its window out of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scicraft_viz.diagnose.graph import Circuit, Pos, fmt

# fix operations quoted in full in the prose; beyond this many, the first few and a count
QUOTED = 6


def setblock_line(p: Pos, state: str) -> str:
    return f"setblock {p[0]} {p[1]} {p[2]} {state}"


def _steps(ops) -> list[tuple[Pos, str]]:
    """Operations as (position, what): a removal followed by a placement at the same position
    reads as one step ('minecraft:air, then STATE')."""
    ops = list(ops.items()) if isinstance(ops, dict) else list(ops)
    out: list[tuple[Pos, str]] = []
    for p, s in ops:
        if out and out[-1][0] == p and out[-1][1] == "minecraft:air":
            out[-1] = (p, f"minecraft:air, then {s}")
        else:
            out.append((p, s))
    return out


def ops_text(ops) -> str:
    """The operations of a fix (a list of (position, state), or a {position: state} map) in words,
    every state quoted: 'set-block (x, y, z) STATE; ...', or for a long fix each state once with
    the positions that take it."""
    items = _steps(ops)
    if len(items) <= QUOTED:
        return "set-block " + "; ".join(f"{fmt(p)} {s}" for p, s in items)
    by: dict[str, list[Pos]] = {}
    for p, s in items:
        by.setdefault(s, []).append(p)
    parts = []
    for s, ps in by.items():
        where = ", ".join(fmt(p) for p in ps[:4]) + (f" and {len(ps) - 4} more" if len(ps) > 4 else "")
        parts.append(f"{s} at {where}")
    return f"set-block {len(items)} blocks in this order (fix_lines lists them): " + "; ".join(parts)


def fix_text(intent: str, ops) -> str:
    """A fix's prose with its literal operations: the rule's words, then every state to place."""
    if not ops:
        return intent
    cut = intent.find(": set-block ")
    if cut >= 0:  # worded before: the operations are quoted again from `ops`
        intent = intent[:cut]
    return f"{intent}: {ops_text(ops)}"


def _rule(mode: str):
    from scicraft_viz.diagnose.rules import REGISTRY

    return REGISTRY.get(mode)


@dataclass
class Finding:
    """One diagnosed failure: its mode, the blocks that cause it, the lamps it affects, a plain
    explanation and a fix: in words (`fix`, quoting every state it places) and as literal operations
    (`fix_blocks`: {position: full state or "minecraft:air"} in the order to apply them; `fix_lines`,
    `fix_calls`). `verified`: those operations, applied through set-block to a copy of the build and
    pressed, bring the finding's lamps into their windows and put no lamp that met its window out
    of it (`details["unverified"]` says why not, when a fix is given but fails that)."""

    mode: str
    positions: list[Pos]
    lamps: list[Pos]
    explanation: str
    fix: str
    fix_blocks: dict[Pos, str] = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    verified: bool = False
    # the fix as the set-block calls that apply it, in order (a wire replacing a wire is removed
    # first); filled in by the diagnosis, else the items of fix_blocks
    fix_ops: list = field(default_factory=list, repr=False)

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

    def _ops(self) -> list:
        return list(self.fix_ops) if self.fix_ops else list(self.fix_blocks.items())

    @property
    def fix_lines(self) -> list[str]:
        """The fix as build-file lines (`setblock X Y Z STATE`), in the order to apply them:
        appended to the build's file (a later line for a position wins), or pasted as commands."""
        return [setblock_line(p, s) for p, s in self._ops()]

    @property
    def fix_calls(self) -> list[dict]:
        """The fix as the environment's set-block calls: [{"pos": [x, y, z], "block": STATE}, ...]."""
        return [{"pos": list(p), "block": s} for p, s in self._ops()]

    def to_dict(self) -> dict:
        return {
            "mode": self.mode, "case": self.case, "title": self.title, "category": self.category,
            "category_name": self.category_name, "positions": [list(p) for p in self.positions],
            "lamps": [list(p) for p in self.lamps], "explanation": self.explanation, "fix": self.fix,
            "fix_blocks": [[list(p), s] for p, s in self.fix_blocks.items()], "fix_lines": self.fix_lines,
            "verified": self.verified, "details": _jsonable(self.details),
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
    _repair: Any = field(default=None, repr=False, compare=False)

    @property
    def repair(self):
        """The findings' fixes together, reconciled, with the evaluator's verdict on the repaired
        build (a `repair.Repair`; computed on first use)."""
        if self._repair is None:
            from scicraft_viz.diagnose.repair import combine

            self._repair = combine(self)
        return self._repair

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
            lines.append(f"    fix: {f.fix}" + (" (verified by simulation)" if f.verified else
                                                 f" (not verified: {f.details['unverified']})"
                                                 if f.details.get("unverified") else ""))
        if any(f.fix_blocks for f in self.findings):
            lines.append(f"combined repair: {self.repair.text}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"lamps": len(self.lamps), "lit": len(self.lit), "dark": [list(p) for p in self.dark],
                "pressed": list(self.pressed) if self.pressed else None,
                "findings": [f.to_dict() for f in self.findings], "failed_checks": list(self.failed_checks),
                "repair": self.repair.to_dict() if any(f.fix_blocks for f in self.findings) else None,
                "timing": {fmt(p): _jsonable(t) for p, t in self.timing.items()}}
