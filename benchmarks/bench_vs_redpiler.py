"""This engine against MCHPRS's redpiler on the five 64-lamp reference solutions, in one interleaved run.

Each round runs, device by device, this checkout, optionally an older commit of this project (`--base REV`,
exported with `git archive`, its numba cache kept under the output directory), and the MCHPRS bench binary
in its modes rp-oi (redpiler -O with io-only flushing) and rp-o (redpiler -O). Every run is a fresh process
timing 10^6 game ticks of `use(button); step(30)` after 50 warm-up presses: this engine through the shared
harness's project_bench.py, MCHPRS through its bench binary (see /work/shared/peers/mchprs/README.md for
how it is built). Engines alternate inside each round, so on a loaded machine the ratios stay fair even
when the figures drop. Prints best and median game ticks per second per device and engine, and the ratio
of this checkout's figure to rp-oi's and rp-o's (best/best, median/median), with the load average before and
after. Figures are printed, never asserted.

usage: python benchmarks/bench_vs_redpiler.py [--rounds 5] [--gt 1000000] [--base REV]
           [--only ABCDE] [--mchprs /tmp/mchprs/ws/target/release/mchprs_bench] [--harness /work/shared/peers/mchprs]
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["A_simultaneous_lights_L5", "B_branch_reach_L5", "C_sequential_activation_L5",
         "D_equal_delay_distribution_L5", "E_pulse_shaping_L5"]
PERIOD = 30


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def cpu_seconds(cmd: list[str]) -> float:
    """The CPU time (user + system) the command's process used, or exit naming it if it failed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # children run one at a time: the difference is this one
    if out.returncode:
        sys.exit(f"benchmark run failed: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def gt_per_s(cmd: list[str], env: dict | None = None, field: str = "gt_per_s") -> float:
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    m = re.search(rf"\b{field}=(\d+)", out.stdout)
    if out.returncode or not m:
        sys.exit(f"benchmark run failed: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
    return float(m[1])


def child(path: str, task_name: str, total: int) -> None:
    """This engine's side with CPU time: the shared harness's bench mode (world built as the evaluator
    builds it, settled, 50 warm-up presses, then use(button); step(30)), timed by wall clock and by the
    CPU time of this process."""
    import time

    from scicraft_viz import evaluator, tasks

    task = tasks.load(task_name)
    w = evaluator.build_world(task, Path(path).read_text(), path, [])
    w.log_events = False
    (button,) = [p for p, s in w.blocks().items() if s.startswith("minecraft:stone_button")]
    w.step(task.settle_game_ticks)
    presses = total // PERIOD
    for _ in range(50):
        w.use(button)
        w.step(PERIOD)
    t, c = time.perf_counter(), time.process_time()
    for _ in range(presses):
        w.use(button)
        w.step(PERIOD)
    el, cpu = time.perf_counter() - t, time.process_time() - c
    print(f"gt_per_s={presses * PERIOD / el:.0f} cpu_gt_per_s={presses * PERIOD / cpu:.0f}")


def ratio(ours: list[float], other: list[float]) -> str:
    """best / best and median / median."""
    return f"{max(ours) / max(other):.2f}x, {statistics.median(ours) / statistics.median(other):.2f}x"


def export(rev: str, into: Path) -> Path:
    """This repository at `rev`, as plain files (no worktree), reused if already exported."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"], capture_output=True,
                         text=True, check=True).stdout.strip()
    path = into / f"base-{sha[:12]}"
    if not path.exists():
        tmp = into / f".partial-{sha[:12]}"
        tmp.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", sha], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        tmp.rename(path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--gt", type=int, default=1_000_000, help="game ticks timed per run")
    ap.add_argument("--base", help="an older commit of this project to run alongside (A/B)")
    ap.add_argument("--mchprs", default=os.environ.get("MCHPRS_BENCH", "/tmp/mchprs/ws/target/release/mchprs_bench"))
    ap.add_argument("--harness", default="/work/shared/peers/mchprs", help="holds project_bench.py")
    ap.add_argument("--work", default="/tmp/bench_vs_redpiler", help="where --base is exported")
    ap.add_argument("--only", default="ABCDE", help="the devices to run, by letter (default ABCDE)")
    ap.add_argument("--cpu", action="store_true",
                    help="game ticks per CPU second instead of per second: this engine's timed loop by the CPU "
                         "time of its process, MCHPRS's whole process less that of a 30 gt run (its set-up)")
    ap.add_argument("--child", nargs=3, metavar=("FILE", "TASK", "GT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], a.child[1], int(a.child[2]))
        return
    names = [n for n in NAMES if n[0] in a.only.upper()]
    if not names:
        sys.exit(f"--only {a.only!r} names none of the devices A-E")
    for what, p in (("MCHPRS bench binary", a.mchprs), ("project_bench.py", Path(a.harness) / "project_bench.py")):
        if not Path(p).exists():
            sys.exit(f"{what} not found at {p} (see /work/shared/peers/mchprs/README.md)")
    engines: dict[str, Path] = {"ours": ROOT}
    if a.base:
        engines["base"] = export(a.base, Path(a.work))
    solutions = ROOT / "tasks" / "solutions"
    bench = str(Path(a.harness) / "project_bench.py")
    for path in engines.values():  # fill each checkout's numba cache outside the timed runs
        env = {**os.environ, "PYTHONPATH": str(path)}
        gt_per_s([sys.executable, bench, str(solutions / f"{NAMES[0]}.mcfunction"), NAMES[0], "bench", "3000",
                  str(PERIOD)], env)
    rows: dict[tuple[str, str], list[float]] = {}
    start = load()
    for r in range(a.rounds):
        for name in names:
            f = str(solutions / f"{name}.mcfunction")
            for eng, path in engines.items():
                env = {**os.environ, "PYTHONPATH": str(path)}
                if a.cpu:
                    cmd = [sys.executable, __file__, "--child", f, name, str(a.gt)]
                    rows.setdefault((name, eng), []).append(gt_per_s(cmd, env, "cpu_gt_per_s"))
                else:
                    cmd = [sys.executable, bench, f, name, "bench", str(a.gt), str(PERIOD)]
                    rows.setdefault((name, eng), []).append(gt_per_s(cmd, env))
            for mode in ("rp-oi", "rp-o"):
                cmd = [a.mchprs, f, mode, "bench", str(a.gt), str(PERIOD)]
                if a.cpu:
                    cpu = cpu_seconds(cmd)
                    setup = cpu_seconds([a.mchprs, f, mode, "bench", str(PERIOD), str(PERIOD)])
                    rows.setdefault((name, mode), []).append((a.gt // PERIOD * PERIOD) / max(cpu - setup, 1e-6))
                else:
                    rows.setdefault((name, mode), []).append(gt_per_s(cmd))
        print(f"round {r + 1}/{a.rounds} done, load {load()}", file=sys.stderr)
    cols = list(engines) + ["rp-oi", "rp-o"]

    def m(v: float) -> str:
        return f"{v / 1e6:.2f}M"

    unit = "CPU second" if a.cpu else "second"
    print(f"game ticks per {unit}, best / median of {a.rounds} runs of {a.gt:,} gt (button every {PERIOD} gt); "
          f"load average {start} before, {load()} after")
    if a.base:
        print(f"base = {a.base} ({engines['base'].name})")
    print("| device | " + " | ".join(cols) + " | ours/rp-oi best, median | ours/rp-o best, median |"
          + (" ours/base best, median |" if a.base else ""))
    print("|---" * (len(cols) + 3 + bool(a.base)) + "|")
    for name in names:
        cells = [f"{m(max(rows[name, c]))} / {m(statistics.median(rows[name, c]))}" for c in cols]
        extra = [ratio(rows[name, "ours"], rows[name, c]) for c in ("rp-oi", "rp-o")]
        if a.base:
            extra.append(ratio(rows[name, "ours"], rows[name, "base"]))
        print(f"| {name[:1]} | " + " | ".join(cells + extra) + " |")


if __name__ == "__main__":
    main()
