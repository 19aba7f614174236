"""Diagnosing a build: press it once as the evaluator does, explain every dark lamp (the walk, then
simulation decides), then every lamp that lights outside its window (the timing rules), and say
plainly when no rule explains a failure.

    >>> from scicraft_viz import diagnose, gallery
    >>> dev = gallery.device("backwards_repeaters")
    >>> d = diagnose.diagnose(dev.world(), dev.task())
    >>> d.modes()
    ['backwards_repeaters']
    >>> print(d.findings[0].explanation)      # doctest: +ELLIPSIS
    repeater at (-4, 4, 0) faces toward the button: its input is on the lamp side ...
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose import timing as T
from scicraft_viz.diagnose.dark_lamps import Walk
from scicraft_viz.diagnose.findings import Diagnosis, Finding, fix_text
from scicraft_viz.diagnose.graph import Circuit, Pos, dist, fmt, fmt_list, simulate
from scicraft_viz.diagnose.rules import REGISTRY, RULES
from scicraft_viz.tasks import evaluator

# modes whose verdict rests on connectivity: when their own fix does not light their lamps, a
# repair found by simulation (a wire, a repeater turned round, a lamp moved) decides instead
RECONSIDER = ("islands", "tiny_core", "missing_rails", "unexplained", "long_snake", "broken_bridge",
              "backwards_repeaters", "axes_only")


@dataclass
class Context:
    """What the rules see: the pressed circuit, the dark-lamp findings so far, and per lamp its
    measured ticks, window and delay budget (game ticks after the press)."""

    c: Circuit
    task: object
    findings: list[Finding]
    lamps: dict[Pos, dict] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    unit: int = 2
    cause: dict = field(default_factory=dict)

    def rt(self, gt: float | None) -> str:
        """Game ticks in the task's unit, as text ('3 rt')."""
        if gt is None:
            return "never"
        return f"{T._num(gt / self.unit)} {self.task.unit}"

    def on(self, p: Pos) -> int | None:
        return self.lamps[p]["on_gt"]

    def path(self, p: Pos) -> list[dict]:
        return self.lamps[p]["path_gt"]


def _windows(ctx: Context) -> None:
    """Each lamp's window in game ticks after the press (None where the contract is relative and
    unmeasurable), from the family's contract."""
    task = ctx.task
    con = task.contract
    tol = task.to_game(con.get("tolerance_ticks", 1))
    ons = {p: v["on_gt"] for p, v in ctx.lamps.items() if v["on_gt"] is not None}
    kind = task.contract_type
    for v in ctx.lamps.values():
        v["window_gt"] = v["off_window_gt"] = None
    if not ons:
        return
    if kind in ("simultaneity", "branch_reach", "equal_delay"):
        t0 = min(ons.values())
        for p in ons:
            ctx.lamps[p]["window_gt"] = [t0, t0 + tol]
    elif kind == "sequential":
        delays = [task.to_game(d) for d in con["delays_ticks"]]
        order = sorted(ons, key=lambda p: (ons[p], p))
        t = ons[order[0]]
        for i, p in enumerate(order):
            if i:
                t += delays[i - 1] if i - 1 < len(delays) else 0
            ctx.lamps[p]["window_gt"] = [t - tol, t + tol] if i else [t, t]
            ctx.lamps[p]["stage"] = i + 1
    elif kind == "pulse":
        tau, win = task.to_game(con["tau_ticks"]), task.to_game(con["on_window_ticks"])
        for p in ctx.lamps:
            ctx.lamps[p]["window_gt"] = [0, win]
            ctx.lamps[p]["off_window_gt"] = [tau - tol, tau + tol]


def _lamp_timing(ctx: Context) -> None:
    c = ctx.c
    ticks = T.change_ticks(c)
    offs = T.lamp_off_ticks(c)
    cause = ctx.cause = T.causes(c, ticks)
    for p in c.lamps:
        path = T.signal_path(c, p, ticks, cause)
        ctx.lamps[p] = {"on_gt": ticks.get(p) if c.lit.get(p) else None, "off_gt": offs.get(p), "path_gt": path}
    _windows(ctx)


def _public_timing(ctx: Context) -> dict[Pos, dict]:
    """Per lamp, in the task's unit: on, off, window(s), the path with each step's delay, the budget."""
    u = ctx.unit
    out = {}
    for p, v in ctx.lamps.items():
        def conv(x):
            return None if x is None else T._num(x / u)
        out[p] = {
            "on": conv(v["on_gt"]), "off": conv(v["off_gt"]),
            "window": None if v["window_gt"] is None else [conv(x) for x in v["window_gt"]],
            "off_window": None if v.get("off_window_gt") is None else [conv(x) for x in v["off_window_gt"]],
            "path": [{"pos": list(s["pos"]), "block": s["block"], "at": conv(s["at"]), "delay": conv(s["delay"]),
                      **({"setting": s["setting"]} if "setting" in s else {})} for s in v["path_gt"]],
            "budget": [[k, T._num(x)] for k, x in T.budget(v["path_gt"], u, v["off_gt"], v["on_gt"],
                                                            ctx.c.rules.lamp_off_delay)],
            "unit": ctx.task.unit,
        }
    return out


