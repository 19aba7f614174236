"""Mutation benchmark for diagnosis: single faults in every reference solution.

Each reference build (tasks/solutions/*.mcfunction) gets single faults of seven kinds: a wire
removed, a repeater turned round, a repeater's delay changed, a lamp moved one block sideways or
lifted one block, a supporting block removed (under a wire, repeater or torch, or behind a wall
torch or button), a T-junction wire removed. Mutants that still pass are dropped; for every
failing mutant the benchmark checks whether the diagnosis names the mutated block (among a
finding's guilty blocks or fix, or its lamps for a lamp fault) and whether its combined repair,
applied literally (its `setblock` lines appended to the mutant's build file), makes the build pass
the evaluator again; it also counts the findings whose fix is verified and any mutant where the
repair's own verdict differs from the evaluator's. Prints one row per fault kind.

    python benchmarks/bench_diagnose.py --quick        # a few mutants per kind and build (about a minute)
    python benchmarks/bench_diagnose.py                # every mutant (thousands; minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scicraft_viz import tasks  # noqa: E402
from scicraft_viz.diagnose import diagnose  # noqa: E402
from scicraft_viz.engine.blocks import split_state  # noqa: E402
from scicraft_viz.engine.mcfunction import parse_mcfunction, to_mcfunction  # noqa: E402
from scicraft_viz.tasks import evaluator  # noqa: E402

KINDS = ["remove_wire", "flip_repeater", "change_delay", "move_lamp", "lift_lamp", "remove_support",
         "break_t_junction"]
OPP = {"north": "south", "south": "north", "east": "west", "west": "east"}
H = [(1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1)]


def add(p, d):
    return (p[0] + d[0], p[1] + d[1], p[2] + d[2])


def name(s: str | None) -> str:
    return "air" if s is None else split_state(s)[0]


def mutants(blocks: dict, task) -> dict[str, list[tuple[dict, set]]]:
    """Every single fault of every kind: (mutated build, the blocks the fault touched)."""
    out: dict[str, list] = defaultdict(list)
    for p, s in sorted(blocks.items()):
        k = name(s)
        if k == "redstone_wire":
            out["remove_wire"].append(({q: v for q, v in blocks.items() if q != p}, {p}))
        if k == "redstone_repeater":
            f = split_state(s)[1].get("facing", "north")
            out["flip_repeater"].append((blocks | {p: s.replace(f"facing={f}", f"facing={OPP[f]}")}, {p}))
            d = int(re.search(r"delay=(\d)", s).group(1))
            for nd in range(1, 5):
                if nd != d:
                    out["change_delay"].append((blocks | {p: s.replace(f"delay={d}", f"delay={nd}")}, {p}))
        if k == "redstone_lamp":
            for d in H:
                q = add(p, d)
                if q not in blocks and add(q, (0, 1, 0)) not in blocks and task.in_region(q):
                    moved = {x: v for x, v in blocks.items() if x != p} | {q: s}
                    out["move_lamp"].append((moved, {p, q}))
            up = add(p, (0, 1, 0))
            if up not in blocks and add(up, (0, 1, 0)) not in blocks and task.in_region(up):
                out["lift_lamp"].append(({x: v for x, v in blocks.items() if x != p} | {up: s}, {p, up}))
        if k in ("redstone_wire", "redstone_repeater", "redstone_torch", "stone_button", "redstone_wall_torch"):
            props = split_state(s)[1]
            if k == "redstone_wall_torch" or (k == "stone_button" and props.get("face") == "wall"):
                f = {"north": (0, 0, 1), "south": (0, 0, -1), "east": (-1, 0, 0), "west": (1, 0, 0)}[
                    props.get("facing", "north")]
                sup = add(p, f)
            elif k == "stone_button" and props.get("face") == "ceiling":
                sup = add(p, (0, 1, 0))
            else:
                sup = add(p, (0, -1, 0))
            if name(blocks.get(sup)) in ("stone", "glass"):
                out["remove_support"].append(({q: v for q, v in blocks.items() if q != sup}, {sup, p}))
    for p in evaluator.t_junctions(blocks):
        out["break_t_junction"].append(({q: v for q, v in blocks.items() if q != p}, {p}))
    return out


def judge(task, build: dict, touched: set, kind: str) -> tuple[bool, bool, list[str], int, int, bool] | None:
    """(named, restored, modes, verified findings, findings, verdict agrees) for a failing mutant;
    None when the mutant still passes. `restored`: the diagnosis's combined repair, its lines
    appended to the mutant's build file as written, passes the evaluator."""
    try:
        if evaluator.evaluate(task, build).passed:
            return None
    except evaluator.BuildError:
        return None
    d = diagnose(build, task)
    named_set = set()
    for f in d.findings:
        named_set |= set(f.positions) | set(f.fix_blocks)
        if kind in ("move_lamp", "lift_lamp"):
            named_set |= set(f.lamps)
    repair = d.repair
    text = to_mcfunction(build) + "".join(line + "\n" for line in repair.lines)
    restored = evaluator.evaluate(task, text).passed
    verified = sum(f.verified for f in d.findings)
    return bool(named_set & touched), restored, d.modes(), verified, len(d.findings), restored == repair.passed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small sample: 2 mutants per kind and build")
    ap.add_argument("--per-kind", type=int, default=None, help="at most this many mutants per kind and build")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tasks", default="", help="comma-separated task ids (default: all 25)")
    ap.add_argument("--misses", action="store_true", help="list the mutants that were not named or not restored")
    args = ap.parse_args(argv)
    per = 2 if args.quick else args.per_kind
    rng = random.Random(args.seed)
    ids = ([t for t in args.tasks.split(",") if t]
           or [p.stem for p in sorted((ROOT / "tasks/solutions").glob("*.mcfunction"))])
    stats = {k: {"tried": 0, "failing": 0, "named": 0, "restored": 0, "both": 0, "modes": defaultdict(int)}
             for k in KINDS}
    findings = verified = disagree = 0
    misses = []
    t0 = time.perf_counter()
    n_diag = 0
    for tid in ids:
        task = tasks.load(tid)
        text = (ROOT / "tasks/solutions" / f"{tid}.mcfunction").read_text()
        blocks = {tuple(p): s for p, s in parse_mcfunction(text)}
        for kind, ms in mutants(blocks, task).items():
            if per is not None and len(ms) > per:
                ms = rng.sample(ms, per)
            for build, touched in ms:
                st = stats[kind]
                st["tried"] += 1
                r = judge(task, build, touched, kind)
                if r is None:
                    continue
                n_diag += 1
                named, restored, modes, nv, nf, agrees = r
                verified += nv
                findings += nf
                disagree += not agrees
                st["failing"] += 1
                st["named"] += named
                st["restored"] += restored
                st["both"] += named and restored
                st["modes"][modes[0] if modes else "none"] += 1
                if not (named and restored):
                    misses.append((kind, tid, sorted(touched), modes, named, restored))
    dt = time.perf_counter() - t0
    print(f"{'fault kind':<18}{'mutants':>8}{'failing':>8}{'named':>8}{'restored':>10}{'both':>8}  main modes")
    print(f"{'':<18}{'':>8}{'':>8}{'':>8}{'(repair)':>10}")
    for k in KINDS:
        st = stats[k]
        n = st["failing"] or 1
        top = ", ".join(f"{m} {c}" for m, c in sorted(st["modes"].items(), key=lambda x: -x[1])[:3])
        print(f"{k:<18}{st['tried']:>8}{st['failing']:>8}{100 * st['named'] / n:>7.1f}%"
              f"{100 * st['restored'] / n:>9.1f}%{100 * st['both'] / n:>7.1f}%  {top}")
    tot = sum(s["failing"] for s in stats.values())
    print(f"{tot} failing mutants diagnosed in {dt:.0f} s ({dt / max(n_diag, 1):.2f} s per mutant incl. evaluation)")
    print(f"{verified} of {findings} findings carry a verified fix; the repair's own verdict differs from the "
          f"evaluator's on {disagree} mutant(s)")
    if args.misses:
        for m in misses:
            print("miss:", *m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
