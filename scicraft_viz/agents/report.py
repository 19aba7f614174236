"""The paper's result tables from a directory of runs, as one static HTML page.

    scicraft-viz report runs/ --out report.html

    >>> from scicraft_viz.agents import report
    >>> runs = report.load_runs("trajectories", progress=False)
    >>> tables = report.tables(runs)                 # name -> (columns, rows)
    >>> sorted(tables)[:3]
    ['hint_gain', 'partial_credit', 'refusals']

Every run is a trajectory file; each is replayed (so the numbers come from what the environment did,
not from labels in the file) and reduced to one `RunRecord`. The tables:

- `success`: success rate (%) per model x condition x level, one column per family and their Avg
  (the paper's Tables 7-10); a run succeeds when its submit passed.
- `hint_gain`: per model, baseline and hint success over all their runs, the gain (hint - baseline,
  points) and its ratio to the baseline (Table 1's delta and r).
- `repeats`: per model x condition, the success rate of each repeat (the k-th run of every task)
  and their mean +- sample standard deviation.
- `trials`: verification trials used per run, and trials to the first success (the first trial
  whose recording shows all N lamps meeting the contract; runs with none are left out of that mean).
- `tokens`: tokens per attempt (input, output, total; the paper's Tokens/Attempt) and model latency,
  over the runs whose producer recorded usage.
- `validity`: per model x tool, calls and the share the environment accepted (the validity rate of
  BesiegeField-style benchmarks); `refusals`: refused calls by cause.
- `partial_credit`: lamps meeting their windows / N at submit, per model x condition x family.
"""

from __future__ import annotations

import html
import math
import os
import re
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from scicraft_viz.agents.trajectory import TOOLS, read

FAMILY_ORDER = ("A", "B", "C", "D", "E")
LEVEL_ORDER = ("L1", "L2", "L3", "L4", "L5", "custom")
CONDITION_ORDER = ("baseline", "hint")
# Refusal causes, first match wins; the patterns follow the environment's own error sentences.
CAUSES = (
    ("outside region", r"outside the build region|does not overlap the build region"),
    ("not in palette", r"is not in this task's palette"),
    ("powered placement", r"cannot be placed with powered=true"),
    ("bad block state", r"block state|unknown block|property|cannot read block"),
    ("bad arguments", r"must be|missing argument|unexpected argument|go together|not both|cannot be written"),
    ("trial budget spent", r"no verification trial left"),
    ("button missing or extra", r"no stone button|stone buttons at|still pressed"),
    ("after submit", r"the episode is over"),
    ("episode stopped", r"the episode is stopped"),
    ("other", r"."),
)


@dataclass
class RunRecord:
    """One run reduced to what the tables need."""

    source: str
    task_id: str | None
    family: str | None
    level: str | None
    model: str
    condition: str
    run_id: str | None
    started: str | None
    submitted: bool
    passed: bool
    trials_used: int
    first_success_trial: int | None
    partial_credit: float | None
    input_tokens: int
    output_tokens: int
    latency_s: float
    turns_with_usage: int
    calls: dict[str, int] = field(default_factory=dict)
    valid: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    repeat: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def lamps_meeting(task, measured: dict) -> int:
    """How many lamps meet their own window in a trial's measurement (times in task units after the
    press). Simultaneity families: the most lamps lit within one tolerance window of each other.
    Sequential: the first lamp to light, then every lamp that lit its delay (+- tolerance) after the
    previous one. Pulse: lamps on within the on-window and off within tau +- tolerance."""
    c = task.contract
    tol = c.get("tolerance_ticks", 1)
    lamps = measured.get("lamps") or []
    ons = sorted(x["on"] for x in lamps if x.get("on") is not None)
    if not ons:
        return 0
    kind = task.contract_type
    if kind == "sequential":
        delays = c["delays_ticks"]
        n = 1
        for i, (a, b) in enumerate(zip(ons, ons[1:])):
            if i < len(delays) and abs(b - a - delays[i]) <= tol:
                n += 1
        return n
    if kind == "pulse":
        tau, win = c["tau_ticks"], c["on_window_ticks"]
        return sum(1 for x in lamps if x.get("on") is not None and 0 <= x["on"] <= win and x.get("off") is not None
                   and tau - tol <= x["off"] <= tau + tol)
    return max(sum(1 for t in ons if t0 <= t <= t0 + tol) for t0 in ons)


def refusal_cause(error: str) -> str:
    return next((name for name, pattern in CAUSES if re.search(pattern, error)), "other")