def _moved(f: Finding) -> dict:
    return {tuple(a): tuple(b) for a, b in f.details.get("moved", [])}


def _decide(c: Circuit, f: Finding, dark: list[Pos]) -> Finding:
    """Check a dark-lamp finding's fix by simulation on the whole build (`fixes.judge`). A fix
    after which its lamps meet their windows, no lamp that did stops doing so, and the contract
    passes stands. Otherwise a simulated repair (a repeater turned round, one missing wire, the lamp
    moved back onto its wiring, a repeater's delay) decides: one that passes replaces the finding
    when its mode rests on connectivity (one verified for its lamps, when the finding's own fix is
    not); for the other modes the repair becomes the finding's fix."""
    own = fixes.trial(c, f.fix_blocks) if f.fix_blocks else None
    if own is not None and fixes.judge(c, own, f.lamps, _moved(f)) is None:
        f.verified = True
        # when other dark lamps stay dark, the build fails whatever this fix does: its own lamps are enough
        if own.strict or (own.passed and not fixes.broken_before(c)) or not own.lit(dark):
            return f
    if not f.lamps:
        return f
    wires = fixes.missing_wires(c)
    # a lit lamp beside the break may be the one out of place (a relay stage moved off its chain)
    near = [lp for lp in c.lamps if lp not in f.lamps and any(dist(lp, p) <= 2 for p in f.positions)]
    # blocks that lost their support first, then the fewest changes: a repeater turned round or one
    # wire, then a lamp moved or a wire on a new stone
    cands = (fixes.restored(c) + fixes.supports(c) + fixes.turned_repeaters(c)
             + [w for w in wires if len(w.changes) == 1] + fixes.moved_lamps(c, f.lamps + near)
             + [w for w in wires if len(w.changes) > 1])
    cand = fixes.best(c, cands, f.lamps)
    if (cand is None or not cand.outcome.passed) and c.task.contract_type == "pulse":
        # a shaped pulse too short to light the lamps at all: the shaper's delay decides
        timed = fixes.retime(c, [])
        if timed is not None:
            cand = timed
            cand.mode = cand.mode or "pulse_width"
    if cand is None or not cand.works(c, f.lamps):
        return f
    better = cand.outcome.strict or (cand.outcome.passed and not (own is not None and own.passed))
    if f.mode in RECONSIDER and (better or not f.verified):
        return REGISTRY[cand.mode].repair(c, cand, f.lamps)
    if better or not f.verified:
        # the mode stands (it names what is wrong with the wiring); the simulated repair is its fix
        f.fix, f.fix_blocks, f.verified = cand.fix, dict(cand.changes), True
        f.details.pop("moved", None)
        if cand.moved:
            f.details["moved"] = [[list(a), list(b)] for a, b in cand.moved.items()]
    return f


