"""Shared reading of a family-E pulse for the three pulse rules (pulse_start, pulse_width, no_shaper)."""

from __future__ import annotations

from scicraft_viz.diagnose import fixes
from scicraft_viz.diagnose import timing as T
from scicraft_viz.diagnose.findings import Finding
from scicraft_viz.diagnose.graph import fmt, fmt_list

TORCHES = ("redstone_torch", "redstone_wall_torch")


def classify(ctx) -> dict[str, list]:
    """Lamps by what is wrong with their pulse: start (lit outside the on-window), no_shaper (held by
    the button's own press: no torch on their path and dark only after the press ends), width."""
    out: dict[str, list] = {"pulse_start": [], "no_shaper": [], "pulse_width": []}
    if ctx.task.contract_type != "pulse":
        return out
    relit = _relit(ctx)
    for p, v in sorted(ctx.lamps.items()):
        on, off = v["on_gt"], v["off_gt"]
        if on is None or not v["path_gt"]:  # dark, or lit by something other than the press
            continue
        lo, hi = v["window_gt"]
        olo, ohi = v["off_window_gt"]
        if not lo <= on <= hi:
            out["pulse_start"].append(p)
        if off is None or not olo <= off <= ohi or p in relit:
            shaped = any(s["block"] in TORCHES for s in v["path_gt"])
            if not shaped and (off is None or off >= ctx.c.rules.button_ticks):
                out["no_shaper"].append(p)
            else:
                out["pulse_width"].append(p)
    return out


def _relit(ctx) -> set:
    tr = ctx.c.trace
    out = set()
    for j, p in enumerate(tr.lamp_positions):
        col = tr.lamp_lit[:, j]
        changes = int((col[1:] != col[:-1]).sum())
        if changes > 2 or (changes == 2 and col[0]):
            out.add(tuple(p))
    return out


def pulse_findings(ctx, mode: str) -> list[Finding]:
    lamps = classify(ctx)[mode]
    if not lamps:
        return []
    u, unit = ctx.unit, ctx.task.unit
    p = lamps[0]
    v = ctx.lamps[p]
    on, off = v["on_gt"], v["off_gt"]
    lo, hi = v["window_gt"]
    olo, ohi = v["off_window_gt"]
    path = v["path_gt"]
    shaper = [s for s in path if s["block"] in TORCHES or s["block"] == "redstone_repeater"]
    offtxt = f"+{ctx.rt(off)}" if off is not None else "never (still lit at the end)"
    many = len(lamps) > 1
    facts = (f"lamp {fmt(p)}" + (f" and {len(lamps) - 1} more ({fmt_list(lamps[1:], 2)})" if many else "")
             + f" light{'' if many else 's'} at +{ctx.rt(on)} and go{'' if many else 'es'} dark at {offtxt}, lit for "
             + (ctx.rt(off - on) if off is not None else "the rest of the recording")
             + f"; the contract wants on within [{T._num(lo / u)}, {T._num(hi / u)}] {unit} and dark within "
               f"[{T._num(olo / u)}, {T._num(ohi / u)}] {unit}")
    rules = ctx.c.rules
    budget = ", ".join(f"{k} {x} {unit}" for k, x in T.budget(path, u, off, on, rules.lamp_off_delay))
    if mode == "pulse_start":
        expl = (f"the pulse starts too late: {facts}. On the way: {T.describe_path(path, u, unit)}.")
        first = T.repeaters(path)
    elif mode == "no_shaper":
        expl = (f"nothing shapes the pulse: {facts}. No torch is on the lamp's path, so it stays lit for the "
                f"button's whole {T._num(rules.button_ticks / u)} {unit} press plus the lamp's "
                f"{T._num(rules.lamp_off_delay / u)} {unit} off-delay ({budget}).")
        first = T.repeaters(path)
    else:
        long = off is None or off > ohi
        expl = (f"the shaper holds the lamp too {'long' if long else 'short'}: {facts}"
                + (" (it lights again after its pulse)" if off is not None and olo <= off <= ohi else "")
                + f". Shaper on the path: {T.describe_path(shaper or path, u, unit)}; {budget}.")
        first = [q for q, k in sorted(ctx.c.kind.items()) if k == "redstone_repeater" and q not in T.repeaters(path)]
        first += T.repeaters(path)
    cand = fixes.retime(ctx.c, first)
    if cand is not None and cand.mode:
        return [fixes.structural(ctx.c, cand, lamps, expl)]
    positions = [s["pos"] for s in (shaper or path) if s["delay"] > 0] or [p]
    if mode == "pulse_width":  # the repeaters off the lamps' path time the shaper: name them all
        positions += [q for q in first if q not in positions and q not in T.repeaters(path)]
    if cand is None:
        fix = {"no_shaper": "cut the press short: a torch that the same signal turns off after a repeater delay "
                            "(a pulse limiter) between the button and the lamps",
               "pulse_start": "take delay out of the path to the lamps (fewer or shorter repeaters)",
               "pulse_width": "change the shaper's delay so the lamps go dark inside the off-window"}[mode]
        return [Finding(mode, positions, lamps, expl, fix + " (no single repeater change does it)", {},
                        {"on": on, "off": off})]
    out = cand.outcome
    noff = out.offs.get(p)
    fix = (f"{cand.fix} makes lamp {fmt(p)} light at +{ctx.rt(out.ons.get(p))} and go dark at "
           f"+{ctx.rt(noff)}, inside [{T._num(olo / u)}, {T._num(ohi / u)}] {unit}")
    r = cand.positions[0]
    return [Finding(mode, [r] + [q for q in positions if q != r], lamps, expl, fix, dict(cand.changes),
                    {"on": on, "off": off}, verified=True)]
