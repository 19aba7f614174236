"""Many trajectories at once: success rate per family and level, failure modes, trials used.

    >>> from scicraft_viz import aggregate
    >>> runs = aggregate.summarize(aggregate.load_many("trajectories"))
    >>> [(r["family"], r["level"], r["runs"], r["passed"]) for r in aggregate.by_family_level(runs)]
    [('A', 'L3', 1, 0), ('A', 'L4', 4, 3), ('A', 'custom', 1, 1)]
    >>> figs = aggregate.figures(runs)      # plotly: success, modes, trials

Every run is replayed: whether it passed comes from the replay's own evaluation of its submit, and
a failed (or never submitted) run's last world is diagnosed, so its failure modes come from the
circuit the agent actually left, not from labels in the file. A run whose record disagrees with
its replay is never counted as passed (`replay_matches` is False and a problem names the step).
Files are read as the report reads them (regular files within its size limit; links inside a
directory are not followed); `scicraft_viz.experiments.report` has the paper's tables.
"""

from __future__ import annotations

import io
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scicraft_viz.env.trajectory import Problem, Trajectory, parse_lines

LEVEL_ORDER = ("L1", "L2", "L3", "L4", "L5", "custom")


@dataclass
class RunSummary:
    source: str
    task_id: str | None
    family: str | None
    level: str | None
    actor_kind: str | None
    actor_name: str | None
    condition: str
    run_id: str | None
    steps: int
    trials_used: int
    budget: int | None
    submitted: bool
    passed: bool | None
    rejected: int
    failure_modes: list[str] = field(default_factory=list)
    primary_mode: str | None = None
    problems: list[str] = field(default_factory=list)
    replay_matches: bool | None = None
    setting: str = "independent"
    consolidation: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _paths(items) -> list[tuple[Path, bool]]:
    """(path, named): the files named, and the *.jsonl directly in each directory named."""
    if isinstance(items, (str, os.PathLike)):
        items = [items]
    out: list[tuple[Path, bool]] = []
    for it in items:
        p = Path(it)
        out += [(q, False) for q in sorted(p.glob("*.jsonl"))] if p.is_dir() else [(p, True)]
    return out


def read_safely(path: str | os.PathLike, follow: bool = True) -> Trajectory:
    """A trajectory read as the report reads one: only a regular file within the report's size limit,
    opened so that a FIFO or device never blocks (a link followed only if `follow`). Never raises."""
    from scicraft_viz.experiments.report import Refused, read_run_bytes

    src = str(path)
    try:
        data = read_run_bytes(path, follow=follow)
    except Refused as e:
        return Trajectory(src, None, problems=[Problem(src, None, str(e))])
    return parse_lines(io.BytesIO(data), src)


def load_many(paths, progress: bool = True) -> list[Trajectory]:
    """Read every trajectory (files, or directories of *.jsonl) with a progress bar."""
    from tqdm.auto import tqdm

    files = _paths(paths)
    return [read_safely(p, follow=named)
            for p, named in tqdm(files, desc="reading trajectories", unit="file", disable=not progress)]


def summarize_run(traj: Trajectory, diagnose_failures: bool = True, check_replay: bool = True) -> RunSummary:
    """One run's numbers from its replay (every run is replayed; `check_replay` is kept for old callers);
    a failed run's last world is diagnosed."""
    family = level = None
    task = None
    problems = [str(p) for p in traj.problems]
    if traj.header is not None:
        try:
            task = traj.task()
            family, level = task.family, task.level
        except Exception as e:  # reported with the run, never raised
            problems.append(f"{traj.source}: task cannot be loaded: {str(e).splitlines()[0][:200]}")
    s = RunSummary(
        source=traj.source, task_id=traj.task_id, family=family, level=level,
        actor_kind=traj.actor.get("kind"), actor_name=traj.actor.get("name"), condition=traj.condition,
        run_id=traj.header.get("run_id") if traj.header else None, steps=len(traj.steps),
        trials_used=traj.trials_used, budget=traj.budget, submitted=traj.final is not None, passed=None,
        rejected=sum(1 for st in traj.steps if not st.ok), problems=problems, setting=traj.setting,
        consolidation=traj.consolidation)
    if task is None:
        return s
    from scicraft_viz.env.replay import Replay

    try:
        rp = Replay(traj, task)
    except Exception as e:  # never raised: the run is summarised with the problem
        s.problems.append(f"{traj.source}: cannot replay: {type(e).__name__}: {str(e)[:200]}")
        return s
    s.replay_matches = rp.matches
    if rp.env is not None:
        s.trials_used = rp.env.trials_used
        s.submitted = rp.env.submitted is not None
        if s.submitted:
            s.passed = bool(rp.env.submitted.get("passed")) and rp.matches
    first = rp.mismatches[:1]
    if first:
        m = first[0]
        s.problems.append(f"{traj.source}:{m.line}: step {m.index} ({m.tool}) differs from its replay: {m.mismatch}")
    world = rp.final_world()
    if diagnose_failures and not s.passed and world is not None:
        from scicraft_viz.diagnose import diagnose

        try:
            d = diagnose(world, task)
            s.failure_modes = d.modes()
            s.primary_mode = d.primary
        except Exception as e:  # a diagnosis that breaks is reported with the run
            s.problems.append(f"{traj.source}: the diagnosis failed: {type(e).__name__}: {str(e)[:200]}")
    return s


