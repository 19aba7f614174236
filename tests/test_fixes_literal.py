"""Fixes are literal, whole and compatible.

* Literal: every verified fix of a fixed sample of the mutation benchmark, applied exactly as written
  (its lines appended to the mutant's build file, and its set-block calls made on the mutant as the
  environment places it), makes the build pass.
* Whole: on the gallery devices and the example trajectories, no verified fix puts a lamp that met its
  window out of it, and the finding's own lamps meet theirs.
* Compatible: the combined repair's verdict is the evaluator's on the repaired build, and where the
  fixes work together (every gallery device whose failure has a block-level repair) it passes.

Lamp windows are computed here from the evaluator's own measurements, independently of the diagnosis."""

import importlib.util
import random
from pathlib import Path

import pytest

from scicraft_viz import gallery, tasks
from scicraft_viz.diagnose import diagnose
from scicraft_viz.engine.mcfunction import parse_mcfunction, to_mcfunction
from scicraft_viz.env.replay import replay_file
from scicraft_viz.tasks import evaluator
from scicraft_viz.tasks.worlds import task_world

ROOT = Path(__file__).resolve().parent.parent
TICKS_PER_ACTION = 20  # the environment's default pause after a set-block


def _bench():
    spec = importlib.util.spec_from_file_location("bench_diagnose", ROOT / "benchmarks/bench_diagnose.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def meeting(task, result) -> set:
    """Lamps that meet their window in an evaluator Result, from its measured on/off times."""
    lamps = {tuple(x["pos"]): (x["on"], x["off"]) for x in result.measured.get("lamps", [])}
    before = {tuple(p) for p in result.check("dark_before_press").details.get("lit_before_press", [])} \
        if any(c.name == "dark_before_press" for c in result.checks) else set()
    con = task.contract
    tol = con.get("tolerance_ticks", 1)
    ons = {p: v[0] for p, v in lamps.items() if v[0] is not None and p not in before}
    kind = task.contract_type
    if kind in ("simultaneity", "branch_reach", "equal_delay"):
        if not ons:
            return set()
        counts = {t0: sum(t0 <= t <= t0 + tol for t in ons.values()) for t0 in sorted(set(ons.values()))}
        t0 = max(counts, key=lambda t: (counts[t], -t))
        return {p for p, t in ons.items() if t0 <= t <= t0 + tol}
    if kind == "sequential":
        order = sorted(ons, key=lambda p: (ons[p], p))
        out = set(order[:1])
        for i in range(1, len(order)):
            d = con["delays_ticks"]
            if i - 1 < len(d) and abs(ons[order[i]] - ons[order[i - 1]] - d[i - 1]) <= tol:
                out.add(order[i])
        return out
    relit = {tuple(p) for p, _ in result.check("single_pulse").details.get("relit", [])}
    lo, hi = con["tau_ticks"] - tol, con["tau_ticks"] + tol
    return {p for p, t in ons.items() if 0 <= t <= con["on_window_ticks"] and lamps[p][1] is not None
            and lo <= lamps[p][1] <= hi and p not in relit}


def env_apply(task, build, calls):
    """The build placed as set-block places it, then the calls made one by one as the environment makes them."""
    w = task_world(task, build)
    for call in calls:
        w.set_block(tuple(call["pos"]), call["block"])
        w.step(TICKS_PER_ACTION)
    return w


def check_whole(task, before_result, after_result, f) -> None:
    """The finding's lamps meet their windows after its fix; no lamp that met its window before stops."""
    moved = {tuple(a): tuple(b) for a, b in f.details.get("moved", [])}
    before, after = meeting(task, before_result), meeting(task, after_result)
    lost = sorted(p for p in before if moved.get(p, p) not in after)
    assert not lost, f"{f.mode} fix {f.fix_lines} puts {lost} out of their windows"
    missing = sorted(moved.get(p, p) for p in f.lamps if moved.get(p, p) not in after)
    assert not missing, f"{f.mode} fix {f.fix_lines} leaves {missing} outside their windows"


# ---------------------------------------------------------------------------------------- the mutation benchmark
def _sample():
    """One mutant per fault kind and reference solution, drawn with a fixed seed: the same sample every run."""
    bench = _bench()
    rng = random.Random(20240611)
    out = []
    for path in sorted((ROOT / "tasks/solutions").glob("*.mcfunction")):
        task = tasks.load(path.stem)
        blocks = {tuple(p): s for p, s in parse_mcfunction(path.read_text())}
        for kind in bench.KINDS:
            ms = bench.mutants(blocks, task).get(kind, [])
            if ms:
                build, touched = rng.choice(ms)
                out.append((path.stem, kind, build))
    return out


SAMPLE = _sample()


@pytest.mark.parametrize("tid", sorted({t for t, _, _ in SAMPLE}))
def test_mutant_fixes_applied_as_written_pass(tid):
    task = tasks.load(tid)
    failing = 0
    for _, kind, build in (s for s in SAMPLE if s[0] == tid):
        text = to_mcfunction(build)
        try:
            before = evaluator.evaluate(task, text)
        except evaluator.BuildError:
            continue
        if before.passed:
            continue
        failing += 1
        d = diagnose(build, task)
        assert d.findings and any(f.verified for f in d.findings), (kind, d.report())
        for f in d.findings:
            assert f.fix_blocks and f.verified, (kind, f)
            # the prose quotes every state it places
            assert all(s in f.fix for s in f.fix_blocks.values()), f.fix
            by_file = evaluator.evaluate(task, text + "".join(line + "\n" for line in f.fix_lines))
            by_env = evaluator.evaluate(task, env_apply(task, build, f.fix_calls))
            for after in (by_file, by_env):
                check_whole(task, before, after, f)
                if len(d.findings) == 1:
                    assert after.passed, (kind, f.fix, after.report())
        repair = d.repair
        with_repair = evaluator.evaluate(task, text + "".join(line + "\n" for line in repair.lines))
        assert repair.passed == with_repair.passed
        assert repair.passed, (kind, repair.text)
    assert failing, f"no failing mutant of {tid} in the sample"


# ---------------------------------------------------------------------------------------- the gallery
def _gallery_cases():
    cases = [(f"gallery:{d.key}", d.task(), d.blocks()) for d in gallery.devices() if d.mode]
    for path in sorted((ROOT / "trajectories").glob("*.jsonl")):
        r = replay_file(path)
        for tv in r.trials:
            if not tv.passed:
                cases.append((f"{path.name} trial {tv.number}", r.task, tv.build))
    return cases


CASES = _gallery_cases()


@pytest.mark.parametrize("name, task, build", CASES, ids=[c[0] for c in CASES])
def test_gallery_verified_fixes_darken_nothing_and_the_repair_verdict_is_the_evaluators(name, task, build):
    d = diagnose(build, task)
    before = evaluator.evaluate(task, task_world(task, build))
    assert not before.passed and d.findings
    for f in d.findings:
        if f.verified:
            check_whole(task, before, evaluator.evaluate(task, env_apply(task, build, f.fix_calls)), f)
    repair = d.repair
    repaired = env_apply(task, build, repair.calls)
    assert evaluator.evaluate(task, repaired).passed == repair.passed
    assert not repair.lost
    if repair.passed:
        assert diagnose(repaired, task).findings == []  # nothing left to find, no ring on the added wires


def test_parallel_lines_fixes_work_one_by_one_and_together():
    r = replay_file(ROOT / "trajectories/parallel_lines.jsonl")
    d = diagnose(r.final_world(), r.task)
    assert len(d.lit) == 14 and all(f.verified for f in d.findings)
    repair = d.repair
    assert (repair.passed, repair.met_before, repair.met_after, repair.left_out) == (True, 14, 32, {})
    assert sorted(repair.included) == list(range(len(d.findings)))


def test_the_ring_gets_a_block_level_fix():
    dev = gallery.device("the_ring")
    (f,) = diagnose(dev.world(), dev.task()).findings
    assert f.mode == "the_ring" and f.verified and len(f.fix_blocks) == 28
    ring = set(f.positions)
    # every ring wire becomes a stone with the wire on top of it
    assert {p for p, s in f.fix_blocks.items() if s == "minecraft:stone"} == ring
    assert {(x, y - 1, z) for (x, y, z), s in f.fix_blocks.items() if s.startswith("minecraft:redstone_wire[")} == ring
    assert evaluator.evaluate(dev.task(), env_apply(dev.task(), dev.blocks(), f.fix_calls)).passed
