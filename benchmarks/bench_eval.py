"""Evaluation throughput and cold starts, each printed next to its goal.

    python benchmarks/bench_eval.py            # everything (about a minute)
    python benchmarks/bench_eval.py --quick    # fewer repetitions

1. L5 evaluations per second in one process, per family, on the reference build: the evaluator as it is
   (initial world copied from a cached template, build placed in one bulk call) against the per-block
   path measured in the same run (the floor and the build placed with one set_block per block, the world
   then evaluated), next to the goal of 1,000/s; then the same over many different builds (each reference
   build and single-fault mutants of it, most of which fail).
2. Cold `scicraft-viz evaluate TASK BUILD`: wall time of whole processes (median), goal 0.5 s.
   Every figure from a process also gives its CPU time, steadier than wall time on a shared machine.
3. `scicraft-viz serve-mcp`: from starting the process to its answer to `initialize` (median), goal 1 s.
4. The explorer: a plain python process importing `scicraft_viz.views` and creating
   Explorer(task=..., build="solution") (median wall time of the process), goal 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOL = ROOT / "tasks" / "solutions"
L5 = ["A_simultaneous_lights_L5", "B_branch_reach_L5", "C_sequential_activation_L5",
      "D_equal_delay_distribution_L5", "E_pulse_shaping_L5"]


def cli() -> list[str]:
    exe = shutil.which("scicraft-viz")
    return [exe] if exe else [sys.executable, "-m", "scicraft_viz"]


def per_block_evaluate(task, text: str):
    """The evaluator's earlier path: floor and build placed block by block, then evaluated."""
    from scicraft_viz.engine.mcfunction import parse_mcfunction
    from scicraft_viz.errors import PlacementError
    from scicraft_viz.tasks import evaluator as ev

    last: dict = {}
    for pos, state in parse_mcfunction(text):
        last.pop(pos, None)
        last[pos] = state
    w = task.initial_world(replay=False)
    for _, (pos, state) in sorted(enumerate(last.items()), key=ev._order_key):
        try:
            w.set_block(pos, state)
        except PlacementError:
            pass
    return ev.evaluate(task, w)


def rate(fn, seconds: float) -> tuple[float, float]:
    """Calls of fn per second of wall time and per second of this process's CPU time, over about
    `seconds` (after one warm-up call). On a shared machine the CPU figure is the steadier one."""
    fn()
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt, n / (time.process_time() - c0)


def throughput(seconds: float) -> None:
    from scicraft_viz import tasks
    from scicraft_viz.tasks import evaluator as ev

    print("1. L5 evaluations per second in one process (reference builds; goal 1,000/s)")
    print(f"   {'':<32}{'template + bulk':>24}{'per set_block':>24}")
    print(f"   {'task':<32}{'wall':>12}{'CPU':>12}{'wall':>12}{'CPU':>12}{'ratio':>8}")
    for tid in L5:
        task = tasks.load(tid)
        text = (SOL / f"{tid}.mcfunction").read_text()
        batch = [text] * 20
        assert all(r.passed for r in ev.evaluate_many(task, batch))
        fast, fast_cpu = (20 * r for r in rate(lambda: ev.evaluate_many(task, batch), seconds))  # noqa: B023
        slow, slow_cpu = rate(lambda: per_block_evaluate(task, text), seconds / 2)  # noqa: B023
        print(f"   {tid:<32}{fast:>10.0f}/s{fast_cpu:>10.0f}/s{slow:>10.0f}/s{slow_cpu:>10.0f}/s"
              f"{fast_cpu / slow_cpu:>7.1f}x   {'meets' if fast >= 1000 else 'below'} the goal")