def summarize(trajs, diagnose_failures: bool = True, progress: bool = True,
              check_replay: bool = True) -> list[RunSummary]:
    from tqdm.auto import tqdm

    trajs = list(trajs)
    return [summarize_run(t, diagnose_failures, check_replay)
            for t in tqdm(trajs, desc="summarizing runs", unit="run", disable=not progress)]


def _level_key(level: str | None) -> int:
    return LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)


def by_family_level(runs: list[RunSummary]) -> list[dict]:
    """Per (family, level): runs, submitted, passed, success rate (passed / runs), trials used."""
    groups: dict[tuple, list[RunSummary]] = {}
    for r in runs:
        groups.setdefault((r.family or "?", r.level or "?"), []).append(r)
    rows = []
    # runs whose task is unknown ("?") go last
    for (fam, lvl), rs in sorted(groups.items(), key=lambda kv: (kv[0][0] == "?", kv[0][0], _level_key(kv[0][1]))):
        trials = sorted(r.trials_used for r in rs)
        passed = sum(1 for r in rs if r.passed)
        rows.append({"family": fam, "level": lvl, "runs": len(rs), "submitted": sum(r.submitted for r in rs),
                     "passed": passed, "success_rate": passed / len(rs),
                     "mean_trials": sum(trials) / len(trials), "max_trials": trials[-1]})
    return rows


def failure_modes(runs: list[RunSummary], primary_only: bool = False) -> Counter:
    """How many failed runs show each failure mode."""
    c: Counter = Counter()
    for r in runs:
        if primary_only:
            if r.primary_mode:
                c[r.primary_mode] += 1
        else:
            c.update(set(r.failure_modes))
    return c


def table(runs: list[RunSummary]) -> str:
    """A plain-text summary table."""
    rows = by_family_level(runs)
    out = [f"{'family':<7}{'level':<8}{'runs':>5}{'passed':>8}{'success':>9}{'trials':>8}"]
    for r in rows:
        out.append(f"{r['family']:<7}{r['level']:<8}{r['runs']:>5}{r['passed']:>8}{r['success_rate']:>9.0%}"
                   f"{r['mean_trials']:>8.1f}")
    modes = failure_modes(runs)
    if modes:
        out.append("failure modes: " + ", ".join(f"{m} {n}" for m, n in modes.most_common()))
    return "\n".join(out)


def figures(runs: list[RunSummary]) -> dict:
    """Plotly figures: 'success' (success rate per family and level), 'modes' (failure modes by
    taxonomy category), 'trials' (verification trials used per run, by family)."""
    try:
        import plotly.graph_objects as go
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("the charts need plotly: pip install plotly") from None
    from scicraft_viz.diagnose import CATEGORIES, REGISTRY

    rows = by_family_level(runs)
    fams = sorted({r["family"] for r in rows})
    lvls = sorted({r["level"] for r in rows}, key=_level_key)
    z = [[None for _ in lvls] for _ in fams]
    text = [["" for _ in lvls] for _ in fams]
    for r in rows:
        i, j = fams.index(r["family"]), lvls.index(r["level"])
        z[i][j] = round(100 * r["success_rate"], 1)
        text[i][j] = f"{r['passed']}/{r['runs']}"
    success = go.Figure(go.Heatmap(z=z, x=lvls, y=fams, text=text, texttemplate="%{text}", zmin=0, zmax=100,
                                   colorscale="Blues", colorbar={"title": "success %"}))
    success.update_layout(title="Success rate per family and level", xaxis_title="level", yaxis_title="family")

    counts = failure_modes(runs)
    names = sorted(counts, key=lambda m: (REGISTRY[m].category if m in REGISTRY else 9, m))
    colors = {1: "#d62728", 2: "#ff7f0e", 3: "#9467bd", 4: "#1c7ed6", 0: "#7f7f7f"}
    cats = [REGISTRY[m].category if m in REGISTRY else 0 for m in names]
    modes = go.Figure(go.Bar(x=[REGISTRY[m].title if m in REGISTRY else m for m in names],
                             y=[counts[m] for m in names], marker_color=[colors[c] for c in cats],
                             hovertext=[CATEGORIES[c] for c in cats]))
    modes.update_layout(title="Failure modes found in failed runs", yaxis_title="runs")

    trials = go.Figure()
    for fam in fams:
        trials.add_trace(go.Box(y=[r.trials_used for r in runs if (r.family or "?") == fam], name=fam,
                                boxpoints="all"))
    trials.update_layout(title="Verification trials used per run", yaxis_title="trials", xaxis_title="family")
    return {"success": success, "modes": modes, "trials": trials}