def run_record(path: str | os.PathLike) -> RunRecord:
    """Read and replay one trajectory. Never raises: problems are listed on the record."""
    from scicraft_viz.agents.replay import Replay

    t = read(path)
    h = t.header or {}
    task = None
    problems = [str(p) for p in t.problems]
    try:
        task = t.task() if t.header else None
    except Exception as e:  # an unknown task is reported with the run
        problems.append(f"{t.source}: task cannot be loaded: {str(e).splitlines()[0][:200]}")
    first = None
    if task is not None:
        rp = Replay(t, task)
        # a success observes all N lamps meeting the contract (a trial with lamps missing can meet it on the rest)
        first = next((tv.number for tv in rp.trials if tv.passed and len(tv.lamps) == task.n), None)
        if not rp.matches:
            problems += [f"{t.source}: the replay differs from the record at step {s.index}" for s in
                         rp.mismatches[:1]]
    final = t.final
    credit = None
    if final is not None and task is not None:
        credit = lamps_meeting(task, final.result.get("measured") or {}) / task.n
    calls: dict[str, int] = defaultdict(int)
    valid: dict[str, int] = defaultdict(int)
    refusals: dict[str, int] = defaultdict(int)
    for s in t.steps:
        calls[s.tool] += 1
        if s.ok:
            valid[s.tool] += 1
        else:
            refusals[refusal_cause(str(s.result.get("error", "")))] += 1
    u = t.usage_totals()
    return RunRecord(
        source=t.source, task_id=t.task_id, family=task.family if task else None, level=task.level if task else None,
        model=t.actor.get("name") or t.actor.get("kind") or "?", condition=t.condition, run_id=h.get("run_id"),
        started=h.get("started"), submitted=final is not None, passed=bool(t.passed), trials_used=t.trials_used,
        first_success_trial=first, partial_credit=credit, input_tokens=u["input_tokens"],
        output_tokens=u["output_tokens"], latency_s=u["latency_s"], turns_with_usage=u["turns"], calls=dict(calls),
        valid=dict(valid), refusals=dict(refusals), problems=problems)


def _paths(runs_dir) -> list[Path]:
    p = Path(runs_dir)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise ValueError(f"{runs_dir} is neither a directory of runs nor a trajectory file")
    return sorted(p.rglob("*.jsonl"))


def load_runs(runs_dir, *, progress: bool = True, jobs: int = 1) -> list[RunRecord]:
    """Every *.jsonl under `runs_dir` (recursively) as a RunRecord, with a progress bar; `jobs` > 1
    spreads the replays over local worker processes (scicraft_viz.tasks.batch). Repeats are
    numbered per model x condition x task in start-time order."""
    from tqdm.auto import tqdm

    from scicraft_viz.tasks.batch import map as batch_map

    paths = _paths(runs_dir)
    runs = list(tqdm(batch_map(run_record, [str(p) for p in paths], jobs=jobs), total=len(paths),
                     desc="reading runs", unit="run", disable=not progress))
    seen: dict[tuple, int] = defaultdict(int)
    for r in sorted(runs, key=lambda r: (r.started or "", r.run_id or "", r.source)):
        key = (r.model, r.condition, r.task_id)
        r.repeat = seen[key]
        seen[key] += 1
    return runs


# ---------------------------------------------------------------------------------------- tables
def _pct(k: int, n: int) -> float | None:
    return None if n == 0 else round(100.0 * k / n, 1)


def _order(values, order) -> list:
    return sorted(set(values), key=lambda v: (order.index(v) if v in order else len(order), str(v)))


def _mean(xs) -> float | None:
    xs = list(xs)
    return round(sum(xs) / len(xs), 2) if xs else None


def _cells(runs: list[RunRecord], models: list[str], conds: list[str]):
    """(model, condition, its runs) for every model x condition that has runs, in table order."""
    for m in models:
        for c in conds:
            mine = [r for r in runs if r.model == m and r.condition == c]
            if mine:
                yield m, c, mine