def _absorb(c: Circuit, findings: list[Finding]) -> list[Finding]:
    """A verified fix that also brings the lamps of other findings into their windows explains
    them: one cause, one finding (a lamp moved off its stage leaves the next stages dark too)."""
    def lit_by(f: Finding) -> set:
        out = fixes.trial(c, f.fix_blocks) if f.verified and f.fix_blocks else None
        if out is None:
            return set()
        back = {v: k for k, v in _moved(f).items()}
        return {back.get(p, p) for p in out.ok}

    cover = {id(f): lit_by(f) for f in findings}
    left = list(findings)
    out = []
    while left:
        f = max(left, key=lambda g: (sum(h.mode in RECONSIDER and set(h.lamps) <= cover[id(g)] for h in left),
                                     g.verified))
        gone = [g for g in left if g is not f and g.mode in RECONSIDER and g.lamps and set(g.lamps) <= cover[id(f)]]
        extra = sorted(set().union(*[g.lamps for g in gone]) - set(f.lamps))
        if extra:
            f.explanation += (f" {len(extra)} more lamp(s) after it stay dark for the same reason "
                              f"({fmt_list(extra, 3)}); the same fix lights them.")
        f.lamps = sorted(set(f.lamps) | set(extra))
        out.append(f)
        left = [g for g in left if g is not f and g not in gone]
    out.sort(key=lambda f: findings.index(f))
    return out


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per repair: simulated repairs that name the same change are the same failure."""
    out: list[Finding] = []
    for f in findings:
        same = next((g for g in out if g.mode == f.mode and g.verified and f.verified and g.fix_blocks
                     and g.fix_blocks == f.fix_blocks), None)
        if same is None:
            out.append(f)
        else:
            extra = sorted(set(f.lamps) - set(same.lamps))
            if extra:
                same.explanation += (f" The lamp(s) at {fmt_list(extra, 3)} stay dark the same way, and the same fix "
                                     "serves them.")
            same.lamps = sorted(set(same.lamps) | set(f.lamps))
    return out


def _literal(c: Circuit, f: Finding) -> Finding:
    """Make a finding's fix literal and check exactly that: every state named in full as it stands
    once placed through set-block (a wire with its four sides), the operations in the order they are
    applied, the prose quoting the same states, and `verified` decided by simulating those states on
    the whole build (`fixes.judge`)."""
    f.details.pop("unverified", None)
    f.fix_ops = []
    if not f.fix_blocks:
        f.verified = False
        return f
    moved = _moved(f)
    out = fixes.trial(c, f.fix_blocks)
    if out is not None:
        lit = dict(out.placed)
        if list(lit.items()) != list(f.fix_blocks.items()):
            again = fixes.trial(c, lit)
            # the literal states are what gets checked; they give the same shape when placed again
            out = again if again is not None else out
        f.fix_blocks = lit
    else:
        f.fix_blocks = dict(fixes.ordered(f.fix_blocks))
    why = fixes.judge(c, out, f.lamps, moved)
    if why is None and f.mode == "broken_constraint" and not out.strict:
        why = "the build still breaks a constraint: " + "; ".join(out.reasons[:2])
    f.verified = why is None
    if why is not None:
        f.details["unverified"] = why
    f.fix_ops = fixes.operations(c.world, f.fix_blocks)
    f.fix = fix_text(f.fix, f.fix_ops)
    return f


def diagnose(world, task=None) -> Diagnosis:
    """Press the build's button once and explain every lamp that stays dark or lights outside its
    window: the guilty blocks, a plain explanation and a fix checked by simulation.

    `world` is a World (left untouched: the analysis runs on copies) or a {pos: state} block map
    placed on the task's initial world; `task` gives the contract, the settle/record ticks and the floor."""
    c = simulate(world, task)
    task = c.task
    lit = [p for p in c.lamps if c.lit.get(p, False)]
    dark = [p for p in c.lamps if not c.lit.get(p, False)]
    if not c.buttons:
        # without a button the build cannot be tested at all, whatever its lamps do
        back = fixes.best(c, [x for x in fixes.restored(c) if "stone_button" in str(x.changes)], dark or c.lamps)
        if back is not None and back.lights(dark):
            found = [REGISTRY["popped_off"].repair(c, back, dark)]
        else:
            found = [Finding("no_button", [], dark, "there is no stone button, so nothing can be pressed.",
                             REGISTRY["no_button"].fix)]
        found = [_literal(c, f) for f in found]
        return Diagnosis(found if c.lamps else [], c.lamps, lit, dark, None, c)
    walk = Walk(c)
    for lp in dark:
        walk.lamp(lp)
    found = _absorb(c, _merge([_decide(c, f, dark) for f in walk.findings()]))
    ctx = Context(c, task, found, unit=task.game_ticks_per_unit)
    checks, _ = evaluator.contract_checks(task, list(c.trace.lamp_positions), c.trace.lamp_lit)
    ctx.failed = [ch.reason for ch in checks if not ch.passed and ch.reason]
    before = [p for p in c.lamps if c.props[p].get("lit") == "true"]
    if before:
        ctx.failed.insert(0, f"lamp(s) at {fmt_list(before)} are already lit before the press")
    _lamp_timing(ctx)
    if not dark and ctx.failed:
        for rule in RULES:
            if rule.detect is not None and rule.id != "broken_constraint":
                found += rule.detect(ctx)
    if fixes.broken_before(c) and not any(f.verified and getattr(fixes.trial(c, f.fix_blocks), "strict", False)
                                          for f in found if f.fix_blocks):
        # constraints are checked on every build, whatever the lamps did
        found += REGISTRY["broken_constraint"].detect(ctx)
    if not found and (ctx.failed or dark):
        found.append(_unexplained(ctx))
    found = _merge([_literal(c, f) for f in found])
    reached = {p: parent for p, (_, parent) in ctx.cause.items()}
    return Diagnosis(found, c.lamps, lit, dark, c.pressed, c, _public_timing(ctx), ctx.failed, reached)


def _unexplained(ctx: Context) -> Finding:
    """No rule explains the failure: say so and show what was measured."""
    facts = "; ".join(f"lamp {fmt(p)} on at +{ctx.rt(v['on_gt'])}, off at "
                      f"{'+' + ctx.rt(v['off_gt']) if v['off_gt'] is not None else 'never'}"
                      for p, v in sorted(ctx.lamps.items())[:6])
    lamps = sorted(ctx.lamps)
    return Finding("unexplained", [], lamps,
                   "no failure mode explains this: " + "; ".join(ctx.failed) + f". Measured: {facts}"
                   + (f" (and {len(lamps) - 6} more lamps)" if len(lamps) > 6 else "") + ".",
                   REGISTRY["unexplained"].fix, {}, {"failed": list(ctx.failed)})



