"""One repair for the whole build: the findings' fixes applied together, reconciled, with a verdict
of its own.

Fixes found one finding at a time can get in each other's way: two may want different blocks in
the same cell, or wires added for one lamp may connect to wires added for another and bend them.
The combined repair takes the verified fixes first (then the others), in the diagnosis's order,
and keeps each one only if, together with those already kept, it puts no lamp that met its window
out of it and brings at least one more lamp into its window. What it keeps is named as literal
states (placed through set-block, as the environment does) and judged by the evaluator itself on
the repaired build.

    >>> from scicraft_viz import diagnose, gallery
    >>> dev = gallery.device("parallel_lines")
    >>> r = diagnose.diagnose(dev.world(), dev.task()).repair
    >>> r.passed, r.met_before, r.met_after, r.lamps
    (True, 14, 32, 32)
    >>> r.lines[0]
    'setblock -5 4 -3 minecraft:stone'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose.findings import fix_text, ops_text, setblock_line
from scicraft_viz.diagnose.graph import Pos, fmt_list, split_state


@dataclass
class Repair:
    """The findings' fixes together. `blocks`: the literal operations in the order to apply them;
    `included` / `left_out`: indices into the diagnosis's findings (left out: why); `passed`: the
    evaluator's verdict on the build with the repair applied (`result` holds the full Result);
    `met_before` / `met_after`: lamps that meet their windows before and after; `missing`: lamps
    that still miss theirs; `lost`: lamps that met their window before and no longer do."""

    blocks: dict[Pos, str]
    ops: list
    included: list[int]
    left_out: dict[int, str]
    passed: bool
    lamps: int
    met_before: int
    met_after: int
    missing: list[Pos] = field(default_factory=list)
    lost: list[Pos] = field(default_factory=list)
    result: Any = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        """The repair as build-file lines, in the order to apply them."""
        return [setblock_line(p, s) for p, s in self.ops]

    @property
    def calls(self) -> list[dict]:
        """The repair as the environment's set-block calls."""
        return [{"pos": list(p), "block": s} for p, s in self.ops]

    @property
    def text(self) -> str:
        if not self.blocks:
            return "no block-level repair: " + ("the build already passes" if self.passed else
                                                "no finding names blocks to change")
        verdict = ("the build then passes" if self.passed else
                   f"the build still fails ({self.met_after}/{self.lamps} lamps meet their windows"
                   + (f"; still out: {fmt_list(self.missing, 4)}" if self.missing else "")
                   + (f"; no longer meeting theirs: {fmt_list(self.lost, 4)}" if self.lost else "") + ")")
        return fix_text(f"{len(self.blocks)} block(s) from {len(self.included)} finding(s)", self.ops) \
            + f"; {verdict}"

    def to_dict(self) -> dict:
        return {"blocks": [[list(p), s] for p, s in self.blocks.items()], "lines": self.lines, "text": self.text,
                "included": list(self.included), "left_out": {str(k): v for k, v in self.left_out.items()},
                "passed": self.passed, "lamps": self.lamps, "met_before": self.met_before,
                "met_after": self.met_after, "missing": [list(p) for p in self.missing],
                "lost": [list(p) for p in self.lost]}


def _same(a: str, b: str) -> bool:
    """Two fixes ask for the same block: the same state, or two wires that are not dots (their
    sides are decided by their neighbours once placed)."""
    if a == b:
        return True
    (na, pa), (nb, pb) = split_state(a), split_state(b)
    return na == nb == "redstone_wire" and all(any(p.get(k, "none") != "none" for k in fixes.SIDES4)
                                               for p in (pa, pb))


def combine(d) -> Repair:
    """The combined repair of a Diagnosis `d` (see the module's docstring)."""
    from scicraft_viz.tasks import evaluator

    c = d.circuit
    findings = d.findings
    before = fixes.met_before(c) if c is not None else frozenset()
    if c is None or c.world is None:
        return Repair({}, [], [], {}, False, len(d.lamps), len(before), len(before))
    order = [i for i, f in enumerate(findings) if f.fix_blocks and f.verified]
    order += [i for i, f in enumerate(findings) if f.fix_blocks and not f.verified]
    chosen: dict[Pos, str] = {}
    moved: dict[Pos, Pos] = {}
    included: list[int] = []
    left: dict[int, str] = {}
    met = set(before)
    unmet = len(fixes.broken_before(c))

    def ok_with(blocks, mv):
        out = fixes.trial(c, blocks)
        return out, (None if out is None else {_back(mv, p) for p in out.ok})

    # every verified fix at once first: when they agree, that is the repair
    verified = [i for i in order if findings[i].verified]
    union: dict[Pos, str] = {}
    clash = False
    for i in verified:
        for p, s in findings[i].fix_blocks.items():
            if p in union and not _same(union[p], s):
                clash = True
            union.setdefault(p, s)
    if verified and not clash:
        mv = {k: v for i in verified for k, v in _moved_of(findings[i]).items()}
        out, got = ok_with(union, mv)
        want = set().union(*[findings[i].lamps for i in verified])
        if out is not None and before <= got and want <= got and not out.broke:
            chosen, moved, included, met, unmet = dict(union), mv, list(verified), got, out.unmet
    todo = [i for i in order if i not in included]
    for i in todo:
        f = findings[i]
        other = next((p for p, s in f.fix_blocks.items() if p in chosen and not _same(chosen[p], s)), None)
        if other is not None:
            left[i] = f"it wants {f.fix_blocks[other]} at {other}, where the repair already places {chosen[other]}"
            continue
        blocks = {**chosen, **{p: s for p, s in f.fix_blocks.items() if p not in chosen}}
        mv = {**moved, **_moved_of(f)}
        out, got = ok_with(blocks, mv)
        if out is None:
            left[i] = "it cannot be placed together with the others"
            continue
        lost = sorted(met - got)
        if lost or out.broke:
            left[i] = ("together with the others it puts " + fmt_list(lost, 3) + " out of their windows") if lost \
                else "together with the others it breaks a constraint: " + "; ".join(out.broke)
            continue
        if not got - met and out.unmet >= unmet:
            left[i] = "together with the others it brings no further lamp into its window and meets no further " \
                      "constraint"
            continue
        chosen, moved, met, unmet = blocks, mv, got, out.unmet
        included.append(i)
    # the literal states of the whole repair, as they stand once placed together
    out = fixes.trial(c, chosen) if chosen else None
    blocks = dict(out.placed) if out is not None else {}
    w = c.world.copy()
    fixes.place(w, blocks)
    result = evaluator.evaluate(c.task, w, source="diagnosis repair")
    final = fixes.trial(c, blocks) if blocks else None
    after = {_back(moved, p) for p in final.ok} if final is not None else set(before)
    lamps_now = [moved.get(p, p) for p in d.lamps]
    missing = sorted(p for p in lamps_now if p not in (final.ok if final is not None else before))
    included.sort()
    return Repair(blocks, fixes.operations(c.world, blocks), included, left, bool(result.passed), len(d.lamps),
                  len(before), len(after), missing, sorted(before - after), result)


def _moved_of(f) -> dict:
    return {tuple(a): tuple(b) for a, b in f.details.get("moved", [])}


def _back(moved: dict, p: Pos) -> Pos:
    for a, b in moved.items():
        if b == p:
            return a
    return p


__all__ = ["Repair", "combine", "ops_text"]