def tables(runs: list[RunRecord]) -> dict[str, tuple[list[str], list[list]]]:
    """name -> (columns, rows) for every table of the report."""
    runs = [r for r in runs if r.family is not None]
    models = _order([r.model for r in runs], ())
    conds = _order([r.condition for r in runs], CONDITION_ORDER)
    fams = _order([*FAMILY_ORDER, *(r.family for r in runs)], FAMILY_ORDER)  # the paper's five, always
    out: dict[str, tuple[list[str], list[list]]] = {}

    rows = []
    for m, c, mine in _cells(runs, models, conds):
        for lvl in _order([r.level for r in mine], LEVEL_ORDER):
            row: list[Any] = [m, c, lvl]
            cells = []
            for f in fams:
                g = [r for r in mine if r.level == lvl and r.family == f]
                if g:
                    cells.append(100.0 * sum(r.passed for r in g) / len(g))
                row.append(round(cells[-1], 1) if g else None)
            row.append(round(sum(cells) / len(cells), 1) if cells else None)  # over the families run
            rows.append(row)
    out["success"] = (["model", "condition", "level", *fams, "Avg"], rows)

    rows = []
    for m in models:
        base = [r for r in runs if r.model == m and r.condition == "baseline"]
        hint = [r for r in runs if r.model == m and r.condition == "hint"]
        b, h = _pct(sum(r.passed for r in base), len(base)), _pct(sum(r.passed for r in hint), len(hint))
        gain = None if b is None or h is None else round(h - b, 1)
        ratio = None if gain is None or not b else round(gain / b, 2)
        rows.append([m, len(base), b, len(hint), h, gain, ratio])
    out["hint_gain"] = (["model", "baseline runs", "baseline %", "hint runs", "hint %", "gain (points)",
                         "gain / baseline"], rows)

    rows = []
    for m, c, mine in _cells(runs, models, conds):
        per = []
        for k in sorted({r.repeat for r in mine}):
            g = [r for r in mine if r.repeat == k]
            per.append(100.0 * sum(r.passed for r in g) / len(g))
        sd = statistics.stdev(per) if len(per) > 1 else 0.0
        rows.append([m, c, len(per), " ".join(f"{v:.1f}" for v in per), round(statistics.fmean(per), 1),
                     round(sd, 1)])
    out["repeats"] = (["model", "condition", "repeats", "success % per repeat", "mean %", "std %"], rows)

    rows = []
    for m, c, mine in _cells(runs, models, conds):
        firsts = [r.first_success_trial for r in mine if r.first_success_trial is not None]
        rows.append([m, c, len(mine), _mean(r.trials_used for r in mine), max(r.trials_used for r in mine),
                     len(firsts), _mean(firsts)])
    out["trials"] = (["model", "condition", "runs", "mean trials used", "max trials used", "runs with a passing trial",
                      "mean trials to first success"], rows)

    rows = []
    for m in models:
        for c in conds:
            mine = [r for r in runs if r.model == m and r.condition == c and r.turns_with_usage]
            if not mine:
                continue
            rows.append([m, c, len(mine), _mean(r.input_tokens for r in mine), _mean(r.output_tokens for r in mine),
                         _mean(r.input_tokens + r.output_tokens for r in mine),
                         _mean(r.latency_s for r in mine)])
    out["tokens"] = (["model", "condition", "runs with usage", "input tokens / attempt", "output tokens / attempt",
                      "tokens / attempt", "model latency s / attempt"], rows)

    rows = []
    for m in models:
        mine = [r for r in runs if r.model == m]
        for tool in TOOLS:
            n = sum(r.calls.get(tool, 0) for r in mine)
            if n:
                ok = sum(r.valid.get(tool, 0) for r in mine)
                rows.append([m, tool, n, ok, n - ok, round(100.0 * ok / n, 1)])
    out["validity"] = (["model", "tool", "calls", "valid", "refused", "validity %"], rows)

    rows = []
    for m in models:
        counts: dict[str, int] = defaultdict(int)
        for r in runs:
            if r.model == m:
                for k, v in r.refusals.items():
                    counts[k] += v
        total = sum(counts.values())
        for cause, _ in CAUSES:
            if counts.get(cause):
                rows.append([m, cause, counts[cause], round(100.0 * counts[cause] / total, 1)])
    out["refusals"] = (["model", "refusal cause", "refused calls", "share %"], rows)

    rows = []
    for m, c, mine in _cells(runs, models, conds):
        row = [m, c]
        vals = []
        for f in fams:
            g = [r.partial_credit or 0.0 for r in mine if r.family == f]
            if g:
                vals.append(sum(g) / len(g))
            row.append(round(vals[-1], 3) if g else None)
        row.append(round(sum(vals) / len(vals), 3) if vals else None)
        rows.append(row)
    out["partial_credit"] = (["model", "condition", *fams, "Avg"], rows)
    return out


