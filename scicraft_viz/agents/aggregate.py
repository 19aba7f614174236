"""Many trajectories at once: success rate per family and level, failure modes, trials used.

    >>> from scicraft_viz import aggregate
    >>> runs = aggregate.summarize(aggregate.load_many("trajectories"))
    >>> [(r["family"], r["level"], r["runs"], r["passed"]) for r in aggregate.by_family_level(runs)]
    [('A', 'L3', 1, 0), ('A', 'L4', 4, 3), ('A', 'custom', 1, 1)]
    >>> figs = aggregate.figures(runs)      # plotly: success, modes, trials

A failed (or never submitted) run is replayed to its last world and diagnosed, so its failure
modes come from the circuit the agent actually left, not from labels in the file.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scicraft_viz.agents.trajectory import Trajectory, read

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

    def to_dict(self) -> dict:
        return asdict(self)


def _paths(items) -> list[Path]:
    if isinstance(items, (str, os.PathLike)):
        items = [items]
    out: list[Path] = []
    for it in items:
        p = Path(it)
        out += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    return out


def load_many(paths, progress: bool = True) -> list[Trajectory]:
    """Read every trajectory (files, or directories of *.jsonl) with a progress bar."""
    from tqdm.auto import tqdm

    files = _paths(paths)
    return [read(p) for p in tqdm(files, desc="reading trajectories", unit="file", disable=not progress)]


def summarize_run(traj: Trajectory, diagnose_failures: bool = True, check_replay: bool = False) -> RunSummary:
    """One run's numbers; a failed run is replayed and its last world diagnosed."""
    family = level = None
    task = None
    problems = [str(p) for p in traj.problems]
    if traj.header is not None:
        try:
            task = traj.task()
            family, level = task.family, task.level
        except Exception as e:  # reported with the run, never raised
            problems.append(f"{traj.source}: task cannot be loaded: {str(e).splitlines()[0][:200]}")
    final = traj.final
    s = RunSummary(
        source=traj.source, task_id=traj.task_id, family=family, level=level,
        actor_kind=traj.actor.get("kind"), actor_name=traj.actor.get("name"), condition=traj.condition,
        run_id=traj.header.get("run_id") if traj.header else None, steps=len(traj.steps),
        trials_used=traj.trials_used, budget=traj.budget, submitted=final is not None, passed=traj.passed,
        rejected=sum(1 for st in traj.steps if not st.ok), problems=problems)
    if task is not None and (check_replay or (diagnose_failures and not s.passed)):
        from scicraft_viz.agents.replay import Replay

        rp = Replay(traj, task)
        s.replay_matches = rp.matches
        world = rp.final_world()
        if diagnose_failures and not s.passed and world is not None:
            from scicraft_viz.diagnose import diagnose

            d = diagnose(world, task)
            s.failure_modes = d.modes()
            s.primary_mode = d.primary
    return s


def summarize(trajs, diagnose_failures: bool = True, progress: bool = True,
              check_replay: bool = False) -> list[RunSummary]:
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
