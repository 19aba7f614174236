"""How much a memorised vanilla solution is worth under each rule variant (engine/rules.py).

Run: python benchmarks/bench_rule_variants.py [--random N]
Evaluates the 25 reference solutions (tasks/solutions/*.mcfunction, built for vanilla) under every
listed variant and under N random rulesets (random:0 .. random:N-1), and prints the pass rate per
ruleset and family, then for each listed variant the tasks it breaks with the evaluator's first reason
and the failure modes the diagnosis finds (scicraft_viz.diagnose, run under the variant). Then the
generator's solutions built for each ruleset (scicraft_viz.tasks.solutions, what scicraft/oracle plays):
per family, how many pass of those the builders have a design for, and how many pairs have none.
Prints figures only; nothing here is asserted by the test suite (tests/test_rules_variants.py pins the
behaviour each parameter changes).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scicraft_viz import tasks
from scicraft_viz.diagnose import diagnose
from scicraft_viz.engine.rules import VARIANTS, random_ruleset
from scicraft_viz.tasks.evaluator import evaluate

SOL = Path(__file__).resolve().parents[1] / "tasks" / "solutions"
FAMILIES = "ABCDE"


def run(rulesets) -> list[tuple[str, dict[str, list[bool]], dict[str, str]]]:
    out = []
    sols = sorted(SOL.glob("*.mcfunction"))
    for rs in rulesets:
        per: dict[str, list[bool]] = {f: [] for f in FAMILIES}
        why: dict[str, str] = {}
        for path in sols:
            task = tasks.load(path.stem).with_rules(rs)
            res = evaluate(task, path.read_text(), source=path.name)
            per[task.family].append(res.passed)
            if not res.passed:
                why[task.id] = next((f"{c.name}: {c.reason}" for c in res.failures), "failed")
                if not rs.name.startswith("random:"):
                    modes = diagnose(evaluate_world(task, path), task).modes()
                    why[task.id] = f"[{', '.join(modes) or 'no finding'}] " + why[task.id]
        out.append((rs.name, per, why))
    return out


def run_builders(rulesets) -> list[tuple[str, dict[str, list[bool]], dict[str, int]]]:
    from scicraft_viz.tasks.solutions import reference_problem, solution_blocks

    out = []
    for rs in rulesets:
        per: dict[str, list[bool]] = {f: [] for f in FAMILIES}
        none: dict[str, int] = dict.fromkeys(FAMILIES, 0)
        for task in tasks.load_all():
            v = task.with_rules(rs)
            if reference_problem(v) is not None:
                none[v.family] += 1
                continue
            per[v.family].append(evaluate(v, solution_blocks(v)).passed)
        out.append((rs.name, per, none))
    return out


def evaluate_world(task, path):
    from scicraft_viz.tasks.evaluator import build_world

    return build_world(task, path.read_text(), source=path.name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", type=int, default=5, help="random rulesets random:0 .. random:N-1 to add")
    args = ap.parse_args()
    rulesets = list(VARIANTS.values()) + [random_ruleset(i) for i in range(args.random)]
    rows = run(rulesets)
    print(f"{'ruleset':<17}{'changes':<44}" + "".join(f"{f:>6}" for f in FAMILIES) + f"{'all':>8}")
    for rs, (name, per, _) in zip(rulesets, rows):
        ch = ", ".join(f"{k}={v}" for k, v in rs.changes().items()) or "-"
        total = sum(sum(v) for v in per.values())
        n = sum(len(v) for v in per.values())
        print(f"{name:<17}{ch[:43]:<44}" + "".join(f"{sum(v)}/{len(v)}".rjust(6) for v in per.values())
              + f"{total}/{n}".rjust(8))
    print()
    for name, _, why in rows[: len(VARIANTS)]:
        for tid, reason in why.items():
            print(f"{name:<17}{tid:<31}{reason[:140]}")
    print("\nThe generator's solutions for each ruleset: passed/designed per family (no design)")
    print(f"{'ruleset':<17}" + "".join(f"{f:>10}" for f in FAMILIES) + f"{'all':>12}")
    for name, per, none in run_builders(rulesets):
        cells = [f"{sum(v)}/{len(v)}" + (f" ({none[f]})" if none[f] else "") for f, v in per.items()]
        total = f"{sum(sum(v) for v in per.values())}/{sum(len(v) for v in per.values())}"
        print(f"{name:<17}" + "".join(c.rjust(10) for c in cells) + (total + f" ({sum(none.values())})").rjust(12))


if __name__ == "__main__":
    main()