def mixed(seconds: float) -> None:
    """Evaluations per second over many different L5 builds: each reference build and single-fault
    mutants of it (bench_diagnose's faults), most of which fail; text read, placed and judged each time."""
    import random

    from bench_diagnose import mutants

    from scicraft_viz import tasks
    from scicraft_viz.engine.mcfunction import parse_mcfunction, to_mcfunction
    from scicraft_viz.tasks import evaluator as ev

    rng = random.Random(0)
    work = []
    for tid in L5:
        task = tasks.load(tid)
        text = (SOL / f"{tid}.mcfunction").read_text()
        work.append((task, text))
        for found in mutants(dict(parse_mcfunction(text)), task).values():
            work += [(task, to_mcfunction(b)) for b, _ in rng.sample(found, min(8, len(found)))]
    verdicts = [ev.evaluate(t, b).passed for t, b in work]

    def all_builds() -> None:
        for t, b in work:
            ev.evaluate(t, b)

    wall, cpu = rate(all_builds, seconds)
    print(f"   mixed: {len(work)} different L5 builds ({sum(verdicts)} pass, {len(work) - sum(verdicts)} fail): "
          f"{wall * len(work):.0f}/s wall, {cpu * len(work):.0f}/s CPU   "
          f"{'meets' if wall * len(work) >= 1000 else 'below'} the goal")


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def median_wall(cmd: list[str], runs: int, **kw) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of whole processes running cmd."""
    times, cpus = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), child_cpu()
        subprocess.run(cmd, capture_output=True, check=False, cwd=ROOT, **kw)
        times.append(time.perf_counter() - t0)
        cpus.append(child_cpu() - c0)
    return statistics.median(times), statistics.median(cpus)


def cold_evaluate(runs: int) -> None:
    tid = "A_simultaneous_lights_L1"
    cmd = cli() + ["evaluate", tid, str(SOL / f"{tid}.mcfunction")]
    subprocess.run(cmd, capture_output=True, cwd=ROOT)  # compiled-kernel cache and file cache warm
    t, c = median_wall(cmd, runs)
    t5, c5 = median_wall(cli() + ["evaluate", L5[0], str(SOL / f"{L5[0]}.mcfunction")], runs)
    print(f"2. cold `scicraft-viz evaluate` (median of {runs} processes): {tid} {t:.2f} s (CPU {c:.2f} s), "
          f"{L5[0]} {t5:.2f} s (CPU {c5:.2f} s)   goal 0.5 s: {'met' if max(t, t5) < 0.5 else 'not met'}")


def mcp_initialize(runs: int) -> None:
    req = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "bench_eval", "version": "0"}}}
    times, cpus = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs + 1):
            cmd = cli() + ["serve-mcp", "--task", "A_simultaneous_lights_L1", "--trajectory", str(Path(tmp) / f"{i}")]
            t0, c0 = time.perf_counter(), child_cpu()
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 cwd=ROOT, text=True)
            p.stdin.write(json.dumps(req) + "\n")
            p.stdin.flush()
            line = p.stdout.readline()
            dt = time.perf_counter() - t0
            p.stdin.close()
            err = p.stderr.read()
            p.wait(timeout=30)
            if '"result"' not in line:
                print(f"3. MCP server: no answer to initialize: {(line or err).strip()[-300:]}")
                return
            if i:  # the first run warms the caches
                times.append(dt)
                cpus.append(child_cpu() - c0)
    t = statistics.median(times)
    print(f"3. MCP server answers `initialize` (median of {runs} processes): {t:.2f} s (CPU of the whole "
          f"process, answer and exit: {statistics.median(cpus):.2f} s)   goal 1 s: {'met' if t < 1 else 'not met'}")


def explorer_open(runs: int) -> None:
    code = ("from scicraft_viz.views import Explorer\n"
            "Explorer(task='C_sequential_activation_L3', build='solution')\n")
    cmd = [sys.executable, "-c", code]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(cmd, capture_output=True, cwd=ROOT, env=env)
    t, c = median_wall(cmd, runs, env=env)
    print(f"4. explorer imports + first open, whole process (median of {runs}): {t:.2f} s (CPU {c:.2f} s)"
          f"   goal 2 s: {'met' if t < 2 else 'not met'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--only", choices=["throughput", "cold", "mcp", "explorer"], help="one measurement")
    a = ap.parse_args()
    runs = 3 if a.quick else 7
    steps = {"throughput": lambda: (throughput(0.5 if a.quick else 2.0), mixed(1.0 if a.quick else 4.0)),
             "cold": lambda: cold_evaluate(runs),
             "mcp": lambda: mcp_initialize(runs), "explorer": lambda: explorer_open(runs)}
    # wall figures stretch with other work on the machine; the CPU figures much less
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start")
    for name, step in steps.items():
        if a.only in (None, name):
            step()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