TITLES = {
    "success": "Success rate (%) per model, condition, level and family",
    "hint_gain": "Hint gain (knowledge-identification gap)",
    "repeats": "Success over repeated runs: mean +- standard deviation",
    "trials": "Verification trials used, and trials to the first success",
    "tokens": "Tokens per attempt",
    "validity": "Validity rate per tool (accepted calls / calls)",
    "refusals": "Refused calls by cause",
    "partial_credit": "Partial credit: lamps meeting their windows / N (unsubmitted runs count 0)",
}


def figures(runs: list[RunRecord], tabs: dict | None = None) -> dict:
    """Plotly figures: success per family by model and condition, hint gain, validity per tool."""
    import plotly.graph_objects as go

    tabs = tabs or tables(runs)
    cols, rows = tabs["success"]
    fams = cols[3:-1]
    success = go.Figure()
    groups: dict[tuple, list] = defaultdict(list)
    for row in rows:
        groups[(row[0], row[1])].append(row)
    for (m, c), rs in groups.items():
        ys = []
        for j in range(len(fams)):
            vals = [r[3 + j] for r in rs if r[3 + j] is not None]
            ys.append(sum(vals) / len(vals) if vals else None)
        success.add_trace(go.Bar(name=f"{m} / {c}", x=list(fams), y=ys))
    success.update_layout(title="Success rate per family (mean over levels)", yaxis_title="success %",
                          barmode="group")
    _, grows = tabs["hint_gain"]
    gain = go.Figure([go.Bar(name="baseline", x=[r[0] for r in grows], y=[r[2] for r in grows]),
                      go.Bar(name="hint", x=[r[0] for r in grows], y=[r[4] for r in grows])])
    gain.update_layout(title="Baseline and hint success per model", yaxis_title="success %", barmode="group")
    _, vrows = tabs["validity"]
    validity = go.Figure()
    for m in sorted({r[0] for r in vrows}):
        mine = [r for r in vrows if r[0] == m]
        validity.add_trace(go.Bar(name=m, x=[r[1] for r in mine], y=[r[5] for r in mine]))
    validity.update_layout(title="Validity rate per tool", yaxis_title="accepted %", barmode="group")
    return {"success": success, "hint_gain": gain, "validity": validity}


def _cell(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "<td class='na'>-</td>"
    return f"<td>{html.escape(str(v))}</td>"


def table_html(name: str, cols: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows) or \
        f"<tr><td colspan='{len(cols)}'>no runs</td></tr>"
    return (f"<h2 id='{name}'>{html.escape(TITLES.get(name, name))}</h2>"
            f"<table class='scv' data-table='{name}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def render_html(runs: list[RunRecord], title: str = "SciCrafter runs") -> str:
    """The whole report: tables, charts (plotly.js inlined once, so the page works offline) and the
    runs whose files had problems."""
    import plotly.io as pio

    tabs = tables(runs)
    figs = figures(runs, tabs)
    charts = []
    for i, (name, fig) in enumerate(figs.items()):
        charts.append(pio.to_html(fig, full_html=False, include_plotlyjs=(i == 0), div_id=f"chart-{name}"))
    problems = [p for r in runs for p in r.problems]
    models = sorted({r.model for r in runs})
    summary = (f"{len(runs)} run(s), {len(models)} model(s): {', '.join(html.escape(m) for m in models)}; "
               f"{sum(r.passed for r in runs)} passed")
    prob = ("<h2 id='problems'>Problems in the files</h2><ul>" + "".join(
        f"<li>{html.escape(p)}</li>" for p in problems[:200]) + "</ul>") if problems else ""
    style = ("body{font-family:sans-serif;margin:24px;max-width:1200px}table.scv{border-collapse:collapse;margin:8px 0}"
             "table.scv td,table.scv th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
             "table.scv th{background:#f3f3f3}td.na{color:#aaa}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1><p>{summary}</p>"
            + "".join(table_html(n, *tabs[n]) for n in TITLES) + "".join(charts) + prob + "</body></html>")


def write_report(runs_dir, out: str | os.PathLike, *, progress: bool = True, jobs: int = 1) -> list[RunRecord]:
    runs = load_runs(runs_dir, progress=progress, jobs=jobs)
    if not runs:
        raise ValueError(f"{runs_dir} holds no trajectory (*.jsonl)")
    Path(out).write_text(render_html(runs, f"SciCrafter runs in {runs_dir}"), encoding="utf-8")
    return runs
